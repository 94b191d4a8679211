//! Reciprocal-rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009):
//! `fused(d) = Σ_i w_i / (k + rank_i(d) + 1)` with 0-based ranks.
//!
//! Ties are broken by first appearance, scanning ranking 0, then ranking 1,
//! and so on: the rule of a stable sort over insertion order, which is what
//! the Python implementations that this one replaces do.

use std::cmp::Ordering;
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
    let mut fused: Vec<(T, f64)> = Vec::with_capacity(expected);
    for (i, ranking) in rankings.iter().enumerate() {
        let w = weights.map_or(1.0, |w| w[i]);
        let take = depth.unwrap_or(ranking.len()).min(ranking.len());
        for (rank, item) in ranking[..take].iter().enumerate() {
            let contribution = w / (k + rank as f64 + 1.0);
            match position.get(item) {
                Some(&p) => fused[p].1 += contribution,
                None => {
                    position.insert(item, fused.len());
                    fused.push((item.clone(), contribution));
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
/// `top` best `(doc, score)` pairs (all documents when `top` is `None`).
///
/// When every ranking lists the same documents and all weights are positive
/// (the case of BM25 and TF-IDF over the documents matching a query), the
/// listed documents all outrank the others, and only they are fused; the
/// rest follow in id order.
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
    if rankings.is_empty() {
        return Ok(Vec::new());
    }
    let weight = |i: usize| weights.map_or(1.0, |w| w[i]);
    let same_members = {
        let mut first: Vec<u32> = rankings[0].clone();
        first.sort_unstable();
        first.windows(2).all(|w| w[0] != w[1])
            && rankings[1..].iter().all(|r| {
                let mut other = r.clone();
                other.sort_unstable();
                other == first
            })
    };
    if same_members && (0..rankings.len()).all(|i| weight(i) > 0.0) {
        let members = rankings[0].len();
        let mut fused = rrf(rankings, k, weights, None)?;
        fused.truncate(top);
        if fused.len() < top {
            let mut listed = vec![false; num_docs as usize];
            for &d in &rankings[0] {
                listed[d as usize] = true;
            }
            let rest = (0..num_docs).filter(|&d| !listed[d as usize]);
            for (j, doc) in rest.take(top - fused.len()).enumerate() {
                let rank = (members + j) as f64;
                let score = (0..rankings.len())
                    .map(|i| weight(i) / (k + rank + 1.0))
                    .sum();
                fused.push((doc, score));
            }
        }
        return Ok(fused);
    }
    let completed: Vec<Vec<u32>> = rankings
        .iter()
        .map(|r| {
            let mut listed = vec![false; num_docs as usize];
            let mut full = Vec::with_capacity(num_docs as usize);
            for &d in r {
                listed[d as usize] = true;
                full.push(d);
            }
            full.extend((0..num_docs).filter(|&d| !listed[d as usize]));
            full
        })
        .collect();
    let mut fused = rrf(&completed, k, weights, None)?;
    fused.truncate(top);
    Ok(fused)
}

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
}
