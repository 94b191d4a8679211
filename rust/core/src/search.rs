//! Exact top-k retrieval by exhaustive scoring.
//!
//! A query is analyzed with the index's analyzer into distinct terms, each
//! with its query frequency, in first-occurrence order. In every segment,
//! every posting of every query term is scored term-at-a-time into a dense
//! accumulator (deleted documents skipped); the k best documents are then
//! selected under one deterministic rule: **score descending, then docid
//! ascending** (byte-wise). Per-term scores are float32 and are summed in
//! float64 in query-term order, then rounded to float32, as Lucene sums the
//! clauses of a boolean query. Collection statistics are the index's (all
//! segments, live documents). This path is the reference that the pruned
//! algorithms of [`crate::pruned`] reproduce exactly; [`Algorithm`] chooses
//! between them.

use std::cell::RefCell;
use std::cmp::Ordering;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::index::{Index, Segment};
use crate::postings::{BLOCK_LEN, BlockDecoder};
use crate::pruned::{self, Pruning};
use crate::qld::{QldParams, QldScorer};
use crate::scoring::{Bm25Params, Bm25Scorer, lucene_score, tfidf};
use crate::segment::SegmentData;
use crate::topk::TopK;

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
    fn resolve(
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

/// One query term, with its frequency in the query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryTerm {
    /// The analyzed term.
    pub term: String,
    /// How often it occurs in the query.
    pub query_tf: u32,
    /// Live documents holding it, over all segments.
    pub df: u64,
}

/// A scored document (global id).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoredDoc {
    /// Global document id.
    pub doc: u32,
    /// Its score.
    pub score: f32,
}

/// Analyzes `query` into distinct terms in first-occurrence order.
pub fn query_terms(index: &Index, query: &str) -> Vec<QueryTerm> {
    let mut terms: Vec<QueryTerm> = Vec::new();
    index.analyzer().analyze_with(
        query,
        &mut |t| match terms.iter_mut().find(|q| q.term == t) {
            Some(q) => q.query_tf += 1,
            None => terms.push(QueryTerm {
                term: t.to_owned(),
                query_tf: 1,
                df: 0,
            }),
        },
    );
    for t in &mut terms {
        t.df = index.df(&t.term);
    }
    terms
}

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

/// Checks `k` and turns it into a `usize`.
pub fn check_k(k: i64) -> Result<usize> {
    if k <= 0 {
        return Err(Error::Query(format!(
            "k must be a positive number of hits (got {k}); use k=10 for a first page or k=1000 for a deep ranking"
        )));
    }
    Ok(k as usize)
}

/// The `k` best documents for `query`, best first, under the tie rule.
///
/// An empty query, or one whose terms are all unknown or removed by the
/// analyzer, matches nothing and returns no hits.
pub fn search(index: &Index, query: &str, k: usize, model: &Model) -> Vec<ScoredDoc> {
    search_with(index, query, k, model, Algorithm::Auto)
}

/// [`search`] by a chosen algorithm (all return the same hits).
pub fn search_with(
    index: &Index,
    query: &str,
    k: usize,
    model: &Model,
    algorithm: Algorithm,
) -> Vec<ScoredDoc> {
    let terms = query_terms(index, query);
    search_terms(index, &terms, k, model, algorithm)
}

/// [`search_with`] for already analyzed terms.
pub fn search_terms(
    index: &Index,
    terms: &[QueryTerm],
    k: usize,
    model: &Model,
    algorithm: Algorithm,
) -> Vec<ScoredDoc> {
    if k == 0 || index.is_empty() || terms.iter().all(|t| t.df == 0) {
        return Vec::new();
    }
    let weights = term_weights(index, terms, model);
    search_weighted(index, terms, &weights, k, model, algorithm)
}

/// [`search_terms`] with the per-term weights given (for BM25, Lucene's
/// `boost · idf`; see [`bm25_boosted_weights`]): the second stage of
/// feedback queries, whose boosts are not counts.
pub fn search_weighted(
    index: &Index,
    terms: &[QueryTerm],
    weights: &[f64],
    k: usize,
    model: &Model,
    algorithm: Algorithm,
) -> Vec<ScoredDoc> {
    if k == 0 || index.is_empty() || terms.iter().all(|t| t.df == 0) {
        return Vec::new();
    }
    let scorer = PostingScorer::new(index, model);
    let weights32: Vec<f32> = weights.iter().map(|&w| w as f32).collect();
    let postings: u64 = terms.iter().map(|t| t.df).sum();
    let mut hits = Vec::new();
    for (s, segment) in index.segments().iter().enumerate() {
        let data = segment.data();
        let pruning = algorithm.resolve(model, weights, data.len(), postings, k);
        let local = match (&scorer, pruning) {
            (PostingScorer::Bm25(bm25), Some(pruning)) => {
                pruned::top_k(segment, terms, &weights32, bm25, k, pruning)
            }
            _ => SCRATCH.with(|cell| {
                let mut acc = cell.borrow_mut();
                // Dense when the postings are at least half the documents.
                let dense = postings.saturating_mul(2) >= data.len() as u64;
                acc.start(data.len().min(ACCUMULATOR_RANGE), dense);
                let mut top = TopK::new(k);
                let lucene = match &scorer {
                    PostingScorer::Bm25(bm25) => bm25.lucene_norm_cache(),
                    PostingScorer::TfIdf(_) | PostingScorer::Qld(_) => None,
                };
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
                        accumulate(segment, terms, weights, &mut acc, &mut top, |_, weight| {
                            let w = weight as f32;
                            move |docs: &[u32], tfs: &[u32], out: &mut [f32]| {
                                // The norms slice is taken once per block, not per
                                // posting as `data.norm` would (3–4 % on the Linux corpus).
                                let (norms, inverses) = (data.norms(), &inverses);
                                let mut inverse = [0f32; BLOCK_LEN];
                                for ((slot, &doc), &tf) in inverse.iter_mut().zip(docs).zip(tfs) {
                                    let norm =
                                        norms.get(doc as usize).map_or(0, |&n| usize::from(n));
                                    // So does tf 0: it reads norm 0 (a mask, not a branch).
                                    *slot = inverses[norm & usize::from(tf != 0).wrapping_neg()];
                                }
                                for ((o, &ni), &tf) in out.iter_mut().zip(&inverse).zip(tfs) {
                                    *o = lucene_score(w, tf, ni);
                                }
                            }
                        });
                    }
                    None => {
                        accumulate(segment, terms, weights, &mut acc, &mut top, |qt, weight| {
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
                        })
                    }
                }
                acc.dirty = false;
                top.into_sorted(|d| data.docid_rank(d))
            }),
        };
        hits.extend(local.into_iter().map(|d| ScoredDoc {
            doc: index.global(s, d.doc),
            score: d.score,
        }));
    }
    if index.segments().len() > 1 {
        hits.sort_unstable_by(|a, b| rank_order(index, a, b));
        hits.truncate(k);
    }
    hits
}

/// Runs many queries over a rayon pool; results are in input order and equal
/// to running [`search`] on each query alone.
pub fn batch_search(
    index: &Index,
    queries: &[String],
    k: usize,
    model: &Model,
    algorithm: Algorithm,
) -> Vec<Vec<ScoredDoc>> {
    queries
        .par_iter()
        .map(|q| search_with(index, q, k, model, algorithm))
        .collect()
}

/// The `k` best documents for a query of `(term, boost)` pairs (terms
/// distinct) under Lucene's BM25, as a `BooleanQuery` of `BoostQuery`s: the
/// second stage of the feedback models.
pub fn search_boosted(
    index: &Index,
    query: &[(String, f32)],
    k: usize,
    params: &Bm25Params,
    algorithm: Algorithm,
) -> Vec<ScoredDoc> {
    let terms: Vec<QueryTerm> = query
        .iter()
        .map(|(term, _)| QueryTerm {
            term: term.clone(),
            query_tf: 1,
            df: index.df(term),
        })
        .collect();
    let boosts: Vec<f32> = query.iter().map(|(_, b)| *b).collect();
    let weights = bm25_boosted_weights(index, &terms, &boosts, params);
    search_weighted(index, &terms, &weights, k, &Model::Bm25(*params), algorithm)
}

/// Lucene's BM25 weights of terms with float boosts: `boost · idf` in
/// float32, as `BM25Similarity` computes them for a `BoostQuery`.
pub fn bm25_boosted_weights(
    index: &Index,
    terms: &[QueryTerm],
    boosts: &[f32],
    params: &Bm25Params,
) -> Vec<f64> {
    let scorer = Bm25Scorer::new(*params, index.collection_stats(params.length));
    terms
        .iter()
        .zip(boosts)
        .map(|(t, &boost)| f64::from(boost * scorer.term_weight(t.df, 1)))
        .collect()
}

/// Per-term weights: BM25's query-frequency × idf, TF-IDF's normalised
/// query weight, or QLD's `mu · p(term | collection)`.
fn term_weights(index: &Index, terms: &[QueryTerm], model: &Model) -> Vec<f64> {
    match model {
        Model::Bm25(params) => {
            let scorer = Bm25Scorer::new(*params, index.collection_stats(params.length));
            terms
                .iter()
                .map(|t| f64::from(scorer.term_weight(t.df, t.query_tf)))
                .collect()
        }
        Model::TfIdf => {
            // The query norm counts unknown terms too.
            let norm = terms
                .iter()
                .map(|t| tfidf::sublinear_tf(t.query_tf).powi(2))
                .sum::<f64>()
                .sqrt();
            let n = index.stats().num_docs;
            terms
                .iter()
                .map(|t| tfidf::sublinear_tf(t.query_tf) / norm * tfidf::idf(n, t.df))
                .collect()
        }
        Model::Qld(params) => {
            let scorer = QldScorer::new(*params, index.stats().total_terms);
            terms
                .iter()
                .map(|t| scorer.term_weight(index.cf(&t.term)))
                .collect()
        }
    }
}

/// Offers `top` the sum of the scores of every live posting of every query
/// term in `segment`, per document: `scorer(term, weight)` makes the term's
/// `score(docs, tfs, out)`, which scores a run of postings at once and
/// writes NaN for a posting to skip (tf 0, or a document of length 0: only
/// a damaged file holds those; no valid posting scores NaN).
///
/// Documents are taken in ranges whose scores fit in the L2 cache, each
/// range term by term in query order (so every document's sum still runs
/// in query order) and selected from while it is still in the cache.
fn accumulate<S: FnMut(&[u32], &[u32], &mut [f32])>(
    segment: &Segment,
    terms: &[QueryTerm],
    weights: &[f64],
    acc: &mut Accumulator,
    top: &mut TopK,
    scorer: impl Fn(&QueryTerm, f64) -> S,
) {
    let data = segment.data();
    let mut lists = Vec::with_capacity(terms.len());
    for (qt, &weight) in terms.iter().zip(weights) {
        if let Some(ord) = data.term_ord(&qt.term) {
            let list = data.postings(ord);
            lists.push(TermState {
                score: scorer(qt, weight),
                list,
                block: 0,
                len: 0,
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
                let docs = &decoder.docs[t.pos..t.len];
                let cut = docs.partition_point(|&d| d < end);
                if cut == 0 {
                    break;
                }
                let tfs = &decoder.tfs[t.pos..t.pos + cut];
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

/// One term's place in its list during accumulation.
struct TermState<'a, S> {
    score: S,
    list: crate::postings::PostingList<'a>,
    /// Next block to decode.
    block: usize,
    /// Postings in the decoded block, and the next one to take.
    len: usize,
    pos: usize,
}

/// How one posting scores under a model, bound to the index's statistics
/// once per query; shared by searching and explaining, so both give the
/// same number.
// One value per query, on the stack: its size does not matter.
#[allow(clippy::large_enum_variant)]
enum PostingScorer<'a> {
    Bm25(Bm25Scorer),
    TfIdf(&'a [Vec<f64>]),
    Qld(QldScorer),
}

impl<'a> PostingScorer<'a> {
    fn new(index: &'a Index, model: &Model) -> Self {
        match model {
            Model::Bm25(params) => PostingScorer::Bm25(Bm25Scorer::new(
                *params,
                index.collection_stats(params.length),
            )),
            Model::TfIdf => PostingScorer::TfIdf(index.tfidf_norms()),
            Model::Qld(params) => {
                PostingScorer::Qld(QldScorer::new(*params, index.stats().total_terms))
            }
        }
    }

    /// The score of a term of query frequency `boost` and weight `weight`
    /// for `doc` (of segment `s`) holding it `tf` times.
    #[inline]
    fn score(
        &self,
        s: usize,
        data: &SegmentData,
        boost: f64,
        weight: f64,
        doc: u32,
        tf: u32,
    ) -> Option<f32> {
        match self {
            PostingScorer::Qld(qld) => Some(qld.score(boost, weight, tf, data.norm(doc))),
            PostingScorer::Bm25(scorer) => {
                Some(scorer.score(weight as f32, tf, data.norm(doc), data.length(doc)))
            }
            PostingScorer::TfIdf(norms) => {
                // A posting's document has a positive norm unless a file is damaged.
                let norm = norms[s].get(doc as usize).copied().filter(|n| *n > 0.0)?;
                Some((weight * tfidf::sublinear_tf(tf) / norm) as f32)
            }
        }
    }
}

/// The tie rule: higher score first, then smaller docid.
#[inline]
pub fn rank_order(index: &Index, a: &ScoredDoc, b: &ScoredDoc) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| index.compare_docids(a.doc, b.doc))
}

/// Offers `top` the scored documents of the range of `len` documents from
/// `first`, looking docid ranks up only for the scores that can still
/// enter the top k, and clears the slots it reads.
fn select_range(segment: &Segment, acc: &mut Accumulator, first: u32, len: usize, top: &mut TopK) {
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

/// How one query term contributes to one document's score.
#[derive(Clone, Debug, PartialEq)]
pub struct TermExplanation {
    /// The analyzed term.
    pub term: String,
    /// Its query frequency.
    pub query_tf: u32,
    /// Live documents holding it (0 if unknown).
    pub df: u64,
    /// Its frequency in the document.
    pub tf: u32,
    /// idf (BM25), smoothed idf (TF-IDF) or collection probability (QLD).
    pub idf: f64,
    /// The contribution to the score.
    pub score: f32,
}

/// A score broken down by term.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// The document.
    pub docid: String,
    /// Its total score (equal to what [`search`] returns for it).
    pub score: f32,
    /// The formula with the parameters and statistics used.
    pub formula: String,
    /// Exact length of the document.
    pub length: u32,
    /// The length the model sees (Lucene's lossy length in `lucene` mode).
    pub seen_length: f32,
    /// One entry per distinct query term, in query order.
    pub terms: Vec<TermExplanation>,
}

/// A per-term statistic shown in an explanation (idf, or QLD's collection probability).
type TermStatistic<'a> = Box<dyn Fn(&QueryTerm) -> f64 + 'a>;

/// Explains the score of `docid` for `query`.
pub fn explain(index: &Index, query: &str, docid: &str, model: &Model) -> Result<Explanation> {
    let (s, doc) = index
        .locate(index.doc(docid)?)
        .expect("lookup ids are valid");
    let data = index.segments()[s].data();
    let terms = query_terms(index, query);
    let weights = term_weights(index, &terms, model);
    let tf_of = |term: &str| -> u32 {
        let Some(ord) = data.term_ord(term) else {
            return 0;
        };
        let mut tf = 0;
        data.for_each_posting(ord, |d, t| {
            if d == doc {
                tf = t;
            }
        });
        tf
    };
    let scorer = PostingScorer::new(index, model);
    let (formula, seen_length, idf_of): (String, f32, TermStatistic) = match &scorer {
        PostingScorer::Bm25(bm25) => {
            let n = bm25.stats().num_docs;
            let variant = bm25.params().variant;
            (
                bm25.formula(),
                bm25.seen_length(data.norm(doc), data.length(doc)),
                Box::new(move |qt| crate::scoring::bm25_idf(variant, n, qt.df)),
            )
        }
        PostingScorer::Qld(qld) => {
            let t = index.stats().total_terms;
            (
                qld.formula(),
                qld.seen_length(data.norm(doc)),
                Box::new(move |qt| (index.cf(&qt.term) as f64 + 1.0) / (t as f64 + 1.0)),
            )
        }
        PostingScorer::TfIdf(norms) => {
            let n = index.stats().num_docs;
            let doc_norm = norms[s].get(doc as usize).copied().unwrap_or(0.0);
            (
                format!(
                    "tfidf cosine: sum over terms of [(1 + ln qtf)/|q|] * [(1 + ln tf) * (ln((N + 1)/(df + 1)) + 1)/|d|]; N={n}, |d|={doc_norm}"
                ),
                data.length(doc) as f32,
                Box::new(move |qt| tfidf::idf(n, qt.df)),
            )
        }
    };
    let mut out = Vec::with_capacity(terms.len());
    let mut total = 0f64;
    for (qt, &weight) in terms.iter().zip(&weights) {
        let tf = tf_of(&qt.term);
        let score = match tf {
            0 => 0.0,
            _ => scorer
                .score(s, data, f64::from(qt.query_tf), weight, doc, tf)
                .unwrap_or(0.0),
        };
        total += f64::from(score);
        out.push(TermExplanation {
            term: qt.term.clone(),
            query_tf: qt.query_tf,
            df: qt.df,
            tf,
            idf: if qt.df > 0 { idf_of(qt) } else { 0.0 },
            score,
        });
    }
    Ok(Explanation {
        docid: docid.to_owned(),
        score: total as f32,
        formula,
        length: data.length(doc),
        seen_length,
        terms: out,
    })
}
