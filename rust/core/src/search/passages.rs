//! The best passages of a text for a query: windows of consecutive units
//! (lines, runs of words) scored with BM25 under the index's analyzer and
//! statistics, as the agent tools' excerpts and `find_in_document` choose them.
//!
//! Each window is a document of a small collection, the text's windows: a
//! window scores `Σ w · tf · (k1 + 1) / (tf + k1 · (1 − b + b · len / avglen))`
//! over the query's distinct terms, with `w = qtf · idf`, idf the variant's
//! ([`bm25_idf`]) over the index's live documents and document frequencies,
//! `tf` the term's count and `len` the token count of the window, and
//! `avglen` the mean window length of the text (at least 1). Everything is
//! float64, in this order of operations; the terms of a window are added in
//! query order, and those of a text that is one window in numpy's pairwise
//! order (`numpy_sum`), so that scores are the ones these tools have always
//! printed. Only windows with a positive score count; ties go to the earlier
//! window.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::error::Result;
use crate::index::Index;
use crate::scoring::{Bm25Variant, bm25_idf};

use super::query_terms;

/// Lucene's `BM25Similarity` k1, the usual passage setting.
pub const PASSAGE_K1: f64 = 1.2;
/// Lucene's `BM25Similarity` b, the usual passage setting.
pub const PASSAGE_B: f64 = 0.75;

/// Above this many units, they are analyzed in parallel (fewer do not repay
/// the hand-off).
pub const PARALLEL_UNITS: usize = 128;

/// BM25's parameters for passages: k1, b and the variant whose idf weighs
/// the terms (windows have exact lengths and the classic saturation, so
/// the length mode and δ of a [`crate::scoring::Bm25Params`] do not apply).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PassageParams {
    /// Term-frequency saturation.
    pub k1: f64,
    /// Length normalisation.
    pub b: f64,
    /// The idf's variant.
    pub variant: Bm25Variant,
}

impl Default for PassageParams {
    /// [`PASSAGE_K1`], [`PASSAGE_B`], Lucene's idf.
    fn default() -> Self {
        PassageParams {
            k1: PASSAGE_K1,
            b: PASSAGE_B,
            variant: Bm25Variant::Lucene,
        }
    }
}

/// Units `start..end` (0-based) of the scored sequence, and their score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Passage {
    /// The first unit.
    pub start: usize,
    /// One past the last unit.
    pub end: usize,
    /// The window's BM25 score (> 0).
    pub score: f64,
}

/// The `k` best windows of `window` consecutive `units` (at least 1, at most
/// all of them) that do not overlap, best first, for `query` in `index`.
/// Empty when the query has no term or no window matches one.
///
/// Errors: a query past the limits of [`crate::search::limits`].
pub fn best_passages(
    index: &Index,
    query: &str,
    units: &[String],
    window: usize,
    k: usize,
    params: PassageParams,
) -> Result<Vec<Passage>> {
    let terms = query_terms(index, query)?;
    if terms.is_empty() || units.is_empty() || k == 0 {
        return Ok(Vec::new());
    }
    let n = index.stats().num_docs;
    let weights: Vec<f64> = terms
        .iter()
        .map(|t| f64::from(t.query_tf) * bm25_idf(params.variant, n, t.df))
        .collect();
    let row: FxHashMap<&str, usize> = terms
        .iter()
        .enumerate()
        .map(|(i, t)| (t.term.as_str(), i))
        .collect();
    // Each unit as its length and the rows of its query terms.
    let unit = |text: &String| {
        let mut length = 0u64;
        let mut rows = Vec::new();
        index.analyzer().analyze_with(text, &mut |term| {
            length += 1;
            if let Some(&r) = row.get(term) {
                rows.push(r);
            }
        });
        (length, rows)
    };
    let analyzed: Vec<(u64, Vec<usize>)> = if units.len() > PARALLEL_UNITS {
        units.par_iter().map(unit).collect()
    } else {
        units.iter().map(unit).collect()
    };
    let scores = window_scores(&analyzed, &weights, window.clamp(1, units.len()), params);
    Ok(choose(&scores, window.clamp(1, units.len()), k))
}

/// Every window's score, window `s` covering units `s..s + window`.
fn window_scores(
    units: &[(u64, Vec<usize>)],
    weights: &[f64],
    window: usize,
    params: PassageParams,
) -> Vec<f64> {
    let count = units.len() - window + 1;
    // Sliding counts, exact integers (the sums numpy took of prefix sums).
    let mut tf = vec![0u64; weights.len()];
    let mut lengths = Vec::with_capacity(count);
    let mut counts = Vec::with_capacity(count);
    let mut length = 0u64;
    for (i, (len, rows)) in units.iter().enumerate() {
        length += len;
        rows.iter().for_each(|&r| tf[r] += 1);
        if i + 1 >= window {
            lengths.push(length);
            counts.push(tf.clone());
            let (len, rows) = &units[i + 1 - window];
            length -= len;
            rows.iter().for_each(|&r| tf[r] -= 1);
        }
    }
    let mean = (lengths.iter().sum::<u64>() as f64 / count as f64).max(1.0);
    let PassageParams { k1, b, .. } = params;
    let term = |w: f64, tf: u64, norm: f64| {
        let tf = tf as f64;
        w * tf * (k1 + 1.0) / (tf + norm)
    };
    lengths
        .iter()
        .zip(&counts)
        .map(|(&len, tf)| {
            let norm = k1 * (1.0 - b + b * len as f64 / mean);
            let parts = weights.iter().zip(tf).map(|(&w, &f)| term(w, f, norm));
            if count == 1 {
                numpy_sum(&parts.collect::<Vec<_>>())
            } else {
                // A term that does not occur adds 0.0, which changes no sum.
                parts.filter(|&p| p != 0.0).fold(0.0, |sum, p| sum + p)
            }
        })
        .collect()
}

/// numpy's sum of a contiguous float64 column (`0.0 +` its pairwise sum:
/// eight accumulators over blocks of up to 128, halves above), which is how
/// the single window of a text used to be summed.
fn numpy_sum(values: &[f64]) -> f64 {
    fn pairwise(a: &[f64]) -> f64 {
        let n = a.len();
        if n < 8 {
            return a.iter().fold(0.0, |sum, &x| sum + x);
        }
        if n <= 128 {
            let mut r: [f64; 8] = a[..8].try_into().expect("eight values");
            let whole = n - n % 8;
            for block in a[8..whole].chunks_exact(8) {
                r.iter_mut().zip(block).for_each(|(r, x)| *r += x);
            }
            let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
            return a[whole..].iter().fold(res, |sum, &x| sum + x);
        }
        let half = n / 2 - (n / 2) % 8;
        pairwise(&a[..half]) + pairwise(&a[half..])
    }
    0.0 + pairwise(values)
}

/// The `k` best windows with a positive score that do not overlap one
/// chosen before, best first (ties: the earlier window).
fn choose(scores: &[f64], window: usize, k: usize) -> Vec<Passage> {
    let mut order: Vec<usize> = (0..scores.len()).filter(|&s| scores[s] > 0.0).collect();
    // A stable sort keeps equal scores in window order.
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut chosen: Vec<Passage> = Vec::new();
    for start in order {
        if chosen.len() == k {
            break;
        }
        let end = start + window;
        if chosen.iter().all(|p| end <= p.start || start >= p.end) {
            chosen.push(Passage {
                start,
                end,
                score: scores[start],
            });
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::AnalyzerConfig;

    fn index() -> Index {
        let docs = [
            ("a", "thorium fuel pellets"),
            ("b", "fuel prices rise"),
            ("c", "reactor cores"),
        ];
        let docs = docs.map(|(d, t)| (d.to_owned(), t.to_owned())).to_vec();
        Index::build(AnalyzerConfig::preset("lucene-english").unwrap(), docs).unwrap()
    }

    fn lines(text: &str) -> Vec<String> {
        text.split('\n').map(str::to_owned).collect()
    }

    #[test]
    fn windows_score_as_bm25_over_the_texts_windows() {
        let index = index();
        let units = lines("the weather\nthorium fuel\nfuel fuel fuel today\nzzz");
        let got = best_passages(
            &index,
            "thorium fuel",
            &units,
            1,
            3,
            PassageParams::default(),
        );
        let got = got.unwrap();
        assert_eq!(
            got.iter().map(|p| (p.start, p.end)).collect::<Vec<_>>(),
            [(1, 2), (2, 3)]
        );
        // By hand: 4 windows of lengths 1 (the stopword dropped), 2, 4 and 1.
        let (k1, b, mean) = (1.2f64, 0.75f64, 8.0 / 4.0);
        let idf = |df: f64| (1.0 + (3.0 - df + 0.5) / (df + 0.5)).ln();
        let term = |w: f64, tf: f64, len: f64| {
            w * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len / mean))
        };
        assert_eq!(
            got[0].score,
            0.0 + (term(idf(1.0), 1.0, 2.0) + term(idf(2.0), 1.0, 2.0))
        );
        assert_eq!(got[1].score, term(idf(2.0), 3.0, 4.0));
    }

    #[test]
    fn chosen_windows_do_not_overlap_and_ties_go_first() {
        let index = index();
        let units = lines("fuel\nx\nfuel\nx\nfuel");
        let got = best_passages(&index, "fuel", &units, 2, 5, PassageParams::default()).unwrap();
        let spans: Vec<_> = got.iter().map(|p| (p.start, p.end)).collect();
        assert_eq!(spans, [(0, 2), (2, 4)]);
        assert_eq!(got[0].score, got[1].score);
        let none = best_passages(&index, "zebra", &units, 2, 5, PassageParams::default());
        assert!(none.unwrap().is_empty());
        let stop = best_passages(&index, "the", &units, 2, 5, PassageParams::default());
        assert!(stop.unwrap().is_empty());
        let wide = best_passages(&index, "fuel", &units, 99, 5, PassageParams::default());
        assert_eq!(wide.unwrap().len(), 1);
    }

    #[test]
    fn numpy_sum_is_pairwise_in_blocks_of_eight() {
        let a: Vec<f64> = (0..300).map(|i| 1.0 / f64::from(i + 1)).collect();
        let r: Vec<f64> = (0..8)
            .map(|j| a[..16].iter().skip(j).step_by(8).sum())
            .collect();
        let sixteen = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        assert_eq!(numpy_sum(&a[..16]), sixteen);
        assert_eq!(numpy_sum(&a[..5]), (((a[0] + a[1]) + a[2]) + a[3]) + a[4]);
        assert_eq!(numpy_sum(&a), numpy_sum(&a[..144]) + numpy_sum(&a[144..]));
    }
}
