//! Exact dynamic pruning for BM25: document-at-a-time MaxScore and
//! block-max WAND over the block metadata of the postings.
//!
//! Both skip documents whose score provably cannot enter the top k, and
//! score every other candidate completely, so they return exactly what the
//! exhaustive path of [`crate::search`] returns: the same documents, the
//! same order under the tie rule, the same float32 scores (contributions are
//! summed in float64 in query-term order, as there).
//!
//! Bounds come from each block's largest tf and smallest document length,
//! which bound the score of any of its postings for every BM25 variant, k1
//! and b chosen at query time (BM25 grows with tf and shrinks with length,
//! and per-term scores are non-negative when the term weight is). Float
//! rounding is kept on the safe side by a relative slack on every bound
//! and comparison ([`SLACK`]): pruning may skip a little less than it
//! could, never more.

use super::cursor::{Cursor, END};
use super::query::ScoredDoc;
use super::topk::TopK;
use crate::fieldnorm;
use crate::impacts::norm_inverses;
use crate::index::LiveSegment;
use crate::postings::BLOCK_LEN;
use crate::scoring::{Bm25Scorer, lucene_score};
use crate::segment::TermOrd;

/// Lists at least this long get a per-norm table of tf = 1 scores (256
/// divisions, saved many times over).
const TF1_TABLE_MIN_DF: u32 = 1024;

/// Relative slack on bounds and thresholds, far above float64 rounding
/// (~1e-16 per operation) and above a float32 ulp (~6e-8), so that a
/// document scoring exactly the threshold is never pruned.
const SLACK: f64 = 1e-6;

/// Whether a document whose score is at most `bound` cannot enter a top k
/// whose worst kept score is `threshold` (a tie could still enter by docid).
#[inline]
fn prunable(bound: f64, threshold: f64) -> bool {
    bound * (1.0 + SLACK) < threshold
}

/// One query term's cursor in a segment.
struct TermCursor<'a> {
    cursor: Cursor<'a>,
    /// The term's BM25 weight (query tf × idf).
    weight: f32,
    /// Its position among the query's distinct terms.
    query: usize,
    /// Lucene scores at tf = 1 by norm byte, for long lists.
    ones: Option<Box<[f32; 256]>>,
}

/// A segment, a scorer and the per-document scratch both algorithms share.
struct Scoring<'s> {
    segment: &'s LiveSegment,
    scorer: &'s Bm25Scorer,
    /// Lucene's norm cache when the scorer is Lucene's own BM25: one table
    /// lookup per posting, in the one-byte norms only.
    lucene: Option<&'s [f32; 256]>,
    /// Each query term's contribution to the current document.
    contrib: Vec<Option<f32>>,
    top: TopK,
    /// A score at least k documents are known to reach (see [`seed`]).
    floor: f64,
}

impl<'s> Scoring<'s> {
    /// The exact score of the current posting of `t` for `doc` (`None` for a
    /// posting the exhaustive path skips: tf 0 or an empty document, which
    /// only a damaged file holds; norm 0 is length 0).
    #[inline]
    fn posting(&self, t: &TermCursor<'_>, doc: u32) -> Option<f32> {
        self.posting_of(t, doc, t.cursor.tf())
    }

    /// [`Scoring::posting`] for a posting of `t` with `doc` and `tf`.
    #[inline]
    fn posting_of(&self, t: &TermCursor<'_>, doc: u32, tf: u32) -> Option<f32> {
        let data = self.segment.data();
        if let Some(cache) = self.lucene {
            let norm = usize::from(data.norm(doc));
            return match (&t.ones, tf, norm) {
                (_, 0, _) | (_, _, 0) => None,
                (Some(ones), 1, _) => Some(ones[norm]),
                _ => Some(lucene_score(t.weight, tf, cache[norm])),
            };
        }
        let length = data.length(doc);
        (tf != 0 && length != 0).then(|| self.scorer.score(t.weight, tf, data.norm(doc), length))
    }

    /// Bounds of the scores of a run of `t`'s postings (`docs`, `tfs`) into
    /// `out`, at once: each posting's exact score, or a non-negative value
    /// (or NaN) for a posting [`Scoring::posting`] skips, which scores
    /// nothing.
    #[inline]
    fn bounds(&self, t: &TermCursor<'_>, docs: &[u32], tfs: &[u32], out: &mut [f32]) {
        let data = self.segment.data();
        match self.lucene {
            Some(cache) => {
                // One pass gathers the norms' inverses, a second scores:
                // both loops are short and branch-free.
                let mut inverse = [0f32; BLOCK_LEN];
                let inverse = &mut inverse[..docs.len()];
                norm_inverses(data.norms(), cache, docs, tfs, inverse);
                for ((o, &ni), &tf) in out.iter_mut().zip(inverse.iter()).zip(tfs) {
                    *o = lucene_score(t.weight, tf, ni);
                }
            }
            None => {
                for ((o, &doc), &tf) in out.iter_mut().zip(docs).zip(tfs) {
                    *o = self.posting_of(t, doc, tf).unwrap_or(0.0);
                }
            }
        }
    }

    /// The pruning threshold: the heap's, or the seeded floor if higher.
    #[inline]
    fn threshold(&self) -> f64 {
        self.top.threshold().max(self.floor)
    }

    /// Records `t`'s contribution to `doc`; returns it (0 if none).
    #[inline]
    fn add(&mut self, t: &TermCursor<'_>, doc: u32) -> f64 {
        match self.posting(t, doc) {
            Some(s) => {
                self.contrib[t.query] = Some(s);
                f64::from(s)
            }
            None => 0.0,
        }
    }

    /// The exact score of the recorded contributions, summed in query order
    /// as the exhaustive path does (`None` if there is none); clears them.
    #[inline]
    fn total(&mut self) -> Option<f32> {
        let mut total = 0f64;
        let mut any = false;
        for c in &mut self.contrib {
            if let Some(s) = c.take() {
                total += f64::from(s);
                any = true;
            }
        }
        any.then_some(total as f32)
    }

    /// Offers the document with its recorded contributions and clears them;
    /// returns whether the threshold may have changed.
    #[inline]
    fn finish(&mut self, doc: u32) -> bool {
        match self.total() {
            // Below the floor, a document is out of the top k for sure.
            Some(score) if f64::from(score) >= self.floor && self.top.may_keep(score) => {
                let data = self.segment.data();
                self.top.push(doc, score, |d| data.docid_rank(d))
            }
            _ => false,
        }
    }

    fn clear(&mut self) {
        self.contrib.fill(None);
    }

    /// Whether `doc` is scored at all (the exhaustive path skips deleted
    /// documents; empty ones have no valid posting).
    #[inline]
    fn live(&self, doc: u32) -> bool {
        !self.segment.is_deleted(doc)
    }
}

/// The dynamic pruning algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pruning {
    /// MaxScore (Turtle and Flood 1995) with block-max bounds (block-max
    /// MaxScore).
    MaxScore,
    /// Block-max WAND (Ding and Suel 2011).
    BlockMaxWand,
}

/// The `k` best documents of `segment` for the query terms of ordinals
/// `ords` and BM25 term weights `weights` (all finite and ≥ 0), best first
/// under the tie rule, by `pruning`.
pub(crate) fn top_k(
    segment: &LiveSegment,
    ords: &[Option<TermOrd>],
    weights: &[f32],
    scorer: &Bm25Scorer,
    k: usize,
    pruning: Pruning,
) -> Vec<ScoredDoc> {
    let data = segment.data();
    let inflate = |s: f32| f64::from(s) * (1.0 + SLACK);
    let mut cursors = Vec::with_capacity(ords.len());
    for (query, (&ord, &weight)) in ords.iter().zip(weights).enumerate() {
        let Some(ord) = ord else {
            continue;
        };
        let list = data.postings(ord);
        if list.df == 0 {
            continue;
        }
        let cursor = Cursor::new(
            list,
            |max_tf, min_length| {
                inflate(scorer.score(
                    weight,
                    max_tf,
                    fieldnorm::length_to_norm(min_length),
                    min_length,
                ))
            },
            |doc, tf| match data.length(doc) {
                0 => 0.0,
                length => inflate(scorer.score(weight, tf, data.norm(doc), length)),
            },
        );
        let ones = scorer
            .lucene_norm_cache()
            .filter(|_| list.df >= TF1_TABLE_MIN_DF)
            .map(|cache| Box::new(std::array::from_fn(|n| lucene_score(weight, 1, cache[n]))));
        cursors.push(TermCursor {
            cursor,
            weight,
            query,
            ones,
        });
    }
    let mut scoring = Scoring {
        segment,
        scorer,
        lucene: scorer.lucene_norm_cache(),
        contrib: vec![None; ords.len()],
        top: TopK::new(k),
        floor: f64::NEG_INFINITY,
    };
    seed(&mut scoring, &mut cursors, k);
    match pruning {
        Pruning::MaxScore => maxscore(&mut scoring, cursors),
        Pruning::BlockMaxWand => block_max_wand(&mut scoring, cursors),
    }
    scoring.top.into_sorted(|d| data.docid_rank(d))
}

/// Documents scored by [`seed`]: this many per wanted hit...
const SEED_DOCS_PER_HIT: usize = 1;
/// ...plus this many.
const SEED_DOCS_EXTRA: usize = 64;

/// Raises the pruning threshold before the main pass: the first documents
/// of the highest-bound lists (rare terms', whose documents tend to score
/// high), taken in decreasing bound order, are scored in full, and if k of
/// them were, the k-th best score is a floor that at least k documents
/// reach, so no document scoring below it can be in the top k. Without it,
/// the threshold starts at −∞ and rises only as good documents turn up,
/// while long lists stay essential. The cursors are rewound afterwards; the
/// main pass scores every document again (the seeded ones too), so the
/// floor only prunes.
fn seed(s: &mut Scoring<'_>, cursors: &mut [TermCursor<'_>], k: usize) {
    if cursors.len() < 2 {
        return;
    }
    let budget = k * SEED_DOCS_PER_HIT + SEED_DOCS_EXTRA;
    let mut order: Vec<usize> = (0..cursors.len()).collect();
    order.sort_by(|&a, &b| {
        cursors[b]
            .cursor
            .bound()
            .total_cmp(&cursors[a].cursor.bound())
    });
    let mut docs: Vec<u32> = Vec::with_capacity(budget);
    for &i in &order {
        let cursor = &mut cursors[i].cursor;
        while docs.len() < budget && cursor.doc != END {
            docs.push(cursor.doc);
            cursor.next();
        }
        if docs.len() == budget {
            break;
        }
    }
    docs.sort_unstable();
    docs.dedup();
    docs.retain(|&doc| s.live(doc));
    for t in cursors.iter_mut() {
        t.cursor.rewind();
    }
    if docs.len() < k {
        return;
    }
    let mut scores: Vec<f32> = Vec::with_capacity(docs.len());
    for &doc in &docs {
        for t in cursors.iter_mut() {
            t.cursor.advance(doc);
            if t.cursor.doc == doc {
                s.add(t, doc);
            }
        }
        scores.extend(s.total());
    }
    if scores.len() >= k {
        let (_, kth, _) = scores.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
        s.floor = f64::from(*kth);
    }
    for t in cursors.iter_mut() {
        t.cursor.rewind();
    }
}

/// MaxScore: terms sorted by bound; the lowest-bound ones whose bounds
/// together cannot reach the threshold are "non-essential": a document
/// holding only them is never visited. Candidates come from the essential
/// terms. The block bounds of every term at a candidate, from metadata
/// alone, hold over a window up to the nearest block end (0 for a term with
/// no posting in it): if they cannot reach the threshold, the whole window
/// is skipped (block-max MaxScore). If they leave a single essential term
/// with postings in the window, its postings there are scored in one run
/// against the window's other bounds ([`single_essential`]), which prunes
/// most of them without a document-at-a-time step. Otherwise the
/// non-essential terms of a candidate are looked up (highest bound first)
/// only while its score can still reach the threshold.
fn maxscore(s: &mut Scoring<'_>, mut cursors: Vec<TermCursor<'_>>) {
    cursors.sort_by(|a, b| a.cursor.bound().total_cmp(&b.cursor.bound()));
    let n = cursors.len();
    // cumulative[i]: sum of the bounds of cursors[..=i].
    let cumulative: Vec<f64> = cursors
        .iter()
        .scan(0f64, |sum, c| {
            *sum += c.cursor.bound();
            Some(*sum)
        })
        .collect();
    // block_prefix[i]: sum of the window's block bounds of cursors[..=i].
    let mut block_prefix = vec![0f64; n];
    let mut window_end: Option<u32> = None;
    let mut threshold = s.threshold();
    let mut first = 0;
    // No document before it is left to score. Essential cursors are moved
    // past a finished window only when they are next read (a window that
    // does not need one leaves its block undecoded), so they may lag behind.
    let mut floor = 0u32;
    loop {
        while first < n && prunable(cumulative[first], threshold) {
            first += 1;
        }
        let Some(lowest) = cursors[first..].iter().map(|c| c.cursor.doc).min() else {
            break;
        };
        let doc = lowest.max(floor);
        if doc == END {
            break;
        }
        // Block bounds of every term at `doc`; they hold up to the nearest
        // block end (candidates only move forward, so later ones before it
        // reuse them). A cursor already past that end has no posting in the
        // window and adds nothing to it.
        if window_end.is_none_or(|end| doc > end) {
            let end = cursors
                .iter_mut()
                .map(|t| t.cursor.block_end(doc))
                .min()
                .unwrap_or(END);
            let mut sum = 0f64;
            for (prefix, t) in block_prefix.iter_mut().zip(cursors.iter_mut()) {
                if t.cursor.doc <= end {
                    sum += t.cursor.block_bound(doc);
                }
                *prefix = sum;
            }
            window_end = Some(end);
        }
        let end = window_end.unwrap_or(END);
        if prunable(block_prefix[n - 1], threshold) {
            // Every block end is at or after `doc`: this moves forward.
            floor = end.saturating_add(1);
            continue;
        }
        // The window's own essential terms: those from the first whose
        // prefix of block bounds can reach the threshold.
        let essential = block_prefix
            .iter()
            .position(|&p| !prunable(p, threshold))
            .unwrap_or(n)
            .max(first);
        // An exhausted cursor (at END, which may be the window's end) has none.
        let mut active = (essential..n).filter(|&i| cursors[i].cursor.doc <= end.min(END - 1));
        if let (Some(lead), None) = (active.next(), active.next()) {
            // It may lag behind the window (see `floor`).
            cursors[lead].cursor.advance(doc);
            threshold = single_essential(s, &mut cursors, &block_prefix, essential, lead, end);
            floor = end.saturating_add(1);
            continue;
        }
        if lowest < doc {
            // Candidates one by one: every essential cursor at `doc` or on.
            for t in &mut cursors[first..] {
                t.cursor.advance(doc);
            }
            continue;
        }
        let live = s.live(doc);
        let mut partial = 0f64;
        for t in &mut cursors[first..] {
            if t.cursor.doc == doc {
                if live {
                    partial += s.add(t, doc);
                }
                t.cursor.next();
            }
        }
        if !live {
            continue;
        }
        // Non-essential terms, highest bound first, while the block bounds
        // of those left can still lift the document to the threshold.
        if probe(
            s,
            &mut cursors[..first],
            &block_prefix,
            partial,
            doc,
            threshold,
        ) {
            threshold = s.threshold();
        }
    }
}

/// Looks up the terms of `rest` (lowest bound first; `prefix[i]` bounds
/// the sum of their contributions up to `i`) for `doc`, highest bound first,
/// while the contributions already recorded (`partial`) and the bounds of
/// the terms left can still reach `threshold`; then offers the document or
/// forgets its contributions. Returns whether the threshold may have risen.
#[inline]
fn probe(
    s: &mut Scoring<'_>,
    rest: &mut [TermCursor<'_>],
    prefix: &[f64],
    mut partial: f64,
    doc: u32,
    threshold: f64,
) -> bool {
    for i in (0..rest.len()).rev() {
        if prunable(partial + prefix[i], threshold) {
            s.clear();
            return false;
        }
        let t = &mut rest[i];
        t.cursor.advance(doc);
        if t.cursor.doc == doc {
            partial += s.add(t, doc);
        }
    }
    s.finish(doc)
}

/// Scores the postings of `cursors[lead]`, the window's only essential
/// term with postings in it, up to `end` (within its decoded block, since
/// `end` is at or before every block end), each against the bounds of the
/// window's non-essential terms (`cursors[..essential]`, whose block bounds
/// `prefix` sums): a posting that cannot reach the threshold with them is
/// passed over; the others are looked up as in [`probe`]. The other
/// essential terms have no posting in the window. `lead` is at or after the
/// window's first document. Returns the threshold.
fn single_essential(
    s: &mut Scoring<'_>,
    cursors: &mut [TermCursor<'_>],
    prefix: &[f64],
    essential: usize,
    lead: usize,
    end: u32,
) -> f64 {
    let (rest, tail) = cursors.split_at_mut(lead);
    let lead = &mut tail[0];
    let rest = &mut rest[..essential];
    let others = essential.checked_sub(1).map_or(0.0, |i| prefix[i]);
    let mut threshold = s.threshold();
    let mut bounds = [0f32; BLOCK_LEN];
    // One pass in a valid file; more only if a block's metadata is wrong.
    while lead.cursor.doc <= end {
        let (docs, tfs) = lead.cursor.run(end);
        let count = docs.len();
        s.bounds(lead, docs, tfs, &mut bounds[..count]);
        for i in 0..count {
            if prunable(f64::from(bounds[i]) + others, threshold) {
                continue;
            }
            let doc = docs[i];
            if !s.live(doc) {
                continue;
            }
            let score = s.posting_of(lead, doc, tfs[i]);
            s.contrib[lead.query] = score;
            let partial = f64::from(score.unwrap_or(0.0));
            if probe(s, rest, prefix, partial, doc, threshold) {
                threshold = s.threshold();
            }
        }
        lead.cursor.skip(count.max(1));
    }
    threshold
}

/// Block-max WAND: cursors kept sorted by current document; the pivot is
/// the first document where the bounds of the lists up to it could reach
/// the threshold. If the current blocks' bounds cannot, the whole range up
/// to the nearest block end is skipped; otherwise lagging lists are moved
/// to the pivot and, once all are there, it is scored in full.
fn block_max_wand(s: &mut Scoring<'_>, mut cursors: Vec<TermCursor<'_>>) {
    let n = cursors.len();
    loop {
        cursors.sort_by_key(|t| t.cursor.doc);
        let threshold = s.threshold();
        let mut sum = 0f64;
        let mut pivot = None;
        for (i, t) in cursors.iter().enumerate() {
            if t.cursor.doc == END {
                break;
            }
            sum += t.cursor.bound();
            if !prunable(sum, threshold) {
                pivot = Some(i);
                break;
            }
        }
        let Some(mut p) = pivot else {
            break;
        };
        let doc = cursors[p].cursor.doc;
        while p + 1 < n && cursors[p + 1].cursor.doc == doc {
            p += 1;
        }
        let block_sum: f64 = cursors[..=p]
            .iter_mut()
            .map(|t| t.cursor.block_bound(doc))
            .sum();
        if prunable(block_sum, threshold) {
            // No document before the nearest block end (or the next list's
            // document) can reach the threshold.
            let mut next = cursors[..=p]
                .iter_mut()
                .map(|t| t.cursor.block_end(doc))
                .min()
                .unwrap_or(END)
                .saturating_add(1);
            if let Some(t) = cursors.get(p + 1) {
                next = next.min(t.cursor.doc);
            }
            let widest = strongest(&cursors[..=p], |_| true);
            cursors[widest].cursor.advance(next);
        } else if cursors[0].cursor.doc == doc {
            if s.live(doc) {
                for t in &cursors[..=p] {
                    s.add(t, doc);
                }
                s.finish(doc);
            }
            for t in &mut cursors[..=p] {
                t.cursor.next();
            }
        } else {
            let lagging = strongest(&cursors[..p], |t| t.cursor.doc < doc);
            cursors[lagging].cursor.advance(doc);
        }
    }
}

/// Index of the highest-bound cursor among those `keep` accepts (the first
/// one if none does).
fn strongest(cursors: &[TermCursor<'_>], keep: impl Fn(&TermCursor<'_>) -> bool) -> usize {
    cursors
        .iter()
        .enumerate()
        .filter(|(_, t)| keep(t))
        .max_by(|a, b| a.1.cursor.bound().total_cmp(&b.1.cursor.bound()))
        .map_or(0, |(i, _)| i)
}
