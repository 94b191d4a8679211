//! `lucene_info`: what a Lucene index folder holds (versions, segments,
//! documents, fields), for `rserini info` and the Pyserini facade; read
//! without converting it, and without writing to the folder.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rserini_core::lucene::LuceneIndex;
use rserini_core::lucene::field_infos::{FieldInfo, IndexOptions};

use crate::threads::detached;

/// Lucene's name of what a field indexes per posting.
fn index_options(f: &FieldInfo) -> &'static str {
    match f.index_options {
        IndexOptions::None => "NONE",
        IndexOptions::Docs => "DOCS",
        IndexOptions::DocsAndFreqs => "DOCS_AND_FREQS",
        IndexOptions::DocsAndFreqsAndPositions => "DOCS_AND_FREQS_AND_POSITIONS",
        IndexOptions::DocsAndFreqsAndPositionsAndOffsets => {
            "DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS"
        }
    }
}

/// What the Lucene index in ``path`` holds: ``lucene_version`` (of the
/// newest commit's writer), ``created_major``, ``generation`` (of
/// ``segments_N``), ``documents`` (live), ``max_doc``, ``deleted``,
/// ``segments`` (``name``, ``codec``, ``lucene_version``, ``documents``,
/// ``deleted``, ``compound``) and ``fields`` (``name``, ``index_options``,
/// ``norms``, ``term_vectors``, over every segment). Every file read is
/// checked as when searching; nothing is written.
///
/// Raises
/// ------
/// FileNotFoundError
///     If the folder does not exist.
/// IndexCorruptedError
///     If a file is damaged or the folder is not a Lucene index.
/// IndexVersionError
///     For a Lucene version that is not read.
#[pyfunction]
pub fn lucene_info<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let lucene = detached(py, None, || LuceneIndex::open(&path))?;
    let d = PyDict::new(py);
    d.set_item("path", &path)?;
    d.set_item("lucene_version", lucene.commit.lucene_version.to_string())?;
    d.set_item("created_major", lucene.commit.created_major)?;
    d.set_item("generation", lucene.commit.generation)?;
    d.set_item("documents", lucene.num_docs())?;
    d.set_item("max_doc", lucene.max_doc())?;
    d.set_item("deleted", lucene.max_doc() - lucene.num_docs())?;
    let segments = PyList::empty(py);
    let mut fields: BTreeMap<u32, &FieldInfo> = BTreeMap::new();
    for s in &lucene.segments {
        let seg = PyDict::new(py);
        seg.set_item("name", &s.commit.name)?;
        seg.set_item("codec", &s.commit.codec)?;
        seg.set_item("lucene_version", s.info.version.to_string())?;
        seg.set_item("documents", s.max_doc() as usize - s.deleted.len())?;
        seg.set_item("deleted", s.deleted.len())?;
        seg.set_item("compound", s.info.compound)?;
        segments.append(seg)?;
        for f in &s.fields.fields {
            fields.entry(f.number).or_insert(f);
        }
    }
    d.set_item("segments", segments)?;
    let list = PyList::empty(py);
    for f in fields.values() {
        let field = PyDict::new(py);
        field.set_item("name", &f.name)?;
        field.set_item("index_options", index_options(f))?;
        field.set_item("norms", f.has_norms())?;
        field.set_item("term_vectors", f.has_vectors)?;
        list.append(field)?;
    }
    d.set_item("fields", list)?;
    Ok(d)
}

/// Whether the Lucene index in ``path`` stores the ``contents`` field
/// (Anserini's ``-storeContents``), an index-wide choice read from the
/// documents of its smallest segment (``False`` for an empty index).
///
/// Raises
/// ------
/// IndexCorruptedError
///     If a file read is damaged.
#[pyfunction]
pub fn lucene_stores_contents(py: Python<'_>, path: PathBuf) -> PyResult<bool> {
    detached(py, None, || {
        let lucene = LuceneIndex::open(&path)?;
        let Some(smallest) = lucene.segments.iter().min_by_key(|s| s.max_doc()) else {
            return Ok(false);
        };
        Ok(smallest.documents()?.iter().any(|d| d.contents.is_some()))
    })
}
