//! What to compute and how: the scoring [`Model`] and the top-k
//! [`Algorithm`], which picks exhaustive scoring or a pruning per segment.

use super::pruned::Pruning;
use crate::error::{Error, Result};
use crate::qld::QldParams;
use crate::scoring::Bm25Params;

/// A scoring model with its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Model {
    /// BM25 in one of its variants.
    Bm25(Bm25Params),
    /// TF-IDF cosine similarity.
    TfIdf,
    /// Query likelihood with Dirichlet smoothing, as Lucene's.
    Qld(QldParams),
}

/// How the top k is found. Every choice returns the same hits (same
/// documents, order and scores); only the time differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Algorithm {
    /// Pick per query and segment (see [`Algorithm::resolve`]).
    #[default]
    Auto,
    /// Score every posting of every query term.
    Exhaustive,
    /// Document-at-a-time MaxScore with block-max bounds.
    MaxScore,
    /// Block-max WAND.
    BlockMaxWand,
}

impl Algorithm {
    /// Parses `auto`, `exhaustive`, `maxscore` or `bmw`.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "auto" => Ok(Algorithm::Auto),
            "exhaustive" => Ok(Algorithm::Exhaustive),
            "maxscore" => Ok(Algorithm::MaxScore),
            "bmw" => Ok(Algorithm::BlockMaxWand),
            other => Err(Error::Query(format!(
                "unknown algorithm {other:?}: use auto, exhaustive, maxscore or bmw"
            ))),
        }
    }

    /// The pruning to run on a segment of `num_docs` documents whose lists
    /// for the query hold `postings` postings, or `None` for the exhaustive
    /// path. Pruning needs BM25 with non-negative term weights (TF-IDF's
    /// per-document norms, QLD's length term that grows as documents get
    /// shorter and negative idfs have no block bounds here), so other
    /// queries run exhaustively whatever was asked.
    pub(super) fn resolve(
        self,
        model: &Model,
        weights: &[f64],
        num_docs: usize,
        postings: u64,
        k: usize,
    ) -> Option<Pruning> {
        let prunable =
            matches!(model, Model::Bm25(_)) && weights.iter().all(|w| w.is_finite() && *w >= 0.0);
        if !prunable {
            return None;
        }
        match self {
            Algorithm::Exhaustive => None,
            Algorithm::MaxScore => Some(Pruning::MaxScore),
            Algorithm::BlockMaxWand => Some(Pruning::BlockMaxWand),
            // Pruning pays when the lists are long compared to the hits
            // kept, and the hits few compared to the documents (fitted on
            // per-query times of both paths over SciFact and the Linux
            // corpus at 10 % and 100 %, k = 10 and 1000: exhaustive scoring,
            // a range of documents at a time in the cache, wins every deep
            // ranking there).
            Algorithm::Auto => (postings >= AUTO_POSTINGS_PER_HIT * k as u64
                && num_docs as u64 >= AUTO_MIN_DOCS.max(AUTO_DOCS_PER_HIT * k as u64))
            .then_some(Pruning::MaxScore),
        }
    }
}

/// [`Algorithm::Auto`] prunes queries with at least this many postings per
/// wanted hit...
const AUTO_POSTINGS_PER_HIT: u64 = 1_000;
/// ...in segments of at least this many documents per wanted hit...
const AUTO_DOCS_PER_HIT: u64 = 2_000;
/// ...and at least this many documents (a smaller one is scored faster
/// in full).
const AUTO_MIN_DOCS: u64 = 20_000;
