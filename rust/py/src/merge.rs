//! `rserini.merge_topk`: the top k of a collection from the top k of its
//! shards, under the index's tie rule (the core's `merge`).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use rserini_core::shards::merge;

use crate::args::Hits;
use crate::columns::{Columns, Packed};
use crate::errors::CoreError;

/// The ``k`` best hits of the rankings of disjoint parts of a collection
/// (shards): score descending, then docid ascending (byte-wise), as one index
/// ranks them. Exact when every part ranked with the same statistics (a
/// :class:`GlobalStats` summed over the parts, given as ``stats=``).
///
/// ``parts`` holds one ranking per part, each a list of ``(docid, score)``
/// tuples in rank order (as ``search_pairs`` returns it), and the result is one
/// such list (of the same tuples); or one :class:`Columns` per part (as
/// ``batch_search_columns`` returns it, all with the same number of rows), and
/// the result is one ``Columns``, merged row by row. No part gives ``[]``.
///
/// Raises
/// ------
/// ValueError
///     For a part not in rank order, ``Columns`` with different numbers of rows,
///     or inconsistent ``Columns`` arrays.
/// QueryError
///     For ``k`` outside [1, 2**63 - 1].
/// TypeError
///     For a ``k`` that is not an int, or parts that are neither lists of
///     ``(str, float)`` tuples nor ``Columns``.
#[pyfunction]
pub fn merge_topk<'py>(
    py: Python<'py>,
    parts: &Bound<'py, PyAny>,
    k: Hits,
) -> PyResult<Bound<'py, PyAny>> {
    let parts: Vec<Bound<'py, PyAny>> = parts.try_iter()?.collect::<PyResult<_>>()?;
    let columnar = parts
        .iter()
        .filter(|p| p.hasattr("row_offsets").unwrap_or(false))
        .count();
    if columnar == 0 {
        merge_pairs(py, &parts, k.0)
    } else if columnar == parts.len() {
        merge_columns(py, &parts, k.0)
    } else {
        Err(PyTypeError::new_err(
            "merge_topk takes parts of one kind: lists of (docid, score) tuples, or Columns",
        ))
    }
}

/// Merges rankings of `(docid, score)` tuples; the result holds the input tuples.
fn merge_pairs<'py>(
    py: Python<'py>,
    parts: &[Bound<'py, PyAny>],
    k: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let not_pair =
        || PyTypeError::new_err("a ranking must be a list of (docid: str, score: float) tuples");
    let mut items: Vec<Vec<Bound<'py, PyAny>>> = Vec::with_capacity(parts.len());
    let mut docids: Vec<Vec<Bound<'py, PyString>>> = Vec::with_capacity(parts.len());
    let mut scores: Vec<Vec<f32>> = Vec::with_capacity(parts.len());
    for part in parts {
        let (mut its, mut ds, mut ss) = (Vec::new(), Vec::new(), Vec::new());
        for item in part.try_iter().map_err(|_| not_pair())? {
            let item = item?;
            let pair = item.cast::<PyTuple>().map_err(|_| not_pair())?;
            if pair.len() != 2 {
                return Err(not_pair());
            }
            ds.push(
                pair.get_item(0)?
                    .cast_into::<PyString>()
                    .map_err(|_| not_pair())?,
            );
            ss.push(pair.get_item(1)?.extract::<f64>().map_err(|_| not_pair())? as f32);
            its.push(item);
        }
        items.push(its);
        docids.push(ds);
        scores.push(ss);
    }
    let texts: Vec<Vec<&str>> = docids
        .iter()
        .map(|ds| ds.iter().map(|d| d.to_str()).collect::<PyResult<_>>())
        .collect::<PyResult<_>>()?;
    let hits: Vec<Vec<merge::Hit<'_>>> = texts
        .iter()
        .zip(&scores)
        .map(|(ts, ss)| {
            ts.iter()
                .map(|t| t.as_bytes())
                .zip(ss.iter().copied())
                .collect()
        })
        .collect();
    let order = merge::merge_topk(&hits, k).map_err(CoreError)?;
    let merged = PyList::new(py, order.into_iter().map(|(p, i)| items[p][i].clone()))?;
    Ok(merged.into_any())
}

/// Merges `Columns` row by row into new `Columns`.
fn merge_columns<'py>(
    py: Python<'py>,
    parts: &[Bound<'py, PyAny>],
    k: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let columns: Vec<Columns<'py>> = parts
        .iter()
        .map(Columns::extract)
        .collect::<PyResult<_>>()?;
    let rows = columns[0].rows();
    if let Some(other) = columns.iter().find(|c| c.rows() != rows) {
        return Err(PyValueError::new_err(format!(
            "every Columns merged must hold the same number of rows (rankings): got {rows} and {}",
            other.rows()
        )));
    }
    let mut packed = Packed::new();
    for row in 0..rows {
        let hits: Vec<Vec<merge::Hit<'_>>> = columns
            .iter()
            .map(|c| c.row(row))
            .collect::<PyResult<_>>()?;
        for (p, i) in merge::merge_topk(&hits, k).map_err(CoreError)? {
            let (docid, score) = hits[p][i];
            packed.push(docid, score);
        }
        packed.end_row();
    }
    packed.into_py(py)
}
