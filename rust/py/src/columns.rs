//! Rankings as `rserini.Columns`: four flat numpy arrays (row offsets,
//! float32 scores, docid offsets, UTF-8 docid bytes), the compact form in
//! which many rankings travel between processes. Packed and read here
//! without a Python object per hit.

use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use rserini_core::index::Index;
use rserini_core::search::ScoredDoc;

/// Rankings packed as the arrays of a `Columns`, built without the GIL.
#[derive(Default)]
pub struct Packed {
    row_offsets: Vec<i64>,
    scores: Vec<f32>,
    docid_offsets: Vec<i64>,
    docid_bytes: Vec<u8>,
}

impl Packed {
    /// No rows yet.
    pub fn new() -> Self {
        Packed {
            row_offsets: vec![0],
            docid_offsets: vec![0],
            ..Packed::default()
        }
    }

    /// Appends one hit to the current row.
    pub fn push(&mut self, docid: &[u8], score: f32) {
        self.scores.push(score);
        self.docid_bytes.extend_from_slice(docid);
        self.docid_offsets.push(self.docid_bytes.len() as i64);
    }

    /// Ends the current row.
    pub fn end_row(&mut self) {
        self.row_offsets.push(self.scores.len() as i64);
    }

    /// The rankings of `index`, one row each.
    pub fn of_rankings(index: &Index, rankings: &[Vec<ScoredDoc>]) -> Self {
        let mut packed = Packed::new();
        let hits: usize = rankings.iter().map(Vec::len).sum();
        packed.scores.reserve(hits);
        packed.docid_offsets.reserve(hits);
        for ranking in rankings {
            for d in ranking {
                // Every hit is a document of `index`.
                packed.push(index.docid(d.doc).unwrap_or("").as_bytes(), d.score);
            }
            packed.end_row();
        }
        packed
    }

    /// A `rserini.Columns` of these arrays.
    pub fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        let columns = py.import("rserini.columns")?.getattr("Columns")?;
        columns.call1((
            self.row_offsets.into_pyarray(py),
            self.scores.into_pyarray(py),
            self.docid_offsets.into_pyarray(py),
            self.docid_bytes.into_pyarray(py),
        ))
    }
}

/// The arrays of a `Columns` given by the caller, checked for consistency.
pub struct Columns<'py> {
    row_offsets: PyReadonlyArray1<'py, i64>,
    scores: PyReadonlyArray1<'py, f32>,
    docid_offsets: PyReadonlyArray1<'py, i64>,
    docid_bytes: PyReadonlyArray1<'py, u8>,
}

/// One of a `Columns`' arrays, of the dtype it must have.
fn array<'py, T: numpy::Element>(
    columns: &Bound<'py, PyAny>,
    name: &str,
    dtype: &str,
) -> PyResult<PyReadonlyArray1<'py, T>> {
    let value = columns.getattr(name)?;
    let array = value.cast::<PyArray1<T>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "Columns.{name} must be a 1-D numpy array of {dtype}"
        ))
    })?;
    Ok(array.readonly())
}

/// Whether `offsets` start at 0, never decrease and end at `end`.
fn offsets_valid(offsets: &[i64], end: usize) -> bool {
    offsets.first() == Some(&0)
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && offsets.last() == Some(&(end as i64))
}

impl<'py> Columns<'py> {
    /// Reads and checks a `Columns` (any object with its four arrays).
    pub fn extract(columns: &Bound<'py, PyAny>) -> PyResult<Self> {
        let c = Columns {
            row_offsets: array(columns, "row_offsets", "int64")?,
            scores: array(columns, "scores", "float32")?,
            docid_offsets: array(columns, "docid_offsets", "int64")?,
            docid_bytes: array(columns, "docid_bytes", "uint8")?,
        };
        let hits = c.scores.as_slice()?.len();
        if !offsets_valid(c.row_offsets.as_slice()?, hits)
            || c.docid_offsets.as_slice()?.len() != hits + 1
            || !offsets_valid(c.docid_offsets.as_slice()?, c.docid_bytes.as_slice()?.len())
        {
            return Err(PyValueError::new_err(
                "inconsistent Columns: row_offsets must run from 0 to len(scores), and docid_offsets (len(scores) + 1 of them) from 0 to len(docid_bytes), never decreasing",
            ));
        }
        Ok(c)
    }

    /// The number of rankings.
    pub fn rows(&self) -> usize {
        self.row_offsets.len().saturating_sub(1)
    }

    /// Row `row`'s hits as `(docid bytes, score)`.
    pub fn row(&self, row: usize) -> PyResult<Vec<(&[u8], f32)>> {
        let rows = self.row_offsets.as_slice()?;
        let (scores, offsets) = (self.scores.as_slice()?, self.docid_offsets.as_slice()?);
        let bytes = self.docid_bytes.as_slice()?;
        Ok((rows[row] as usize..rows[row + 1] as usize)
            .map(|i| {
                (
                    &bytes[offsets[i] as usize..offsets[i + 1] as usize],
                    scores[i],
                )
            })
            .collect())
    }
}
