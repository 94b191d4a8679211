//! Saving and loading an [`Index`](crate::index::Index) as a folder of
//! files, safely.
//!
//! The folder holds one file per segment structure, named
//! `<segment>.<kind>` (`seg000001.postings`, ...), per-segment deletion files
//! `<segment>.<generation>.del`, a `write.lock` and `meta.json`, which lists
//! the live files with their sizes and CRC32s and ends with a checksum of
//! its own. Every binary file ends with a
//! 20-byte footer: payload length (u64), CRC32 of the payload (u32), format
//! version (u32) and the magic `RSRN`, all little-endian, preceded (from
//! format 4 on) by the number of the segment the file belongs to. The exact layout of
//! each file is documented in `docs/index-format.md`.
//!
//! **Fields.** A multifield index ([`Index::with_fields`](crate::index::Index::with_fields))
//! keeps each other field as a complete index folder `fields/<name>/`
//! (same documents, same segments, no document store). The parent's
//! `meta.json` lists each field's files too, and that listing is the one
//! loading follows: a save writes the field folders first and commits them
//! with the parent's `meta.json`, so fields are as crash-safe as the rest.
//!
//! **Crash safety.** A save never modifies a file that `meta.json` lists: it
//! writes new files (each through a temporary name, `fsync`ed, by
//! [`crate::safe_fs::write_atomically`]), then
//! publishes them by atomically renaming a new `meta.json` into place, and
//! only then deletes the files no longer listed. A crash at any point leaves
//! either the old or the new index readable.
//!
//! **Concurrency.** One writer at a time holds an OS lock on `write.lock`;
//! readers take no lock. The lock records the process that took it: a
//! child forked by a writer inherits the open lock but may not commit under
//! it ([`Error::ForeignLock`](crate::Error::ForeignLock)). An
//! [`Index`](crate::index::Index) is a snapshot: it keeps its files (mapped,
//! or read) whatever a writer does afterwards.
//!
//! **Checks.** Loading verifies every footer, the CRC32 of every file up to
//! [`CRC_ON_LOAD_MAX`] bytes (larger files are checked by [`verify`]), and
//! the consistency of the arrays, and reports a damaged file as
//! [`Error::Corrupted`](crate::Error::Corrupted) naming it. Every file is
//! opened through [`crate::safe_fs`]: links inside the folder are not
//! followed, FIFOs and devices are refused, and sizes are checked before
//! reading.
//!
//! Files: `footer.rs` (the footer of every binary file), `meta.rs`
//! (`meta.json`: listing, checksum, reading), `write_lock.rs` (the writer
//! lock), `segment_files.rs` (a segment's files, written and read back),
//! `save.rs` (crash-safe saves and garbage collection), `load.rs` (loading,
//! the latest state, verification) and `format1.rs` (format version 1).

#[cfg(test)]
mod fields_tests;
mod footer;
mod format1;
mod load;
mod meta;
mod save;
mod segment_files;
#[cfg(test)]
mod tests;
mod write_lock;

pub(crate) use footer::{read_footer, with_footer};
pub use load::{latest, load, verify};
pub use meta::{FieldMeta, FileEntry, IndexMeta, SegmentMeta, read_meta};
pub use save::{save, save_locked};
pub use write_lock::{WriteLock, lock};

/// The format version this build writes.
pub const FORMAT_VERSION: u32 = 4;
/// The oldest format version this build reads (converting it in memory).
pub const OLDEST_FORMAT_VERSION: u32 = 1;
/// Files up to this size have their CRC32 checked on every load.
pub const CRC_ON_LOAD_MAX: u64 = 64 << 20;
const META_FILE: &str = "meta.json";
/// The folder of a multifield index's other fields, one folder each.
pub const FIELDS_DIR: &str = "fields";
const LOCK_FILE: &str = "write.lock";
/// The per-segment files, in write order.
const KINDS: [&str; 9] = [
    "docids", "lengths", "norms", "docrank", "terms", "terminfo", "blocks", "postings", "store",
];
