//! `rserini.Index`: build, save, load, update, search, explain.
//!
//! Python inputs are copied into owned Rust values first; all indexing and
//! searching then runs with the GIL released (`py.detach`), on the pools of
//! [`crate::threads`] (never rayon's global pool, which breaks after `fork()`).
//! The Python object holds the current snapshot of the index and, while
//! changes are queued, the core's [`IndexWriter`]: `add` and `delete` queue
//! changes that `commit` turns into the next snapshot (and saves, when the
//! index lives in a folder). The writer's mutex is only ever taken with the
//! GIL released, since a commit holds it for long.
//!
//! The methods are cut by role, each file with its own `#[pymethods]` block:
//! this file (the object, its snapshot and writer, its documents),
//! `build.rs` (the constructors), `changes.rs` (add, delete, commit, save),
//! `search.rs`, `feedback.rs` (the feedback methods), `passages.rs` (the best
//! windows of a text), `stats.rs` (statistics and terms) and `pickle.rs`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use numpy::{PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rserini_core::Error;
use rserini_core::index::Index;
use rserini_core::writer::IndexWriter;

use crate::analyzer::PyAnalyzer;
use crate::errors::CoreError;
use crate::results::DocidStrings;
use crate::snapshot_ids;
use crate::threads::detached;

mod build;
mod changes;
mod feedback;
mod passages;
mod pickle;
mod search;
mod stats;

pub use pickle::_index_from_files;

/// An immutable inverted index, safe to share between threads.
///
/// Build it with :meth:`build`, :meth:`from_jsonl` or :meth:`from_source_tree`,
/// or open a saved one with :meth:`load`. All scoring parameters are chosen
/// per query. A saved index pickles as its path, an in-memory one as its bytes.
#[pyclass(name = "Index", module = "rserini._core", frozen)]
pub struct PyIndex {
    current: RwLock<Arc<Index>>,
    /// The open transaction: queued changes, and the folder's lock.
    writer: Mutex<Option<IndexWriter>>,
    source: Option<String>,
    /// Whether documents added later are stored.
    store: bool,
    docids: DocidStrings,
}

impl PyIndex {
    pub(crate) fn new(index: Index, source: Option<String>) -> Self {
        let store = index.has_store();
        PyIndex {
            current: RwLock::new(Arc::new(index)),
            writer: Mutex::new(None),
            source,
            store,
            docids: DocidStrings::default(),
        }
    }

    /// The current snapshot.
    pub(crate) fn snapshot(&self) -> Arc<Index> {
        self.current.read().expect("not poisoned").clone()
    }

    fn replace(&self, index: Arc<Index>) {
        *self.current.write().expect("not poisoned") = index;
    }

    /// Runs `f` on the writer without the GIL, first opening one on the
    /// current snapshot if there is none (which takes the folder's lock when
    /// the index lives in a folder, and moves to the latest saved state).
    fn write<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut IndexWriter) -> Result<T, Error> + Send,
    ) -> PyResult<T> {
        detached(py, None, || {
            let mut slot = self.writer.lock().expect("not poisoned");
            if slot.is_none() {
                let writer = IndexWriter::new(self.snapshot())?
                    .with_store(self.store)
                    .with_source(self.source.clone());
                *slot = Some(writer);
            }
            let result = f(slot.as_mut().expect("opened above"));
            self.settle(&mut slot);
            result
        })
    }

    /// After a writer call: the snapshot follows the writer's base, and a
    /// writer left with neither changes nor the lock is closed.
    fn settle(&self, slot: &mut Option<IndexWriter>) {
        if let Some(writer) = slot {
            self.replace(Arc::clone(writer.base()));
            if !writer.has_changes() && !writer.is_locked() {
                *slot = None;
            }
        }
    }
}

#[pymethods]
impl PyIndex {
    /// Where the index was last saved or loaded from.
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.snapshot().dir().map(PathBuf::from)
    }

    /// Origin of the documents, if recorded.
    #[getter]
    fn source(&self) -> Option<String> {
        self.source.clone()
    }

    /// For an index opened from a Lucene folder, the Lucene version that wrote
    /// its commit (``"9.9.1"``); else ``None``.
    #[getter]
    fn lucene_version(&self) -> Option<String> {
        self.snapshot().lucene_version().map(String::from)
    }

    /// Whether changes are waiting for :meth:`commit`.
    #[getter]
    fn has_pending_changes(&self, py: Python<'_>) -> bool {
        py.detach(|| {
            let slot = self.writer.lock().expect("not poisoned");
            slot.as_ref().is_some_and(IndexWriter::has_changes)
        })
    }

    /// The analyzer of documents and queries.
    #[getter]
    fn analyzer(&self) -> PyAnalyzer {
        PyAnalyzer {
            inner: Arc::new(
                rserini_core::analysis::Analyzer::new(self.snapshot().analyzer().config().clone())
                    .expect("valid config"),
            ),
        }
    }

    fn __len__(&self) -> usize {
        self.snapshot().len()
    }

    /// The fields ``fields=`` of a search can name: ``"contents"`` first, then
    /// the others of an index that keeps several (a Lucene index built with
    /// Anserini's ``-fields``).
    fn field_names(&self) -> Vec<String> {
        let index = self.snapshot();
        index.field_names().into_iter().map(String::from).collect()
    }

    fn __contains__(&self, docid: &str) -> bool {
        self.snapshot().doc(docid).is_ok()
    }

    fn __repr__(&self) -> String {
        let index = self.snapshot();
        let s = index.stats();
        format!(
            "Index(docs={}, terms={}, segments={}, analyzer={:?})",
            s.num_docs,
            s.num_terms,
            s.num_segments,
            index.analyzer().config().preset_name().unwrap_or("custom")
        )
    }

    /// The original fields of a stored document (its JSON object, or
    /// ``{"id", "contents"}`` for a pair).
    ///
    /// Raises
    /// ------
    /// UnknownDocidError
    ///     For a docid not in the index.
    /// QueryError
    ///     If the index was built with ``store=False``.
    fn doc<'py>(&self, py: Python<'py>, docid: &str) -> PyResult<Bound<'py, PyAny>> {
        let stored = self.snapshot().stored(docid).map_err(CoreError)?;
        match stored.raw {
            // Python's own reader gives back exactly what `json.dumps` or the file held.
            Some(raw) => py.import("json")?.call_method1("loads", (raw,)),
            None => {
                let d = PyDict::new(py);
                d.set_item("id", docid)?;
                d.set_item("contents", stored.contents)?;
                Ok(d.into_any())
            }
        }
    }

    /// The original document exactly as stored (Pyserini's ``raw()``: the JSON
    /// line, or for a Lucene index Anserini's ``raw`` field), ``None`` if only its
    /// text was kept. Errors as :meth:`doc`.
    fn raw(&self, docid: &str) -> PyResult<Option<String>> {
        Ok(self.snapshot().stored(docid).map_err(CoreError)?.raw)
    }

    /// The indexed text of a stored document.
    fn contents(&self, docid: &str) -> PyResult<String> {
        Ok(self.snapshot().stored(docid).map_err(CoreError)?.contents)
    }

    /// ``(raw(docid), contents(docid))`` from one read of the document store (the
    /// agent servers need both for every previewed hit). Errors as :meth:`doc`.
    fn raw_and_contents(&self, docid: &str) -> PyResult<(Option<String>, String)> {
        let stored = self.snapshot().stored(docid).map_err(CoreError)?;
        Ok((stored.raw, stored.contents))
    }

    /// The internal id of the live document ``docid`` (its first copy), the
    /// inverse of :meth:`docids`; in a Lucene index, Lucene's own docid.
    fn internal_id(&self, docid: &str) -> PyResult<u32> {
        Ok(self.snapshot().doc(docid).map_err(CoreError)?)
    }

    /// Maps internal ids (1-D or 2-D, ``-1`` skipped) to docids. The ids array of
    /// :meth:`batch_search`, its views, its numpy copies (``.copy()``, ``.astype()``)
    /// and its ``.tolist()`` are read in the snapshot that produced them, even after a
    /// commit (:mod:`rserini.snapshot_ids`); ids that lost it (unpickled) raise
    /// ``ValueError``; plain numbers (``internal_id``, ``np.array(ids)``) are read in
    /// the current one.
    fn docids<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let index = match snapshot_ids::snapshot_of(ids)? {
            Some(bound) => bound,
            None => self.snapshot(),
        };
        let np = py.import("numpy")?;
        let array = np.call_method1("asarray", (ids, "int64"))?;
        let array = array.cast::<numpy::PyArrayDyn<i64>>()?;
        let read = array.readonly();
        let shape = read.shape().to_vec();
        let view = read.as_array();
        let row = |values: &mut dyn Iterator<Item = &i64>| -> PyResult<Bound<'py, PyList>> {
            let unknown =
                |i: i64| PyValueError::new_err(format!("internal id {i} is not in this index"));
            let ids = values
                .filter(|&&i| i != -1)
                .map(|&i| u32::try_from(i).map_err(|_| unknown(i)))
                .collect::<PyResult<Vec<u32>>>()?;
            let names = self.docids.get(py, &index, &ids);
            let names = names
                .into_iter()
                .zip(&ids)
                .map(|(name, &i)| name.ok_or_else(|| unknown(i64::from(i))))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, names)
        };
        match shape.len() {
            1 => row(&mut view.iter()),
            2 => {
                let rows = PyList::empty(py);
                for r in view.outer_iter() {
                    rows.append(row(&mut r.iter())?)?;
                }
                Ok(rows)
            }
            n => Err(PyValueError::new_err(format!(
                "ids must be 1- or 2-dimensional, got {n} dimensions"
            ))),
        }
    }
}
