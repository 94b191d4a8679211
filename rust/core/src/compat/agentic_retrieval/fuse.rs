//! The fused search: reciprocal-rank fusion of the two arms' rankings.

use rustc_hash::FxHashMap;

use super::scores::{Scores, query_counts};
use super::{Bm25Arm, RRF_K, TfidfArm};
use crate::error::{Error, Result};
use crate::fusion;

/// The first `top` documents of the RRF fusion of two arms' rankings of
/// their (common, all positive) touched documents.
///
/// Only documents ranked below `reach = 2·top + 64` in some arm can be
/// among them: the best `top` of either arm are fused above `1/(60 + top)`,
/// and a document ranked at least `reach` in both is fused at most
/// `2/(61 + reach) = 2/(125 + 2·top)`, less. So each arm's best `reach` are
/// selected and sorted, the candidates' missing ranks counted in one pass,
/// and the candidates fused by their ranks (`fusion::rrf_ranks`): the
/// output of fusing the full rankings, without sorting them.
fn fuse_matching(arms: [&Scores; 2], top: usize) -> Result<Vec<u32>> {
    let keys = arms.map(Scores::keys);
    let reach = (2 * top + 64).min(keys[0].len());
    let mut ranks: FxHashMap<u32, [usize; 2]> = FxHashMap::default();
    for (arm, keys) in keys.iter().enumerate() {
        let mut best = keys.clone();
        if reach < best.len() {
            best.select_nth_unstable(reach);
            best.truncate(reach);
        }
        best.sort_unstable();
        for (rank, &(_, doc)) in best.iter().enumerate() {
            ranks.entry(doc).or_insert([usize::MAX; 2])[arm] = rank;
        }
    }
    for (arm, keys) in keys.iter().enumerate() {
        // rank(c) = number of keys below c's: a histogram over the sorted
        // keys of the candidates that lack this rank, then prefix sums.
        let mut lacking: Vec<(u64, u32)> = ranks
            .iter()
            .filter(|(_, r)| r[arm] == usize::MAX)
            .map(|(&d, _)| arms[arm].key(d))
            .collect();
        if lacking.is_empty() {
            continue;
        }
        lacking.sort_unstable();
        let last = *lacking.last().expect("not empty");
        let mut below = vec![0usize; lacking.len()];
        for key in keys.iter().filter(|&&k| k < last) {
            below[lacking.partition_point(|c| c <= key)] += 1;
        }
        let mut rank = 0;
        for (c, n) in lacking.iter().zip(below) {
            rank += n;
            ranks.get_mut(&c.1).expect("a candidate")[arm] = rank;
        }
    }
    let items: Vec<(u32, [usize; 2])> = ranks.into_iter().collect();
    Ok(fusion::rrf_ranks(&items, RRF_K, top)?
        .into_iter()
        .map(|(d, _)| d)
        .collect())
}

/// The first `top` documents of the fused ranking of the two arms (both
/// over the same `N` documents), as the reference orders all `N`.
pub fn search(
    tfidf: &TfidfArm,
    bm25: &Bm25Arm,
    query: &str,
    k1: f64,
    b: f64,
    top: usize,
) -> Result<Vec<u32>> {
    let n = tfidf.n_docs();
    if bm25.n_docs() != n {
        return Err(Error::Query(format!(
            "the tfidf arm holds {n} documents and the bm25 arm {}; fit both on the same documents",
            bm25.n_docs()
        )));
    }
    crate::search::limits::check_bytes(query)?;
    let top = top.min(n);
    if top == 0 {
        return Ok(Vec::new());
    }
    let counts = query_counts(tfidf.mode(), query);
    let t = tfidf.scores_of(&counts);
    let s = if bm25.mode() == tfidf.mode() {
        bm25.scores_of(&counts, k1, b)
    } else {
        bm25.scores(query, k1, b)
    };
    let same_matches = t.num_touched == s.num_touched && t.touched == s.touched;
    if same_matches && t.all_positive() && s.all_positive() {
        let mut fused = fuse_matching([&t, &s], top)?;
        let rest = (0..n as u32).filter(|&d| !t.touched[d as usize]);
        let missing = top - fused.len();
        fused.extend(rest.take(missing));
        return Ok(fused);
    }
    let rankings = [t.full_ranking(), s.full_ranking()];
    Ok(fusion::rrf_top(&rankings, RRF_K, None, None, top)?
        .into_iter()
        .map(|(d, _)| d)
        .collect())
}
