//! `rserini.query_limits` / `rserini.set_query_limits`: the bound on a
//! query's size that every search, explanation and feedback query obeys.

use pyo3::prelude::*;
use rserini_core::search::limits;

use crate::errors::CoreError;

/// ``(max_bytes, max_terms)``: the longest query in UTF-8 bytes and the most distinct
/// analyzed terms a query may have (by default 1 MiB and 65,536). A longer query or one
/// with more terms raises :class:`QueryError` rather than being cut. Both bound the work
/// of one query, which is linear in its size.
#[pyfunction]
pub fn query_limits() -> (usize, usize) {
    limits::query_limits()
}

/// Sets the query limits given, for the whole process; returns the previous
/// ``(max_bytes, max_terms)``. Raises :class:`QueryError` for a limit below 1.
#[pyfunction]
#[pyo3(signature = (*, max_bytes = None, max_terms = None))]
pub fn set_query_limits(
    max_bytes: Option<usize>,
    max_terms: Option<usize>,
) -> PyResult<(usize, usize)> {
    Ok(limits::set_query_limits(max_bytes, max_terms).map_err(CoreError)?)
}
