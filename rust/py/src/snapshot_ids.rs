//! Internal ids bound to the snapshot that produced them.
//!
//! Internal ids are positions in one snapshot of an index: after a commit
//! the same number can name another document. `batch_search` therefore
//! returns its ids as a numpy array whose memory belongs to a [`SnapshotIds`]
//! object that also holds the snapshot; `docids()` reads ids through that
//! snapshot, whatever was committed since. The array is a
//! `rserini.snapshot_ids.SnapshotIdArray` (an `ndarray` subclass) whose
//! `_snapshot` is that owner: views, slices and copies made by numpy
//! (`.copy()`, `.astype()`) carry it, and so does its `.tolist()`. One that
//! lost it (unpickled) is refused; plain numbers are read in the current
//! snapshot.

use std::sync::Arc;

use numpy::PyArray2;
use numpy::ndarray::Array2;
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;
use rserini_core::index::Index;

/// The owner of a `batch_search` ids array: the ids and their snapshot.
#[pyclass(module = "rserini._core", frozen)]
pub struct SnapshotIds {
    ids: Array2<i32>,
    snapshot: Arc<Index>,
}

/// `rserini.snapshot_ids.SnapshotIdArray`, imported once.
fn array_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    CLASS.import(py, "rserini.snapshot_ids", "SnapshotIdArray")
}

/// `ids` as a numpy array bound to `snapshot`.
pub fn bound_array<'py>(
    py: Python<'py>,
    ids: Array2<i32>,
    snapshot: Arc<Index>,
) -> PyResult<Bound<'py, PyArray2<i32>>> {
    let owner = Bound::new(py, SnapshotIds { ids, snapshot })?;
    let ids = &owner.get().ids;
    // SAFETY: the array views memory of `owner`, which it keeps alive as
    // its base; the pyclass is frozen, so `ids` never moves or reallocates,
    // and Rust never reads it again.
    #[allow(unsafe_code)]
    let array = unsafe { PyArray2::borrow_from_array(ids, owner.clone().into_any()) };
    let bound = array.call_method1(intern!(py, "view"), (array_class(py)?,))?;
    bound.setattr(intern!(py, "_snapshot"), owner)?;
    Ok(bound.cast_into::<PyArray2<i32>>()?)
}

/// The snapshot `ids` (a `batch_search` array, a view or copy of one, or
/// its `tolist()`) is bound to, if any. Ids that lost their binding (an
/// unpickled copy) are a `ValueError`.
pub fn snapshot_of(ids: &Bound<'_, PyAny>) -> PyResult<Option<Arc<Index>>> {
    let py = ids.py();
    let mut obj = ids.clone();
    loop {
        if let Ok(owner) = obj.getattr(intern!(py, "_snapshot")) {
            return match owner.cast::<SnapshotIds>() {
                Ok(owner) => Ok(Some(owner.get().snapshot.clone())),
                Err(_) => Err(PyValueError::new_err(
                    "these ids lost the snapshot they came from (unpickled?), and after a \
                     commit their numbers may name other documents: map them with \
                     docids() before pickling, or search again",
                )),
            };
        }
        if obj.cast::<numpy::PyUntypedArray>().is_err() {
            // The first non-array of a view's base chain is the owner.
            return Ok(obj
                .cast::<SnapshotIds>()
                .ok()
                .map(|owner| owner.get().snapshot.clone()));
        }
        let base = obj.getattr(intern!(py, "base"))?;
        if base.is_none() {
            return Ok(None);
        }
        obj = base;
    }
}
