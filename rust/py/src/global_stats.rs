//! `rserini.GlobalStats`: collection statistics as a frozen value of
//! integers, summable across the shards of a collection and given back to
//! every search as `stats=`.

use std::collections::BTreeMap;
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString, PyTuple, PyType};
use rserini_core::shards::global_stats::GlobalStats;

use crate::errors::CoreError;

/// Terms a `repr` lists before it only counts them.
const REPR_TERMS: usize = 20;

/// Collection statistics as integers: what a shard contributes to, and a
/// search takes as ``stats=`` to score as one index of the whole collection.
///
/// Counts are of live documents. Frozen, comparable, hashable and picklable;
/// ``a + b`` and :meth:`sum` add every count (dfs term by term), so the
/// statistics of a partition's parts sum to those of the whole.
///
/// Parameters
/// ----------
/// documents
///     Live documents, empty ones included (N of ``length="exact"``).
/// documents_with_terms
///     Live documents with at least one indexed term (Lucene's ``docCount``:
///     N of ``length="lucene"``), at most ``documents`` and ``total_terms``.
/// total_terms
///     The sum of the live documents' lengths (avgdl's numerator).
/// dfs
///     Analyzed term → live documents holding it, each at most
///     ``documents_with_terms``.
/// cfs
///     Analyzed term → its occurrences in live documents (collection
///     frequency), between its df and ``total_terms``: needed by ``model="qld"``
///     only (``Index.global_stats(queries, cfs=True)``).
///
/// Raises
/// ------
/// ValueError
///     For a negative count or one beyond 64 bits, or inconsistent counts.
/// TypeError
///     For a count that is not an int, or ``dfs`` not a dict of str to int.
#[pyclass(name = "GlobalStats", module = "rserini._core", frozen, eq, hash)]
#[derive(Clone, PartialEq, Hash)]
pub struct PyGlobalStats {
    pub(crate) inner: Arc<GlobalStats>,
}

impl From<GlobalStats> for PyGlobalStats {
    fn from(stats: GlobalStats) -> Self {
        PyGlobalStats {
            inner: Arc::new(stats),
        }
    }
}

/// A count argument: a non-negative int within 64 bits.
fn count(value: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an int, got {}",
            value.get_type().name()?
        )));
    }
    value.extract::<u64>().map_err(|_| {
        PyValueError::new_err(format!(
            "{name} must be a count between 0 and {}, got {value}",
            u64::MAX
        ))
    })
}

#[pymethods]
impl PyGlobalStats {
    #[new]
    #[pyo3(signature = (documents, documents_with_terms, total_terms, dfs = None, cfs = None))]
    fn new(
        documents: &Bound<'_, PyAny>,
        documents_with_terms: &Bound<'_, PyAny>,
        total_terms: &Bound<'_, PyAny>,
        dfs: Option<&Bound<'_, PyAny>>,
        cfs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let stats = GlobalStats::new(
            count(documents, "documents")?,
            count(documents_with_terms, "documents_with_terms")?,
            count(total_terms, "total_terms")?,
            counts_by_term(dfs, "dfs", "df")?,
            counts_by_term(cfs, "cfs", "cf")?,
        )
        .map_err(CoreError)?;
        Ok(stats.into())
    }

    /// Live documents, empty ones included.
    #[getter]
    fn documents(&self) -> u64 {
        self.inner.documents()
    }

    /// Live documents with at least one indexed term.
    #[getter]
    fn documents_with_terms(&self) -> u64 {
        self.inner.documents_with_terms()
    }

    /// The sum of the live documents' lengths.
    #[getter]
    fn total_terms(&self) -> u64 {
        self.inner.total_terms()
    }

    /// Analyzed term → live document frequency (a new dict, in term order).
    #[getter]
    fn dfs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        to_dict(py, self.inner.dfs())
    }

    /// Analyzed term → live collection frequency (a new dict, in term order).
    #[getter]
    fn cfs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        to_dict(py, self.inner.cfs())
    }

    // The statistics of both collections (disjoint parts of one). PyO3
    // answers `NotImplemented` for another type, so Python raises its
    // `TypeError`.
    fn __add__(&self, other: &Bound<'_, PyGlobalStats>) -> PyResult<Self> {
        Ok(self
            .inner
            .add(&other.get().inner)
            .map_err(CoreError)?
            .into())
    }

    /// The sum of ``parts`` (all counts zero for none), in 64-bit integers.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     If a sum exceeds 2**64 - 1.
    /// TypeError
    ///     For a part that is not a ``GlobalStats``.
    #[classmethod]
    fn sum(_cls: &Bound<'_, PyType>, parts: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut total = GlobalStats::default();
        for part in parts.try_iter()? {
            let part = part?;
            let part = part.cast::<PyGlobalStats>().map_err(|_| {
                PyTypeError::new_err("GlobalStats.sum takes an iterable of GlobalStats")
            })?;
            total = total.add(&part.get().inner).map_err(CoreError)?;
        }
        Ok(total.into())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let s = &self.inner;
        let shown = |counts: &BTreeMap<String, u64>| -> PyResult<String> {
            Ok(if counts.len() <= REPR_TERMS {
                to_dict(py, counts)?.repr()?.to_string()
            } else {
                format!("<{} terms>", counts.len())
            })
        };
        let cfs = match s.cfs().is_empty() {
            true => String::new(),
            false => format!(", cfs={}", shown(s.cfs())?),
        };
        Ok(format!(
            "GlobalStats(documents={}, documents_with_terms={}, total_terms={}, dfs={}{cfs})",
            s.documents(),
            s.documents_with_terms(),
            s.total_terms(),
            shown(s.dfs())?
        ))
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyType>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let s = &slf.get().inner;
        let args = (
            s.documents(),
            s.documents_with_terms(),
            s.total_terms(),
            to_dict(py, s.dfs())?,
            to_dict(py, s.cfs())?,
        );
        Ok((slf.get_type(), args.into_pyobject(py)?))
    }
}

/// A term → count map as a new dict.
fn to_dict<'py>(py: Python<'py>, counts: &BTreeMap<String, u64>) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (term, count) in counts {
        dict.set_item(term, count)?;
    }
    Ok(dict)
}

/// The `dfs=` or `cfs=` argument (`name`), a dict of term to `what` count.
fn counts_by_term(
    value: Option<&Bound<'_, PyAny>>,
    name: &str,
    what: &str,
) -> PyResult<BTreeMap<String, u64>> {
    let mut counts = BTreeMap::new();
    let Some(value) = value else {
        return Ok(counts);
    };
    let dict = value.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be a dict of analyzed term (str) to int"
        ))
    })?;
    for (term, n) in dict.iter() {
        let term = term
            .cast::<PyString>()
            .map_err(|_| PyTypeError::new_err(format!("{name} must map str terms to ints")))?
            .to_str()?
            .to_owned();
        let n = count(&n, &format!("the {what} of {term:?}"))?;
        counts.insert(term, n);
    }
    Ok(counts)
}
