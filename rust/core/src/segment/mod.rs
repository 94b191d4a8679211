//! A segment: an immutable inverted index over a batch of documents, with
//! its own term dictionary, postings, lengths and document store.
//!
//! An [`crate::index::Index`] is a list of segments plus, per segment, the
//! set of deleted documents. [`SegmentBuilder`] analyzes documents in
//! parallel (rayon) and gathers posting lists in memory; `finish` sorts the
//! vocabulary, builds the term dictionary (an `fst` map from term to term
//! ordinal) and compresses the postings ([`crate::postings`]).
//!
//! Document ids inside a segment are `u32`s in insertion order. The tie rule
//! (docid ascending) uses each document's rank in docid order within the
//! segment, computed once when the segment is built.
//!
//! One concept per file: [`SegmentData`] (`reader.rs`) is the segment read;
//! [`SegmentBuilder`] (`builder.rs`) builds one in memory over an
//! `Interner` (`interner.rs`) and a posting pool (`pool.rs`); sorted runs
//! (`sorted_run.rs`) are merged by budgeted builds; `serializer.rs`
//! compresses postings and assembles a segment; [`DocIds`] and
//! [`Deletions`] are the docid table and the deleted-document set;
//! `lexicon.rs` looks terms up in a hash table once a small segment is
//! searched often; `import.rs` builds a segment from lists inverted
//! elsewhere (a converted Lucene index).

mod builder;
mod deletions;
mod docids;
mod import;
mod interner;
mod lexicon;
mod pool;
mod reader;
mod serializer;
mod sorted_run;

pub use builder::SegmentBuilder;
pub use deletions::Deletions;
pub use docids::DocIds;
pub(crate) use import::SegmentImport;
pub(crate) use interner::{Interner, term_hash};
pub use reader::{SegmentData, TermOrd};
pub(crate) use serializer::{ListBatch, PostingsWriter, assemble, open_store};
pub(crate) use sorted_run::SortedRun;
