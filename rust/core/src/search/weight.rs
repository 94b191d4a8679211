//! A query bound to the index statistics, once per query (tantivy's
//! `Weight`): the model's scorer, whose BM25 norm table is built here and
//! nowhere else, and each query term's weight under it. Searching and
//! explaining both score through it, so both give the same number.
//!
//! The statistics are the index's own, or those given by the caller
//! ([`Statistics`]), from which the same formulas derive N, avgdl and idf.

use super::model::Model;
use super::query::QueryTerm;
use super::statistics::Statistics;
use crate::index::Index;
use crate::scoring::qld::QldScorer;
use crate::scoring::{Bm25Params, Bm25Scorer, tfidf};
use crate::segment::SegmentData;

/// A query's terms, their weights and the scorer of their postings.
pub(super) struct Weight<'a> {
    /// The distinct query terms, in query order.
    pub(super) terms: &'a [QueryTerm],
    /// Per term: BM25's `boost · idf` (the boost being the query frequency,
    /// or a feedback weight), TF-IDF's normalised query weight, or QLD's
    /// `mu · p(term | collection)`.
    pub(super) weights: Vec<f64>,
    /// How one posting scores.
    pub(super) scorer: PostingScorer<'a>,
}

impl<'a> Weight<'a> {
    /// `terms` under `model`, each weighted by its query frequency.
    pub(super) fn new(
        index: &'a Index,
        terms: &'a [QueryTerm],
        model: &Model,
        stats: Statistics<'_>,
    ) -> Self {
        let scorer = PostingScorer::new(index, model, stats);
        let weights = match &scorer {
            PostingScorer::Bm25(bm25) => terms
                .iter()
                .enumerate()
                .map(|(i, t)| f64::from(bm25.term_weight(stats.df(i, t), t.query_tf)))
                .collect(),
            PostingScorer::TfIdf(_) => {
                // The query norm counts unknown terms too.
                let norm = terms
                    .iter()
                    .map(|t| tfidf::sublinear_tf(t.query_tf).powi(2))
                    .sum::<f64>()
                    .sqrt();
                let n = index.stats().num_docs;
                terms
                    .iter()
                    .map(|t| tfidf::sublinear_tf(t.query_tf) / norm * tfidf::idf(n, t.df))
                    .collect()
            }
            PostingScorer::Qld(qld) => terms
                .iter()
                .enumerate()
                .map(|(i, t)| qld.term_weight(stats.cf(index, i, t)))
                .collect(),
        };
        Weight {
            terms,
            weights,
            scorer,
        }
    }

    /// `terms` with float `boosts` under Lucene's BM25, as a `BooleanQuery`
    /// of `BoostQuery`s.
    pub(super) fn boosted(
        index: &'a Index,
        terms: &'a [QueryTerm],
        boosts: &[f32],
        params: &Bm25Params,
    ) -> Self {
        let bm25 = bm25_scorer(index, params, Statistics::Own);
        Weight {
            terms,
            weights: boosted_weights(&bm25, terms, boosts),
            scorer: PostingScorer::Bm25(bm25),
        }
    }
}

/// Lucene's BM25 weights of terms with float boosts: `boost · idf` in
/// float32, as `BM25Similarity` computes them for a `BoostQuery`.
pub fn bm25_boosted_weights(
    index: &Index,
    terms: &[QueryTerm],
    boosts: &[f32],
    params: &Bm25Params,
) -> Vec<f64> {
    boosted_weights(&bm25_scorer(index, params, Statistics::Own), terms, boosts)
}

fn boosted_weights(scorer: &Bm25Scorer, terms: &[QueryTerm], boosts: &[f32]) -> Vec<f64> {
    terms
        .iter()
        .zip(boosts)
        .map(|(t, &boost)| f64::from(boost * scorer.term_weight(t.df, 1)))
        .collect()
}

/// BM25 bound to the collection statistics its length mode reads.
fn bm25_scorer(index: &Index, params: &Bm25Params, stats: Statistics<'_>) -> Bm25Scorer {
    Bm25Scorer::new(*params, stats.collection(index, params.length))
}

/// How one posting scores under a model, bound to the index's statistics.
// One value per query, on the stack: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub(super) enum PostingScorer<'a> {
    Bm25(Bm25Scorer),
    TfIdf(&'a [Vec<f64>]),
    Qld(QldScorer),
}

impl<'a> PostingScorer<'a> {
    fn new(index: &'a Index, model: &Model, stats: Statistics<'_>) -> Self {
        match model {
            Model::Bm25(params) => PostingScorer::Bm25(bm25_scorer(index, params, stats)),
            Model::TfIdf => PostingScorer::TfIdf(index.tfidf_norms()),
            Model::Qld(params) => {
                PostingScorer::Qld(QldScorer::new(*params, stats.total_terms(index)))
            }
        }
    }

    /// The score of a term of query frequency `boost` and weight `weight`
    /// for `doc` (of segment `s`) holding it `tf` times.
    #[inline]
    pub(super) fn score(
        &self,
        s: usize,
        data: &SegmentData,
        boost: f64,
        weight: f64,
        doc: u32,
        tf: u32,
    ) -> Option<f32> {
        match self {
            PostingScorer::Qld(qld) => Some(qld.score(boost, weight, tf, data.norm(doc))),
            PostingScorer::Bm25(scorer) => {
                Some(scorer.score(weight as f32, tf, data.norm(doc), data.length(doc)))
            }
            PostingScorer::TfIdf(norms) => {
                // A posting's document has a positive norm unless a file is damaged.
                let norm = norms[s].get(doc as usize).copied().filter(|n| *n > 0.0)?;
                Some((weight * tfidf::sublinear_tf(tf) / norm) as f32)
            }
        }
    }
}
