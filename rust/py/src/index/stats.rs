//! The statistics of `Index`: its counts and sizes (`stats`, `info`), its
//! collection statistics, the terms and frequencies of queries, and the
//! postings of a term.

use std::path::PathBuf;

use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use rserini_core::shards::global_stats::GlobalStats;
use rserini_core::{search, store};

use super::PyIndex;
use crate::analyzer::config_dict;
use crate::errors::CoreError;
use crate::global_stats::PyGlobalStats;
use crate::index_stats::PyIndexStats;
use crate::threads::detached;

#[pymethods]
impl PyIndex {
    /// The index's counts, sizes, mean lengths and analyzer, as an
    /// :class:`IndexStats` (also a mapping with the keys of its properties).
    /// ``avgdl_lucene`` and ``avgdl_exact`` are the mean lengths BM25 scores with
    /// under ``length="lucene"`` (the default: documents with at least one indexed
    /// term, as Lucene's ``docCount``) and ``length="exact"`` (every document); they
    /// differ when some document has no indexed term. ``avgdl`` is the mean over
    /// every live document, ``avgdl_exact``'s value (but 0 for an empty index).
    fn stats(&self) -> PyIndexStats {
        let index = self.snapshot();
        PyIndexStats::new(index.stats(), index.analyzer().config().clone())
    }

    /// What ``rserini info`` prints: ``path``, ``format_version``, ``written_by``,
    /// ``generation``, ``bytes`` (of every file) and ``segments`` (``name``,
    /// ``documents``, ``deleted``) from the folder's ``meta.json``, with ``analyzer``,
    /// ``documents``, ``deleted``, ``terms``, ``postings``, ``avgdl`` (the mean length
    /// over every live document, ``stats()``'s), ``postings_bytes`` and ``store_bytes``;
    /// for a multifield index, ``fields`` (:meth:`field_names`).
    /// If another writer has committed since this snapshot, the folder's latest
    /// generation is described, as :meth:`load` would give it now.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     If the index was never saved (it has no folder to describe).
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let snapshot = self.snapshot();
        let Some(dir) = snapshot.dir().map(PathBuf::from) else {
            return Err(PyValueError::new_err(
                "this index was never saved: info() describes an index folder",
            ));
        };
        let (meta, latest) = detached(py, None, || {
            let meta = store::read_meta(&dir)?;
            let latest = match meta.generation == snapshot.generation() {
                true => None,
                false => Some(store::load(&dir, true)?),
            };
            Ok((meta, latest))
        })?;
        let index = latest.as_ref().unwrap_or(&snapshot);
        let s = index.stats();
        let d = PyDict::new(py);
        d.set_item("path", &dir)?;
        d.set_item("format_version", meta.format_version)?;
        d.set_item("written_by", format!("rserini {}", meta.rserini_version))?;
        d.set_item("generation", meta.generation)?;
        d.set_item("analyzer", config_dict(py, index.analyzer().config())?)?;
        d.set_item("documents", s.num_docs)?;
        d.set_item("deleted", s.num_deleted)?;
        d.set_item("terms", s.num_terms)?;
        d.set_item("postings", s.num_postings)?;
        d.set_item("avgdl", s.avgdl())?;
        let bytes: u64 = std::iter::once(&meta)
            .chain(meta.fields.iter().map(|f| &f.index))
            .flat_map(|m| &m.segments)
            .flat_map(|g| &g.files)
            .map(|f| f.bytes)
            .sum();
        d.set_item("bytes", bytes)?;
        if index.is_multifield() {
            d.set_item("fields", index.field_names())?;
        }
        d.set_item("postings_bytes", s.postings_bytes)?;
        d.set_item("store_bytes", s.store_bytes)?;
        let segments = PyList::empty(py);
        for g in &meta.segments {
            let seg = PyDict::new(py);
            seg.set_item("name", &g.name)?;
            seg.set_item("documents", g.num_docs)?;
            seg.set_item("deleted", g.num_deleted)?;
            segments.append(seg)?;
        }
        d.set_item("segments", segments)?;
        Ok(d)
    }

    /// The live postings of ``term``, taken as it is (not analyzed): internal
    /// ids, ascending, and term frequencies, two int32 arrays, empty when no
    /// live document holds the term. With ``deleted``, the postings of deleted
    /// documents too, as a Lucene index keeps them until its segments merge.
    #[pyo3(signature = (term, *, deleted = false))]
    fn postings<'py>(
        &self,
        py: Python<'py>,
        term: &str,
        deleted: bool,
    ) -> (Bound<'py, PyArray1<i32>>, Bound<'py, PyArray1<i32>>) {
        let index = self.snapshot();
        let (mut ids, mut tfs) = (Vec::new(), Vec::new());
        for (s, segment) in index.segments().iter().enumerate() {
            if let Some(ord) = segment.data().term_ord(term) {
                segment.data().for_each_posting(ord, |doc, tf| {
                    if deleted || !segment.is_deleted(doc) {
                        ids.push(index.global(s, doc) as i32);
                        tfs.push(tf as i32);
                    }
                });
            }
        }
        (ids.into_pyarray(py), tfs.into_pyarray(py))
    }

    /// ``(term, query frequency, known to the index)`` for each distinct query term.
    fn query_terms(&self, query: &str) -> PyResult<Vec<(String, u32, bool)>> {
        Ok(search::query_terms(&self.snapshot(), query)
            .map_err(CoreError)?
            .into_iter()
            .map(|t| (t.term, t.query_tf, t.df > 0))
            .collect())
    }

    /// ``(term, query frequency, document frequency)`` for each distinct analyzed
    /// term of ``query``, in first-occurrence order; df counts live documents. With
    /// ``stats()``'s ``num_docs`` and ``avgdl``, enough to score any text span with the
    /// index's BM25 statistics.
    fn term_stats(&self, query: &str) -> PyResult<Vec<(String, u32, u64)>> {
        Ok(search::query_terms(&self.snapshot(), query)
            .map_err(CoreError)?
            .into_iter()
            .map(|t| (t.term, t.query_tf, t.df))
            .collect())
    }

    /// The index's collection statistics as a :class:`GlobalStats` without dfs:
    /// live documents, those with at least one term, and their total length.
    fn collection_stats(&self) -> PyGlobalStats {
        GlobalStats::of_index(&self.snapshot()).into()
    }

    /// The live document frequency of each of ``terms``, analyzed terms taken as
    /// they are (not analyzed again); 0 for a term the index does not hold.
    ///
    /// Raises
    /// ------
    /// TypeError
    ///     For a single str or an item that is not a str.
    fn term_dfs(&self, py: Python<'_>, terms: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let terms = str_list(terms, "terms")?;
        let index = self.snapshot();
        Ok(py.detach(|| terms.iter().map(|t| index.df(t)).collect()))
    }

    /// The live collection frequency (occurrences in live documents) of each of
    /// ``terms``, analyzed terms taken as they are; 0 for a term the index does not
    /// hold. Each costs a pass over the term's postings.
    ///
    /// Raises
    /// ------
    /// TypeError
    ///     For a single str or an item that is not a str.
    fn term_cfs(&self, py: Python<'_>, terms: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let terms = str_list(terms, "terms")?;
        let index = self.snapshot();
        Ok(py.detach(|| terms.iter().map(|t| index.cf(t)).collect()))
    }

    /// :meth:`collection_stats` with the dfs of every analyzed term of
    /// ``queries``: what this index, as one shard of a collection, contributes to
    /// the :class:`GlobalStats` its shards search with (``GlobalStats.sum`` of
    /// every shard's). With ``cfs``, their collection frequencies too, which
    /// ``model="qld"`` needs (a pass over each term's postings).
    ///
    /// Raises
    /// ------
    /// TypeError
    ///     For a single str or an item that is not a str.
    #[pyo3(signature = (queries, *, cfs = false))]
    fn global_stats(
        &self,
        py: Python<'_>,
        queries: &Bound<'_, PyAny>,
        cfs: bool,
    ) -> PyResult<PyGlobalStats> {
        let queries = str_list(queries, "queries")?;
        let index = self.snapshot();
        Ok(py
            .detach(|| GlobalStats::of_queries(&index, &queries, cfs))
            .into())
    }
}

/// A list of str argument (`name`), refusing a single str.
fn str_list(items: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<String>> {
    if items.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a list of str, not a single str"
        )));
    }
    items
        .try_iter()?
        .map(|item| {
            let item = item?;
            item.extract::<String>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{name} must hold str, got {}",
                    item.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })
        })
        .collect()
}
