//! rserini-core: a lexical search engine.
//!
//! Text goes through an [`analysis::Analyzer`] into an inverted
//! [`index::Index`] of block-compressed [`postings`] in [`segment`]s;
//! [`search`] runs one [`search::Request`] (model, algorithm, statistics,
//! feedback, fields, k) and returns the exact top k under a deterministic
//! tie rule. The rooms around it:
//!
//! - [`scoring`]: BM25 (five variants, any k1/b at query time), TF-IDF and
//!   query likelihood ([`scoring::qld`]);
//! - [`feedback`]: RM3 and Rocchio pseudo-relevance feedback;
//! - [`shards`]: collection statistics summed over shards and the merge of
//!   their top k;
//! - [`writer`] and [`store`]: changes committed and saved crash-safely;
//!   [`lucene`]: Lucene index folders read (never written), their
//!   conversions kept in [`lucene_cache`];
//! - [`fusion`]: reciprocal-rank fusion; [`project`]: a source tree walked
//!   and chunked for search;
//! - [`compat`]: engines that reproduce another library's results exactly
//!   (agentic-retrieval's `LexicalRetriever`).
//!
//! No Python here: the bindings live in `rserini-py`.
//!
//! ```
//! use rserini_core::{analysis::AnalyzerConfig, index::Index, search::{Model, Request}, scoring::Bm25Params};
//!
//! let docs = vec![
//!     ("d1".to_string(), "Routers forward packets between networks.".to_string()),
//!     ("d2".to_string(), "Plants convert sunlight into energy.".to_string()),
//! ];
//! let index = Index::build(AnalyzerConfig::default(), docs).unwrap();
//! let hits = Request::new(Model::Bm25(Bm25Params::default()), 10).search(&index, "network routing").unwrap();
//! assert_eq!(index.docid(hits[0].doc), Some("d1"));
//! ```

pub mod analysis;
mod bits;
pub mod compat;
pub mod corpus;
pub mod data;
pub mod docstore;
pub mod document;
pub mod error;
pub mod feedback;
pub mod fieldnorm;
pub mod fusion;
pub mod impacts;
pub mod index;
pub mod lucene;
pub mod lucene_cache;
pub mod postings;
pub mod project;
pub mod reorder;
pub mod safe_fs;
pub mod scoring;
pub mod search;
pub mod segment;
pub mod shards;
mod short_key;
pub mod store;
mod token_cache;
pub mod writer;

pub use error::{Error, Result};

/// Helpers shared by the unit tests.
#[cfg(test)]
pub(crate) mod testing {
    /// A seeded xorshift64 generator (`seed` must not be 0): deterministic
    /// corpora without a dependency.
    pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut state = seed;
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }
}
