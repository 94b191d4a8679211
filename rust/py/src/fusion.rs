//! `rserini.rrf`: reciprocal-rank fusion of Python lists.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyList, PyString, PyTuple};
use rserini_core::fusion;

use crate::errors::CoreError;
use crate::results::PyHit;

/// A ranked item: a docid string or an integer id.
#[derive(Clone, PartialEq, Eq, Hash, IntoPyObject)]
pub enum Item {
    Int(i64),
    Str(String),
}

/// The shapes a ranking's items may take, named in the `TypeError`.
const SHAPES: &str = "a docid (str), an int id, a Hit (as search returns), or a \
     (docid, score) pair (as search_pairs returns)";

/// One ranking item as fusion sees it: what `search`, `search_pairs` and
/// `docids` give is taken as it comes, a `Hit` or a pair by its docid.
fn item(obj: &Bound<'_, PyAny>) -> PyResult<Option<Item>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Some(Item::Str(s.to_str()?.to_owned())));
    }
    if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
        return Ok(Some(Item::Int(obj.extract()?)));
    }
    if let Ok(hit) = obj.cast::<PyHit>() {
        return Ok(Some(Item::Str(
            hit.get().docid.bind(obj.py()).to_str()?.to_owned(),
        )));
    }
    if obj.is_instance_of::<PyTuple>() || obj.is_instance_of::<PyList>() {
        let pair: Vec<Bound<'_, PyAny>> = obj.extract()?;
        if let [first, _] = pair.as_slice()
            && let Some(Item::Str(docid)) = item(first)?
        {
            return Ok(Some(Item::Str(docid)));
        }
    }
    Ok(None)
}

/// `rankings` as lists of items, or a `TypeError` naming the first item
/// of another shape and the shapes accepted.
fn rankings_of(rankings: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<Item>>> {
    let mut out = Vec::new();
    for (i, ranking) in rankings.try_iter()?.enumerate() {
        let ranking = ranking?;
        if ranking.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(format!(
                "rrf: ranking {i} is a str; give a list of rankings, each a list of {SHAPES}"
            )));
        }
        let mut items = Vec::new();
        for (rank, obj) in ranking.try_iter()?.enumerate() {
            let obj = obj?;
            match item(&obj)? {
                Some(it) => items.push(it),
                None => {
                    return Err(PyTypeError::new_err(format!(
                        "rrf: item {rank} of ranking {i} is a {}; each item must be {SHAPES}",
                        obj.get_type().name()?
                    )));
                }
            }
        }
        out.push(items);
    }
    Ok(out)
}

/// Reciprocal-rank fusion: ``sum_i w_i / (k + rank_i + 1)``, 0-based ranks;
/// an item repeated within a ranking counts once, at its first (best) rank;
/// ties keep first appearance (ranking 0 first). Only the first ``depth``
/// entries of each ranking count when given. A ranking may be what
/// ``search`` (hits), ``search_pairs`` (``(docid, score)`` pairs) or ``docids``
/// returns, or int ids; an item of another type raises ``TypeError`` naming
/// these shapes.
#[pyfunction]
#[pyo3(signature = (rankings, k = 60.0, weights = None, depth = None))]
pub fn rrf(
    py: Python<'_>,
    rankings: &Bound<'_, PyAny>,
    k: f64,
    weights: Option<Vec<f64>>,
    depth: Option<usize>,
) -> PyResult<Vec<(Item, f64)>> {
    let rankings = rankings_of(rankings)?;
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
