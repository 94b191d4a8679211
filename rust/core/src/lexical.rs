//! The two arms of agentic-retrieval's `LexicalRetriever` (TF-IDF cosine and
//! Okapi BM25 over `plain` or `code` tokens) and their reciprocal-rank
//! fusion, computed exactly as that pure-Python implementation does, but
//! only over the documents that share a term with the query.
//!
//! Documents are numbered by position, so docids play no part here: they may
//! repeat or be empty. Both arms compute in `f64` in the reference's operand
//! order:
//!
//! - TF-IDF: `w(t,d) = (1 + ln tf)·(ln((N+1)/(df+1)) + 1)`, divided by the
//!   square root of the sum of squares taken in the document's
//!   first-occurrence term order; the query weighs `(1 + ln qtf)/|q|` (no
//!   idf, unknown terms counted in `|q|`); scores accumulate in the query's
//!   first-occurrence term order.
//! - BM25: for each *distinct* query term, `idf·f·(k1 + 1)/(f + k1·(1 − b +
//!   b·dl/avgdl))` with `idf = ln(1 + (N − df + 0.5)/(df + 0.5))`. The
//!   reference sums the terms in Python `set` order, which depends on the
//!   hash seed; here they are summed in **sorted term order**, so results are
//!   the same in every process.
//!
//! Each arm ranks every document by score, descending, ties by document
//! number (Python's stable sort of the zero-filled corpus). The fused order
//! is `fusion::rrf` over the two rankings (k = 60, ties to the TF-IDF
//! order). When every document sharing a query term scores above zero in
//! both arms (always, for k1 > 0 and 0 ≤ b ≤ 1), those documents hold the
//! first ranks of both arms and the others follow in document order in both,
//! so the matching set alone is fused and the rest appended in document
//! order: the same output without sorting the corpus. Otherwise (unusual k1
//! or b) the full rankings are fused.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::analysis::{Analyzer, word};
use crate::error::{Error, Result};
use crate::fusion;
use crate::scoring::{Bm25Variant, bm25_idf, tfidf};
use crate::segment::{Interner, term_hash};
use crate::token_cache::TokenCache;

/// The RRF constant of the reference.
pub const RRF_K: f64 = 60.0;

/// A tokenizer mode: the `plain` or the `code` analyzer preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `re.findall(r"\w+", text.lower())`.
    Plain,
    /// `plain` plus identifier sub-tokens after each whole token.
    Code,
}

impl Mode {
    /// Parses `"plain"` or `"code"`.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "plain" => Ok(Mode::Plain),
            "code" => Ok(Mode::Code),
            other => Err(Error::Analyzer(format!(
                "unknown tokenizer mode {other:?}; choose from ('plain', 'code')"
            ))),
        }
    }

    /// The mode's name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Plain => "plain",
            Mode::Code => "code",
        }
    }

    fn analyzer(self) -> Analyzer {
        Analyzer::preset(self.name()).expect("plain and code are presets")
    }
}

/// Lists of items stored back to back (compressed sparse rows).
#[derive(Clone, Debug, PartialEq)]
pub struct Lists<T> {
    starts: Vec<usize>,
    items: Vec<T>,
}

impl<T> Default for Lists<T> {
    fn default() -> Self {
        Lists {
            starts: vec![0],
            items: Vec::new(),
        }
    }
}

impl<T> Lists<T> {
    /// Appends one list.
    pub fn push(&mut self, list: impl IntoIterator<Item = T>) {
        self.items.extend(list);
        self.starts.push(self.items.len());
    }

    /// List `i`.
    pub fn get(&self, i: usize) -> &[T] {
        &self.items[self.starts[i]..self.starts[i + 1]]
    }

    /// Number of lists.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Whether there is no list.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every list, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[T]> {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// Term strings and their ids, in order of first appearance.
#[derive(Clone, Debug, Default)]
pub struct Vocab(Interner);

impl Vocab {
    /// The id of `term`, adding it if new.
    pub fn intern(&mut self, term: &str) -> u32 {
        self.0.intern(term, term_hash(term)).0
    }

    /// The id of `term`, if known.
    pub fn id(&self, term: &str) -> Option<u32> {
        self.0.find(term, term_hash(term))
    }

    /// The term of `id`.
    pub fn term(&self, id: u32) -> &str {
        self.0.term(id)
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is no term.
    pub fn is_empty(&self) -> bool {
        self.0.len() == 0
    }
}

/// The TF-IDF arm (`TfidfIndex`).
///
/// `doc_vectors` and `postings` are kept as given, even when (after
/// [`TfidfArm::from_parts`]) they disagree: queries read only the postings,
/// as in the reference, and `doc_vectors` is only returned.
#[derive(Clone, Debug)]
pub struct TfidfArm {
    mode: Mode,
    n_docs: usize,
    vocab: Arc<Vocab>,
    /// Per document: `(term, weight)` in first-occurrence order.
    doc_vectors: Lists<(u32, f64)>,
    /// Per term id below `postings.len()`: `(doc, weight)`.
    postings: Lists<(u32, f64)>,
}

/// The BM25 arm (`BM25Index`), without k1 and b, which are given per query.
#[derive(Clone, Debug)]
pub struct Bm25Arm {
    mode: Mode,
    n_docs: usize,
    avgdl: f64,
    vocab: Arc<Vocab>,
    /// Per document: `(term, count)` in first-occurrence order.
    tf: Lists<(u32, u32)>,
    /// Per document: its number of tokens.
    dl: Vec<u64>,
    /// Per term id below `postings.len()`: `(doc, count)`.
    postings: Lists<(u32, u32)>,
    /// `(term, df)` in the order given.
    df: Vec<(u32, u64)>,
    /// `df` by term id (`None`: not recorded, counts as 0).
    df_of: Vec<Option<u64>>,
}

/// Term counts of a run of documents: per document, `(term, count)` in
/// first-occurrence order, over a vocabulary in first-appearance order.
#[derive(Default)]
struct Counted {
    vocab: Vocab,
    tf: Lists<(u32, u32)>,
    dl: Vec<u64>,
}

/// Counts the terms of `texts` with one hash lookup per token: each distinct
/// token is analyzed once (its terms kept in a [`TokenCache`]), and a term's
/// entry in the current document is found through `seen`.
fn count_terms(analyzer: &Analyzer, texts: &[String]) -> Counted {
    debug_assert!(analyzer.is_word(), "plain and code cut words");
    let mut out = Counted::default();
    // Per term: the last document counting it, and its entry's index there.
    let mut seen: Vec<(u32, usize)> = Vec::new();
    let mut cache = TokenCache::default();
    let Counted { vocab, tf, dl } = &mut out;
    for (doc, text) in texts.iter().enumerate() {
        let doc = doc as u32;
        let mut len = 0u64;
        let text = analyzer.word_text(text);
        word::for_each_span(&text, |start, end| {
            let terms = cache.terms(&text, start, end, |token, terms| {
                analyzer.filter(token, &mut |term| terms.push(vocab.intern(term)));
            });
            len += terms.len() as u64;
            for &t in terms {
                if t as usize >= seen.len() {
                    seen.resize(vocab.len().max(t as usize + 1), (u32::MAX, 0));
                }
                let entry = &mut seen[t as usize];
                if entry.0 == doc {
                    tf.items[entry.1].1 += 1;
                } else {
                    *entry = (doc, tf.items.len());
                    tf.items.push((t, 1));
                }
            }
        });
        tf.starts.push(tf.items.len());
        dl.push(len);
    }
    out
}

/// [`count_terms`] over `texts` in parallel runs, merged so that term ids
/// follow first appearance in the whole corpus, as a sequential pass gives.
fn count_corpus(analyzer: &Analyzer, texts: &[String]) -> Counted {
    let runs = rayon::current_num_threads().clamp(1, 1 + texts.len() / 256);
    let run_len = texts.len().div_ceil(runs).max(1);
    let mut parts: Vec<Counted> = texts
        .par_chunks(run_len)
        .map(|run| count_terms(analyzer, run))
        .collect();
    if parts.is_empty() {
        return Counted::default();
    }
    let mut out = parts.remove(0);
    for part in parts {
        let ids: Vec<u32> = (0..part.vocab.len() as u32)
            .map(|t| out.vocab.intern(part.vocab.term(t)))
            .collect();
        for list in part.tf.iter() {
            out.tf.push(list.iter().map(|&(t, c)| (ids[t as usize], c)));
        }
        out.dl.extend(part.dl);
    }
    out
}

/// Per-document `(term, value)` rows turned into per-term `(doc, value)`
/// lists, documents ascending (a counting sort).
fn invert<V: Copy + Default>(rows: &Lists<(u32, V)>, num_terms: usize) -> Lists<(u32, V)> {
    let mut starts = vec![0usize; num_terms + 1];
    for &(t, _) in &rows.items {
        starts[t as usize + 1] += 1;
    }
    for t in 0..num_terms {
        starts[t + 1] += starts[t];
    }
    let mut fill = starts.clone();
    let mut items = vec![(0u32, V::default()); rows.items.len()];
    for (doc, row) in rows.iter().enumerate() {
        for &(t, v) in row {
            items[fill[t as usize]] = (doc as u32, v);
            fill[t as usize] += 1;
        }
    }
    Lists { starts, items }
}

/// Each document's TF-IDF vector, `(term, weight)` in its term order,
/// divided by its Euclidean norm (summed in that order).
fn tfidf_vectors(tf: &Lists<(u32, u32)>, idf: &[f64]) -> Lists<(u32, f64)> {
    // `1 + ln tf` of the common small counts, computed once each.
    let small_tf: Vec<f64> = (0..64).map(tfidf::sublinear_tf).collect();
    let mut doc_vectors = Lists {
        starts: Vec::with_capacity(tf.len() + 1),
        items: Vec::with_capacity(tf.items.len()),
    };
    doc_vectors.starts.push(0);
    for list in tf.iter() {
        let from = doc_vectors.items.len();
        doc_vectors.items.extend(list.iter().map(|&(t, c)| {
            let sub = small_tf
                .get(c as usize)
                .copied()
                .unwrap_or_else(|| tfidf::sublinear_tf(c));
            (t, sub * idf[t as usize])
        }));
        let weights = &mut doc_vectors.items[from..];
        let norm = weights.iter().fold(0.0, |s, &(_, w)| s + w * w).sqrt();
        if norm > 0.0 {
            weights.iter_mut().for_each(|(_, w)| *w /= norm);
        }
        doc_vectors.starts.push(doc_vectors.items.len());
    }
    doc_vectors
}

/// Analyzes `texts` once (in parallel) and builds both arms over them.
pub fn fit(mode: Mode, texts: &[String]) -> (TfidfArm, Bm25Arm) {
    let Counted { vocab, tf, dl } = count_corpus(&mode.analyzer(), texts);
    let n = texts.len();
    // Each document lists a term once: a term's df is its number of entries.
    let mut df = vec![0u64; vocab.len()];
    for &(t, _) in &tf.items {
        df[t as usize] += 1;
    }
    let idf: Vec<f64> = df.iter().map(|&d| tfidf::idf(n as u64, d)).collect();
    // The two arms' postings are independent: built side by side.
    let (postings, (doc_vectors, tfidf_postings)) = rayon::join(
        || invert(&tf, vocab.len()),
        || {
            let doc_vectors = tfidf_vectors(&tf, &idf);
            let postings = invert(&doc_vectors, vocab.len());
            (doc_vectors, postings)
        },
    );
    let total: u64 = dl.iter().sum();
    // Python's `total / n` is the correctly rounded quotient, as here.
    let avgdl = if n == 0 || total == 0 {
        1.0
    } else {
        total as f64 / n as f64
    };
    let vocab = Arc::new(vocab);
    let tfidf = TfidfArm {
        mode,
        n_docs: n,
        vocab: vocab.clone(),
        postings: tfidf_postings,
        doc_vectors,
    };
    let bm25 = Bm25Arm {
        mode,
        n_docs: n,
        avgdl,
        vocab,
        df: df.iter().enumerate().map(|(t, &d)| (t as u32, d)).collect(),
        df_of: df.into_iter().map(Some).collect(),
        tf,
        dl,
        postings,
    };
    (tfidf, bm25)
}

/// Scores of one arm for one query: dense values plus the documents touched.
#[derive(Debug)]
pub struct Scores {
    values: Vec<f64>,
    touched: Vec<bool>,
    num_touched: usize,
}

impl Scores {
    fn new(n: usize) -> Self {
        Scores {
            values: vec![0.0; n],
            touched: vec![false; n],
            num_touched: 0,
        }
    }

    fn add(&mut self, doc: u32, x: f64) {
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
    fn all_positive(&self) -> bool {
        self.touched
            .iter()
            .zip(&self.values)
            .all(|(&t, &v)| !t || v > 0.0)
    }

    /// A sort key per touched document (all positive), in document order:
    /// smaller is better, ties by number. Positive finite floats order as
    /// their bit patterns do.
    fn keys(&self) -> Vec<(u64, u32)> {
        let mut keys = Vec::with_capacity(self.num_touched);
        keys.extend(
            (0..self.values.len() as u32)
                .filter(|&d| self.touched[d as usize])
                .map(|d| self.key(d)),
        );
        keys
    }

    fn key(&self, doc: u32) -> (u64, u32) {
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
fn query_counts(mode: Mode, text: &str) -> Vec<(String, u32)> {
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

impl TfidfArm {
    /// An arm over no documents.
    pub fn empty(mode: Mode) -> Self {
        TfidfArm {
            mode,
            n_docs: 0,
            vocab: Arc::default(),
            doc_vectors: Lists::default(),
            postings: Lists::default(),
        }
    }

    /// An arm from stored statistics: `postings` as `(term, [(doc, weight)])`
    /// in their stored order, and each document's `(term, weight)` vector.
    pub fn from_parts(
        mode: Mode,
        n_docs: usize,
        doc_vectors: Vec<Vec<(String, f64)>>,
        postings: Vec<(String, Vec<(u32, f64)>)>,
    ) -> Result<Self> {
        let mut vocab = Vocab::default();
        let mut lists = Lists::default();
        for (term, list) in postings {
            if vocab.id(&term).is_some() {
                return Err(Error::Document(format!(
                    "tfidf postings list the term {term:?} twice"
                )));
            }
            vocab.intern(&term);
            check_docs(list.iter().map(|p| p.0), n_docs, "tfidf postings")?;
            lists.push(list);
        }
        let mut vectors = Lists::default();
        for v in doc_vectors {
            vectors.push(v.into_iter().map(|(t, w)| (vocab.intern(&t), w)));
        }
        Ok(TfidfArm {
            mode,
            n_docs,
            vocab: Arc::new(vocab),
            doc_vectors: vectors,
            postings: lists,
        })
    }

    /// The tokenizer mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Number of documents.
    pub fn n_docs(&self) -> usize {
        self.n_docs
    }

    /// Each document's `(term, weight)` vector.
    pub fn doc_vectors(&self) -> impl Iterator<Item = impl Iterator<Item = (&str, f64)>> {
        self.doc_vectors
            .iter()
            .map(|v| v.iter().map(|&(t, w)| (self.vocab.term(t), w)))
    }

    /// `(term, [(doc, weight)])` in stored order.
    pub fn postings(&self) -> impl Iterator<Item = (&str, &[(u32, f64)])> {
        self.postings
            .iter()
            .enumerate()
            .map(|(t, list)| (self.vocab.term(t as u32), list))
    }

    /// The cosine score of every document for `query`.
    pub fn scores(&self, query: &str) -> Scores {
        self.scores_of(&query_counts(self.mode, query))
    }

    fn scores_of(&self, counts: &[(String, u32)]) -> Scores {
        let mut scores = Scores::new(self.n_docs);
        let weights: Vec<f64> = counts
            .iter()
            .map(|&(_, c)| tfidf::sublinear_tf(c))
            .collect();
        let norm = weights.iter().fold(0.0, |s, w| s + w * w).sqrt();
        for ((term, _), &w) in counts.iter().zip(&weights) {
            let q = if norm > 0.0 { w / norm } else { w };
            let Some(t) = self.vocab.id(term) else {
                continue;
            };
            if (t as usize) < self.postings.len() {
                for &(doc, dw) in self.postings.get(t as usize) {
                    scores.add(doc, q * dw);
                }
            }
        }
        scores
    }
}

impl Bm25Arm {
    /// An arm over no documents; `avgdl` is kept from a previous fit, as the
    /// reference keeps it.
    pub fn empty(mode: Mode, avgdl: f64) -> Self {
        Bm25Arm {
            mode,
            n_docs: 0,
            avgdl,
            vocab: Arc::default(),
            tf: Lists::default(),
            dl: Vec::new(),
            postings: Lists::default(),
            df: Vec::new(),
            df_of: Vec::new(),
        }
    }

    /// An arm from stored statistics, each in its stored order: per-document
    /// term counts and lengths, `(term, [doc])` postings and `(term, df)`.
    /// A posting whose document does not count the term is an error (the
    /// reference would fail on it at query time).
    pub fn from_parts(
        mode: Mode,
        n_docs: usize,
        avgdl: f64,
        tf: Vec<Vec<(String, u32)>>,
        dl: Vec<u64>,
        postings: Vec<(String, Vec<u32>)>,
        df: Vec<(String, u64)>,
    ) -> Result<Self> {
        if tf.len() != n_docs || dl.len() != n_docs {
            return Err(Error::Document(format!(
                "bm25 holds {} tf entries and {} lengths for n_docs = {n_docs}",
                tf.len(),
                dl.len()
            )));
        }
        let mut vocab = Vocab::default();
        for (term, _) in &postings {
            if vocab.id(term).is_some() {
                return Err(Error::Document(format!(
                    "bm25 postings list the term {term:?} twice"
                )));
            }
            vocab.intern(term);
        }
        let mut counts = Lists::default();
        for doc in tf {
            counts.push(doc.into_iter().map(|(t, c)| (vocab.intern(&t), c)));
        }
        // A posting's count is its document's tf of the term, as the
        // reference reads it at query time.
        let inverted = invert(&counts, vocab.len());
        let mut lists = Lists::default();
        for (t, (term, docs)) in postings.into_iter().enumerate() {
            check_docs(docs.iter().copied(), n_docs, "bm25 postings")?;
            let counted = inverted.get(t);
            let mut list = Vec::with_capacity(docs.len());
            for doc in docs {
                let c = counted
                    .binary_search_by_key(&doc, |p| p.0)
                    .ok()
                    .map(|i| counted[i]);
                let Some((_, c)) = c else {
                    return Err(Error::Document(format!(
                        "bm25 postings of {term:?} list document {doc}, whose tf lacks the term"
                    )));
                };
                list.push((doc, c));
            }
            lists.push(list);
        }
        let df: Vec<(u32, u64)> = df.into_iter().map(|(t, d)| (vocab.intern(&t), d)).collect();
        let mut df_of = vec![None; vocab.len()];
        for &(t, d) in &df {
            df_of[t as usize] = Some(d);
        }
        Ok(Bm25Arm {
            mode,
            n_docs,
            avgdl,
            vocab: Arc::new(vocab),
            tf: counts,
            dl,
            postings: lists,
            df,
            df_of,
        })
    }

    /// The tokenizer mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Number of documents.
    pub fn n_docs(&self) -> usize {
        self.n_docs
    }

    /// Mean document length (1 for an empty corpus or empty documents).
    pub fn avgdl(&self) -> f64 {
        self.avgdl
    }

    /// Each document's `(term, count)` pairs.
    pub fn tf(&self) -> impl Iterator<Item = impl Iterator<Item = (&str, u32)>> {
        self.tf
            .iter()
            .map(|v| v.iter().map(|&(t, c)| (self.vocab.term(t), c)))
    }

    /// Each document's length.
    pub fn dl(&self) -> &[u64] {
        &self.dl
    }

    /// `(term, [(doc, count)])` in stored order.
    pub fn postings(&self) -> impl Iterator<Item = (&str, &[(u32, u32)])> {
        self.postings
            .iter()
            .enumerate()
            .map(|(t, list)| (self.vocab.term(t as u32), list))
    }

    /// `(term, df)` in stored order.
    pub fn df(&self) -> impl Iterator<Item = (&str, u64)> {
        self.df.iter().map(|&(t, d)| (self.vocab.term(t), d))
    }

    /// The BM25 score of every document for `query`.
    pub fn scores(&self, query: &str, k1: f64, b: f64) -> Scores {
        self.scores_of(&query_counts(self.mode, query), k1, b)
    }

    fn scores_of(&self, counts: &[(String, u32)], k1: f64, b: f64) -> Scores {
        let mut scores = Scores::new(self.n_docs);
        // `k1·(1 − b + b·dl/avgdl)`, the same for every term of a document:
        // computed once, when the document is first touched.
        let mut length_part = vec![0f64; self.n_docs];
        let mut terms: Vec<&str> = counts.iter().map(|(t, _)| t.as_str()).collect();
        terms.sort_unstable();
        for term in terms {
            let Some(t) = self.vocab.id(term) else {
                continue;
            };
            if t as usize >= self.postings.len() || self.postings.get(t as usize).is_empty() {
                continue;
            }
            let df = self.df_of[t as usize].unwrap_or(0);
            let idf = bm25_idf(Bm25Variant::Lucene, self.n_docs as u64, df);
            for &(doc, f) in self.postings.get(t as usize) {
                let d = doc as usize;
                if !scores.touched[d] {
                    let dl = self.dl[d] as f64;
                    length_part[d] = k1 * (1.0 - b + b * dl / self.avgdl);
                }
                let f = f64::from(f);
                let denom = f + length_part[d];
                scores.add(doc, idf * f * (k1 + 1.0) / denom);
            }
        }
        scores
    }
}

fn check_docs(docs: impl Iterator<Item = u32>, n_docs: usize, what: &str) -> Result<()> {
    for doc in docs {
        if doc as usize >= n_docs {
            return Err(Error::Document(format!(
                "{what} list document {doc}, out of range for n_docs = {n_docs}"
            )));
        }
    }
    Ok(())
}

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
    let n = tfidf.n_docs;
    if bm25.n_docs != n {
        return Err(Error::Query(format!(
            "the tfidf arm holds {n} documents and the bm25 arm {}; fit both on the same documents",
            bm25.n_docs
        )));
    }
    let top = top.min(n);
    if top == 0 {
        return Ok(Vec::new());
    }
    let counts = query_counts(tfidf.mode, query);
    let t = tfidf.scores_of(&counts);
    let s = if bm25.mode == tfidf.mode {
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

/// `(doc, score)` for every document, best first, ties by number.
pub fn ranking(scores: &Scores) -> Vec<(u32, f64)> {
    scores
        .full_ranking()
        .into_iter()
        .map(|d| (d, scores.get(d)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(docs: &[&str]) -> Vec<String> {
        docs.iter().map(|s| s.to_string()).collect()
    }

    const NETWORKS: [&str; 4] = [
        "Routers forward packets between networks and carry data.",
        "Photosynthesis converts sunlight into chemical energy in plants.",
        "The asteroid belt lies between Mars and Jupiter.",
        "Switches direct frames within a local area network domain.",
    ];

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-7
    }

    #[test]
    fn worked_vectors() {
        let (t, b) = fit(Mode::Plain, &texts(&NETWORKS));
        let q = "what carries data between networks";
        let tr = ranking(&t.scores(q));
        let br = ranking(&b.scores(q, 1.5, 0.75));
        assert_eq!(tr.iter().map(|p| p.0).collect::<Vec<_>>(), [0, 2, 1, 3]);
        assert!(close(tr[0].1, 0.463348) && close(tr[1].1, 0.131010));
        assert!(close(br[0].1, 3.143965) && close(br[1].1, 0.702730));
        let order = |q| search(&t, &b, q, 1.5, 0.75, 10).unwrap();
        assert_eq!(order(q), [0, 2, 1, 3]);
        assert_eq!(
            order("how do plants convert light into energy"),
            [1, 0, 2, 3]
        );
        assert_eq!(order("asteroid belt mars jupiter"), [2, 0, 1, 3]);
        assert_eq!(order("network"), [3, 0, 1, 2]);
        assert!(close(
            ranking(&b.scores("network", 1.5, 0.75))[0].1,
            1.156655
        ));
        assert_eq!(order("no shared vocabulary whatsoever xyzzy"), [0, 1, 2, 3]);
        assert_eq!(order(""), [0, 1, 2, 3]);
        assert_eq!(search(&t, &b, q, 1.5, 0.75, 2).unwrap(), [0, 2]);
    }

    #[test]
    fn tie_golden_goes_to_the_tfidf_order() {
        let (t, b) = fit(Mode::Plain, &texts(&["e e b", "d d c d c", "e"]));
        let br = ranking(&b.scores("e f", 1.5, 0.75));
        assert_eq!(br[0].1, br[1].1);
        assert_eq!(br.iter().map(|p| p.0).collect::<Vec<_>>(), [0, 2, 1]);
        assert_eq!(search(&t, &b, "e f", 1.5, 0.75, 3).unwrap(), [2, 0, 1]);
    }

    #[test]
    fn fast_path_equals_full_fusion() {
        let mut next = crate::testing::xorshift(7);
        for round in 0..200 {
            let docs: Vec<String> = (0..1 + next() % 12)
                .map(|_| {
                    (0..next() % 6)
                        .map(|_| ["a", "b", "c", "d", "E", "fG"][(next() % 6) as usize])
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            let mode = if round % 2 == 0 {
                Mode::Plain
            } else {
                Mode::Code
            };
            let (t, b) = fit(mode, &docs);
            // Degenerate k1 and b make zero, negative or NaN BM25 scores:
            // the general path; the others take the fast one.
            let params = [
                (1.5, 0.75),
                (0.0, 1.0),
                (-1.0, 0.75),
                (-0.5, 0.3),
                (2.0, 2.0),
            ];
            for q in ["a", "b b c", "z", "fg a e", ""] {
                for (k1, bb) in params {
                    let full = fusion::rrf(
                        &[
                            t.scores(q).full_ranking(),
                            b.scores(q, k1, bb).full_ranking(),
                        ],
                        RRF_K,
                        None,
                        None,
                    )
                    .unwrap();
                    let full: Vec<u32> = full.into_iter().map(|p| p.0).collect();
                    let got = search(&t, &b, q, k1, bb, 100).unwrap();
                    assert_eq!(got, full, "{docs:?} {q} {k1} {bb}");
                }
            }
        }
    }

    #[test]
    fn candidate_fusion_equals_full_fusion_on_large_matching_sets() {
        let mut next = crate::testing::xorshift(11);
        let words = ["a", "b", "c", "d", "e", "f", "g", "h"];
        for _ in 0..8 {
            let docs: Vec<String> = (0..300 + next() % 300)
                .map(|_| {
                    (0..1 + next() % 9)
                        .map(|_| words[(next() % 8) as usize])
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            let (t, b) = fit(Mode::Plain, &docs);
            for q in ["a", "a b", "c c d e", "h g f e d"] {
                let full: Vec<u32> = fusion::rrf(
                    &[
                        t.scores(q).full_ranking(),
                        b.scores(q, 1.5, 0.75).full_ranking(),
                    ],
                    RRF_K,
                    None,
                    None,
                )
                .unwrap()
                .into_iter()
                .map(|p| p.0)
                .collect();
                for top in [1, 2, 10, 50, 200, 1000] {
                    let got = search(&t, &b, q, 1.5, 0.75, top).unwrap();
                    assert_eq!(got[..], full[..top.min(full.len())], "{q} {top}");
                }
            }
        }
    }
}
