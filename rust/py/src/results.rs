//! Result classes: `Hit`, `Explanation`, `TermExplanation`.

use std::sync::{Arc, Mutex, Weak};

use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyList, PyString, PyTuple};
use rserini_core::index::Index;
use rserini_core::search::{Explanation, ScoredDoc};

/// One search result; unpacks as ``docid, score, rank``.
// The docid is kept as the Python string it is read as, made once: deep
// rankings build a thousand hits per query.
#[pyclass(name = "Hit", module = "rserini._core", frozen, freelist = 4096)]
pub struct PyHit {
    /// The document's id.
    #[pyo3(get)]
    pub docid: Py<PyString>,
    /// The score, a float32 value.
    #[pyo3(get)]
    pub score: f64,
    /// 1-based rank.
    #[pyo3(get)]
    pub rank: usize,
}

#[pymethods]
impl PyHit {
    #[new]
    fn new(docid: Bound<'_, PyString>, score: f64, rank: usize) -> Self {
        PyHit {
            docid: docid.unbind(),
            score,
            rank,
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Hit(docid={:?}, score={:.6}, rank={})",
            self.docid.bind(py).to_str()?,
            self.score,
            self.rank
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(other) = other.cast::<PyHit>() else {
            return Ok(false);
        };
        let other = other.get();
        Ok(self.score == other.score
            && self.rank == other.rank
            && self.docid.bind(py).as_any().eq(other.docid.bind(py))?)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let t = PyTuple::new(
            py,
            [
                self.docid.clone_ref(py).into_bound(py).into_any(),
                self.score.into_pyobject(py)?.into_any(),
                self.rank.into_pyobject(py)?.into_any(),
            ],
        )?;
        t.try_iter().map(|i| i.into_any())
    }
}

/// One query term's share of a score.
#[pyclass(name = "TermExplanation", module = "rserini._core", frozen, get_all)]
pub struct PyTermExplanation {
    term: String,
    query_tf: u32,
    df: u64,
    tf: u32,
    idf: f64,
    score: f64,
}

/// A score broken down by query term; ``str()`` prints it with the formula.
#[pyclass(name = "Explanation", module = "rserini._core", frozen, get_all)]
pub struct PyExplanation {
    docid: String,
    score: f64,
    formula: String,
    length: u32,
    seen_length: f64,
    terms: Vec<Py<PyTermExplanation>>,
}

#[pymethods]
impl PyExplanation {
    fn __str__(&self) -> String {
        let mut out = format!(
            "{:.6} = score of {:?} (length {}, seen as {})\n  {}\n",
            self.score, self.docid, self.length, self.seen_length, self.formula
        );
        for t in &self.terms {
            let t = t.get();
            out.push_str(&format!(
                "  {:>12.6}  {:<20} qtf={} tf={} df={} idf={:.6}\n",
                t.score, t.term, t.query_tf, t.tf, t.df, t.idf
            ));
        }
        out
    }

    fn __repr__(&self) -> String {
        format!(
            "Explanation(docid={:?}, score={:.6}, terms={})",
            self.docid,
            self.score,
            self.terms.len()
        )
    }
}

/// Docids as Python strings, made once per document of one index snapshot:
/// a deep ranking hands out a thousand docids per query, mostly the same
/// ones from one query to the next.
#[derive(Default)]
pub struct DocidStrings {
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    /// The snapshot the strings belong to. A weak pointer keeps its
    /// allocation, so no later snapshot can take the same address.
    snapshot: Weak<Index>,
    /// By internal id; `None` until first asked for.
    strings: Vec<Option<Py<PyString>>>,
}

impl DocidStrings {
    /// The docid strings of the internal ids `ids` of `index`, in order
    /// (`None` for an id the index does not hold).
    ///
    /// Every string is looked up and prefetched before any is referenced:
    /// taking a reference writes to the string object, and a deep ranking's
    /// thousand strings lie scattered over memory, so one at a time each
    /// would be a cache miss waited for in turn, rather than all at once.
    pub fn get<'py>(
        &self,
        py: Python<'py>,
        index: &Arc<Index>,
        ids: &[u32],
    ) -> Vec<Option<Bound<'py, PyString>>> {
        // Taken with the GIL held and never across a call that releases it.
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if !std::ptr::eq(cache.snapshot.as_ptr(), Arc::as_ptr(index)) {
            *cache = Cache {
                snapshot: Arc::downgrade(index),
                strings: Vec::new(),
            };
        }
        let strings = &mut cache.strings;
        for &doc in ids {
            let i = doc as usize;
            if let Some(Some(s)) = strings.get(i) {
                prefetch(s.as_ptr());
            } else if let Some(name) = index.docid(doc) {
                if i >= strings.len() {
                    strings.resize_with(i + 1, || None);
                }
                strings[i] = Some(PyString::new(py, name).unbind());
            }
        }
        ids.iter()
            .map(|&doc| Some(strings.get(doc as usize)?.as_ref()?.bind(py).clone()))
            .collect()
    }
}

/// Asks the CPU to fetch the cache line at `ptr` (a hint: never faults).
#[inline]
fn prefetch<T>(ptr: *const T) {
    // SAFETY: SSE, the one feature the instruction needs, is part of every
    // x86-64 CPU; a prefetch reads nothing into the program.
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}

/// Hits with docids and 1-based ranks, as a Python list.
pub fn hits<'py>(
    py: Python<'py>,
    index: &Arc<Index>,
    docids: &DocidStrings,
    docs: &[ScoredDoc],
) -> PyResult<Bound<'py, PyList>> {
    ranked_list(py, index, docids, docs, |docid, rank, d| {
        Bound::new(
            py,
            PyHit {
                docid: docid.unbind(),
                score: f64::from(d.score),
                rank,
            },
        )
    })
}

/// `(docid, score)` tuples, best first, as a Python list.
pub fn pairs<'py>(
    py: Python<'py>,
    index: &Arc<Index>,
    docids: &DocidStrings,
    docs: &[ScoredDoc],
) -> PyResult<Bound<'py, PyList>> {
    ranked_list(py, index, docids, docs, |docid, _, d| {
        PyTuple::new(
            py,
            [
                docid.into_any(),
                PyFloat::new(py, f64::from(d.score)).into_any(),
            ],
        )
    })
}

/// A list of what `make(docid, rank, hit)` makes of each hit, best first.
/// The items hold only strings and numbers, so they can never be part of a
/// reference cycle: they are taken out of the cycle collector at once (as
/// it would do itself for tuples, on its first pass over them), or a
/// thousand of them per kept ranking would make every collection walk them.
fn ranked_list<'py, T>(
    py: Python<'py>,
    index: &Arc<Index>,
    docids: &DocidStrings,
    docs: &[ScoredDoc],
    mut make: impl FnMut(Bound<'py, PyString>, usize, &ScoredDoc) -> PyResult<Bound<'py, T>>,
) -> PyResult<Bound<'py, PyList>> {
    let ids: Vec<u32> = docs.iter().map(|d| d.doc).collect();
    let names = docids.get(py, index, &ids);
    let mut items = Vec::with_capacity(docs.len());
    for (i, (name, d)) in names.into_iter().zip(docs).enumerate() {
        // Only a damaged file could give an id the index does not hold.
        let name = name.unwrap_or_else(|| PyString::new(py, ""));
        let item = make(name, i + 1, d)?;
        // SAFETY: `item` is alive and of a GC type (a tuple or a
        // pyclass); untracking an object twice (here and at its
        // deallocation) is allowed.
        #[allow(unsafe_code)]
        unsafe {
            pyo3::ffi::PyObject_GC_UnTrack(item.as_ptr().cast())
        };
        items.push(item.into_any());
    }
    // Made at its full length, the list takes each item over as it is.
    PyList::new(py, items)
}

/// The Python form of an explanation.
pub fn explanation(py: Python<'_>, e: Explanation) -> PyResult<PyExplanation> {
    let terms = e
        .terms
        .into_iter()
        .map(|t| {
            Py::new(
                py,
                PyTermExplanation {
                    term: t.term,
                    query_tf: t.query_tf,
                    df: t.df,
                    tf: t.tf,
                    idf: t.idf,
                    score: f64::from(t.score),
                },
            )
        })
        .collect::<PyResult<_>>()?;
    Ok(PyExplanation {
        docid: e.docid,
        score: f64::from(e.score),
        formula: e.formula,
        length: e.length,
        seen_length: f64::from(e.seen_length),
        terms,
    })
}
