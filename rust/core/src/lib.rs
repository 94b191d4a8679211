//! rserini-core: a lexical search engine.
//!
//! Text goes through an [`analysis::Analyzer`] into an inverted
//! [`index::Index`] of block-compressed [`postings`]; [`search`] scores
//! queries with BM25 (five variants, any k1/b at query time) or TF-IDF
//! ([`scoring`]) and returns the exact top k under a deterministic tie rule;
//! [`fusion`] combines rankings with reciprocal-rank fusion; [`store`]
//! saves and loads indexes. No Python here: the bindings live in `rserini-py`.
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
pub mod chunk;
pub mod corpus;
pub mod data;
pub mod docstore;
pub mod document;
pub mod error;
pub mod feature_vector;
pub mod fieldnorm;
pub mod fusion;
pub mod generated;
pub mod global_stats;
pub mod impacts;
pub mod index;
pub mod lexical;
pub mod lexical_store;
pub mod lucene;
pub mod merge;
pub mod postings;
pub mod qld;
pub mod reorder;
pub mod rm3;
pub mod rocchio;
pub mod safe_fs;
pub mod scoring;
pub mod search;
pub mod segment;
mod short_key;
pub mod store;
mod token_cache;
pub mod walk;
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
