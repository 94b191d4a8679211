//! Exact top-k retrieval by exhaustive scoring.
//!
//! A query is analyzed with the index's analyzer into distinct terms, each
//! with its query frequency, in first-occurrence order. Every posting of every
//! query term is scored term-at-a-time into a dense accumulator; the k best
//! documents are then selected under one deterministic rule: **score
//! descending, then docid ascending** (byte-wise). Per-term scores are float32
//! and are summed in float64 in query-term order, then rounded to float32, as
//! Lucene sums the clauses of a boolean query. This path is the reference that
//! any faster (pruned, parallel) path must reproduce exactly.

use std::cell::RefCell;
use std::cmp::Ordering;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::index::{Index, TermOrd};
use crate::postings::BlockDecoder;
use crate::scoring::{Bm25Params, Bm25Scorer, tfidf};

/// A scoring model with its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Model {
    /// BM25 in one of its variants.
    Bm25(Bm25Params),
    /// TF-IDF cosine similarity.
    TfIdf,
}

/// One query term, with its frequency in the query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryTerm {
    /// The analyzed term.
    pub term: String,
    /// How often it occurs in the query.
    pub query_tf: u32,
    /// Its ordinal, if the index knows it.
    pub ord: Option<TermOrd>,
}

/// A scored document (internal id).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoredDoc {
    /// Internal document id.
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
                ord: index.term_ord(t),
            }),
        },
    );
    terms
}

/// Reusable per-thread scratch space: dense scores and the touched docs.
#[derive(Default)]
struct Accumulator {
    scores: Vec<f64>,
    touched: Vec<u32>,
    seen: Vec<bool>,
    decoder: BlockDecoder,
}

impl Accumulator {
    fn reset(&mut self, num_docs: usize) {
        for &d in &self.touched {
            self.scores[d as usize] = 0.0;
            self.seen[d as usize] = false;
        }
        self.touched.clear();
        if self.scores.len() != num_docs {
            self.scores = vec![0.0; num_docs];
            self.seen = vec![false; num_docs];
        }
    }

    #[inline]
    fn add(&mut self, doc: u32, score: f32) {
        let d = doc as usize;
        if !self.seen[d] {
            self.seen[d] = true;
            self.touched.push(doc);
        }
        self.scores[d] += f64::from(score);
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
    let terms = query_terms(index, query);
    search_terms(index, &terms, k, model)
}

/// [`search`] for already analyzed terms.
pub fn search_terms(index: &Index, terms: &[QueryTerm], k: usize, model: &Model) -> Vec<ScoredDoc> {
    if k == 0 || index.is_empty() {
        return Vec::new();
    }
    SCRATCH.with(|cell| {
        let mut acc = cell.borrow_mut();
        acc.reset(index.len());
        match model {
            Model::Bm25(params) => score_bm25(index, terms, params, &mut acc),
            Model::TfIdf => score_tfidf(index, terms, &mut acc),
        }
        select_top_k(index, &acc, k)
    })
}

/// Runs many queries over a rayon pool; results are in input order and equal
/// to running [`search`] on each query alone.
pub fn batch_search(
    index: &Index,
    queries: &[String],
    k: usize,
    model: &Model,
) -> Vec<Vec<ScoredDoc>> {
    queries
        .par_iter()
        .map(|q| search(index, q, k, model))
        .collect()
}

fn score_bm25(index: &Index, terms: &[QueryTerm], params: &Bm25Params, acc: &mut Accumulator) {
    let scorer = Bm25Scorer::new(*params, index.collection_stats(params.length));
    for qt in terms {
        let Some(ord) = qt.ord else { continue };
        let info = *index.term_info(ord);
        let weight = scorer.term_weight(u64::from(info.df), qt.query_tf);
        let (blocks, bytes) = index.term_postings(ord);
        for b in 0..blocks.len() {
            let Some(len) = acc.decoder.decode(bytes, blocks, b, info.df) else {
                continue;
            };
            for i in 0..len {
                let doc = acc.decoder.docs[i];
                let s = scorer.score(
                    weight,
                    acc.decoder.tfs[i],
                    index.norm(doc),
                    index.length(doc),
                );
                acc.add(doc, s);
            }
        }
    }
}

fn score_tfidf(index: &Index, terms: &[QueryTerm], acc: &mut Accumulator) {
    let n = index.stats().num_docs;
    // The query norm counts unknown terms too.
    let query_norm = terms
        .iter()
        .map(|t| tfidf::sublinear_tf(t.query_tf).powi(2))
        .sum::<f64>()
        .sqrt();
    let doc_norms = index.tfidf_norms();
    for qt in terms {
        let Some(ord) = qt.ord else { continue };
        let info = *index.term_info(ord);
        let q = tfidf::sublinear_tf(qt.query_tf) / query_norm;
        let idf = tfidf::idf(n, u64::from(info.df));
        let (blocks, bytes) = index.term_postings(ord);
        for b in 0..blocks.len() {
            let Some(len) = acc.decoder.decode(bytes, blocks, b, info.df) else {
                continue;
            };
            for i in 0..len {
                let doc = acc.decoder.docs[i];
                let w = tfidf::sublinear_tf(acc.decoder.tfs[i]) * idf / doc_norms[doc as usize];
                acc.add(doc, (q * w) as f32);
            }
        }
    }
}

/// The tie rule: higher score first, then smaller docid.
#[inline]
pub fn rank_order(index: &Index, a: &ScoredDoc, b: &ScoredDoc) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| index.docid_rank(a.doc).cmp(&index.docid_rank(b.doc)))
}

fn select_top_k(index: &Index, acc: &Accumulator, k: usize) -> Vec<ScoredDoc> {
    let mut hits: Vec<ScoredDoc> = acc
        .touched
        .iter()
        .map(|&doc| ScoredDoc {
            doc,
            score: acc.scores[doc as usize] as f32,
        })
        .collect();
    if hits.len() > k {
        hits.select_nth_unstable_by(k - 1, |a, b| rank_order(index, a, b));
        hits.truncate(k);
    }
    hits.sort_unstable_by(|a, b| rank_order(index, a, b));
    hits
}

/// How one query term contributes to one document's score.
#[derive(Clone, Debug, PartialEq)]
pub struct TermExplanation {
    /// The analyzed term.
    pub term: String,
    /// Its query frequency.
    pub query_tf: u32,
    /// Documents holding it (0 if unknown).
    pub df: u32,
    /// Its frequency in the document.
    pub tf: u32,
    /// idf (BM25) or smoothed idf (TF-IDF).
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

/// Explains the score of `docid` for `query`.
pub fn explain(index: &Index, query: &str, docid: &str, model: &Model) -> Result<Explanation> {
    let doc = index.doc(docid)?;
    let terms = query_terms(index, query);
    let mut decoder = BlockDecoder::default();
    let tf_of = |decoder: &mut BlockDecoder, ord: TermOrd| -> u32 {
        let info = *index.term_info(ord);
        let (blocks, bytes) = index.term_postings(ord);
        let Some(b) = blocks.iter().position(|m| m.last_doc >= doc) else {
            return 0;
        };
        let len = decoder.decode(bytes, blocks, b, info.df).unwrap_or(0);
        decoder.docs[..len]
            .iter()
            .position(|&d| d == doc)
            .map_or(0, |i| decoder.tfs[i])
    };
    let mut out = Vec::with_capacity(terms.len());
    let mut total = 0f64;
    let (formula, seen_length);
    match model {
        Model::Bm25(params) => {
            let scorer = Bm25Scorer::new(*params, index.collection_stats(params.length));
            formula = scorer.formula();
            seen_length = scorer.seen_length(index.norm(doc), index.length(doc));
            for qt in &terms {
                let (df, tf, idf, score) = match qt.ord {
                    Some(ord) => {
                        let df = index.term_info(ord).df;
                        let tf = tf_of(&mut decoder, ord);
                        let idf = crate::scoring::bm25_idf(
                            params.variant,
                            scorer.stats().num_docs,
                            u64::from(df),
                        );
                        let w = scorer.term_weight(u64::from(df), qt.query_tf);
                        let s = if tf > 0 {
                            scorer.score(w, tf, index.norm(doc), index.length(doc))
                        } else {
                            0.0
                        };
                        (df, tf, idf, s)
                    }
                    None => (0, 0, 0.0, 0.0),
                };
                if tf > 0 {
                    total += f64::from(score);
                }
                out.push(TermExplanation {
                    term: qt.term.clone(),
                    query_tf: qt.query_tf,
                    df,
                    tf,
                    idf,
                    score,
                });
            }
        }
        Model::TfIdf => {
            let n = index.stats().num_docs;
            let query_norm = terms
                .iter()
                .map(|t| tfidf::sublinear_tf(t.query_tf).powi(2))
                .sum::<f64>()
                .sqrt();
            let doc_norm = index.tfidf_norms()[doc as usize];
            formula = format!(
                "tfidf cosine: sum over terms of [(1 + ln qtf)/|q|] * [(1 + ln tf) * (ln((N + 1)/(df + 1)) + 1)/|d|]; N={n}, |q|={query_norm}, |d|={doc_norm}"
            );
            seen_length = index.length(doc) as f32;
            for qt in &terms {
                let (df, tf, idf, score) = match qt.ord {
                    Some(ord) => {
                        let df = index.term_info(ord).df;
                        let tf = tf_of(&mut decoder, ord);
                        let idf = tfidf::idf(n, u64::from(df));
                        let s = if tf > 0 {
                            let q = tfidf::sublinear_tf(qt.query_tf) / query_norm;
                            (q * (tfidf::sublinear_tf(tf) * idf / doc_norm)) as f32
                        } else {
                            0.0
                        };
                        (df, tf, idf, s)
                    }
                    None => (0, 0, 0.0, 0.0),
                };
                if tf > 0 {
                    total += f64::from(score);
                }
                out.push(TermExplanation {
                    term: qt.term.clone(),
                    query_tf: qt.query_tf,
                    df,
                    tf,
                    idf,
                    score,
                });
            }
        }
    }
    Ok(Explanation {
        docid: docid.to_owned(),
        score: total as f32,
        formula,
        length: index.length(doc),
        seen_length,
        terms: out,
    })
}
