//! The k best hits of one segment under the tie rule (score descending,
//! then docid rank ascending).
//!
//! A hit is one integer: its score as a key whose ascending order is
//! descending score, above its local doc id. Small k: a binary heap whose
//! root is the worst kept hit, so the threshold is always the exact k-th
//! score. Large k: hits are appended to a buffer, which is cut back to its k
//! best (an integer selection) each time it reaches 2k: amortised O(1) per
//! hit instead of a heap's O(log k) unpredictable branches, with a threshold
//! that lags a little.
//!
//! Hits are compared by score first; the docid rank, a random access into a
//! per-document table, is only looked up to break a tie, which is rare, so
//! keeping a hit costs no cache miss beyond its own score.

use super::query::ScoredDoc;

/// Past this k, hits go to a buffer cut back by selection, not a heap.
const HEAP_MAX_K: usize = 64;

/// The k best hits so far.
pub struct TopK {
    k: usize,
    /// Packed hits ([`pack`]): a heap (root = worst) for small k; a buffer
    /// of up to 2k for large k.
    hits: Vec<u64>,
    /// Large k: the k-th best score at the last cut, once k hits were seen.
    cut_score: Option<f32>,
}

impl TopK {
    /// An empty top `k`.
    pub fn new(k: usize) -> Self {
        let capacity = if k <= HEAP_MAX_K { k } else { 2 * k };
        TopK {
            k,
            hits: Vec::with_capacity(capacity.min(1 << 17)),
            cut_score: None,
        }
    }

    fn is_heap(&self) -> bool {
        self.k <= HEAP_MAX_K
    }

    /// The score every kept hit reaches, once k hits were kept.
    #[inline]
    fn floor(&self) -> Option<f32> {
        if !self.is_heap() {
            return self.cut_score;
        }
        match self.hits.first() {
            Some(&worst) if self.hits.len() >= self.k => Some(score_of(worst)),
            _ => None,
        }
    }

    /// The score a new hit must reach to be kept (−∞ until k are kept).
    #[inline]
    pub fn threshold(&self) -> f64 {
        self.floor().map_or(f64::NEG_INFINITY, f64::from)
    }

    /// Whether a hit scoring `score` could be kept (whatever its docid).
    #[inline]
    pub fn may_keep(&self, score: f32) -> bool {
        self.floor()
            .is_none_or(|floor| score.total_cmp(&floor) != std::cmp::Ordering::Less)
    }

    /// Offers a hit; `rank` gives a document's docid rank. Returns whether
    /// the threshold may have changed.
    #[inline]
    pub fn push(&mut self, doc: u32, score: f32, rank: impl Fn(u32) -> u32) -> bool {
        let hit = pack(score, doc);
        if !self.is_heap() {
            self.hits.push(hit);
            if self.hits.len() >= 2 * self.k {
                self.cut(&rank);
                return true;
            }
            return false;
        }
        if self.hits.len() < self.k {
            self.hits.push(hit);
            self.sift_up(self.hits.len() - 1, &rank);
            return self.hits.len() == self.k;
        }
        match self.hits.first() {
            Some(&worst) if worse(worst, hit, &rank) => {
                self.hits[0] = hit;
                self.sift_down(0, &rank);
                true
            }
            _ => false,
        }
    }

    /// Large k: keeps the buffer's k best, and their worst score.
    fn cut(&mut self, rank: &impl Fn(u32) -> u32) {
        let k = self.k;
        if self.hits.len() <= k {
            return;
        }
        // The packed order breaks score ties by doc id; the tie rule by
        // docid rank. They only disagree on hits tied with the k-th.
        self.hits.select_nth_unstable(k - 1);
        let boundary = self.hits[k - 1] >> 32;
        if self.hits[k..].iter().any(|&h| h >> 32 == boundary) {
            let mut tied: Vec<u64> = self
                .hits
                .iter()
                .copied()
                .filter(|&h| h >> 32 == boundary)
                .collect();
            tied.sort_unstable_by_key(|&h| rank(h as u32));
            self.hits.retain(|&h| h >> 32 < boundary);
            let missing = k - self.hits.len();
            self.hits.extend_from_slice(&tied[..missing]);
        } else {
            self.hits.truncate(k);
        }
        self.cut_score = Some(score_of(boundary << 32));
    }

    /// The kept hits, best first.
    pub fn into_sorted(mut self, rank: impl Fn(u32) -> u32) -> Vec<ScoredDoc> {
        if !self.is_heap() {
            self.cut(&rank);
        }
        // A radix sort on the score alone, ties (rare) then ordered by docid
        // rank: a thousand hits sort several times faster so than by
        // comparisons, whose branches on random scores mispredict.
        let mut hits = self.hits;
        if self.k <= HEAP_MAX_K {
            // A few hits: the radix sort's count tables would cost more
            // than the sort (ties by doc id here, by docid rank below).
            hits.sort_unstable();
        } else {
            radsort::sort_by_key(&mut hits, |&h| (h >> 32) as u32);
        }
        for tied in hits.chunk_by_mut(|a, b| a >> 32 == b >> 32) {
            if tied.len() > 1 {
                tied.sort_unstable_by_key(|&h| rank(h as u32));
            }
        }
        hits.into_iter()
            .map(|h| ScoredDoc {
                doc: h as u32,
                score: score_of(h),
            })
            .collect()
    }

    fn sift_up(&mut self, mut i: usize, rank: &impl Fn(u32) -> u32) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if !worse(self.hits[i], self.hits[parent], rank) {
                break;
            }
            self.hits.swap(i, parent);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize, rank: &impl Fn(u32) -> u32) {
        let n = self.hits.len();
        loop {
            let (left, right) = (2 * i + 1, 2 * i + 2);
            let mut worst = i;
            if left < n && worse(self.hits[left], self.hits[worst], rank) {
                worst = left;
            }
            if right < n && worse(self.hits[right], self.hits[worst], rank) {
                worst = right;
            }
            if worst == i {
                return;
            }
            self.hits.swap(i, worst);
            i = worst;
        }
    }
}

/// Whether hit `a` ranks below hit `b`: a lower score, or the same score
/// and a later docid.
#[inline]
fn worse(a: u64, b: u64, rank: &impl Fn(u32) -> u32) -> bool {
    let (ka, kb) = (a >> 32, b >> 32);
    if ka != kb {
        return ka > kb;
    }
    rank(a as u32) > rank(b as u32)
}

/// A hit as one integer: the score's key above the doc id.
#[inline]
fn pack(score: f32, doc: u32) -> u64 {
    (u64::from(score_key(score)) << 32) | u64::from(doc)
}

/// The score of a packed hit.
#[inline]
fn score_of(hit: u64) -> f32 {
    key_score((hit >> 32) as u32)
}

/// A key whose ascending order is descending score, in `f32::total_cmp`
/// order.
#[inline]
fn score_key(score: f32) -> u32 {
    let bits = score.to_bits();
    // Flip as `total_cmp` does, so unsigned order is total order...
    let ordered = if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    };
    // ...then invert it: higher scores get smaller keys.
    !ordered
}

/// The score a [`score_key`] was made from.
#[inline]
fn key_score(key: u32) -> f32 {
    let ordered = !key;
    let bits = if ordered >> 31 == 1 {
        ordered & !(1 << 31)
    } else {
        !ordered
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn score_keys_order_scores_descending(a in any::<f32>(), b in any::<f32>()) {
            prop_assert_eq!(key_score(score_key(a)).to_bits(), a.to_bits());
            prop_assert_eq!(score_key(a).cmp(&score_key(b)), b.total_cmp(&a));
        }

        #[test]
        fn keeps_the_k_best_under_the_tie_rule(
            scores in proptest::collection::vec(0u8..6, 0..600),
            k in prop_oneof![1usize..40, 60usize..200],
            seed in any::<u32>(),
        ) {
            // Few distinct scores: ties are everywhere.
            let ranks: Vec<u32> = (0..scores.len() as u32).map(|d| d.wrapping_mul(2_654_435_761) ^ seed).collect();
            let rank = |d: u32| ranks[d as usize];
            let mut top = TopK::new(k);
            for (doc, &s) in scores.iter().enumerate() {
                let score = f32::from(s) / 2.0;
                if top.may_keep(score) {
                    top.push(doc as u32, score, rank);
                }
            }
            let mut expected: Vec<u32> = (0..scores.len() as u32).collect();
            expected.sort_by(|&a, &b| scores[b as usize].cmp(&scores[a as usize]).then(rank(a).cmp(&rank(b))));
            expected.truncate(k);
            let got: Vec<u32> = top.into_sorted(rank).iter().map(|h| h.doc).collect();
            prop_assert_eq!(got, expected);
        }
    }
}
