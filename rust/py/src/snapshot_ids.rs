//! Internal ids bound to the snapshot that produced them.
//!
//! Internal ids are positions in one snapshot of an index: after a commit
//! the same number can name another document. `batch_search` therefore
//! returns its ids as a numpy array whose memory belongs to a [`SnapshotIds`]
//! object that also holds the snapshot; `docids()` reads ids through that
//! snapshot, whatever was committed since. Views and slices of the array keep
//! the binding (numpy's `base` chain leads back to the owner); a copy loses it.

use std::sync::Arc;

use numpy::PyArray2;
use numpy::ndarray::Array2;
use pyo3::prelude::*;
use rserini_core::index::Index;

/// The owner of a `batch_search` ids array: the ids and their snapshot.
#[pyclass(module = "rserini._core", frozen)]
pub struct SnapshotIds {
    ids: Array2<i32>,
    snapshot: Arc<Index>,
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
    Ok(array)
}

/// The snapshot `ids` (a `batch_search` array or a view of one) is bound
/// to, if any.
pub fn snapshot_of(ids: &Bound<'_, PyAny>) -> PyResult<Option<Arc<Index>>> {
    let mut obj = ids.clone();
    // A view's base is the array it views; the first non-array is the owner.
    while obj.cast::<numpy::PyUntypedArray>().is_ok() {
        let base = obj.getattr("base")?;
        if base.is_none() {
            return Ok(None);
        }
        obj = base;
    }
    Ok(obj
        .cast::<SnapshotIds>()
        .ok()
        .map(|owner| owner.get().snapshot.clone()))
}
