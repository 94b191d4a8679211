//! What to compute and how: the scoring [`Model`] and the top-k
//! [`Algorithm`], which picks exhaustive scoring or a pruning per segment.

use super::pruned::Pruning;
use crate::error::{Error, Result};
use crate::scoring::Bm25Params;
use crate::scoring::qld::QldParams;

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

impl Model {
    /// The model's name: `"bm25"`, `"tfidf"` or `"qld"`.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Bm25(_) => "bm25",
            Model::TfIdf => "tfidf",
            Model::Qld(_) => "qld",
        }
    }
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
    /// Every algorithm by name, `auto` first.
    pub const ALL: [(&'static str, Algorithm); 4] = [
        ("auto", Algorithm::Auto),
        ("exhaustive", Algorithm::Exhaustive),
        ("maxscore", Algorithm::MaxScore),
        ("bmw", Algorithm::BlockMaxWand),
    ];

    /// Parses `auto`, `exhaustive`, `maxscore` or `bmw`.
    pub fn parse(name: &str) -> Result<Self> {
        match Self::ALL.iter().find(|(n, _)| *n == name) {
            Some(&(_, algorithm)) => Ok(algorithm),
            None => Err(Error::Query(format!(
                "unknown algorithm {name:?}: use auto, exhaustive, maxscore or bmw"
            ))),
        }
    }

    /// The pruning to run on a segment of `num_docs` documents for query
    /// terms of weights `weights` and document frequencies `dfs`, or `None`
    /// for the exhaustive path. Pruning needs BM25 with non-negative term
    /// weights (TF-IDF's per-document norms, QLD's length term that grows as
    /// documents get shorter and negative idfs have no block bounds here),
    /// so other queries run exhaustively whatever was asked.
    pub(super) fn resolve(
        self,
        model: &Model,
        weights: &[f64],
        dfs: &[u64],
        num_docs: usize,
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
            // kept, and the hits few compared to the documents; or, for
            // deeper rankings too, when common terms, whose low bounds
            // MaxScore soon leaves non-essential, hold most of the
            // postings: one long list, or lists a rare term outscores
            // (fitted on per-query times of both paths over SciFact and the
            // Linux corpus at 10 % and 100 %, k = 10, 100 and 1000, the
            // rare-term rule on the whole Linux corpus at k = 1000;
            // exhaustive scoring, a range of documents at a time in the
            // cache, wins every other deep ranking there).
            Algorithm::Auto => {
                let (k, docs) = (k as u64, num_docs as u64);
                let postings: u64 = dfs.iter().sum();
                let longest = dfs.iter().copied().max().unwrap_or(0);
                let per_hit = |n: u64| n.saturating_mul(k);
                let shallow = postings >= per_hit(AUTO_POSTINGS_PER_HIT)
                    && docs >= per_hit(AUTO_DOCS_PER_HIT);
                let others = postings.saturating_sub(longest);
                let deep = postings >= per_hit(AUTO_DOMINATED_POSTINGS_PER_HIT);
                let dominated =
                    others.saturating_mul(10) <= postings.saturating_mul(AUTO_OTHERS_TENTHS);
                let pays = shallow || (deep && (dominated || outscored(weights, dfs, k, postings)));
                (docs >= AUTO_MIN_DOCS && pays).then_some(Pruning::MaxScore)
            }
        }
    }
}

/// [`Algorithm::Auto`] prunes queries with at least this many postings per
/// wanted hit...
const AUTO_POSTINGS_PER_HIT: u64 = 1_000;
/// ...in segments of at least this many documents per wanted hit...
const AUTO_DOCS_PER_HIT: u64 = 2_000;
/// ...or with at least this many postings per wanted hit...
const AUTO_DOMINATED_POSTINGS_PER_HIT: u64 = 100;
/// ...of which at most this many tenths lie outside the longest list...
const AUTO_OTHERS_TENTHS: u64 = 3;
/// ...or of which at most this many tenths lie outside the lists a rare
/// term outscores (see [`outscored`])...
const AUTO_ESSENTIAL_TENTHS: u64 = 1;
/// ...and in either case in segments of at least this many documents (a
/// smaller one is scored faster in full).
const AUTO_MIN_DOCS: u64 = 20_000;
/// The share of a rare term's weight that the k-th best score is expected
/// to reach (see [`outscored`]).
const AUTO_FLOOR_SHARE: f64 = 0.75;

/// Whether lists that a rare term outscores hold all but
/// [`AUTO_ESSENTIAL_TENTHS`] of the `postings`: the highest-weight lists
/// that together hold `k` postings end at an anchor term, whose documents
/// score near its weight, so the k-th best score soon reaches about
/// [`AUTO_FLOOR_SHARE`] of it; the lowest-weight lists whose weights sum
/// below that are then non-essential, visited by MaxScore only at the
/// documents the essential lists point to. Query weights stand for the
/// lists' score bounds, which the cursors would have to be built to know.
fn outscored(weights: &[f64], dfs: &[u64], k: u64, postings: u64) -> bool {
    let mut order: Vec<usize> = (0..weights.len().min(dfs.len())).collect();
    order.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]));
    let mut covered = 0u64;
    let Some(&anchor) = order.iter().find(|&&i| {
        covered += dfs[i];
        covered >= k
    }) else {
        return false;
    };
    let floor = AUTO_FLOOR_SHARE * weights[anchor];
    let mut sum = 0.0;
    let skipped: u64 = order
        .iter()
        .rev()
        .take_while(|&&i| {
            sum += weights[i];
            sum < floor
        })
        .map(|&i| dfs[i])
        .sum();
    skipped.saturating_mul(10) >= postings.saturating_mul(10 - AUTO_ESSENTIAL_TENTHS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auto(num_docs: usize, postings: u64, longest: u64, k: usize) -> Option<Pruning> {
        let dfs = [longest, postings - longest];
        auto_weighted(&[1.0, 1.0], &dfs, num_docs, k)
    }

    fn auto_weighted(weights: &[f64], dfs: &[u64], num_docs: usize, k: usize) -> Option<Pruning> {
        let bm25 = Model::Bm25(Bm25Params::default());
        Algorithm::Auto.resolve(&bm25, weights, dfs, num_docs, k)
    }

    #[test]
    fn auto_prunes_long_lists_for_few_hits_or_one_dominant_list() {
        // Few hits from long lists in a large segment.
        assert_eq!(
            auto(1_000_000, 200_000, 100_000, 10),
            Some(Pruning::MaxScore)
        );
        // A deep ranking over lists of about the same length: exhaustive.
        assert_eq!(auto(1_000_000, 400_000, 200_000, 1000), None);
        // The same postings, most of them in one list: pruned.
        assert_eq!(
            auto(1_000_000, 400_000, 300_000, 1000),
            Some(Pruning::MaxScore)
        );
        // Too few postings per hit for either rule.
        assert_eq!(auto(1_000_000, 50_000, 50_000, 1000), None);
        // A small segment is always scored in full.
        assert_eq!(auto(5_000, 400_000, 390_000, 10), None);
        // Never for a model without block bounds, whatever the sizes.
        let qld = Model::Qld(crate::scoring::qld::QldParams::default());
        assert_eq!(
            Algorithm::Auto.resolve(&qld, &[1.0, 1.0], &[390_000, 10_000], 1_000_000, 10),
            None
        );
    }

    #[test]
    fn auto_prunes_deep_rankings_where_a_rare_term_outscores_the_common_ones() {
        // A term in about 2,000 documents, weighing far more than the two
        // common terms together, which hold almost every posting.
        let weights = [0.6, 0.97, 6.0, 8.75];
        let dfs = [568_799, 392_072, 2_169, 3];
        assert_eq!(
            auto_weighted(&weights, &dfs, 1_000_000, 1000),
            Some(Pruning::MaxScore)
        );
        // The same, but k reaches into a common list: exhaustive.
        assert_eq!(auto_weighted(&weights, &dfs, 1_000_000, 5000), None);
        // Rare terms in fewer than k documents: the k-th best score is a
        // common term's, which outscores too little to leave the others.
        let weights = [0.62, 0.93, 0.97, 7.07, 9.1];
        let dfs = [554_850, 403_906, 392_072, 2, 88];
        assert_eq!(auto_weighted(&weights, &dfs, 1_000_000, 1000), None);
    }
}
