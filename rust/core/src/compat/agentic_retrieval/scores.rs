//! One arm's scores for one query, and the query's term counts.

use rustc_hash::FxHashMap;

use super::Mode;

/// Scores of one arm for one query: dense values plus the documents touched.
#[derive(Debug)]
pub struct Scores {
    values: Vec<f64>,
    pub(super) touched: Vec<bool>,
    pub(super) num_touched: usize,
}

impl Scores {
    pub(super) fn new(n: usize) -> Self {
        Scores {
            values: vec![0.0; n],
            touched: vec![false; n],
            num_touched: 0,
        }
    }

    pub(super) fn add(&mut self, doc: u32, x: f64) {
        let d = doc as usize;
        if !self.touched[d] {
            self.touched[d] = true;
            self.num_touched += 1;
        }
        self.values[d] += x;
    }

    /// The score of `doc` (0 when no query term is in it).
    pub fn get(&self, doc: u32) -> f64 {
        self.values[doc as usize]
    }

    /// Whether every touched document scores above 0.
    pub(super) fn all_positive(&self) -> bool {
        self.touched
            .iter()
            .zip(&self.values)
            .all(|(&t, &v)| !t || v > 0.0)
    }

    /// A sort key per touched document (all positive), in document order:
    /// smaller is better, ties by number. Positive finite floats order as
    /// their bit patterns do.
    pub(super) fn keys(&self) -> Vec<(u64, u32)> {
        let mut keys = Vec::with_capacity(self.num_touched);
        keys.extend(
            (0..self.values.len() as u32)
                .filter(|&d| self.touched[d as usize])
                .map(|d| self.key(d)),
        );
        keys
    }

    pub(super) fn key(&self, doc: u32) -> (u64, u32) {
        (!self.values[doc as usize].to_bits(), doc)
    }

    /// Every document, as Python's stable descending sort of the zero-filled
    /// scores orders them: positive scores, then zeros (and untouched
    /// documents) in document order, then negative scores. NaN, which only
    /// degenerate k1 or b produce, comes last.
    pub fn full_ranking(&self) -> Vec<u32> {
        let n = self.values.len() as u32;
        let key = |d: u32| {
            let v = self.values[d as usize];
            if v.is_nan() { f64::NEG_INFINITY } else { v }
        };
        let mut positive: Vec<u32> = (0..n).filter(|&d| key(d) > 0.0).collect();
        let mut negative: Vec<u32> = (0..n).filter(|&d| key(d) < 0.0).collect();
        let by_score = |a: &u32, b: &u32| key(*b).total_cmp(&key(*a)).then(a.cmp(b));
        positive.sort_by(by_score);
        negative.sort_by(by_score);
        let mut out = positive;
        out.extend((0..n).filter(|&d| key(d) == 0.0));
        out.extend(negative);
        out
    }
}

/// Distinct tokens of `text` with their counts, in first-occurrence order.
pub(super) fn query_counts(mode: Mode, text: &str) -> Vec<(String, u32)> {
    let mut seen: FxHashMap<String, usize> = FxHashMap::default();
    let mut counts: Vec<(String, u32)> = Vec::new();
    mode.analyzer()
        .analyze_with(text, &mut |term| match seen.get(term) {
            Some(&i) => counts[i].1 += 1,
            None => {
                seen.insert(term.to_owned(), counts.len());
                counts.push((term.to_owned(), 1));
            }
        });
    counts
}

/// `(doc, score)` for every document, best first, ties by number.
pub fn ranking(scores: &Scores) -> Vec<(u32, f64)> {
    scores
        .full_ranking()
        .into_iter()
        .map(|d| (d, scores.get(d)))
        .collect()
}
