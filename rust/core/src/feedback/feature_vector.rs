//! Anserini's `FeatureVector` operations, shared by the feedback models
//! ([`crate::feedback::rm3`], [`crate::feedback::rocchio`]): weighted terms as float32, pruned
//! by weight descending then term ascending (Java's `String.compareTo`),
//! norms in double, scaled weights rounded to float32.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::index::Index;
use crate::scoring::LengthMode;

/// Weighted terms.
pub type Vector = Vec<(String, f32)>;

/// Java's `String.compareTo`: UTF-16 code units.
fn java_order(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Keeps the `k` heaviest entries (weight descending, term ascending), as
/// `FeatureVector.pruneToSize`.
pub fn prune(vector: &mut Vector, k: usize) {
    vector.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| java_order(&a.0, &b.0)));
    vector.truncate(k);
}

/// The L1 norm in double, as `computeL1Norm`.
pub fn l1_norm(vector: &[(String, f32)]) -> f64 {
    vector.iter().map(|(_, w)| f64::from(w.abs())).sum()
}

/// The L2 norm in double, as `computeL2Norm`.
pub fn l2_norm(vector: &[(String, f32)]) -> f64 {
    vector
        .iter()
        .map(|(_, w)| f64::from(*w).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// Divides every weight by `norm`, rounding to float32 (`scaleToUnitL1Norm`
/// and `scaleToUnitL2Norm`).
pub fn scale(vector: &mut [(String, f32)], norm: f64) {
    for (_, w) in vector.iter_mut() {
        *w = (f64::from(*w) / norm) as f32;
    }
}

/// The weight of `term` in `vector`, 0 if absent.
pub fn weight(vector: &[(String, f32)], term: &str) -> f32 {
    vector
        .iter()
        .find(|(t, _)| t == term)
        .map_or(0.0, |(_, w)| *w)
}

/// Fails unless `index` keeps its documents' text, which `model`'s
/// feedback reads.
pub fn require_store(index: &Index, model: &str) -> Result<()> {
    if index.has_store() {
        return Ok(());
    }
    Err(Error::Query(format!(
        "{model} feedback reads the feedback documents' text, and this index has no document store: rebuild it with store=True (the default)"
    )))
}

/// The query's analyzed terms with their counts (`FeatureVector.fromTerms`).
pub fn query_vector(index: &Index, query: &str) -> Result<Vector> {
    Ok(crate::search::query_terms(index, query)?
        .into_iter()
        .map(|t| (t.term, t.query_tf as f32))
        .collect())
}

/// A stored document's term vector as Anserini reads it from the index:
/// its analyzed terms with their counts, re-derived from the stored text
/// with the index's analyzer, keeping the terms of 2 to 20 UTF-16 units, of
/// `[a-z0-9]` only when `ascii_only`, in at most 10 % of the documents
/// (`df / N` in float32; N is Lucene's docCount, as Anserini indexes no
/// blank document).
pub fn document_vector(index: &Index, doc: u32, ascii_only: bool) -> Result<Vector> {
    let docid = index.docid(doc).expect("hits are live documents");
    let stored = index.stored(docid)?;
    // A Lucene index stores Anserini's raw JSON, not always the contents.
    let text = match (stored.contents.is_empty(), stored.raw.as_deref()) {
        (true, Some(raw)) => crate::lucene::convert::raw_contents(raw).unwrap_or_default(),
        _ => stored.contents,
    };
    let mut counts: BTreeMap<String, u32> = BTreeMap::new();
    index.analyzer().analyze_with(&text, &mut |t| {
        *counts.entry(t.to_owned()).or_insert(0) += 1;
    });
    let num_docs = index.collection_stats(LengthMode::Lucene).num_docs as f32;
    Ok(counts
        .into_iter()
        .filter(|(term, _)| {
            let len = term.encode_utf16().count();
            (2..=20).contains(&len)
                && (!ascii_only
                    || term
                        .bytes()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()))
                && index.df(term) as f32 / num_docs <= 0.1
        })
        .map(|(t, c)| (t, c as f32))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prune_breaks_ties_by_term() {
        let mut v = vec![
            ("b".to_string(), 1.0),
            ("c".to_string(), 2.0),
            ("a".to_string(), 1.0),
        ];
        prune(&mut v, 2);
        assert_eq!(v, vec![("c".to_string(), 2.0), ("a".to_string(), 1.0)]);
    }
}
