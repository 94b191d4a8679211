//! RM3 pseudo-relevance feedback, as Anserini's `Rm3Reranker` (and so as
//! Pyserini's `set_rm3`).
//!
//! 1. The query runs with BM25; its best `min(fb_docs, 50)` documents are
//!    the feedback documents (Anserini reranks a first stage cut at 50).
//! 2. Each feedback document's term vector — its analyzed terms with their
//!    counts, re-derived here from the stored text with the index's
//!    analyzer — keeps terms of 2 to 20 UTF-16 units, made only of `[a-z0-9]`
//!    (when `filter_terms`), in at most 10 % of the documents (`df / N` in
//!    float32, N counting the documents with a term: Anserini indexes no
//!    blank document); then its `fb_terms` heaviest
//!    terms (count descending, term ascending).
//! 3. A term's feedback weight is, in float32 and document order, the sum of
//!    `count / |vector|₁ · score` over the feedback documents whose vector
//!    weighs more than 0.001; the `fb_terms` heaviest are kept and scaled to
//!    unit L1 norm (norm in double, each weight rounded to float32).
//! 4. The query's own term counts, scaled to unit L1 norm, are interpolated:
//!    `(float) (w · q + (1 − w) · rm)` with `w · q` a float32 product.
//! 5. The expanded query runs with BM25, each term weighing `boost · idf`
//!    in float32 (Lucene's `BoostQuery` over a `TermQuery`).

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::feedback::feature_vector::{self as fv, Vector};
use crate::index::Index;
use crate::scoring::Bm25Params;
use crate::search::{self, Algorithm, Feedback, Model, Query, Request, ScoredDoc};

/// Anserini's first-stage depth when reranking (`SearchArgs.rerankcutoff`).
pub const RERANK_CUTOFF: usize = 50;

/// RM3 parameters, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rm3Params {
    /// Expansion terms kept per document and in the model, ≥ 1.
    pub fb_terms: usize,
    /// Feedback documents, ≥ 1.
    pub fb_docs: usize,
    /// Weight of the original query, in [0, 1] (float32, as in Anserini).
    pub original_query_weight: f32,
    /// Keep only `[a-z0-9]+` terms.
    pub filter_terms: bool,
}

impl Default for Rm3Params {
    /// Pyserini's `set_rm3()` defaults.
    fn default() -> Self {
        Rm3Params {
            fb_terms: 10,
            fb_docs: 10,
            original_query_weight: 0.5,
            filter_terms: true,
        }
    }
}

impl Rm3Params {
    /// Validated parameters.
    pub fn new(
        fb_terms: i64,
        fb_docs: i64,
        original_query_weight: f64,
        filter_terms: bool,
    ) -> Result<Self> {
        if fb_terms <= 0 {
            return Err(Error::Query(format!(
                "fb_terms must be at least 1 (got {fb_terms}); Pyserini's default is 10"
            )));
        }
        if fb_docs <= 0 {
            return Err(Error::Query(format!(
                "fb_docs must be at least 1 (got {fb_docs}); Pyserini's default is 10"
            )));
        }
        if !(0.0..=1.0).contains(&original_query_weight) {
            return Err(Error::Query(format!(
                "original_query_weight must be between 0 and 1 (got {original_query_weight}); Pyserini's default is 0.5"
            )));
        }
        Ok(Rm3Params {
            fb_terms: fb_terms as usize,
            fb_docs: fb_docs as usize,
            original_query_weight: original_query_weight as f32,
            filter_terms,
        })
    }
}

/// The relevance model of the feedback documents `hits` (best first).
fn relevance_model(index: &Index, hits: &[ScoredDoc], params: &Rm3Params) -> Result<Vector> {
    let mut vectors = Vec::with_capacity(hits.len());
    for hit in hits {
        let mut vector = fv::document_vector(index, hit.doc, params.filter_terms)?;
        fv::prune(&mut vector, params.fb_terms);
        let norm = fv::l1_norm(&vector) as f32;
        vectors.push((vector, norm, hit.score));
    }
    let vocab: BTreeSet<&str> = vectors
        .iter()
        .flat_map(|(v, _, _)| v.iter().map(|(t, _)| t.as_str()))
        .collect();
    let mut model: Vec<(String, f32)> = vocab
        .into_iter()
        .map(|term| {
            let mut weight = 0f32;
            for (vector, norm, score) in &vectors {
                if *norm > 0.001 {
                    weight += (fv::weight(vector, term) / norm) * score;
                }
            }
            (term.to_owned(), weight)
        })
        .collect();
    fv::prune(&mut model, params.fb_terms);
    let norm = fv::l1_norm(&model);
    fv::scale(&mut model, norm);
    Ok(model)
}

/// The expanded query of `query`: `(term, boost)` pairs, terms in ascending
/// order (the boosts do not depend on the order).
///
/// # Errors
/// [`Error::Query`] if the index keeps no document store.
pub fn expanded_query(
    index: &Index,
    query: &str,
    bm25: &Bm25Params,
    params: &Rm3Params,
    algorithm: Algorithm,
) -> Result<Vec<(String, f32)>> {
    fv::require_store(index, "RM3")?;
    let terms = search::query_terms(index, query)?;
    let depth = params.fb_docs.min(RERANK_CUTOFF);
    let hits = Request::new(Model::Bm25(*bm25), depth)
        .with_algorithm(algorithm)
        .search(index, Query::Terms(&terms))?;
    let model = relevance_model(index, &hits, params)?;
    let mut original: Vector = terms
        .iter()
        .map(|t| (t.term.clone(), t.query_tf as f32))
        .collect();
    let norm = fv::l1_norm(&original);
    fv::scale(&mut original, norm);
    let w = params.original_query_weight;
    let vocab: BTreeSet<&str> = original
        .iter()
        .chain(&model)
        .map(|(t, _)| t.as_str())
        .collect();
    Ok(vocab
        .into_iter()
        .map(|term| {
            let q = w * fv::weight(&original, term);
            let rm = (1.0 - f64::from(w)) * f64::from(fv::weight(&model, term));
            (term.to_owned(), (f64::from(q) + rm) as f32)
        })
        .collect())
}

/// RM3 feedback in a search [`Request`](crate::search::Request).
impl Feedback for Rm3Params {
    fn name(&self) -> &'static str {
        "RM3"
    }

    fn check(&self, index: &Index) -> Result<()> {
        fv::require_store(index, self.name())
    }

    /// The RM3 query (the first stage's depth is `fb_docs`, at most [`RERANK_CUTOFF`]).
    fn expand(
        &self,
        index: &Index,
        query: &str,
        _k: usize,
        bm25: &Bm25Params,
        algorithm: Algorithm,
    ) -> Result<Vec<(String, f32)>> {
        expanded_query(index, query, bm25, self, algorithm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_validated() {
        assert!(Rm3Params::new(10, 10, 0.5, true).is_ok());
        assert!(Rm3Params::new(0, 10, 0.5, true).is_err());
        assert!(Rm3Params::new(10, -1, 0.5, true).is_err());
        assert!(Rm3Params::new(10, 10, 1.5, true).is_err());
        assert!(Rm3Params::new(10, 10, f64::NAN, true).is_err());
    }
}
