//! `rserini.rrf`: reciprocal-rank fusion of Python lists.

use pyo3::prelude::*;
use rserini_core::fusion;

use crate::errors::CoreError;

/// A ranked item: a docid string or an integer id.
#[derive(Clone, PartialEq, Eq, Hash, FromPyObject, IntoPyObject)]
pub enum Item {
    Int(i64),
    Str(String),
}

/// Reciprocal-rank fusion: ``sum_i w_i / (k + rank_i + 1)``, 0-based ranks;
/// an item repeated within a ranking counts once, at its first (best) rank;
/// ties keep first appearance (ranking 0 first). Only the first ``depth``
/// entries of each ranking count when given.
#[pyfunction]
#[pyo3(signature = (rankings, k = 60.0, weights = None, depth = None))]
pub fn rrf(
    py: Python<'_>,
    rankings: Vec<Vec<Item>>,
    k: f64,
    weights: Option<Vec<f64>>,
    depth: Option<usize>,
) -> PyResult<Vec<(Item, f64)>> {
    py.detach(|| fusion::rrf(&rankings, k, weights.as_deref(), depth))
        .map_err(|e| CoreError(e).into())
}

/// Fusion over documents ``0..num_docs``, each ranking continuing with its
/// unlisted documents in ascending order; the ``top`` best. Memory grows with
/// the rankings and ``top``, not ``num_docs``; :class:`MemoryError` when the
/// result cannot be held.
#[pyfunction]
#[pyo3(signature = (num_docs, rankings, k = 60.0, weights = None, top = None))]
pub fn rrf_full_depth(
    py: Python<'_>,
    num_docs: u32,
    rankings: Vec<Vec<u32>>,
    k: f64,
    weights: Option<Vec<f64>>,
    top: Option<usize>,
) -> PyResult<Vec<(u32, f64)>> {
    py.detach(|| fusion::rrf_full_depth(num_docs, &rankings, k, weights.as_deref(), top))
        .map_err(|e| CoreError(e).into())
}
