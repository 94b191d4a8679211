//! Changes to an `Index`: documents queued for addition or deletion, the
//! commit that applies them, and saving to a folder.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use pyo3::prelude::*;
use pyo3::types::PyString;
use rserini_core::index::Duplicates;
use rserini_core::{corpus, store};

use super::PyIndex;
use super::build::json_dumps;
use crate::args::Threads;
use crate::convert::extract_doc;
use crate::errors::CoreError;
use crate::results::DocidStrings;
use crate::threads::detached;

#[pymethods]
impl PyIndex {
    /// Saves into the folder ``path``, crash-safely; replaces only an existing
    /// rserini index.
    ///
    /// Raises
    /// ------
    /// FileExistsError
    ///     If ``path`` is a non-empty folder that is not an rserini index (its
    ///     ``meta.json``, if any, is not an index's); nothing in it is touched.
    /// IndexLockedError
    ///     If another writer holds the folder.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        detached(py, None, || {
            let mut slot = self.writer.lock().expect("not poisoned");
            let saved = match slot.as_mut() {
                // Queued changes move with the index to its new folder.
                Some(writer) => writer.save(&path)?,
                None => Arc::new(store::save(&self.snapshot(), &path, self.source.clone())?),
            };
            self.replace(saved);
            Ok(())
        })
    }

    /// Queues documents to add at the next :meth:`commit` (takes the folder's
    /// writer lock when the index lives in a folder).
    ///
    /// With ``duplicates="keep"``, a docid already in the index (or given twice) is
    /// indexed again, as Lucene's ``addDocument`` does: every copy is searched and
    /// ranked on its own, copies with equal scores in the order they were added;
    /// :meth:`doc`, :meth:`contents`, :meth:`explain` and ``in`` read the first copy;
    /// :meth:`delete` deletes every copy. One commit's additions share one policy
    /// (a :class:`QueryError` otherwise).
    ///
    /// Raises
    /// ------
    /// IndexLockedError
    ///     If another writer holds the folder, or this process was forked from the
    ///     process that took the lock (a child never commits its parent's changes).
    #[pyo3(signature = (docs, *, duplicates = "error"))]
    fn add(&self, py: Python<'_>, docs: &Bound<'_, PyAny>, duplicates: &str) -> PyResult<()> {
        let duplicates = Duplicates::parse(duplicates).map_err(CoreError)?;
        let dumps = json_dumps(py)?;
        let mut new = Vec::new();
        for (position, item) in docs.try_iter()?.enumerate() {
            new.push(extract_doc(&item?, position, &dumps)?);
        }
        self.write(py, |writer| writer.add(new, duplicates))
    }

    /// Queues the documents of JSONL files (read as by :meth:`from_jsonl`);
    /// returns how many.
    #[pyo3(signature = (path, *, duplicates = "error", max_line_bytes = corpus::DEFAULT_MAX_LINE_BYTES))]
    #[pyo3(text_signature = "($self, path, *, duplicates='error', max_line_bytes=67108864)")]
    fn add_jsonl(
        &self,
        py: Python<'_>,
        path: PathBuf,
        duplicates: &str,
        max_line_bytes: usize,
    ) -> PyResult<usize> {
        let duplicates = Duplicates::parse(duplicates).map_err(CoreError)?;
        let mut docs = Vec::new();
        detached(py, None, || {
            corpus::read_documents(&path, true, max_line_bytes, |batch| {
                docs.extend(batch);
                Ok(())
            })
        })?;
        let count = docs.len();
        self.write(py, |writer| writer.add(docs, duplicates))?;
        Ok(count)
    }

    /// Queues documents to delete at the next :meth:`commit`; a docid with several
    /// copies loses them all, as Lucene's delete-by-term.
    ///
    /// Raises
    /// ------
    /// UnknownDocidError
    ///     For a docid that is neither in the index nor queued.
    fn delete(&self, py: Python<'_>, docids: &Bound<'_, PyAny>) -> PyResult<()> {
        let docids: Vec<String> = if let Ok(one) = docids.cast::<PyString>() {
            vec![one.to_str()?.to_owned()]
        } else {
            docids.extract()?
        };
        self.write(py, |writer| writer.delete(docids))
    }

    /// Applies the queued changes (deletions, then additions as a new segment,
    /// then merges) on top of the latest saved state, saves them crash-safely if
    /// the index lives in a folder, and releases the writer lock. A failed
    /// commit discards the queued changes.
    #[pyo3(signature = (*, threads = None))]
    fn commit(&self, py: Python<'_>, threads: Option<Threads>) -> PyResult<()> {
        detached(py, threads.map(|t| t.0), || {
            let mut slot = self.writer.lock().expect("not poisoned");
            let next = match slot.as_mut() {
                Some(writer) => {
                    let next = writer.commit();
                    self.settle(&mut slot);
                    next?
                }
                // Nothing queued: move to the latest saved state, if newer.
                None => match store::latest(&self.snapshot(), true)? {
                    Some(latest) => Arc::new(latest),
                    None => return Ok(()),
                },
            };
            self.replace(next);
            Ok(())
        })
    }

    /// Discards the queued changes and releases the writer lock.
    fn rollback(&self, py: Python<'_>) {
        py.detach(|| *self.writer.lock().expect("not poisoned") = None);
    }

    /// Merges all segments into one, dropping deleted documents.
    fn optimize(&self, py: Python<'_>) -> PyResult<()> {
        self.write(py, |writer| writer.optimize().map(drop))
    }

    /// Checks every file of the saved index, including the checksums of large
    /// files that loading skips; raises :class:`IndexCorruptedError`.
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        let index = self.snapshot();
        let Some(dir) = index.dir() else {
            return Ok(());
        };
        let dir = dir.to_path_buf();
        detached(py, None, || store::verify(&dir))
    }

    /// This index's current snapshot, recording ``source`` as the origin of its
    /// documents when saved (no queued changes; for a sharded build, whose shards
    /// name the corpus rather than their spill file).
    fn _with_source(&self, source: Option<String>) -> PyIndex {
        PyIndex {
            current: RwLock::new(self.snapshot()),
            writer: Mutex::new(None),
            source,
            store: self.store,
            docids: DocidStrings::default(),
        }
    }
}
