//! `rserini.IndexStats`: an index's counts, sizes and mean lengths as one
//! frozen, typed value (`Index.stats()`), read as a mapping too, with the
//! keys the plain dict it replaces had.

use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rserini_core::analysis::AnalyzerConfig;
use rserini_core::index::IndexStats;
use rserini_core::scoring::LengthMode;

use crate::analyzer::config_dict;

/// The keys, in the order ``keys()``, ``items()`` and ``to_dict()`` give them.
const KEYS: [&str; 13] = [
    "num_docs",
    "num_nonempty_docs",
    "num_terms",
    "num_postings",
    "total_terms",
    "avgdl",
    "avgdl_lucene",
    "avgdl_exact",
    "postings_bytes",
    "store_bytes",
    "num_segments",
    "num_deleted",
    "analyzer",
];

/// An index's statistics (:meth:`Index.stats`): counts of live documents, terms
/// and postings, sizes, the mean lengths and the analyzer. Frozen and typed; also a
/// read-only mapping with the same keys (``stats["num_docs"]``, ``keys()``,
/// ``items()``, ``get()``, ``dict(stats)``), and :meth:`to_dict` gives a plain dict.
/// Equal to another :class:`IndexStats` or a mapping with the same items.
#[pyclass(name = "IndexStats", module = "rserini._core", frozen)]
pub struct PyIndexStats {
    stats: IndexStats,
    analyzer: AnalyzerConfig,
}

impl PyIndexStats {
    /// The statistics of an index analyzed by `analyzer`.
    pub fn new(stats: IndexStats, analyzer: AnalyzerConfig) -> Self {
        PyIndexStats { stats, analyzer }
    }

    fn item<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        let s = &self.stats;
        let int = |n: u64| -> PyResult<_> { Ok(Some(n.into_pyobject(py)?.into_any())) };
        let float = |x: f64| -> PyResult<_> { Ok(Some(x.into_pyobject(py)?.into_any())) };
        match key {
            "num_docs" => int(s.num_docs),
            "num_nonempty_docs" => int(s.num_nonempty_docs),
            "num_terms" => int(s.num_terms),
            "num_postings" => int(s.num_postings),
            "total_terms" => int(s.total_terms),
            "avgdl" => float(s.avgdl()),
            "avgdl_lucene" => float(s.collection(LengthMode::Lucene).avgdl()),
            "avgdl_exact" => float(s.collection(LengthMode::Exact).avgdl()),
            "postings_bytes" => int(s.postings_bytes),
            "store_bytes" => int(s.store_bytes),
            "num_segments" => int(s.num_segments),
            "num_deleted" => int(s.num_deleted),
            "analyzer" => Ok(Some(config_dict(py, &self.analyzer)?.into_any())),
            _ => Ok(None),
        }
    }

    /// The value of one of [`KEYS`].
    fn known<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.item(py, key)?.expect("a key of KEYS"))
    }
}

#[pymethods]
impl PyIndexStats {
    /// Live documents, empty ones included.
    #[getter]
    fn num_docs(&self) -> u64 {
        self.stats.num_docs
    }

    /// Live documents with at least one indexed term (Lucene's ``docCount``).
    #[getter]
    fn num_nonempty_docs(&self) -> u64 {
        self.stats.num_nonempty_docs
    }

    /// Distinct terms over all segments (a deleted document's terms may count until
    /// its segment merges).
    #[getter]
    fn num_terms(&self) -> u64 {
        self.stats.num_terms
    }

    /// ``(term, document)`` pairs stored, deleted documents included.
    #[getter]
    fn num_postings(&self) -> u64 {
        self.stats.num_postings
    }

    /// The sum of the live documents' lengths.
    #[getter]
    fn total_terms(&self) -> u64 {
        self.stats.total_terms
    }

    /// The mean length over every live document (``total_terms / num_docs``), 0 for
    /// an empty index.
    #[getter]
    fn avgdl(&self) -> f64 {
        self.stats.avgdl()
    }

    /// The mean length BM25 scores with under ``length="lucene"`` (the default):
    /// over the documents with at least one indexed term, as Lucene's ``docCount``;
    /// 1 for an index without terms.
    #[getter]
    fn avgdl_lucene(&self) -> f64 {
        self.stats.collection(LengthMode::Lucene).avgdl()
    }

    /// The mean length BM25 scores with under ``length="exact"``: over every live
    /// document, as :attr:`avgdl`, but 1 for an empty index.
    #[getter]
    fn avgdl_exact(&self) -> f64 {
        self.stats.collection(LengthMode::Exact).avgdl()
    }

    /// Bytes of compressed postings.
    #[getter]
    fn postings_bytes(&self) -> u64 {
        self.stats.postings_bytes
    }

    /// Bytes of the compressed document store (0 without one).
    #[getter]
    fn store_bytes(&self) -> u64 {
        self.stats.store_bytes
    }

    /// Segments.
    #[getter]
    fn num_segments(&self) -> u64 {
        self.stats.num_segments
    }

    /// Deleted documents not yet merged away.
    #[getter]
    fn num_deleted(&self) -> u64 {
        self.stats.num_deleted
    }

    /// The analyzer's configuration (:attr:`Analyzer.config`).
    #[getter]
    fn analyzer<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        config_dict(py, &self.analyzer)
    }

    /// The statistics as a plain dict, keys in :meth:`keys` order.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for key in KEYS {
            d.set_item(key, self.known(py, key)?)?;
        }
        Ok(d)
    }

    /// The keys: the names of the properties.
    fn keys(&self) -> Vec<&'static str> {
        KEYS.to_vec()
    }

    /// The values, in :meth:`keys` order.
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        KEYS.iter().map(|k| self.known(py, k)).collect()
    }

    /// ``(key, value)`` pairs, in :meth:`keys` order.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Vec<(&'static str, Bound<'py, PyAny>)>> {
        KEYS.iter().map(|&k| Ok((k, self.known(py, k)?))).collect()
    }

    /// The value of ``key``, or ``default`` when there is no such key.
    #[pyo3(signature = (key, default = None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Ok(key) = key.extract::<&str>() else {
            return Ok(default);
        };
        Ok(self.item(py, key)?.or(default))
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let found = match key.extract::<&str>() {
            Ok(name) => self.item(py, name)?,
            Err(_) => None,
        };
        found.ok_or_else(|| PyKeyError::new_err(key.clone().unbind()))
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> bool {
        key.extract::<&str>().is_ok_and(|k| KEYS.contains(&k))
    }

    fn __len__(&self) -> usize {
        KEYS.len()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        PyList::new(py, KEYS)?
            .into_any()
            .try_iter()
            .map(Bound::into_any)
    }

    fn __eq__<'py>(&self, py: Python<'py>, other: &Bound<'py, PyAny>) -> PyResult<Py<PyAny>> {
        let mine = self.to_dict(py)?;
        if let Ok(other) = other.cast::<PyIndexStats>() {
            return Ok(mine
                .eq(other.get().to_dict(py)?)?
                .into_pyobject(py)?
                .to_owned()
                .into_any()
                .unbind());
        }
        let mapping = py.import("collections.abc")?.getattr("Mapping")?;
        if other.is_instance(&mapping)? {
            let theirs = PyDict::new(py);
            theirs.call_method1("update", (other,))?;
            return Ok(mine
                .eq(theirs)?
                .into_pyobject(py)?
                .to_owned()
                .into_any()
                .unbind());
        }
        Ok(py.NotImplemented())
    }

    fn __repr__(&self) -> String {
        let s = &self.stats;
        format!(
            "IndexStats(num_docs={}, num_terms={}, num_postings={}, total_terms={}, avgdl={}, num_segments={}, num_deleted={}, analyzer={:?})",
            s.num_docs,
            s.num_terms,
            s.num_postings,
            s.total_terms,
            s.avgdl(),
            s.num_segments,
            s.num_deleted,
            self.analyzer.preset_name().unwrap_or("custom"),
        )
    }
}
