//! A query bound to the index statistics: how one posting scores under a
//! model, and each query term's weight.

use super::model::Model;
use super::query::QueryTerm;
use crate::index::Index;
use crate::qld::QldScorer;
use crate::scoring::{Bm25Params, Bm25Scorer, tfidf};
use crate::segment::SegmentData;

/// Lucene's BM25 weights of terms with float boosts: `boost · idf` in
/// float32, as `BM25Similarity` computes them for a `BoostQuery`.
pub fn bm25_boosted_weights(
    index: &Index,
    terms: &[QueryTerm],
    boosts: &[f32],
    params: &Bm25Params,
) -> Vec<f64> {
    let scorer = Bm25Scorer::new(*params, index.collection_stats(params.length));
    terms
        .iter()
        .zip(boosts)
        .map(|(t, &boost)| f64::from(boost * scorer.term_weight(t.df, 1)))
        .collect()
}

/// Per-term weights: BM25's query-frequency × idf, TF-IDF's normalised
/// query weight, or QLD's `mu · p(term | collection)`.
pub(super) fn term_weights(index: &Index, terms: &[QueryTerm], model: &Model) -> Vec<f64> {
    match model {
        Model::Bm25(params) => {
            let scorer = Bm25Scorer::new(*params, index.collection_stats(params.length));
            terms
                .iter()
                .map(|t| f64::from(scorer.term_weight(t.df, t.query_tf)))
                .collect()
        }
        Model::TfIdf => {
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
        Model::Qld(params) => {
            let scorer = QldScorer::new(*params, index.stats().total_terms);
            terms
                .iter()
                .map(|t| scorer.term_weight(index.cf(&t.term)))
                .collect()
        }
    }
}

/// How one posting scores under a model, bound to the index's statistics
/// once per query; shared by searching and explaining, so both give the
/// same number.
// One value per query, on the stack: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub(super) enum PostingScorer<'a> {
    Bm25(Bm25Scorer),
    TfIdf(&'a [Vec<f64>]),
    Qld(QldScorer),
}

impl<'a> PostingScorer<'a> {
    pub(super) fn new(index: &'a Index, model: &Model) -> Self {
        match model {
            Model::Bm25(params) => PostingScorer::Bm25(Bm25Scorer::new(
                *params,
                index.collection_stats(params.length),
            )),
            Model::TfIdf => PostingScorer::TfIdf(index.tfidf_norms()),
            Model::Qld(params) => {
                PostingScorer::Qld(QldScorer::new(*params, index.stats().total_terms))
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
