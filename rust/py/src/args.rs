//! Counting arguments (`threads=`, `k=`), checked once at the boundary.
//!
//! Any Python int is taken in, however large, so an absurd value gets the
//! argument's own `QueryError` naming the accepted range rather than a bare
//! `OverflowError`; a non-int gets a `TypeError`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};
use rserini_core::{Error, search};

use crate::errors::CoreError;
use crate::threads;

/// An int argument: `Ok(n)`, or `Err(text)` for an int beyond `i128`.
fn int_arg(obj: Borrowed<'_, '_, PyAny>, name: &str) -> PyResult<Result<i128, String>> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        let kind = obj.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "{name} must be an int, got {kind}"
        )));
    }
    Ok(obj.extract::<i128>().map_err(|_| obj.to_string()))
}

/// `threads=`: `1..=threads::max_threads()` (`None`, all cores, is the
/// `Option` around it).
#[derive(Clone, Copy)]
pub struct Threads(pub usize);

impl<'a, 'py> FromPyObject<'a, 'py> for Threads {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let checked = match int_arg(obj, "threads")? {
            Ok(n) => threads::check_threads(n),
            Err(text) => Err(threads::threads_out_of_range(text)),
        };
        Ok(Threads(checked.map_err(CoreError)?))
    }
}

/// `k=`: a number of hits, `1..=i64::MAX`.
#[derive(Clone, Copy)]
pub struct Hits(pub usize);

impl<'a, 'py> FromPyObject<'a, 'py> for Hits {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let checked = match int_arg(obj, "k")?.map(i64::try_from) {
            Ok(Ok(k)) => search::check_k(k),
            Ok(Err(_)) | Err(_) => Err(Error::Query(format!(
                "k must be a number of hits between 1 and {}, got {}",
                i64::MAX,
                obj.str()?
            ))),
        };
        Ok(Hits(checked.map_err(CoreError)?))
    }
}
