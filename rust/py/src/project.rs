//! The project-folder walk, reader and line chunker (`walk`, `generated`,
//! `chunk`) for `rserini.project`: plain tuples out, the GIL released
//! while the disk is read.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::path::PathBuf;

use pyo3::prelude::*;
use rserini_core::Error;
use rserini_core::project::chunk;
use rserini_core::project::generated::GeneratedRules;
use rserini_core::project::walk::{self, Skip, SourceRead};

use crate::errors::CoreError;

/// `(path, size, mtime_ns)` of each kept file, and the count of files left
/// out by reason.
type Listing = (Vec<(String, u64, u128)>, HashMap<&'static str, usize>);

/// ``(path, size, mtime_ns)`` of each file under ``root``, sorted by path (honouring
/// ``.gitignore``; no hidden file, no symbolic link, nothing under ``.rserini/``), and
/// how many files were left out, by reason: larger than ``max_file_bytes`` (``huge``),
/// a name matching ``generated_names`` (``generated``) or a path that is not UTF-8
/// (``non_utf8_name``). Nothing is read.
///
/// Raises
/// ------
/// FileNotFoundError
///     If ``root`` is not a folder.
/// ValueError
///     For a malformed glob in ``generated_names``.
#[pyfunction]
#[pyo3(signature = (root, *, max_file_bytes = 1_048_576, generated_names = Vec::new()))]
#[pyo3(text_signature = "(root, *, max_file_bytes=1048576, generated_names=())")]
pub fn list_source_files(
    py: Python<'_>,
    root: PathBuf,
    max_file_bytes: u64,
    generated_names: Vec<String>,
) -> PyResult<Listing> {
    let rules = GeneratedRules::new(&generated_names, Vec::new(), 0, None).map_err(CoreError)?;
    let listing = py
        .detach(|| walk::list_source_files(&root, max_file_bytes, &rules))
        .map_err(CoreError)?;
    let files = listing
        .files
        .into_iter()
        .map(|f| (f.docid, f.size, f.mtime_ns))
        .collect();
    let skipped = Skip::ALL
        .iter()
        .map(|&s| (s.name(), listing.skipped.get(s)))
        .collect();
    Ok((files, skipped))
}

/// `(skip reason, content hash, text)` of each path, in order.
type Read = (Option<&'static str>, Option<String>, Option<String>);

/// ``(skip reason, BLAKE3 hex hash of the bytes, text)`` of each of ``paths`` under
/// ``root``, read in parallel without the GIL. The reason is ``None`` for a text file,
/// else ``unreadable`` or ``huge`` (no hash), ``binary`` (a NUL byte), ``non_utf8``, or
/// ``generated`` (a marker in the first ``header_lines`` lines, or a line longer than
/// ``max_line_bytes``); the text is given only for a text file.
#[pyfunction]
#[pyo3(signature = (root, paths, *, max_file_bytes = 1_048_576, generated_markers = Vec::new(), header_lines = 0, max_line_bytes = None))]
#[pyo3(
    text_signature = "(root, paths, *, max_file_bytes=1048576, generated_markers=(), header_lines=0, max_line_bytes=None)"
)]
pub fn read_source_files(
    py: Python<'_>,
    root: PathBuf,
    paths: Vec<String>,
    max_file_bytes: u64,
    generated_markers: Vec<String>,
    header_lines: usize,
    max_line_bytes: Option<usize>,
) -> PyResult<Vec<Read>> {
    let rules = GeneratedRules::new(&[], generated_markers, header_lines, max_line_bytes)
        .map_err(CoreError)?;
    // On a fork-aware pool: rayon's global pool hangs in a forked child.
    let reads = py
        .detach(|| {
            crate::threads::with_threads(None, || {
                walk::read_sources(&root, &paths, max_file_bytes, &rules)
            })
        })
        .map_err(CoreError)?;
    Ok(reads
        .into_iter()
        .map(|read| match read {
            SourceRead::Text { hash, text } => (None, Some(hash), Some(text)),
            SourceRead::Skipped { reason, hash } => (Some(reason.name()), hash, None),
        })
        .collect())
}

/// ``(start_line, end_line, text)`` of each run of ``lines`` lines of ``text``
/// (1-based, inclusive; lines end at ``\n``; the last run may be shorter). The runs
/// tile the text; a blank text has none.
///
/// Raises
/// ------
/// ValueError
///     If ``lines`` is 0.
#[pyfunction]
pub fn chunk_lines(text: &str, lines: usize) -> PyResult<Vec<(usize, usize, &str)>> {
    let lines = NonZeroUsize::new(lines)
        .ok_or_else(|| CoreError(Error::Argument("chunk_lines must be at least 1".into())))?;
    Ok(chunk::chunk_lines(text, lines)
        .into_iter()
        .map(|c| (c.start_line, c.end_line, c.text))
        .collect())
}
