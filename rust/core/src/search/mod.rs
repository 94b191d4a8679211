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
//! segments, live documents), or those given to [`search_with_stats`] (of
//! a collection this index is a shard of). This path is the reference that
//! the pruned algorithms of [`pruned`] reproduce exactly; [`Algorithm`]
//! chooses between them.
//!
//! The parts, in the order a query meets them: `query.rs` (query terms,
//! [`ScoredDoc`], the tie rule), `model.rs` ([`Model`], [`Algorithm`]),
//! `statistics.rs` (the index's own or given statistics, checked),
//! `weight.rs` (the model bound to the statistics), `exhaustive.rs`
//! (the reference path), [`pruned`] over [`cursor`]s, [`topk`] (the k best
//! of a segment) and `explain.rs` (a score broken down by term). The entry
//! points below tie them together.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::global_stats::GlobalStats;
use crate::index::Index;
use crate::scoring::Bm25Params;

pub mod cursor;
mod exhaustive;
mod explain;
mod fields;
pub mod limits;
mod model;
pub mod pruned;
mod query;
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
use statistics::Statistics;
pub use weight::bm25_boosted_weights;
use weight::{PostingScorer, Weight};

/// Checks `k` and turns it into a `usize`.
pub fn check_k(k: i64) -> Result<usize> {
    if k <= 0 {
        return Err(Error::Query(format!(
            "k must be a positive number of hits (got {k}); use k=10 for a first page or k=1000 for a deep ranking"
        )));
    }
    Ok(k as usize)
}

/// The `k` best documents for `query`, best first, under the tie rule.
///
/// An empty query, or one whose terms are all unknown or removed by the
/// analyzer, matches nothing and returns no hits.
/// A query over the [`limits`] is an [`Error::Query`].
pub fn search(index: &Index, query: &str, k: usize, model: &Model) -> Result<Vec<ScoredDoc>> {
    search_with(index, query, k, model, Algorithm::Auto)
}

/// [`search`] by a chosen algorithm (all return the same hits).
pub fn search_with(
    index: &Index,
    query: &str,
    k: usize,
    model: &Model,
    algorithm: Algorithm,
) -> Result<Vec<ScoredDoc>> {
    let (terms, ords) = query::analyze(index, query)?;
    Ok(top_k(index, &terms, &ords, k, model, algorithm, || {
        Weight::new(index, &terms, model, Statistics::Own)
    }))
}

/// [`search_with`] for already analyzed terms.
pub fn search_terms(
    index: &Index,
    terms: &[QueryTerm],
    k: usize,
    model: &Model,
    algorithm: Algorithm,
) -> Vec<ScoredDoc> {
    let ords = TermOrds::lookup(index, terms);
    top_k(index, terms, &ords, k, model, algorithm, || {
        Weight::new(index, terms, model, Statistics::Own)
    })
}

/// [`search_with`] scored with `stats` instead of the index's own
/// statistics when given: those of a collection this index is a shard of,
/// so that its hits score as in one index of the whole collection. Every
/// query term must be in `stats`, and the model BM25, or QLD with
/// collection frequencies in `stats`.
pub fn search_with_stats(
    index: &Index,
    query: &str,
    k: usize,
    model: &Model,
    algorithm: Algorithm,
    stats: Option<&GlobalStats>,
) -> Result<Vec<ScoredDoc>> {
    let Some(stats) = stats else {
        return search_with(index, query, k, model, algorithm);
    };
    let (terms, ords) = query::analyze(index, query)?;
    let counts = Statistics::global(index, &terms, model, stats)?;
    Ok(top_k(index, &terms, &ords, k, model, algorithm, || {
        Weight::new(index, &terms, model, Statistics::Global(stats, &counts))
    }))
}

/// [`search_terms`] with the per-term weights given (for BM25, Lucene's
/// `boost · idf`; see [`bm25_boosted_weights`]): the second stage of
/// feedback queries, whose boosts are not counts.
pub fn search_weighted(
    index: &Index,
    terms: &[QueryTerm],
    weights: &[f64],
    k: usize,
    model: &Model,
    algorithm: Algorithm,
) -> Vec<ScoredDoc> {
    let ords = TermOrds::lookup(index, terms);
    top_k(index, terms, &ords, k, model, algorithm, || {
        Weight::with_weights(index, terms, weights.to_vec(), model)
    })
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

/// Runs many queries over a rayon pool; results are in input order and equal
/// to running [`search`] on each query alone.
pub fn batch_search(
    index: &Index,
    queries: &[String],
    k: usize,
    model: &Model,
    algorithm: Algorithm,
) -> Result<Vec<Vec<ScoredDoc>>> {
    queries
        .par_iter()
        .map(|q| search_with(index, q, k, model, algorithm))
        .collect()
}

/// The `k` best documents for a query of `(term, boost)` pairs (terms
/// distinct) under Lucene's BM25, as a `BooleanQuery` of `BoostQuery`s: the
/// second stage of the feedback models.
pub fn search_boosted(
    index: &Index,
    query: &[(String, f32)],
    k: usize,
    params: &Bm25Params,
    algorithm: Algorithm,
) -> Vec<ScoredDoc> {
    let terms: Vec<QueryTerm> = query
        .iter()
        .map(|(term, _)| QueryTerm {
            term: term.clone(),
            query_tf: 1,
            df: index.df(term),
        })
        .collect();
    let boosts: Vec<f32> = query.iter().map(|(_, b)| *b).collect();
    let ords = TermOrds::lookup(index, &terms);
    top_k(
        index,
        &terms,
        &ords,
        k,
        &Model::Bm25(*params),
        algorithm,
        || Weight::boosted(index, &terms, &boosts, params),
    )
}
