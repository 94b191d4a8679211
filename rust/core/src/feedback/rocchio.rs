//! Rocchio pseudo-relevance feedback, as Anserini's `RocchioReranker` (and
//! so as Pyserini's `set_rocchio`).
//!
//! `q' = α·q + β·mean(top documents) − γ·mean(bottom documents)`:
//!
//! 1. The query runs with BM25 to the depth asked (`k`): its best
//!    `top_fb_docs` documents, and with `use_negative` its last
//!    `bottom_fb_docs`, are the feedback documents.
//! 2. A document's vector holds its analyzed terms (re-derived from the
//!    stored text) of 2 to 20 UTF-16 units in at most 10 % of the documents,
//!    with their counts; it is not pruned.
//! 3. A mean vector sums, per term and in float32 document order,
//!    `count / |d|₂` (`|d|₂` in double, rounded to float32) over the
//!    documents whose norm exceeds 0.001, divides by the number of
//!    documents, keeps the `fb_terms` heaviest terms (weight descending,
//!    term ascending) and scales to unit L2 norm.
//! 4. The query's term counts are scaled to unit L2 norm; every term of the
//!    three vectors weighs `α·q + β·top − γ·bottom` in float32, and only the
//!    terms weighing more than 0 are kept.
//! 5. The new query runs with BM25, term weights `boost · idf` in float32.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::feedback::feature_vector::{self as fv, Vector};
use crate::index::Index;
use crate::scoring::Bm25Params;
use crate::search::{self, Algorithm, Feedback, Model, Query, Request};

/// Rocchio parameters, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RocchioParams {
    /// Terms kept from the top documents, ≥ 1.
    pub top_fb_terms: usize,
    /// Top documents, ≥ 1.
    pub top_fb_docs: usize,
    /// Terms kept from the bottom documents, ≥ 1.
    pub bottom_fb_terms: usize,
    /// Bottom documents, ≥ 1.
    pub bottom_fb_docs: usize,
    /// Weight of the original query.
    pub alpha: f32,
    /// Weight of the top documents.
    pub beta: f32,
    /// Weight of the bottom documents.
    pub gamma: f32,
    /// Whether the bottom documents count (negative feedback).
    pub use_negative: bool,
}

impl Default for RocchioParams {
    /// Pyserini's `set_rocchio()` defaults.
    fn default() -> Self {
        RocchioParams {
            top_fb_terms: 10,
            top_fb_docs: 10,
            bottom_fb_terms: 10,
            bottom_fb_docs: 10,
            alpha: 1.0,
            beta: 0.75,
            gamma: 0.0,
            use_negative: false,
        }
    }
}

impl RocchioParams {
    /// Validated parameters: `counts` are `[top_fb_terms, top_fb_docs,
    /// bottom_fb_terms, bottom_fb_docs]`, each ≥ 1; `weights` are `[alpha,
    /// beta, gamma]`, each in [0, 1].
    pub fn new(counts: [i64; 4], weights: [f64; 3], use_negative: bool) -> Result<Self> {
        let [top_fb_terms, top_fb_docs, bottom_fb_terms, bottom_fb_docs] = counts;
        let [alpha, beta, gamma] = weights;
        let count = |name: &str, value: i64| {
            if value <= 0 {
                Err(Error::Query(format!(
                    "{name} must be at least 1 (got {value}); Pyserini's default is 10"
                )))
            } else {
                Ok(value as usize)
            }
        };
        let weight = |name: &str, value: f64| {
            if (0.0..=1.0).contains(&value) {
                Ok(value as f32)
            } else {
                Err(Error::Query(format!(
                    "{name} must be between 0 and 1 (got {value}); Pyserini's defaults are alpha=1, beta=0.75, gamma=0"
                )))
            }
        };
        Ok(RocchioParams {
            top_fb_terms: count("top_fb_terms", top_fb_terms)?,
            top_fb_docs: count("top_fb_docs", top_fb_docs)?,
            bottom_fb_terms: count("bottom_fb_terms", bottom_fb_terms)?,
            bottom_fb_docs: count("bottom_fb_docs", bottom_fb_docs)?,
            alpha: weight("alpha", alpha)?,
            beta: weight("beta", beta)?,
            gamma: weight("gamma", gamma)?,
            use_negative,
        })
    }
}

/// The mean of the vectors of `docs`, pruned to `fb_terms` and L2-scaled.
fn mean_vector(index: &Index, docs: &[u32], fb_terms: usize) -> Result<Vector> {
    let mut vectors = Vec::with_capacity(docs.len());
    for &doc in docs {
        let vector = fv::document_vector(index, doc, false)?;
        let norm = fv::l2_norm(&vector) as f32;
        vectors.push((vector, norm));
    }
    let vocab: BTreeSet<&str> = vectors
        .iter()
        .flat_map(|(v, _)| v.iter().map(|(t, _)| t.as_str()))
        .collect();
    let mut mean: Vector = vocab
        .into_iter()
        .map(|term| {
            let mut sum = 0f32;
            for (vector, norm) in &vectors {
                if *norm > 0.001 {
                    sum += fv::weight(vector, term) / norm;
                }
            }
            (term.to_owned(), sum / vectors.len() as f32)
        })
        .collect();
    fv::prune(&mut mean, fb_terms);
    let norm = fv::l2_norm(&mean);
    fv::scale(&mut mean, norm);
    Ok(mean)
}

/// The Rocchio query of `query`: `(term, boost)` pairs, terms ascending.
///
/// # Errors
/// [`Error::Query`] if the index keeps no document store.
pub fn expanded_query(
    index: &Index,
    query: &str,
    k: usize,
    bm25: &Bm25Params,
    params: &RocchioParams,
    algorithm: Algorithm,
) -> Result<Vec<(String, f32)>> {
    fv::require_store(index, "Rocchio")?;
    let terms = search::query_terms(index, query)?;
    let hits = Request::new(Model::Bm25(*bm25), k)
        .with_algorithm(algorithm)
        .search(index, Query::Terms(&terms))?;
    let ids: Vec<u32> = hits.iter().map(|h| h.doc).collect();
    let top = &ids[..params.top_fb_docs.min(ids.len())];
    let relevant = mean_vector(index, top, params.top_fb_terms)?;
    let nonrelevant = if params.use_negative {
        let bottom: Vec<u32> = ids
            .iter()
            .rev()
            .take(params.bottom_fb_docs)
            .copied()
            .collect();
        mean_vector(index, &bottom, params.bottom_fb_terms)?
    } else {
        Vector::new()
    };
    let mut original = fv::query_vector(index, query)?;
    let norm = fv::l2_norm(&original);
    fv::scale(&mut original, norm);
    let vocab: BTreeSet<&str> = original
        .iter()
        .chain(&relevant)
        .chain(&nonrelevant)
        .map(|(t, _)| t.as_str())
        .collect();
    let (alpha, beta, gamma) = (params.alpha, params.beta, params.gamma);
    Ok(vocab
        .into_iter()
        .filter_map(|term| {
            let w = alpha * fv::weight(&original, term) + beta * fv::weight(&relevant, term)
                - gamma * fv::weight(&nonrelevant, term);
            (w > 0.0).then(|| (term.to_owned(), w))
        })
        .collect())
}

/// Rocchio feedback in a search [`Request`](crate::search::Request).
impl Feedback for RocchioParams {
    fn name(&self) -> &'static str {
        "Rocchio"
    }

    fn check(&self, index: &Index) -> Result<()> {
        fv::require_store(index, self.name())
    }

    /// The Rocchio query (the first stage to depth `k`).
    fn expand(
        &self,
        index: &Index,
        query: &str,
        k: usize,
        bm25: &Bm25Params,
        algorithm: Algorithm,
    ) -> Result<Vec<(String, f32)>> {
        expanded_query(index, query, k, bm25, self, algorithm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_validated() {
        let ok = |t, a| RocchioParams::new([t, 10, 10, 10], [a, 0.75, 0.0], false);
        assert!(ok(10, 1.0).is_ok());
        assert!(ok(0, 1.0).is_err());
        assert!(ok(10, 1.5).is_err());
        assert!(ok(10, f64::NAN).is_err());
        assert_eq!(RocchioParams::default(), ok(10, 1.0).unwrap());
    }
}
