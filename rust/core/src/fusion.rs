//! Reciprocal-rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009):
//! `fused(d) = Σ_i w_i / (k + rank_i(d) + 1)` with 0-based ranks.
//!
//! Ties are broken by first appearance, scanning ranking 0, then ranking 1,
//! and so on: the rule of a stable sort over insertion order, which is what
//! the Python implementations that this one replaces do.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::hash::Hash;

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};

fn check(num_rankings: usize, k: f64, weights: Option<&[f64]>) -> Result<()> {
    if !(k.is_finite() && k >= 0.0) {
        return Err(Error::Query(format!(
            "RRF k must be a finite number >= 0 (got {k}); 60 is the usual value"
        )));
    }
    if let Some(w) = weights {
        if w.len() != num_rankings {
            return Err(Error::Query(format!(
                "got {} weights for {num_rankings} rankings; give one weight per ranking",
                w.len()
            )));
        }
        if let Some(bad) = w.iter().find(|x| !x.is_finite()) {
            return Err(Error::Query(format!(
                "RRF weights must be finite (got {bad})"
            )));
        }
    }
    Ok(())
}

/// Fuses `rankings` (each best first). Only the first `depth` entries of each
/// ranking count when `depth` is given. Returns every fused item with its
/// score, best first.
pub fn rrf<T: Hash + Eq + Clone>(
    rankings: &[Vec<T>],
    k: f64,
    weights: Option<&[f64]>,
    depth: Option<usize>,
) -> Result<Vec<(T, f64)>> {
    rrf_top(rankings, k, weights, depth, usize::MAX)
}

/// The first `top` items of [`rrf`]'s result, found without sorting the
/// others.
pub fn rrf_top<T: Hash + Eq + Clone>(
    rankings: &[Vec<T>],
    k: f64,
    weights: Option<&[f64]>,
    depth: Option<usize>,
    top: usize,
) -> Result<Vec<(T, f64)>> {
    check(rankings.len(), k, weights)?;
    let expected = rankings.iter().map(Vec::len).max().unwrap_or(0);
    let mut position: FxHashMap<&T, usize> =
        FxHashMap::with_capacity_and_hasher(expected, Default::default());
    // Each item's score, and the last ranking that counted it.
    let mut fused: Vec<(T, f64)> = Vec::with_capacity(expected);
    let mut counted_in: Vec<usize> = Vec::with_capacity(expected);
    for (i, ranking) in rankings.iter().enumerate() {
        let w = weights.map_or(1.0, |w| w[i]);
        let take = depth.unwrap_or(ranking.len()).min(ranking.len());
        for (rank, item) in ranking[..take].iter().enumerate() {
            let contribution = w / (k + rank as f64 + 1.0);
            match position.get(item) {
                // A repeat within one ranking: only its first (best) rank counts.
                Some(&p) if counted_in[p] == i => {}
                Some(&p) => {
                    fused[p].1 += contribution;
                    counted_in[p] = i;
                }
                None => {
                    position.insert(item, fused.len());
                    fused.push((item.clone(), contribution));
                    counted_in.push(i);
                }
            }
        }
    }
    drop(position);
    // Score descending, then first appearance: the order of a stable sort
    // over insertion order.
    let order = best_first(fused.iter().enumerate().map(|(i, x)| (x.1, i, i)), top);
    let mut items: Vec<Option<(T, f64)>> = fused.into_iter().map(Some).collect();
    Ok(order
        .into_iter()
        .map(|(_, _, i)| items[i].take().expect("each position once"))
        .collect())
}

/// The first `top` of `(score, key, index)` entries, by score descending,
/// then key ascending. Scores are finite, and `partial_cmp` treats -0.0 and
/// 0.0 as equal.
fn best_first(
    entries: impl Iterator<Item = (f64, usize, usize)>,
    top: usize,
) -> Vec<(f64, usize, usize)> {
    let mut entries: Vec<_> = entries.collect();
    let by_rank = |a: &(f64, usize, usize), b: &(f64, usize, usize)| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(Ordering::Equal)
            .then(a.1.cmp(&b.1))
    };
    if top < entries.len() {
        if top == 0 {
            return Vec::new();
        }
        entries.select_nth_unstable_by(top - 1, by_rank);
        entries.truncate(top);
    }
    entries.sort_unstable_by(by_rank);
    entries
}

/// [`rrf_top`] for items that are listed in every ranking, given by their
/// 0-based rank in each: the same scores (summed in ranking order) and the
/// same order (ties to the better rank in ranking 0, where the items first
/// appear). Items absent from `items` may be ranked too; only the given
/// ones are fused.
pub fn rrf_ranks<T: Clone, const R: usize>(
    items: &[(T, [usize; R])],
    k: f64,
    top: usize,
) -> Result<Vec<(T, f64)>> {
    check(R, k, None)?;
    let fused = items.iter().enumerate().map(|(i, (_, ranks))| {
        let score = ranks.iter().fold(None, |sum: Option<f64>, &r| {
            let c = 1.0 / (k + r as f64 + 1.0);
            Some(sum.map_or(c, |s| s + c))
        });
        (score.unwrap_or(0.0), ranks.first().copied().unwrap_or(i), i)
    });
    Ok(best_first(fused, top)
        .into_iter()
        .map(|(score, _, i)| (items[i].0.clone(), score))
        .collect())
}

/// Full-depth fusion over a collection of `num_docs` documents: each ranking
/// lists some documents, and implicitly continues with every unlisted
/// document in ascending id order, so every document is fused. Returns the
/// `top` best `(doc, score)` pairs (all documents when `top` is `None`),
/// exactly as [`rrf`] over the completed rankings would.
///
/// Memory is proportional to the rankings and `top`, never to `num_docs`:
/// a document no ranking lists has its ranks computed from the counts of
/// listed documents before it. With no negative weight, such documents
/// score lower the later they come, so only the first `top` of them are
/// candidates; a negative weight makes every document one.
pub fn rrf_full_depth(
    num_docs: u32,
    rankings: &[Vec<u32>],
    k: f64,
    weights: Option<&[f64]>,
    top: Option<usize>,
) -> Result<Vec<(u32, f64)>> {
    check(rankings.len(), k, weights)?;
    if let Some(bad) = rankings.iter().flatten().find(|&&d| d >= num_docs) {
        return Err(Error::Query(format!(
            "document {bad} is out of range for {num_docs} documents"
        )));
    }
    let top = top.unwrap_or(num_docs as usize).min(num_docs as usize);
    if rankings.is_empty() || top == 0 {
        return Ok(Vec::new());
    }
    let lists: Vec<Completed> = rankings.iter().map(|r| Completed::new(r)).collect();
    let mut listed: Vec<u32> = lists
        .iter()
        .flat_map(|l| l.sorted.iter().copied())
        .collect();
    listed.sort_unstable();
    listed.dedup();
    let weight = |i: usize| weights.map_or(1.0, |w| w[i]);
    let unlisted_budget = if (0..rankings.len()).all(|i| weight(i) >= 0.0) {
        top
    } else {
        num_docs as usize
    };
    let unlisted = Unlisted {
        listed: &listed,
        next: 0,
        doc: 0,
        end: num_docs,
    }
    .take(unlisted_budget);

    let mut best: BinaryHeap<Candidate> = BinaryHeap::new();
    best.try_reserve(top.min(listed.len() + unlisted_budget) + 1)
        .map_err(|_| Error::OutOfMemory(format!("the {top} best of {num_docs} fused documents")))?;
    for doc in listed.iter().copied().chain(unlisted) {
        let score = lists
            .iter()
            .enumerate()
            .map(|(i, l)| weight(i) / (k + l.rank(doc) as f64 + 1.0))
            .reduce(|sum, c| sum + c)
            .expect("at least one ranking");
        let candidate = Candidate {
            score,
            first_seen: lists[0].rank(doc),
            doc,
        };
        if best.len() < top {
            best.push(candidate);
        } else if best.peek().is_some_and(|worst| candidate < *worst) {
            best.pop();
            best.push(candidate);
        }
    }
    Ok(best
        .into_sorted_vec()
        .into_iter()
        .map(|c| (c.doc, c.score))
        .collect())
}

/// One ranking, completed with its unlisted documents in ascending order.
struct Completed {
    /// Each listed document's first (best) position.
    first: FxHashMap<u32, u64>,
    /// The distinct listed documents, ascending.
    sorted: Vec<u32>,
    /// Positions taken by listed documents, repeats included.
    len: u64,
}

impl Completed {
    fn new(ranking: &[u32]) -> Self {
        let mut first = FxHashMap::with_capacity_and_hasher(ranking.len(), Default::default());
        for (position, &doc) in ranking.iter().enumerate() {
            first.entry(doc).or_insert(position as u64);
        }
        let mut sorted = ranking.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        Completed {
            first,
            sorted,
            len: ranking.len() as u64,
        }
    }

    /// The 0-based rank of `doc` in the completed ranking.
    fn rank(&self, doc: u32) -> u64 {
        match self.first.get(&doc) {
            Some(&position) => position,
            None => {
                let listed_before = self.sorted.partition_point(|&d| d < doc) as u64;
                self.len + u64::from(doc) - listed_before
            }
        }
    }
}

/// The documents `0..end` that are not in `listed` (sorted, distinct), ascending.
struct Unlisted<'a> {
    listed: &'a [u32],
    next: usize,
    doc: u32,
    end: u32,
}

impl Iterator for Unlisted<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        while self.doc < self.end {
            let doc = self.doc;
            self.doc += 1;
            if self.listed.get(self.next) == Some(&doc) {
                self.next += 1;
            } else {
                return Some(doc);
            }
        }
        None
    }
}

/// A fused document, ordered best first: higher score, then earlier first
/// appearance (its rank in the first completed ranking), as [`rrf`] orders.
struct Candidate {
    score: f64,
    first_seen: u64,
    doc: u32,
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Scores are finite; `partial_cmp` treats -0.0 and 0.0 as equal, as `rrf` does.
        other
            .score
            .partial_cmp(&self.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(self.first_seen.cmp(&other.first_seen))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Candidate {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_vectors() {
        let fused = rrf(&[vec![0, 1, 2], vec![2, 0, 1]], 60.0, None, None).unwrap();
        let order: Vec<_> = fused.iter().map(|x| x.0).collect();
        assert_eq!(order, [0, 2, 1]);
        assert_eq!(fused[0].1, 1.0 / 61.0 + 1.0 / 62.0);
        assert_eq!(fused[2].1, 1.0 / 62.0 + 1.0 / 63.0);
        let weighted = rrf(&[vec![0, 1], vec![1, 0]], 60.0, Some(&[0.1, 5.0]), None).unwrap();
        assert_eq!(weighted[0].0, 1);
        assert!(rrf::<u32>(&[], 60.0, None, None).unwrap().is_empty());
        assert!(rrf(&[vec![1]], 60.0, Some(&[1.0, 2.0]), None).is_err());
    }

    #[test]
    fn ties_keep_first_appearance() {
        // (0,1) vs (1,0): equal sums; ranking 0 decides.
        let fused = rrf(&[vec!["b", "a"], vec!["a", "b"]], 60.0, None, None).unwrap();
        assert_eq!(fused[0].0, "b");
    }

    #[test]
    fn top_is_a_prefix_of_the_full_fusion() {
        let mut next = crate::testing::xorshift(3);
        for _ in 0..200 {
            let rankings: Vec<Vec<u64>> = (0..1 + next() % 3)
                .map(|_| (0..next() % 12).map(|_| next() % 8).collect())
                .collect();
            let full = rrf(&rankings, 60.0, None, None).unwrap();
            for top in 0..=full.len() + 1 {
                let got = rrf_top(&rankings, 60.0, None, None, top).unwrap();
                assert_eq!(got[..], full[..top.min(full.len())]);
            }
        }
    }

    #[test]
    fn fusing_ranks_equals_fusing_rankings() {
        let mut next = crate::testing::xorshift(5);
        for _ in 0..200 {
            let n = 1 + next() % 10;
            let mut a: Vec<u64> = (0..n).collect();
            let mut b = a.clone();
            for i in (1..n as usize).rev() {
                a.swap(i, (next() % (i as u64 + 1)) as usize);
                b.swap(i, (next() % (i as u64 + 1)) as usize);
            }
            let rank = |r: &[u64], d: u64| r.iter().position(|&x| x == d).unwrap();
            let items: Vec<(u64, [usize; 2])> =
                (0..n).map(|d| (d, [rank(&a, d), rank(&b, d)])).collect();
            for top in 0..=n as usize {
                let full = rrf_top(&[a.clone(), b.clone()], 60.0, None, None, top).unwrap();
                assert_eq!(rrf_ranks(&items, 60.0, top).unwrap(), full);
            }
        }
    }

    #[test]
    fn depth_limits_contributions() {
        let fused = rrf(&[vec![1, 2, 3], vec![3, 2, 1]], 60.0, None, Some(1)).unwrap();
        assert_eq!(fused.len(), 2);
    }

    #[test]
    fn full_depth_fast_path_equals_general_path() {
        let rankings = vec![vec![4, 1, 7], vec![7, 4, 1]];
        let fast = rrf_full_depth(10, &rankings, 60.0, None, None).unwrap();
        let completed: Vec<Vec<u32>> = rankings
            .iter()
            .map(|r| {
                let mut f = r.clone();
                f.extend((0..10).filter(|d| !r.contains(d)));
                f
            })
            .collect();
        let general = rrf(&completed, 60.0, None, None).unwrap();
        assert_eq!(fast, general);
        // Different member sets use the general path.
        // List 0 is 3,0,1,2,4 and list 1 is 0,1,2,3,4: doc 0 (ranks 1, 0)
        // beats doc 3 (ranks 0, 3), which beats doc 1 (ranks 2, 1).
        let mixed = rrf_full_depth(5, &[vec![3], vec![]], 60.0, None, Some(2)).unwrap();
        let order: Vec<u32> = mixed.iter().map(|x| x.0).collect();
        assert_eq!(order, [0, 3]);
    }

    #[test]
    fn repeats_count_once_at_their_best_rank() {
        let fused = rrf(&[vec!["a", "a", "a"]], 60.0, None, None).unwrap();
        assert_eq!(fused, [("a", 1.0 / 61.0)]);
        // The repeat still takes its position: "b" is at rank 2.
        let fused = rrf(&[vec!["a", "a", "b"], vec!["b"]], 60.0, None, None).unwrap();
        assert_eq!(fused, [("b", 1.0 / 63.0 + 1.0 / 61.0), ("a", 1.0 / 61.0)]);
    }

    /// `rrf_full_depth` by its definition: `rrf` over the completed rankings.
    fn full_depth_reference(
        num_docs: u32,
        rankings: &[Vec<u32>],
        weights: Option<&[f64]>,
        top: Option<usize>,
    ) -> Vec<(u32, f64)> {
        let completed: Vec<Vec<u32>> = rankings
            .iter()
            .map(|r| {
                let mut f = r.clone();
                f.extend((0..num_docs).filter(|d| !r.contains(d)));
                f
            })
            .collect();
        let mut fused = rrf(&completed, 60.0, weights, None).unwrap();
        fused.truncate(top.unwrap_or(usize::MAX));
        fused
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        #[test]
        fn full_depth_equals_its_definition(
            num_docs in 1u32..40,
            raw in proptest::collection::vec(proptest::collection::vec(0u32..40, 0..12), 1..4),
            signed in proptest::collection::vec(-2.0f64..2.0, 4),
            negative in proptest::bool::ANY,
            top in proptest::option::of(0usize..50),
        ) {
            let rankings: Vec<Vec<u32>> = raw
                .iter()
                .map(|r| r.iter().map(|d| d % num_docs).collect())
                .collect();
            let weights: Vec<f64> = signed[..rankings.len()]
                .iter()
                .map(|w| if negative { *w } else { w.abs() })
                .collect();
            let fast = rrf_full_depth(num_docs, &rankings, 60.0, Some(&weights), top).unwrap();
            proptest::prop_assert_eq!(
                fast,
                full_depth_reference(num_docs, &rankings, Some(&weights), top)
            );
        }
    }

    #[test]
    fn full_depth_memory_follows_the_inputs() {
        // Four billion documents, three asked for: no per-document table. The
        // documents past 20 score lower than those before (their ranks only
        // grow), so the best three are those of 20 documents.
        let rankings = [vec![7, 3], vec![3]];
        let fused = rrf_full_depth(u32::MAX, &rankings, 60.0, None, Some(3)).unwrap();
        let mut small = full_depth_reference(20, &rankings, None, Some(3));
        small.truncate(3);
        assert_eq!(fused, small);
    }
}
