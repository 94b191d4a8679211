//! Reading Lucene indexes written by Anserini and Pyserini: read-only,
//! memory-mapped, nothing in the Lucene folder is ever written or locked.
//!
//! Supported: Lucene 9.0 to 9.9 (`Lucene90`..`Lucene99` codecs with their
//! postings formats). A Lucene index is converted once into an
//! [`crate::index::Index`], so every search path works on it.

pub mod for_util;
pub mod input;
#[cfg(test)]
pub(crate) mod testing;
