//! Read-only bytes of an index file: owned in memory, or memory-mapped.
//!
//! Mapping lets a multi-gigabyte index open in milliseconds and lets several
//! processes share its pages. It is sound only while nobody modifies the
//! file: rserini never rewrites a published file (every save writes new file
//! names and publishes them with an atomic rename of `meta.json`), and it
//! unlinks old files instead of truncating them, which leaves existing
//! mappings valid. Another program truncating or overwriting a mapped file
//! in place would make readers die with `SIGBUS`: the README and
//! `docs/index-format.md` say not to.

use std::fs::File;
use std::ops::{Deref, Range};
use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::safe_fs;

/// Immutable bytes, cheap to clone and to slice.
#[derive(Clone)]
pub struct Data {
    bytes: Backing,
    range: Range<usize>,
}

#[derive(Clone)]
enum Backing {
    Owned(Arc<Vec<u8>>),
    Mapped(Arc<memmap2::Mmap>),
}

impl Data {
    /// Owned bytes.
    pub fn owned(bytes: Vec<u8>) -> Self {
        let range = 0..bytes.len();
        Data {
            bytes: Backing::Owned(Arc::new(bytes)),
            range,
        }
    }

    /// The whole of `file` (`len` bytes, opened from `path` by
    /// [`safe_fs::open`]), memory-mapped (`mmap`) or read into memory.
    pub fn from_file(file: File, len: u64, path: &Path, mmap: bool) -> Result<Self> {
        if !mmap || len == 0 {
            return Ok(Data::owned(safe_fs::read_all(file, len, path)?));
        }
        let len = usize::try_from(len)
            .map_err(|_| Error::OutOfMemory(format!("{len} bytes to map {}", path.display())))?;
        // SAFETY: published index files are never modified in place (see the
        // module docs), so the mapped bytes cannot change under us.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::MmapOptions::new().len(len).map(&file) }
            .map_err(|e| Error::io(path, e))?;
        Ok(Data {
            bytes: Backing::Mapped(Arc::new(map)),
            range: 0..len,
        })
    }

    /// A sub-slice sharing the same backing bytes. `range` must lie within `self`.
    pub fn slice(&self, range: Range<usize>) -> Data {
        assert!(
            range.start <= range.end && range.end <= self.range.len(),
            "slice out of bounds"
        );
        Data {
            bytes: self.bytes.clone(),
            range: self.range.start + range.start..self.range.start + range.end,
        }
    }

    /// Whether the bytes are memory-mapped.
    pub fn is_mapped(&self) -> bool {
        matches!(self.bytes, Backing::Mapped(_))
    }
}

impl Deref for Data {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        let all: &[u8] = match &self.bytes {
            Backing::Owned(v) => v,
            Backing::Mapped(m) => m,
        };
        &all[self.range.clone()]
    }
}

impl AsRef<[u8]> for Data {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl std::fmt::Debug for Data {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Data({} bytes{})",
            self.len(),
            if self.is_mapped() { ", mapped" } else { "" }
        )
    }
}
