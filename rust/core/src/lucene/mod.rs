//! Reading Lucene indexes written by Anserini and Pyserini: read-only,
//! memory-mapped, nothing in the Lucene folder is ever written or locked.
//!
//! Supported: Lucene 9.0 to 9.9 (`Lucene90`..`Lucene99` codecs with their
//! postings formats). A Lucene index is converted into an
//! [`crate::index::Index`], so every search path works on it, once: the
//! conversion is kept in rserini's own format outside the Lucene folder
//! ([`crate::lucene_cache`]).

mod compression;
pub mod convert;
pub mod directory;
mod disi;
pub mod field_infos;
pub mod for_util;
pub mod input;
pub mod live_docs;
pub mod lz4;
pub mod norms;
pub mod postings;
pub mod reader;
pub mod segment_infos;
pub mod stored_fields;
pub mod term_block;
pub mod term_meta;
pub mod terms;
#[cfg(test)]
pub(crate) mod testing;

pub use convert::{ConversionReport, convert, load};
pub use directory::is_lucene_folder;
pub use reader::{LuceneIndex, LuceneSegment, StoredDocument};
