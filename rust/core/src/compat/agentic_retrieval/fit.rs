//! Fitting both arms on a corpus, analyzing each document once.

use std::sync::Arc;

use super::Mode;
use super::bm25::Bm25Arm;
use super::count::{Counted, count_in_runs, runs};
use super::tfidf::{self, TfidfArm};

/// Analyzes `texts` once (in parallel) and builds both arms over them.
pub fn fit<T: AsRef<str> + Sync>(mode: Mode, texts: &[T]) -> (TfidfArm, Bm25Arm) {
    fit_in_runs(mode, texts, runs(texts.len()))
}

/// [`fit`], counting the terms in `runs` runs of documents.
pub(super) fn fit_in_runs<T: AsRef<str> + Sync>(
    mode: Mode,
    texts: &[T],
    runs: usize,
) -> (TfidfArm, Bm25Arm) {
    let Counted { vocab, tf, dl, df } = count_in_runs(mode, texts, runs);
    let n = texts.len();
    let idf = tfidf::idf_table(n, &df);
    // The postings and the TF-IDF norms are independent: built side by side.
    let (postings, norms) = rayon::join(|| tf.invert(vocab.len()), || tfidf::norms(&tf, &idf));
    let total: u64 = dl.iter().sum();
    // Python's `total / n` is the correctly rounded quotient, as here.
    let avgdl = if n == 0 || total == 0 {
        1.0
    } else {
        total as f64 / n as f64
    };
    let (vocab, tf, postings) = (Arc::new(vocab), Arc::new(tf), Arc::new(postings));
    let tfidf = TfidfArm::fitted(
        mode,
        n,
        vocab.clone(),
        tf.clone(),
        postings.clone(),
        idf,
        norms,
    );
    let bm25 = Bm25Arm {
        mode,
        n_docs: n,
        avgdl,
        vocab,
        tf,
        dl,
        postings,
        df: df.iter().enumerate().map(|(t, &d)| (t as u32, d)).collect(),
        df_of: df.into_iter().map(Some).collect(),
    };
    (tfidf, bm25)
}
