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
//!
//! A fit analyzes each document once (module `count`) and keeps per-document
//! term counts and per-term `(doc, count)` postings, which both arms share;
//! a fitted TF-IDF arm computes a weight from them when it reads one.

mod bm25;
mod count;
mod fit;
mod fuse;
mod lists;
mod lowercase;
mod scores;
pub mod store;
mod tfidf;
mod vocab;

#[cfg(test)]
mod tests;

pub use bm25::Bm25Arm;
pub use fit::fit;
pub use fuse::search;
pub use lists::Lists;
pub use scores::{Scores, ranking};
pub use tfidf::TfidfArm;
pub use vocab::Vocab;

use crate::analysis::Analyzer;
use crate::error::{Error, Result};

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

/// Checks that every document of stored postings is below `n_docs`.
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
