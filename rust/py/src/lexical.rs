//! The arms of `rserini.LexicalRetriever` (`_TfidfArm`, `_Bm25Arm`), its
//! fused search and its binary file. The Python classes in
//! `rserini.retrieval` hold these and keep the reference's attributes.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use rserini_core::compat::agentic_retrieval::store as lexical_store;
use rserini_core::compat::agentic_retrieval::{self as lexical, Bm25Arm, Mode, TfidfArm};

use crate::convert::query_text;
use crate::errors::{CoreError, CoreResult};

fn mode(name: &str) -> CoreResult<Mode> {
    Ok(Mode::parse(name)?)
}

/// `data[key]`, or `KeyError(key)` as a dict lookup raises.
fn item<'py>(data: &Bound<'py, PyAny>, key: &str) -> PyResult<Bound<'py, PyAny>> {
    data.get_item(key).map_err(|e| {
        if e.is_instance_of::<PyKeyError>(data.py()) {
            e
        } else {
            PyKeyError::new_err(key.to_owned())
        }
    })
}

/// `(key, value)` pairs of a mapping, in its order.
fn entries<'py>(
    mapping: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    let dict = mapping
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a dict")))?;
    dict.iter().map(|(k, v)| Ok((k.extract()?, v))).collect()
}

/// A `[doc, weight]` list or `(doc, weight)` tuple.
fn doc_weight(pair: &Bound<'_, PyAny>) -> PyResult<(u32, f64)> {
    if pair.len()? != 2 {
        return Err(PyTypeError::new_err(
            "a tfidf posting must be a [doc, weight] pair",
        ));
    }
    Ok((pair.get_item(0)?.extract()?, pair.get_item(1)?.extract()?))
}

/// What `__reduce__` returns: a constructor and its arguments.
type Reduced<'py> = (Bound<'py, PyAny>, Bound<'py, PyTuple>);

/// Pickles an arm as `type(arm)._from_bytes(bytes)`.
fn reduce<'py>(arm: &Bound<'py, PyAny>, bytes: &[u8]) -> PyResult<Reduced<'py>> {
    let py = arm.py();
    let args = PyTuple::new(py, [PyBytes::new(py, bytes)])?;
    Ok((arm.get_type().getattr("_from_bytes")?, args))
}

/// Statistics of a fitted TF-IDF index (``rserini.retrieval.tfidf.TfidfIndex``).
#[pyclass(name = "_TfidfArm", module = "rserini._core", frozen)]
pub struct PyTfidfArm {
    inner: Arc<TfidfArm>,
}

#[pymethods]
impl PyTfidfArm {
    /// An arm over no documents.
    #[new]
    #[pyo3(signature = (tokenizer = "plain"))]
    fn new(tokenizer: &str) -> CoreResult<Self> {
        Ok(PyTfidfArm {
            inner: Arc::new(TfidfArm::empty(mode(tokenizer)?)),
        })
    }

    /// The tokenizer mode.
    #[getter]
    fn tokenizer(&self) -> &'static str {
        self.inner.mode().name()
    }

    /// Number of documents.
    #[getter]
    fn n_docs(&self) -> usize {
        self.inner.n_docs()
    }

    /// ``(doc, score)`` for every document, best first, ties by number.
    fn query(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Vec<(u32, f64)>> {
        if self.inner.n_docs() == 0 {
            return Ok(Vec::new());
        }
        let text = query_text(text)?;
        let arm = self.inner.clone();
        Ok(py.detach(|| lexical::ranking(&arm.scores(&text))))
    }

    /// ``n_docs``, ``doc_vectors`` and ``postings`` as agentic-retrieval stores them.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        out.set_item("n_docs", self.inner.n_docs())?;
        let vectors = PyList::empty(py);
        for v in self.inner.doc_vectors() {
            let d = PyDict::new(py);
            for (t, w) in v {
                d.set_item(t, w)?;
            }
            vectors.append(d)?;
        }
        out.set_item("doc_vectors", vectors)?;
        let postings = PyDict::new(py);
        for (t, list) in self.inner.postings() {
            let pairs = PyList::empty(py);
            for &(doc, w) in list.iter() {
                pairs.append(PyList::new(
                    py,
                    [
                        doc.into_pyobject(py)?.into_any(),
                        w.into_pyobject(py)?.into_any(),
                    ],
                )?)?;
            }
            postings.set_item(t, pairs)?;
        }
        out.set_item("postings", postings)?;
        Ok(out)
    }

    /// An arm from `to_dict` output (`n_docs`, `doc_vectors`, `postings`).
    #[staticmethod]
    fn from_dict(data: &Bound<'_, PyAny>, tokenizer: &str) -> PyResult<Self> {
        let mode = mode(tokenizer)?;
        let n_docs: usize = item(data, "n_docs")?.extract()?;
        let mut vectors = Vec::new();
        for v in item(data, "doc_vectors")?.try_iter()? {
            let v = entries(&v?, "a doc vector")?;
            vectors.push(
                v.into_iter()
                    .map(|(t, w)| Ok((t, w.extract()?)))
                    .collect::<PyResult<_>>()?,
            );
        }
        let mut postings = Vec::new();
        for (term, list) in entries(&item(data, "postings")?, "tfidf postings")? {
            let list = list
                .try_iter()?
                .map(|p| doc_weight(&p?))
                .collect::<PyResult<_>>()?;
            postings.push((term, list));
        }
        let arm = TfidfArm::from_parts(mode, n_docs, vectors, postings).map_err(CoreError)?;
        Ok(PyTfidfArm {
            inner: Arc::new(arm),
        })
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        reduce(
            slf.as_any(),
            &lexical_store::tfidf_to_bytes(&slf.get().inner),
        )
    }

    #[staticmethod]
    fn _from_bytes(data: &[u8]) -> CoreResult<Self> {
        Ok(PyTfidfArm {
            inner: Arc::new(lexical_store::tfidf_from_bytes(data)?),
        })
    }
}

/// Statistics of a fitted BM25 index (``rserini.retrieval.bm25.BM25Index``).
#[pyclass(name = "_Bm25Arm", module = "rserini._core", frozen)]
pub struct PyBm25Arm {
    inner: Arc<Bm25Arm>,
}

#[pymethods]
impl PyBm25Arm {
    /// An arm over no documents, with the mean length `avgdl`.
    #[new]
    #[pyo3(signature = (tokenizer = "plain", avgdl = 1.0))]
    fn new(tokenizer: &str, avgdl: f64) -> CoreResult<Self> {
        Ok(PyBm25Arm {
            inner: Arc::new(Bm25Arm::empty(mode(tokenizer)?, avgdl)),
        })
    }

    /// The tokenizer mode.
    #[getter]
    fn tokenizer(&self) -> &'static str {
        self.inner.mode().name()
    }

    /// Number of documents.
    #[getter]
    fn n_docs(&self) -> usize {
        self.inner.n_docs()
    }

    /// Mean document length.
    #[getter]
    fn avgdl(&self) -> f64 {
        self.inner.avgdl()
    }

    /// ``(doc, score)`` for every document, best first, ties by number.
    fn query(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        k1: f64,
        b: f64,
    ) -> PyResult<Vec<(u32, f64)>> {
        if self.inner.n_docs() == 0 {
            return Ok(Vec::new());
        }
        let text = query_text(text)?;
        let arm = self.inner.clone();
        Ok(py.detach(|| lexical::ranking(&arm.scores(&text, k1, b))))
    }

    /// ``n_docs``, ``avgdl``, ``tf``, ``dl``, ``postings`` and ``df`` as
    /// agentic-retrieval stores them.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let arm = &self.inner;
        let out = PyDict::new(py);
        out.set_item("n_docs", arm.n_docs())?;
        out.set_item("avgdl", arm.avgdl())?;
        let tf = PyList::empty(py);
        for counts in arm.tf() {
            let d = PyDict::new(py);
            for (t, c) in counts {
                d.set_item(t, c)?;
            }
            tf.append(d)?;
        }
        out.set_item("tf", tf)?;
        out.set_item("dl", arm.dl())?;
        let postings = PyDict::new(py);
        for (t, list) in arm.postings() {
            let docs: Vec<u32> = list.iter().map(|p| p.0).collect();
            postings.set_item(t, docs)?;
        }
        out.set_item("postings", postings)?;
        let df = PyDict::new(py);
        for (t, d) in arm.df() {
            df.set_item(t, d)?;
        }
        out.set_item("df", df)?;
        Ok(out)
    }

    /// An arm from `to_dict` output.
    #[staticmethod]
    fn from_dict(data: &Bound<'_, PyAny>, tokenizer: &str) -> PyResult<Self> {
        let mode = mode(tokenizer)?;
        let n_docs: usize = item(data, "n_docs")?.extract()?;
        let avgdl: f64 = item(data, "avgdl")?.extract()?;
        let mut tf = Vec::new();
        for counts in item(data, "tf")?.try_iter()? {
            let counts = entries(&counts?, "a tf entry")?;
            tf.push(
                counts
                    .into_iter()
                    .map(|(t, c)| Ok((t, c.extract()?)))
                    .collect::<PyResult<_>>()?,
            );
        }
        let dl: Vec<u64> = item(data, "dl")?.extract()?;
        let mut postings = Vec::new();
        for (term, docs) in entries(&item(data, "postings")?, "bm25 postings")? {
            postings.push((term, docs.extract()?));
        }
        let df = entries(&item(data, "df")?, "df")?
            .into_iter()
            .map(|(t, d)| Ok((t, d.extract()?)))
            .collect::<PyResult<_>>()?;
        let arm =
            Bm25Arm::from_parts(mode, n_docs, avgdl, tf, dl, postings, df).map_err(CoreError)?;
        Ok(PyBm25Arm {
            inner: Arc::new(arm),
        })
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        reduce(
            slf.as_any(),
            &lexical_store::bm25_to_bytes(&slf.get().inner),
        )
    }

    #[staticmethod]
    fn _from_bytes(data: &[u8]) -> CoreResult<Self> {
        Ok(PyBm25Arm {
            inner: Arc::new(lexical_store::bm25_from_bytes(data)?),
        })
    }
}

/// Both arms over ``texts``, each text analyzed once, without the GIL.
// The texts are read in place (their UTF-8 form, which Python caches), not
// copied.
#[pyfunction]
pub fn _lexical_fit(
    py: Python<'_>,
    texts: Vec<Bound<'_, PyString>>,
    tokenizer: &str,
) -> PyResult<(PyTfidfArm, PyBm25Arm)> {
    let mode = mode(tokenizer)?;
    let texts: Vec<&str> = texts.iter().map(|t| t.to_str()).collect::<PyResult<_>>()?;
    // On a fork-aware pool: rayon's global pool hangs in a forked child.
    let (t, b) = py
        .detach(|| crate::threads::with_threads(None, || lexical::fit(mode, &texts)))
        .map_err(CoreError)?;
    Ok((
        PyTfidfArm { inner: Arc::new(t) },
        PyBm25Arm { inner: Arc::new(b) },
    ))
}

/// The first ``top`` document numbers of the fused ranking, without the GIL.
#[pyfunction]
pub fn _lexical_search(
    py: Python<'_>,
    tfidf: &PyTfidfArm,
    bm25: &PyBm25Arm,
    query: &Bound<'_, PyAny>,
    k1: f64,
    b: f64,
    top: usize,
) -> PyResult<Vec<u32>> {
    let query = query_text(query)?;
    let (t, s) = (tfidf.inner.clone(), bm25.inner.clone());
    Ok(py
        .detach(|| lexical::search(&t, &s, &query, k1, b, top))
        .map_err(CoreError)?)
}

/// Writes a retriever's file crash-safely.
#[pyfunction]
pub fn _lexical_save(
    py: Python<'_>,
    path: PathBuf,
    meta: String,
    tfidf: &PyTfidfArm,
    bm25: &PyBm25Arm,
) -> PyResult<()> {
    let (t, s) = (tfidf.inner.clone(), bm25.inner.clone());
    Ok(py
        .detach(|| lexical_store::save(&path, &meta, &t, &s))
        .map_err(CoreError)?)
}

/// Reads a retriever's file, checking its checksum.
#[pyfunction]
pub fn _lexical_load(py: Python<'_>, path: PathBuf) -> PyResult<(String, PyTfidfArm, PyBm25Arm)> {
    let (meta, t, b) = py
        .detach(|| lexical_store::load(&path))
        .map_err(CoreError)?;
    Ok((
        meta,
        PyTfidfArm { inner: Arc::new(t) },
        PyBm25Arm { inner: Arc::new(b) },
    ))
}

/// `document #i: <field> must be <what>, got <type>`.
fn field_type_error(position: usize, field: &str, what: &str, v: &Bound<'_, PyAny>) -> PyErr {
    let got = v
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    PyTypeError::new_err(format!(
        "document #{position}: {field} must be {what}, got {got}"
    ))
}

/// The texts and the span units of documents, their field types checked.
#[pyfunction]
pub fn _lexical_units<'py>(
    py: Python<'py>,
    documents: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>)> {
    let texts = PyList::empty(py);
    let units = PyList::empty(py);
    let keys = ["docid", "source_path", "start_line", "end_line", "context"]
        .map(|k| pyo3::types::PyString::intern(py, k));
    let text_key = pyo3::types::PyString::intern(py, "text");
    for (position, d) in documents.try_iter()?.enumerate() {
        let d = d?;
        let (Ok(docid), Ok(text)) = (d.getattr(&keys[0]), d.getattr(&text_key)) else {
            return Err(PyTypeError::new_err(format!(
                "document #{position} is a {}; give Document objects (docid, text, and \
                 optionally source_path, start_line, end_line, context)",
                d.get_type().name()?
            )));
        };
        let optional = |i: usize, default: Bound<'py, PyAny>| -> PyResult<Bound<'py, PyAny>> {
            match d.getattr(&keys[i]) {
                Ok(v) => Ok(v),
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyAttributeError>(py) => Ok(default),
                Err(e) => Err(e),
            }
        };
        let empty = pyo3::types::PyString::new(py, "").into_any();
        let values = [
            docid,
            optional(1, empty.clone())?,
            optional(2, py.None().into_bound(py))?,
            optional(3, py.None().into_bound(py))?,
            optional(4, empty)?,
        ];
        for (i, v) in values.iter().enumerate() {
            let ok = if i == 2 || i == 3 {
                v.is_none()
                    || v.is_instance_of::<pyo3::types::PyInt>()
                        && !v.is_instance_of::<pyo3::types::PyBool>()
            } else {
                v.is_instance_of::<pyo3::types::PyString>()
            };
            if !ok {
                let what = if i == 2 || i == 3 {
                    "int or None"
                } else {
                    "str"
                };
                return Err(field_type_error(position, keys[i].to_str()?, what, v));
            }
        }
        if !text.is_instance_of::<pyo3::types::PyString>() {
            return Err(field_type_error(position, "text", "str", &text));
        }
        let unit = PyDict::new(py);
        for (k, v) in keys.iter().zip(values) {
            unit.set_item(k, v)?;
        }
        units.append(unit)?;
        texts.append(text)?;
    }
    Ok((texts, units))
}
