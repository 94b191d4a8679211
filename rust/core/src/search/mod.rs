//! Exact top-k retrieval.
//!
//! A query is analyzed with the index's analyzer into distinct terms, each
//! with its query frequency, in first-occurrence order. In every segment,
//! every posting of every query term is scored term-at-a-time into a dense
//! accumulator (deleted documents skipped); the k best documents are then
//! selected under one deterministic rule: **score descending, then docid
//! ascending** (byte-wise). Per-term scores are float32 and are summed in
//! float64 in query-term order, then rounded to float32, as Lucene sums the
//! clauses of a boolean query. Collection statistics are the index's (all
//! segments, live documents), or those a [`Request`] gives (of a
//! collection this index is a shard of). This path is the reference that
//! the pruned algorithms of [`pruned`] reproduce exactly; [`Algorithm`]
//! chooses between them.
//!
//! The parts, in the order a query meets them: `query.rs` (query terms,
//! [`ScoredDoc`], the tie rule), `model.rs` ([`Model`], [`Algorithm`]),
//! `statistics.rs` (the index's own or given statistics, checked),
//! `weight.rs` (the model bound to the statistics), `exhaustive.rs`
//! (the reference path), [`pruned`] over [`cursor`]s, [`topk`] (the k best
//! of a segment) and `explain.rs` (a score broken down by term);
//! [`passages`] scores the windows of a text instead of documents.
//! `request.rs` ties them together: a [`Request`] (model, algorithm,
//! statistics, feedback, k) is the one entry point.

use crate::error::{Error, Result};
use crate::index::Index;

pub mod cursor;
mod exhaustive;
mod explain;
mod fields;
pub mod limits;
mod model;
pub mod passages;
pub mod pruned;
mod query;
mod request;
mod statistics;
pub mod topk;
mod weight;

#[cfg(test)]
mod tests;

pub use explain::{Explanation, TermExplanation, explain};
pub use fields::search_fields;
pub use model::{Algorithm, Model};
use query::TermOrds;
pub use query::{QueryTerm, ScoredDoc, query_terms, rank_order};
pub use request::{Feedback, Query, Request};
pub use weight::bm25_boosted_weights;
use weight::{PostingScorer, Weight};

/// Checks that `query` holds something to search for: a query of blanks is
/// refused (an analyzed query that keeps no term just matches nothing).
pub fn check_query(query: &str) -> Result<()> {
    if query.trim().is_empty() {
        return Err(Error::Query(
            "the query is empty; give at least one word to search for".into(),
        ));
    }
    Ok(())
}

/// Checks `k` and turns it into a `usize`.
pub fn check_k(k: i64) -> Result<usize> {
    if k <= 0 {
        return Err(Error::Query(format!(
            "k must be a positive number of hits (got {k}); use k=10 for a first page or k=1000 for a deep ranking"
        )));
    }
    Ok(k as usize)
}

/// The `k` best documents for `terms` under `model`, segment by segment
/// (each by exhaustive scoring or the pruning that `algorithm` picks), then
/// merged under the tie rule. `ords` are the terms' ordinals in each
/// segment; `bind` binds the query to the index statistics, once, unless
/// the query certainly has no hit.
fn top_k<'a>(
    index: &'a Index,
    terms: &'a [QueryTerm],
    ords: &TermOrds,
    k: usize,
    model: &Model,
    algorithm: Algorithm,
    bind: impl FnOnce() -> Weight<'a>,
) -> Vec<ScoredDoc> {
    if k == 0 || index.is_empty() || terms.iter().all(|t| t.df == 0) {
        return Vec::new();
    }
    let query = bind();
    let weights = &query.weights;
    let weights32: Vec<f32> = weights.iter().map(|&w| w as f32).collect();
    let dfs: Vec<u64> = terms.iter().map(|t| t.df).collect();
    let postings: u64 = dfs.iter().sum();
    // Postings are at most tokens: a bound known without counting them.
    let materialize =
        index.segments().iter().map(|s| s.tokens).sum::<u64>() <= crate::impacts::MAX_TOKENS;
    let mut hits = Vec::new();
    for (s, segment) in index.segments().iter().enumerate() {
        let data = segment.data();
        let pruning = algorithm.resolve(model, weights, &dfs, data.len(), k);
        let ords = ords.segment(s);
        let local = match (&query.scorer, pruning) {
            (PostingScorer::Bm25(bm25), Some(pruning)) => {
                pruned::top_k(segment, ords, &weights32, bm25, k, pruning)
            }
            _ => exhaustive::top_k(s, segment, &query, ords, postings, k, materialize),
        };
        hits.extend(local.into_iter().map(|d| ScoredDoc {
            doc: index.global(s, d.doc),
            score: d.score,
        }));
    }
    if index.segments().len() > 1 {
        hits.sort_unstable_by(|a, b| rank_order(index, a, b));
        hits.truncate(k);
    }
    hits
}
