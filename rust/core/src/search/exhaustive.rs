//! Exhaustive scoring, the reference path: every posting of every query
//! term is scored term-at-a-time into a dense accumulator (deleted
//! documents skipped), a cache-sized range of documents at a time, and the
//! k best are selected under the tie rule. The pruned algorithms of
//! [`super::pruned`] reproduce its hits exactly.

use std::cell::RefCell;

use super::query::{QueryTerm, ScoredDoc};
use super::topk::TopK;
use super::weight::{PostingScorer, Weight};
use crate::impacts::{Impacts, norm_inverses};
use crate::index::LiveSegment;
use crate::postings::{BLOCK_LEN, BlockDecoder};
use crate::scoring::{lucene_from_denominator, lucene_score};
use crate::segment::TermOrd;

/// A running score no document has: a sum starting at +0.0 never becomes
/// −0.0, so this marks the untouched slots without a second array.
const UNTOUCHED: u64 = 0x8000_0000_0000_0000;

/// Reusable per-thread scratch space: the running scores of one range of
/// documents at a time (see [`accumulate`]).
#[derive(Default)]
struct Accumulator {
    /// Scores by offset in the current range; all `UNTOUCHED` between
    /// ranges, as each range's selection clears what it reads.
    scores: Vec<f64>,
    /// Sparse mode: `touched[..num_touched]` are the offsets given a score,
    /// in first-touched order. The buffer has a spare entry past any range,
    /// so that an offset is written whether or not it is new (no branch).
    touched: Vec<u32>,
    num_touched: usize,
    /// Dense mode: no touched list; every slot of a range is read (and
    /// cleared) when it is selected. For queries whose postings outnumber a
    /// good share of the documents, one sequential scan is cheaper than a
    /// check and a push per posting.
    dense: bool,
    /// A query began and did not finish (it panicked): slots may be set.
    dirty: bool,
    decoders: Vec<BlockDecoder>,
}

impl Accumulator {
    /// Readies the scratch space for a query over ranges of `range_len`.
    fn start(&mut self, range_len: usize, dense: bool) {
        if std::mem::replace(&mut self.dirty, true) {
            self.scores.fill(f64::from_bits(UNTOUCHED));
        }
        self.num_touched = 0;
        if self.touched.len() <= range_len {
            self.touched.resize(range_len + 1, 0);
        }
        // Whole groups of `LANES` for the dense selection.
        let slots = range_len.next_multiple_of(LANES);
        if self.scores.len() < slots {
            self.scores.resize(slots, f64::from_bits(UNTOUCHED));
        }
        self.dense = dense;
    }
}

thread_local! {
    static SCRATCH: RefCell<Accumulator> = RefCell::new(Accumulator::default());
}

/// The `k` best documents of segment `s` (whose query lists hold about
/// `postings` postings), best first under the tie rule, by scoring every
/// posting of the terms of `query`, whose ordinals in the segment are `ords`;
/// over the segment's materialized lists when `materialize` lets it build
/// them ([`crate::impacts`]).
pub(super) fn top_k(
    s: usize,
    segment: &LiveSegment,
    query: &Weight<'_>,
    ords: &[Option<TermOrd>],
    postings: u64,
    k: usize,
    materialize: bool,
) -> Vec<ScoredDoc> {
    let (data, terms, weights) = (segment.data(), query.terms, &query.weights);
    let scorer = &query.scorer;
    SCRATCH.with(|cell| {
        let mut acc = cell.borrow_mut();
        // Dense when the postings are at least half the documents.
        let dense = postings.saturating_mul(2) >= data.len() as u64;
        acc.start(data.len().min(ACCUMULATOR_RANGE), dense);
        let mut top = TopK::new(k);
        let lucene = match &scorer {
            PostingScorer::Bm25(bm25) => bm25.lucene_norm_cache(),
            PostingScorer::TfIdf(_) | PostingScorer::Qld(_) => None,
        };
        let (scratch, best) = (&mut *acc, &mut top);
        match lucene {
            // Lucene's own BM25, the default, gets a loop of its own:
            // norm-table lookups first, then the arithmetic over a
            // whole block, which the compiler turns into SIMD (each
            // operation correctly rounded, as in the scalar formula).
            Some(cache) => {
                // Norm 0 (length 0, or an id past the end) only
                // comes from a damaged file: it scores NaN.
                let mut inverses = *cache;
                inverses[0] = f32::NAN;
                let impacts = materialize
                    .then(|| segment.impacts.get(data, &inverses, postings))
                    .flatten();
                match impacts {
                    // Materialized: the denominators are read, not computed.
                    Some(impacts) => accumulate(
                        segment,
                        Lists::Impacts(&impacts),
                        terms,
                        ords,
                        weights,
                        scratch,
                        best,
                        |_, weight| {
                            let w = weight as f32;
                            move |_: &[u32], dens: &[u32], out: &mut [f32]| {
                                for (o, &d) in out.iter_mut().zip(dens) {
                                    *o = lucene_from_denominator(w, f32::from_bits(d));
                                }
                            }
                        },
                    ),
                    None => accumulate(
                        segment,
                        Lists::Blocks,
                        terms,
                        ords,
                        weights,
                        scratch,
                        best,
                        |_, weight| {
                            let w = weight as f32;
                            move |docs: &[u32], tfs: &[u32], out: &mut [f32]| {
                                // The norms slice is taken once per block, not per
                                // posting as `data.norm` would (3–4 % on the Linux corpus).
                                let mut inverse = [0f32; BLOCK_LEN];
                                norm_inverses(data.norms(), &inverses, docs, tfs, &mut inverse);
                                for ((o, &ni), &tf) in out.iter_mut().zip(&inverse).zip(tfs) {
                                    *o = lucene_score(w, tf, ni);
                                }
                            }
                        },
                    ),
                }
            }
            None => accumulate(
                segment,
                Lists::Blocks,
                terms,
                ords,
                weights,
                scratch,
                best,
                |qt, weight| {
                    let (scorer, boost) = (&scorer, f64::from(qt.query_tf));
                    move |docs: &[u32], tfs: &[u32], out: &mut [f32]| {
                        for ((o, &doc), &tf) in out.iter_mut().zip(docs).zip(tfs) {
                            *o = match (data.length(doc), tf) {
                                (0, _) | (_, 0) => f32::NAN,
                                _ => scorer
                                    .score(s, data, boost, weight, doc, tf)
                                    .unwrap_or(f32::NAN),
                            };
                        }
                    }
                },
            ),
        }
        acc.dirty = false;
        top.into_sorted(|d| data.docid_rank(d))
    })
}

/// Offers `top` the sum of the scores of every live posting of every query
/// term in `segment` (ordinals `ords`), per document: `scorer(term, weight)` makes the term's
/// `score(docs, tfs, out)`, which scores a run of postings at once and
/// writes NaN for a posting to skip (tf 0, or a document of length 0: only
/// a damaged file holds those; no valid posting scores NaN).
///
/// Documents are taken in ranges whose scores fit in the L2 cache, each
/// range term by term in query order (so every document's sum still runs
/// in query order) and selected from while it is still in the cache.
#[allow(clippy::too_many_arguments)]
fn accumulate<S: FnMut(&[u32], &[u32], &mut [f32])>(
    segment: &LiveSegment,
    source: Lists<'_>,
    terms: &[QueryTerm],
    ords: &[Option<TermOrd>],
    weights: &[f64],
    acc: &mut Accumulator,
    top: &mut TopK,
    scorer: impl Fn(&QueryTerm, f64) -> S,
) {
    let data = segment.data();
    let mut lists = Vec::with_capacity(terms.len());
    for ((qt, &weight), ord) in terms.iter().zip(weights).zip(ords) {
        if let &Some(ord) = ord {
            let list = data.postings(ord);
            let materialized = match source {
                Lists::Blocks => None,
                Lists::Impacts(impacts) => Some(impacts.list(ord)),
            };
            lists.push(TermState {
                score: scorer(qt, weight),
                list,
                materialized,
                block: 0,
                len: materialized.map_or(0, |(docs, _)| docs.len()),
                pos: 0,
            });
        }
    }
    if acc.decoders.len() < lists.len() {
        acc.decoders.resize_with(lists.len(), BlockDecoder::default);
    }
    let mut scores = [0f32; BLOCK_LEN];
    let mut start = 0usize;
    while start < data.len() {
        let len = ACCUMULATOR_RANGE.min(data.len() - start);
        let end = (start + len) as u32;
        let first = start as u32;
        let Accumulator {
            scores: slots,
            touched,
            num_touched,
            dense,
            decoders,
            ..
        } = &mut *acc;
        // Local borrows, so the loops below keep them in registers.
        let (slots, dense) = (&mut slots[..len], *dense);
        for (t, decoder) in lists.iter_mut().zip(decoders.iter_mut()) {
            loop {
                let (docs, values) = match t.materialized {
                    // At most a block's worth at a time, for `scores`.
                    Some((docs, values)) => {
                        let to = t.len.min(t.pos + BLOCK_LEN);
                        (&docs[t.pos..to], &values[t.pos..to])
                    }
                    None => {
                        if t.pos == t.len {
                            if t.block >= t.list.num_blocks() {
                                break;
                            }
                            match decoder.decode(&t.list, t.block) {
                                Some(len) => (t.len, t.pos) = (len, 0),
                                // A damaged block ends the list.
                                None => {
                                    t.block = usize::MAX;
                                    break;
                                }
                            }
                            t.block += 1;
                        }
                        (&decoder.docs[t.pos..t.len], &decoder.tfs[t.pos..t.len])
                    }
                };
                // Mostly the whole run is in range: no search then, so that
                // materialized lists are read front to back.
                let cut = match docs.last() {
                    Some(&last) if last < end => docs.len(),
                    _ => docs.partition_point(|&d| d < end),
                };
                if cut == 0 {
                    break;
                }
                let tfs = &values[..cut];
                (t.score)(&docs[..cut], tfs, &mut scores[..cut]);
                if dense {
                    // Deleted documents are skipped when selecting.
                    for (&doc, &s) in docs[..cut].iter().zip(&scores[..cut]) {
                        // Adding −0.0 leaves any sum (and an untouched slot)
                        // as it was: a skipped posting adds nothing.
                        let s = if s.is_nan() { -0.0 } else { s };
                        // Out-of-range ids can only come from a damaged file.
                        if let Some(slot) = slots.get_mut(doc.wrapping_sub(first) as usize) {
                            *slot += f64::from(s);
                        }
                    }
                    t.pos += cut;
                    continue;
                }
                for (&doc, &s) in docs[..cut].iter().zip(&scores[..cut]) {
                    if s.is_nan() || segment.is_deleted(doc) {
                        continue;
                    }
                    // Out-of-range ids can only come from a damaged file.
                    let offset = doc.wrapping_sub(first);
                    if let Some(slot) = slots.get_mut(offset as usize) {
                        // Selects rather than branches: whether a document
                        // is new is as good as random.
                        let new = slot.to_bits() == UNTOUCHED;
                        touched[*num_touched] = offset;
                        *num_touched += usize::from(new);
                        *slot = if new { 0.0 } else { *slot } + f64::from(s);
                    }
                }
                t.pos += cut;
            }
        }
        select_range(segment, acc, first, len, top);
        start += len;
    }
}

/// Documents per accumulation range: 256 KiB of float64 scores, which stay
/// in the L2 cache while the range is scored and selected from.
const ACCUMULATOR_RANGE: usize = 1 << 15;

/// Where accumulation reads postings from.
#[derive(Clone, Copy)]
enum Lists<'a> {
    /// The segment's blocks, decoded one at a time.
    Blocks,
    /// The segment's materialized lists: documents and denominator bits.
    Impacts(&'a Impacts),
}

/// One term's place in its list during accumulation.
struct TermState<'a, S> {
    score: S,
    list: crate::postings::PostingList<'a>,
    /// The whole list's documents and values, when materialized (then `len`
    /// is its length and no block is decoded).
    materialized: Option<(&'a [u32], &'a [u32])>,
    /// Next block to decode.
    block: usize,
    /// Postings in the decoded block, and the next one to take.
    len: usize,
    pos: usize,
}

/// Offers `top` the scored documents of the range of `len` documents from
/// `first`, looking docid ranks up only for the scores that can still
/// enter the top k, and clears the slots it reads.
fn select_range(
    segment: &LiveSegment,
    acc: &mut Accumulator,
    first: u32,
    len: usize,
    top: &mut TopK,
) {
    let data = segment.data();
    let offer = |top: &mut TopK, doc: u32, score: f64| {
        let score = score as f32;
        if top.may_keep(score) {
            top.push(doc, score, |d| data.docid_rank(d));
        }
    };
    if acc.dense {
        // Eight slots at a time, cleared as they are read; a branch-free
        // test against a bound just below the threshold (a superset of
        // `may_keep`, in f64 so that it vectorizes) leaves only the few
        // candidates to look at one by one. The slots past `len` that make
        // up the last eight are never written: they read as untouched.
        let untouched = f64::from_bits(UNTOUCHED);
        let mut bound = candidate_bound(top);
        let slots = &mut acc.scores[..len.next_multiple_of(LANES)];
        for (base, chunk) in slots.chunks_exact_mut(LANES).enumerate() {
            let mut candidates = 0u32;
            if bound == f64::NEG_INFINITY {
                // Until the top is full, every scored slot is a candidate.
                for (i, &value) in chunk.iter().enumerate() {
                    candidates |= u32::from(value.to_bits() != UNTOUCHED) << i;
                }
            } else {
                for (i, &value) in chunk.iter().enumerate() {
                    candidates |= u32::from(value >= bound) << i;
                }
            }
            if candidates == 0 {
                chunk.fill(untouched);
                continue;
            }
            let mut values = [untouched; LANES];
            values.copy_from_slice(chunk);
            chunk.fill(untouched);
            while candidates != 0 {
                let i = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                let doc = first + (base * LANES + i) as u32;
                // An untouched slot passes a bound at or below −0.0.
                if values[i].to_bits() != UNTOUCHED && !segment.is_deleted(doc) {
                    offer(top, doc, values[i]);
                }
            }
            bound = candidate_bound(top);
        }
    } else {
        let mut bound = candidate_bound(top);
        for &offset in &acc.touched[..std::mem::take(&mut acc.num_touched)] {
            let score =
                std::mem::replace(&mut acc.scores[offset as usize], f64::from_bits(UNTOUCHED));
            if score >= bound {
                offer(top, first + offset, score);
                bound = candidate_bound(top);
            }
        }
    }
}

/// Slots a dense selection reads at a time.
const LANES: usize = 8;

/// A bound below every sum whose `f32` rounding `top` may keep: the `f32`
/// just below its threshold (rounding is monotonic, so a sum under it
/// rounds under the threshold), −∞ until the top is full.
fn candidate_bound(top: &TopK) -> f64 {
    f64::from((top.threshold() as f32).next_down())
}
