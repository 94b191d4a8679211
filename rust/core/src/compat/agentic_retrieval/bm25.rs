//! The BM25 arm (`BM25Index`): Okapi BM25 with the Lucene idf, summed
//! over the distinct query terms in sorted term order.

use std::sync::Arc;

use super::scores::{Scores, query_counts};
use super::{Lists, Mode, Vocab, check_docs};
use crate::error::{Error, Result};
use crate::scoring::{Bm25Variant, bm25_idf};

/// The BM25 arm (`BM25Index`), without k1 and b, which are given per query.
#[derive(Clone, Debug)]
pub struct Bm25Arm {
    pub(super) mode: Mode,
    pub(super) n_docs: usize,
    pub(super) avgdl: f64,
    pub(super) vocab: Arc<Vocab>,
    /// Per document: `(term, count)` in first-occurrence order.
    pub(super) tf: Arc<Lists<(u32, u32)>>,
    /// Per document: its number of tokens.
    pub(super) dl: Vec<u64>,
    /// Per term id below `postings.len()`: `(doc, count)`.
    pub(super) postings: Arc<Lists<(u32, u32)>>,
    /// `(term, df)` in the order given.
    pub(super) df: Vec<(u32, u64)>,
    /// `df` by term id (`None`: not recorded, counts as 0).
    pub(super) df_of: Vec<Option<u64>>,
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
            tf: Arc::default(),
            dl: Vec::new(),
            postings: Arc::default(),
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
        let inverted = counts.invert(vocab.len());
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
            tf: Arc::new(counts),
            dl,
            postings: Arc::new(lists),
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

    pub(super) fn scores_of(&self, counts: &[(String, u32)], k1: f64, b: f64) -> Scores {
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
