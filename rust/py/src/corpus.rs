//! The core's input rules for Python code that reads collections itself
//! (the parity harness, `rserini.formats`, `rserini.tune`, the benchmarks):
//! which files a path holds ([`corpus::corpus_files`],
//! [`corpus::beir_files`]), what a JSON line means
//! ([`document::document_fields`]) and the reader itself
//! ([`corpus::read_documents`]), so that nothing reads a corpus differently
//! from `Index.from_jsonl`.

use std::path::PathBuf;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use rserini_core::document::{self, FieldError};
use rserini_core::{Error, corpus};

use crate::errors::CoreError;
use crate::threads::detached;

/// `(corpus, queries, qrels)` of a BEIR folder.
type BeirPaths = (PathBuf, Option<PathBuf>, Option<PathBuf>);

/// ``(docid, indexed text)`` of one JSON document, by the rule
/// :meth:`Index.from_jsonl` reads lines with: the id is ``"id"``, ``"_id"`` or
/// ``"docid"`` (a string, or a number kept as written); the text is
/// ``"contents"``, or else ``title + " " + text`` (BEIR).
///
/// Raises
/// ------
/// DocumentError
///     If ``line`` is not a JSON object, or has no id or no text field.
/// TypeError
///     If a field has the wrong JSON type.
#[pyfunction]
pub fn document_fields(line: &str) -> PyResult<(String, String)> {
    document::document_fields(line).map_err(|e| match e {
        FieldError::WrongType(m) => PyTypeError::new_err(m),
        FieldError::NoId(m) | FieldError::Missing(m) | FieldError::Json(m) => {
            CoreError(Error::Document(m)).into()
        }
    })
}

/// The files :meth:`Index.from_jsonl` reads for ``path``: the file itself, or every
/// ``.jsonl``, ``.jsonl.gz`` and ``.json`` file below the folder, sorted; a BEIR
/// folder (one holding ``corpus.jsonl`` or ``corpus.jsonl.gz``) gives that file alone.
///
/// Raises
/// ------
/// FileNotFoundError
///     If ``path`` does not exist.
/// DocumentError
///     If the folder holds no corpus file, or a BEIR folder holds both corpus files.
#[pyfunction]
pub fn corpus_files(py: Python<'_>, path: PathBuf) -> PyResult<Vec<PathBuf>> {
    Ok(py
        .detach(|| corpus::corpus_files(&path))
        .map_err(CoreError)?)
}

/// ``(corpus, queries, qrels)`` of a BEIR folder: ``corpus.jsonl`` or
/// ``corpus.jsonl.gz``, then ``queries.jsonl`` and ``qrels/<split>.tsv`` or ``None``
/// where missing; ``None`` if ``folder`` holds no corpus file (it is not a BEIR folder).
///
/// Raises
/// ------
/// DocumentError
///     If the folder holds both ``corpus.jsonl`` and ``corpus.jsonl.gz``.
#[pyfunction]
#[pyo3(signature = (folder, split = "test"))]
pub fn beir_files(folder: PathBuf, split: &str) -> PyResult<Option<BeirPaths>> {
    let files = corpus::beir_files(&folder, split).map_err(CoreError)?;
    Ok(files.map(|f| (f.corpus, f.queries, f.qrels)))
}

/// ``(docid, indexed text)`` of every document under ``path``, read as
/// :meth:`Index.from_jsonl` reads it: the same files (:func:`corpus_files`), the same
/// rule per line (:func:`document_fields`), in file and line order.
///
/// Raises
/// ------
/// ParseError
///     For a line that is not a document, naming the file and the line.
/// FileNotFoundError
///     If ``path`` does not exist.
#[pyfunction]
#[pyo3(signature = (path, *, max_line_bytes = corpus::DEFAULT_MAX_LINE_BYTES))]
#[pyo3(text_signature = "(path, *, max_line_bytes=67108864)")]
pub fn read_documents(
    py: Python<'_>,
    path: PathBuf,
    max_line_bytes: usize,
) -> PyResult<Vec<(String, String)>> {
    let mut docs = Vec::new();
    // On a fork-aware pool: rayon's global pool hangs in a forked child.
    py.detach(|| {
        crate::threads::with_threads(None, || {
            corpus::read_documents(&path, false, max_line_bytes, |batch| {
                docs.extend(batch.into_iter().map(|d| (d.docid, d.contents)));
                Ok(())
            })
        })
    })
    .map_err(CoreError)?
    .map_err(CoreError)?;
    Ok(docs)
}

/// Reads a BEIR ``queries.jsonl`` or a ``qid<TAB>text`` file.
#[pyfunction]
pub fn read_queries(py: Python<'_>, path: PathBuf) -> PyResult<Vec<(String, String)>> {
    detached(py, None, || corpus::read_queries(&path))
}
