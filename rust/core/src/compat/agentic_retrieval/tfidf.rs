//! The TF-IDF arm (`TfidfIndex`): cosine of sublinear-tf × smoothed-idf
//! document vectors against a normalized log-tf query vector.

use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

use rayon::prelude::*;

use super::scores::{Scores, query_counts};
use super::{Lists, Mode, Vocab, check_docs};
use crate::error::{Error, Result};
use crate::scoring::tfidf as formula;

/// The TF-IDF arm (`TfidfIndex`).
#[derive(Clone, Debug)]
pub struct TfidfArm {
    mode: Mode,
    n_docs: usize,
    vocab: Arc<Vocab>,
    weights: Weights,
}

/// Where an arm's weights come from.
#[derive(Clone, Debug)]
enum Weights {
    /// A fit's counts, shared with its BM25 arm, with each term's idf and
    /// each document's norm: a weight `(1 + ln tf)·idf / norm` is computed
    /// when read, by the arithmetic that gave the norm, so it is the weight
    /// a stored vector would hold, to the bit.
    Fitted {
        /// Per document: `(term, count)` in first-occurrence order.
        tf: Arc<Lists<(u32, u32)>>,
        /// Per term: `(doc, count)`, documents ascending.
        postings: Arc<Lists<(u32, u32)>>,
        idf: Vec<f64>,
        norms: Vec<f64>,
    },
    /// Stored statistics, kept as given even when they disagree: queries
    /// read only the postings, as in the reference, and `doc_vectors` is
    /// only returned.
    Stored {
        /// Per document: `(term, weight)` in first-occurrence order.
        doc_vectors: Lists<(u32, f64)>,
        /// Per term id below `postings.len()`: `(doc, weight)`.
        postings: Lists<(u32, f64)>,
    },
}

/// `1 + ln tf` of the common small counts, computed once each.
static SUBLINEAR: LazyLock<[f64; 64]> =
    LazyLock::new(|| std::array::from_fn(|c| formula::sublinear_tf(c as u32)));

/// `(1 + ln c)·idf`, a document weight before normalization.
#[inline(always)]
fn raw_weight(sublinear: &[f64; 64], c: u32, idf: f64) -> f64 {
    let sub = sublinear
        .get(c as usize)
        .copied()
        .unwrap_or_else(|| formula::sublinear_tf(c));
    sub * idf
}

/// A weight divided by its document's norm (kept when the norm is 0).
#[inline(always)]
fn normalize(w: f64, norm: f64) -> f64 {
    if norm > 0.0 { w / norm } else { w }
}

/// The `(doc, weight)` list of term `t` of a fit: `(doc, count)` postings
/// turned into weights.
fn fitted_list<'a>(
    postings: &'a Lists<(u32, u32)>,
    idf: &'a [f64],
    norms: &'a [f64],
    t: usize,
) -> impl Iterator<Item = (u32, f64)> + 'a {
    let (sublinear, idf) = (&*SUBLINEAR, idf[t]);
    postings.get(t).iter().map(move |&(d, c)| {
        let w = raw_weight(sublinear, c, idf);
        (d, normalize(w, norms[d as usize]))
    })
}

/// The smoothed idf of each term of a corpus of `n` documents.
pub(super) fn idf_table(n: usize, df: &[u64]) -> Vec<f64> {
    df.iter().map(|&d| formula::idf(n as u64, d)).collect()
}

/// Each document's norm: the square root of the sum of its squared raw
/// weights, summed in its term order.
pub(super) fn norms(tf: &Lists<(u32, u32)>, idf: &[f64]) -> Vec<f64> {
    let sublinear = &*SUBLINEAR;
    tf.starts
        .par_windows(2)
        .map(|w| {
            tf.items[w[0]..w[1]]
                .iter()
                .fold(0.0, |s, &(t, c)| {
                    let w = raw_weight(sublinear, c, idf[t as usize]);
                    s + w * w
                })
                .sqrt()
        })
        .collect()
}

impl TfidfArm {
    /// An arm over no documents.
    pub fn empty(mode: Mode) -> Self {
        TfidfArm {
            mode,
            n_docs: 0,
            vocab: Arc::default(),
            weights: Weights::Stored {
                doc_vectors: Lists::default(),
                postings: Lists::default(),
            },
        }
    }

    /// A fitted arm: see [`Weights::Fitted`].
    pub(super) fn fitted(
        mode: Mode,
        n_docs: usize,
        vocab: Arc<Vocab>,
        tf: Arc<Lists<(u32, u32)>>,
        postings: Arc<Lists<(u32, u32)>>,
        idf: Vec<f64>,
        norms: Vec<f64>,
    ) -> Self {
        TfidfArm {
            mode,
            n_docs,
            vocab,
            weights: Weights::Fitted {
                tf,
                postings,
                idf,
                norms,
            },
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
            weights: Weights::Stored {
                doc_vectors: vectors,
                postings: lists,
            },
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
    pub fn doc_vectors(&self) -> impl Iterator<Item = Vec<(&str, f64)>> {
        let term = |t: u32| self.vocab.term(t);
        (0..self.n_docs).map(move |d| match &self.weights {
            Weights::Fitted { tf, idf, norms, .. } => {
                let sublinear = &*SUBLINEAR;
                tf.get(d)
                    .iter()
                    .map(|&(t, c)| {
                        let w = raw_weight(sublinear, c, idf[t as usize]);
                        (term(t), normalize(w, norms[d]))
                    })
                    .collect()
            }
            Weights::Stored { doc_vectors, .. } => doc_vectors
                .get(d)
                .iter()
                .map(|&(t, w)| (term(t), w))
                .collect(),
        })
    }

    /// `(term, [(doc, weight)])` in stored order.
    pub fn postings(&self) -> impl Iterator<Item = (&str, Cow<'_, [(u32, f64)]>)> {
        let lists = match &self.weights {
            Weights::Fitted { postings, .. } => postings.len(),
            Weights::Stored { postings, .. } => postings.len(),
        };
        (0..lists).map(|t| (self.vocab.term(t as u32), self.posting(t)))
    }

    /// The `(doc, weight)` list of term `t` (below the number of lists).
    fn posting(&self, t: usize) -> Cow<'_, [(u32, f64)]> {
        match &self.weights {
            Weights::Fitted {
                postings,
                idf,
                norms,
                ..
            } => Cow::Owned(fitted_list(postings, idf, norms, t).collect()),
            Weights::Stored { postings, .. } => Cow::Borrowed(postings.get(t)),
        }
    }

    /// The cosine score of every document for `query`.
    pub fn scores(&self, query: &str) -> Scores {
        self.scores_of(&query_counts(self.mode, query))
    }

    pub(super) fn scores_of(&self, counts: &[(String, u32)]) -> Scores {
        let mut scores = Scores::new(self.n_docs);
        let weights: Vec<f64> = counts
            .iter()
            .map(|&(_, c)| formula::sublinear_tf(c))
            .collect();
        let norm = weights.iter().fold(0.0, |s, w| s + w * w).sqrt();
        for ((term, _), &w) in counts.iter().zip(&weights) {
            let q = normalize(w, norm);
            let Some(t) = self.vocab.id(term) else {
                continue;
            };
            let t = t as usize;
            match &self.weights {
                Weights::Fitted {
                    postings,
                    idf,
                    norms,
                    ..
                } => {
                    for (doc, w) in fitted_list(postings, idf, norms, t) {
                        scores.add(doc, q * w);
                    }
                }
                Weights::Stored { postings, .. } if t < postings.len() => {
                    for &(doc, w) in postings.get(t) {
                        scores.add(doc, q * w);
                    }
                }
                Weights::Stored { .. } => {}
            }
        }
        scores
    }
}
