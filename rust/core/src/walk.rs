//! Collecting the text and code files of a source tree as documents, for
//! searching a project folder with no index given.
//!
//! The walk honours `.gitignore`, `.ignore` and git's global excludes (the
//! `ignore` crate, as ripgrep does), skips hidden entries and rserini's own
//! `.rserini/` cache, and keeps a file only if it is at most `max_bytes`
//! long, holds no NUL byte and is valid UTF-8. The docid is the path relative
//! to the root, with `/` separators.

use std::path::Path;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::segment::Doc;

/// Folder name of the per-project index cache.
pub const CACHE_DIR: &str = ".rserini";

/// A file found by the walk, before reading it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// Path relative to the root, `/`-separated.
    pub docid: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch (0 if unknown).
    pub mtime_ns: u128,
}

/// Lists candidate files under `root`, sorted by docid.
pub fn list_files(root: &Path, max_bytes: u64) -> Result<Vec<SourceFile>> {
    if !root.is_dir() {
        return Err(Error::io(
            root,
            std::io::Error::new(std::io::ErrorKind::NotFound, "not a folder"),
        ));
    }
    let mut files = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .require_git(false)
        .filter_entry(|e| e.file_name() != CACHE_DIR)
        .build();
    for entry in walker {
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if meta.len() > max_bytes {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let docid = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        files.push(SourceFile {
            docid,
            size: meta.len(),
            mtime_ns,
        });
    }
    files.sort_by(|a, b| a.docid.cmp(&b.docid));
    Ok(files)
}

/// A fingerprint of a file listing: changes when a file is added, removed,
/// resized or touched.
pub fn fingerprint(files: &[SourceFile]) -> String {
    let mut hasher = crc32fast::Hasher::new();
    let mut total = 0u64;
    for f in files {
        hasher.update(f.docid.as_bytes());
        hasher.update(&[0]);
        hasher.update(&f.size.to_le_bytes());
        hasher.update(&f.mtime_ns.to_le_bytes());
        total = total.wrapping_add(f.size);
    }
    format!("{}-{total}-{:08x}", files.len(), hasher.finalize())
}

/// Reads the listed files in parallel, keeping the text ones.
pub fn read_files(root: &Path, files: &[SourceFile]) -> Vec<Doc> {
    files
        .par_iter()
        .filter_map(|f| {
            let bytes = std::fs::read(root.join(&f.docid)).ok()?;
            if bytes.contains(&0) {
                return None;
            }
            String::from_utf8(bytes)
                .ok()
                .map(|text| Doc::new(f.docid.clone(), text))
        })
        .collect()
}
