//! `rserini.Index`: build, save, load, search, explain.
//!
//! Python inputs are copied into owned Rust values first; all indexing and
//! searching then runs with the GIL released (`py.detach`), on rayon threads.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use rserini_core::analysis::AnalyzerConfig;
use rserini_core::index::{Index, IndexBuilder};
use rserini_core::scoring::{Bm25Params, Bm25Variant, LengthMode};
use rserini_core::search::{self, Model, ScoredDoc};
use rserini_core::{Error, corpus, store, walk};

use crate::analyzer::{PyAnalyzer, config_dict};
use crate::errors::{CoreError, CoreResult};

/// `batch_search`'s result: internal ids and scores, both of shape (queries, k).
type IdsAndScores<'py> = (Bound<'py, PyArray2<i32>>, Bound<'py, PyArray2<f32>>);

/// Documents handed to the core per batch when building from Python objects.
const PY_BATCH: usize = 20_000;

/// An analyzer given by preset name or as an `Analyzer` object.
#[derive(FromPyObject)]
pub enum AnalyzerArg {
    Name(String),
    Object(Py<PyAnalyzer>),
}

impl AnalyzerArg {
    fn config(&self, py: Python<'_>) -> Result<AnalyzerConfig, Error> {
        match self {
            AnalyzerArg::Name(n) => AnalyzerConfig::preset(n),
            AnalyzerArg::Object(a) => Ok(a.bind(py).get().inner.config().clone()),
        }
    }
}

/// Parses the model arguments shared by `search`, `batch_search` and `explain`.
pub fn model_from(
    model: &str,
    variant: &str,
    k1: f64,
    b: f64,
    length: &str,
    delta: Option<f64>,
) -> Result<Model, Error> {
    match model {
        "bm25" => Ok(Model::Bm25(Bm25Params::new(
            k1,
            b,
            Bm25Variant::parse(variant)?,
            LengthMode::parse(length)?,
            delta,
        )?)),
        "tfidf" => Ok(Model::TfIdf),
        other => Err(Error::Query(format!(
            "unknown model {other:?}; choose \"bm25\" or \"tfidf\""
        ))),
    }
}

/// Runs `f` on a rayon pool of `threads` threads (the global pool if `None`).
pub fn with_threads<T: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> T + Send,
) -> Result<T, Error> {
    match threads {
        None => Ok(f()),
        Some(0) => Err(Error::Query(
            "threads must be at least 1 (or None for all cores)".into(),
        )),
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| Error::Query(format!("cannot start {n} threads: {e}")))?;
            Ok(pool.install(f))
        }
    }
}

fn progress_bar(enabled: bool, total: Option<u64>, what: &str) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = match total {
        Some(t) => ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template(
                "{msg} {wide_bar} {human_pos}/{human_len} docs [{elapsed_precise} < {eta}]",
            )
            .expect("valid template"),
        ),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template(
                "{spinner} {msg} {human_pos} docs [{elapsed_precise}, {per_sec}]",
            )
            .expect("valid template"),
        ),
    };
    bar.set_message(what.to_owned());
    bar
}

fn str_field(dict: &Bound<'_, PyDict>, key: &str) -> PyResult<Option<String>> {
    match dict.get_item(key)? {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => match v.cast::<PyString>() {
            Ok(s) => Ok(Some(s.to_str()?.to_owned())),
            Err(_) if key.ends_with("id") && v.extract::<i64>().is_ok() => {
                Ok(Some(v.str()?.to_str()?.to_owned()))
            }
            Err(_) => Err(PyTypeError::new_err(format!(
                "field {key:?} must be a string, got {}",
                v.get_type().name()?
            ))),
        },
    }
}

/// One document from a `(docid, text)` pair or a dict in Pyserini or BEIR shape.
fn extract_doc(item: &Bound<'_, PyAny>, position: usize) -> PyResult<(String, String)> {
    if let Ok(dict) = item.cast::<PyDict>() {
        let id = match str_field(dict, "id")? {
            Some(id) => Some(id),
            None => match str_field(dict, "_id")? {
                Some(id) => Some(id),
                None => str_field(dict, "docid")?,
            },
        };
        let Some(id) = id else {
            return Err(CoreError(Error::Document(format!(
                "document #{position} has no id: give {{\"id\", \"contents\"}}, {{\"_id\", \"title\", \"text\"}} or a (docid, text) pair"
            )))
            .into());
        };
        if let Some(contents) = str_field(dict, "contents")? {
            return Ok((id, contents));
        }
        let title = str_field(dict, "title")?;
        let text = str_field(dict, "text")?;
        return match (title, text) {
            (None, None) => Err(CoreError(Error::Document(format!(
                "document #{position} ({id:?}) has no text: give \"contents\" or \"title\"/\"text\""
            )))
            .into()),
            (Some(t), None) => Ok((id, t)),
            (None, Some(x)) => Ok((id, x)),
            (Some(t), Some(x)) => Ok((id, format!("{t} {x}"))),
        };
    }
    let pair = item
        .extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "document #{position} is a {}; give (docid, text) pairs or dicts",
                item.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
    let text_of = |v: &Bound<'_, PyAny>, what: &str| -> PyResult<String> {
        v.cast::<PyString>()
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "document #{position}: the {what} must be a str, got {}",
                    v.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })?
            .to_str()
            .map(str::to_owned)
    };
    Ok((text_of(&pair.0, "docid")?, text_of(&pair.1, "text")?))
}

/// One search result.
#[pyclass(name = "Hit", module = "rserini._core", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyHit {
    /// The document's id.
    #[pyo3(get)]
    pub docid: String,
    /// Its score (a float32 value).
    #[pyo3(get)]
    pub score: f64,
    /// 1-based rank.
    #[pyo3(get)]
    pub rank: usize,
}

#[pymethods]
impl PyHit {
    #[new]
    fn new(docid: String, score: f64, rank: usize) -> Self {
        PyHit { docid, score, rank }
    }

    fn __repr__(&self) -> String {
        format!(
            "Hit(docid={:?}, score={:.6}, rank={})",
            self.docid, self.score, self.rank
        )
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let t = PyTuple::new(
            py,
            [
                self.docid.clone().into_pyobject(py)?.into_any(),
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
    df: u32,
    tf: u32,
    idf: f64,
    score: f64,
}

/// A score broken down by query term.
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
    fn __str__(&self, py: Python<'_>) -> String {
        let mut out = format!(
            "{:.6} = score of {:?} (length {}, seen as {})\n  {}\n",
            self.score, self.docid, self.length, self.seen_length, self.formula
        );
        for t in &self.terms {
            let t = t.get();
            let _ = py;
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

/// An inverted index. Immutable once built; safe to share between threads.
#[pyclass(name = "Index", module = "rserini._core", frozen)]
pub struct PyIndex {
    inner: Arc<Index>,
    source: Option<String>,
    path: Mutex<Option<PathBuf>>,
}

impl PyIndex {
    fn new(inner: Index, source: Option<String>, path: Option<PathBuf>) -> Self {
        PyIndex {
            inner: Arc::new(inner),
            source,
            path: Mutex::new(path),
        }
    }
}

fn build_from_py(
    py: Python<'_>,
    docs: &Bound<'_, PyAny>,
    config: AnalyzerConfig,
    threads: Option<usize>,
    progress: bool,
) -> PyResult<Index> {
    let total = docs.len().ok().map(|n| n as u64);
    let bar = progress_bar(progress, total, "indexing");
    let mut builder = IndexBuilder::new(config).map_err(CoreError)?;
    let mut batch = Vec::with_capacity(PY_BATCH);
    let add = |py: Python<'_>,
               builder: &mut IndexBuilder,
               batch: Vec<(String, String)>|
     -> PyResult<()> {
        let n = batch.len() as u64;
        py.detach(|| with_threads(threads, || builder.add_batch(batch)))
            .map_err(CoreError)?
            .map_err(CoreError)?;
        bar.inc(n);
        Ok(())
    };
    for (position, item) in docs.try_iter()?.enumerate() {
        batch.push(extract_doc(&item?, position)?);
        if batch.len() == PY_BATCH {
            add(py, &mut builder, std::mem::take(&mut batch))?;
        }
    }
    if !batch.is_empty() {
        add(py, &mut builder, batch)?;
    }
    let index = py
        .detach(|| with_threads(threads, || builder.finish()))
        .map_err(CoreError)?
        .map_err(CoreError)?;
    bar.finish_and_clear();
    Ok(index)
}

fn hits(index: &Index, docs: Vec<ScoredDoc>) -> Vec<PyHit> {
    docs.into_iter()
        .enumerate()
        .map(|(i, d)| PyHit {
            docid: index.docid(d.doc).unwrap_or_default().to_owned(),
            score: f64::from(d.score),
            rank: i + 1,
        })
        .collect()
}

fn check_query_text(query: &Bound<'_, PyAny>) -> PyResult<String> {
    let s = query.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "query must be a str, got {}",
            query
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    Ok(s.to_str()?.to_owned())
}

fn nonempty_query(query: String) -> CoreResult<String> {
    if query.trim().is_empty() {
        return Err(Error::Query(
            "the query is empty; give at least one word to search for".into(),
        )
        .into());
    }
    Ok(query)
}

#[pymethods]
impl PyIndex {
    /// Builds an index from `(docid, text)` pairs or dicts.
    #[staticmethod]
    #[pyo3(signature = (docs, *, analyzer = AnalyzerArg::Name("lucene-english".into()), threads = None, progress = true))]
    fn build(
        py: Python<'_>,
        docs: &Bound<'_, PyAny>,
        analyzer: AnalyzerArg,
        threads: Option<usize>,
        progress: bool,
    ) -> PyResult<Self> {
        let config = analyzer.config(py).map_err(CoreError)?;
        let index = build_from_py(py, docs, config, threads, progress)?;
        Ok(PyIndex::new(index, None, None))
    }

    /// Builds an index from JSONL files (Pyserini or BEIR shape), a file or a folder.
    #[staticmethod]
    #[pyo3(signature = (path, *, analyzer = AnalyzerArg::Name("lucene-english".into()), threads = None, progress = true))]
    fn from_jsonl(
        py: Python<'_>,
        path: PathBuf,
        analyzer: AnalyzerArg,
        threads: Option<usize>,
        progress: bool,
    ) -> PyResult<Self> {
        let config = analyzer.config(py).map_err(CoreError)?;
        let bar = progress_bar(progress, None, "indexing");
        let index = py
            .detach(|| {
                with_threads(threads, || -> Result<Index, Error> {
                    let mut builder = IndexBuilder::new(config)?;
                    corpus::read_documents(&path, |batch| {
                        let n = batch.len() as u64;
                        builder.add_batch(batch)?;
                        bar.inc(n);
                        Ok(())
                    })?;
                    builder.finish()
                })
            })
            .map_err(CoreError)?
            .map_err(CoreError)?;
        bar.finish_and_clear();
        Ok(PyIndex::new(
            index,
            Some(format!("jsonl:{}", path.display())),
            None,
        ))
    }

    /// Builds an index of the text and code files under `root` (one document
    /// per file, docid = relative path), honouring `.gitignore`.
    #[staticmethod]
    #[pyo3(signature = (root, *, analyzer = AnalyzerArg::Name("code".into()), max_file_bytes = 1_048_576, threads = None, progress = true))]
    fn from_source_tree(
        py: Python<'_>,
        root: PathBuf,
        analyzer: AnalyzerArg,
        max_file_bytes: u64,
        threads: Option<usize>,
        progress: bool,
    ) -> PyResult<Self> {
        let config = analyzer.config(py).map_err(CoreError)?;
        let (index, fingerprint) = py
            .detach(|| {
                with_threads(threads, || -> Result<(Index, String), Error> {
                    let files = walk::list_files(&root, max_file_bytes)?;
                    let fingerprint = walk::fingerprint(&files);
                    let bar = progress_bar(progress, Some(files.len() as u64), "indexing");
                    let docs = walk::read_files(&root, &files);
                    bar.set_position(files.len() as u64);
                    let mut builder = IndexBuilder::new(config)?;
                    builder.add_batch(docs)?;
                    let index = builder.finish()?;
                    bar.finish_and_clear();
                    Ok((index, fingerprint))
                })
            })
            .map_err(CoreError)?
            .map_err(CoreError)?;
        Ok(PyIndex::new(index, Some(fingerprint), None))
    }

    /// Loads an index saved with `save`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let (index, meta) = py
            .detach(|| -> Result<_, Error> { Ok((store::load(&path)?, store::read_meta(&path)?)) })
            .map_err(CoreError)?;
        Ok(PyIndex::new(index, meta.source, Some(path)))
    }

    /// Saves the index into the folder `path` (created if needed).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let source = self.source.clone();
        py.detach(|| store::save(&self.inner, &path, source))
            .map_err(CoreError)?;
        *self.path.lock().expect("not poisoned") = Some(path);
        Ok(())
    }

    /// Where the index was last saved or loaded from.
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.path.lock().expect("not poisoned").clone()
    }

    /// Origin of the documents (a source-tree fingerprint, a JSONL path), if known.
    #[getter]
    fn source(&self) -> Option<String> {
        self.source.clone()
    }

    /// The analyzer documents were indexed with, and queries go through.
    #[getter]
    fn analyzer(&self) -> PyAnalyzer {
        PyAnalyzer {
            inner: Arc::new(
                rserini_core::analysis::Analyzer::new(self.inner.analyzer().config().clone())
                    .expect("valid config"),
            ),
        }
    }

    /// Size figures as a dict.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.stats();
        let d = PyDict::new(py);
        d.set_item("num_docs", s.num_docs)?;
        d.set_item("num_nonempty_docs", s.num_nonempty_docs)?;
        d.set_item("num_terms", s.num_terms)?;
        d.set_item("num_postings", s.num_postings)?;
        d.set_item("total_terms", s.total_terms)?;
        d.set_item(
            "avgdl",
            if s.num_docs == 0 {
                0.0
            } else {
                s.total_terms as f64 / s.num_docs as f64
            },
        )?;
        d.set_item("postings_bytes", s.postings_bytes)?;
        d.set_item("analyzer", config_dict(py, self.inner.analyzer().config())?)?;
        Ok(d)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, docid: &str) -> bool {
        self.inner.doc(docid).is_ok()
    }

    fn __repr__(&self) -> String {
        let s = self.inner.stats();
        format!(
            "Index(docs={}, terms={}, analyzer={:?})",
            s.num_docs,
            s.num_terms,
            self.inner
                .analyzer()
                .config()
                .preset_name()
                .unwrap_or("custom")
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (PathBuf,))> {
        let Some(path) = slf.get().path() else {
            return Err(PyTypeError::new_err(
                "an index is pickled by its path: save() it first, then pickle it",
            ));
        };
        Ok((slf.get_type().getattr("load")?, (path,)))
    }

    /// The docid of each internal id (`-1`, the padding of `batch_search`, is skipped).
    fn docids<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let np = py.import("numpy")?;
        let array = np.call_method1("asarray", (ids, "int64"))?;
        let array = array.cast::<numpy::PyArrayDyn<i64>>()?;
        let read = array.readonly();
        let shape = read.shape().to_vec();
        let view = read.as_array();
        let name = |i: i64| -> PyResult<Option<&str>> {
            if i == -1 {
                return Ok(None);
            }
            u32::try_from(i)
                .ok()
                .and_then(|i| self.inner.docid(i))
                .map(Some)
                .ok_or_else(|| {
                    PyValueError::new_err(format!("internal id {i} is not in this index"))
                })
        };
        match shape.len() {
            1 => {
                let mut out = Vec::new();
                for &i in view.iter() {
                    if let Some(d) = name(i)? {
                        out.push(d);
                    }
                }
                PyList::new(py, out)
            }
            2 => {
                let rows = PyList::empty(py);
                for row in view.outer_iter() {
                    let mut out = Vec::new();
                    for &i in row.iter() {
                        if let Some(d) = name(i)? {
                            out.push(d);
                        }
                    }
                    rows.append(PyList::new(py, out)?)?;
                }
                Ok(rows)
            }
            n => Err(PyValueError::new_err(format!(
                "ids must be 1- or 2-dimensional, got {n} dimensions"
            ))),
        }
    }

    /// The `k` best documents for `query`.
    #[pyo3(signature = (query, k = 10, *, model = "bm25", variant = "lucene", k1 = 0.9, b = 0.4, length = "lucene", delta = None))]
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        k: i64,
        model: &str,
        variant: &str,
        k1: f64,
        b: f64,
        length: &str,
        delta: Option<f64>,
    ) -> PyResult<Vec<PyHit>> {
        let query = nonempty_query(check_query_text(query)?)?;
        let k = search::check_k(k).map_err(CoreError)?;
        let model = model_from(model, variant, k1, b, length, delta).map_err(CoreError)?;
        let index = self.inner.clone();
        let docs = py.detach(move || search::search(&index, &query, k, &model));
        Ok(hits(&self.inner, docs))
    }

    /// Runs many queries in parallel; returns `(ids, scores)`, two arrays of
    /// shape `(len(queries), min(k, len(index)))`: int32 internal ids (`-1`
    /// pads short result lists) and float32 scores (`-inf` pads). Map ids with
    /// `docids()`. An empty query gives an empty (all padding) row.
    #[pyo3(signature = (queries, k = 1000, *, threads = None, model = "bm25", variant = "lucene", k1 = 0.9, b = 0.4, length = "lucene", delta = None))]
    #[allow(clippy::too_many_arguments)]
    fn batch_search<'py>(
        &self,
        py: Python<'py>,
        queries: &Bound<'py, PyAny>,
        k: i64,
        threads: Option<usize>,
        model: &str,
        variant: &str,
        k1: f64,
        b: f64,
        length: &str,
        delta: Option<f64>,
    ) -> PyResult<IdsAndScores<'py>> {
        if queries.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "queries must be a list of str, not a single str; use search() for one query",
            ));
        }
        let mut owned = Vec::new();
        for q in queries.try_iter()? {
            owned.push(check_query_text(&q?)?);
        }
        // Columns beyond the number of documents could only hold padding.
        let k = search::check_k(k).map_err(CoreError)?.min(self.inner.len());
        let model = model_from(model, variant, k1, b, length, delta).map_err(CoreError)?;
        let index = self.inner.clone();
        let (ids, scores) = py
            .detach(move || {
                with_threads(threads, || {
                    let results = search::batch_search(&index, &owned, k, &model);
                    let mut ids = vec![-1i32; results.len() * k];
                    let mut scores = vec![f32::NEG_INFINITY; results.len() * k];
                    for (row, docs) in results.iter().enumerate() {
                        for (col, d) in docs.iter().enumerate() {
                            ids[row * k + col] = d.doc as i32;
                            scores[row * k + col] = d.score;
                        }
                    }
                    let n = results.len();
                    (
                        Array2::from_shape_vec((n, k), ids).expect("n*k elements"),
                        Array2::from_shape_vec((n, k), scores).expect("n*k elements"),
                    )
                })
            })
            .map_err(CoreError)?;
        Ok((ids.into_pyarray(py), scores.into_pyarray(py)))
    }

    /// Explains the score of `docid` for `query`, term by term.
    #[pyo3(signature = (query, docid, *, model = "bm25", variant = "lucene", k1 = 0.9, b = 0.4, length = "lucene", delta = None))]
    #[allow(clippy::too_many_arguments)]
    fn explain(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        docid: &str,
        model: &str,
        variant: &str,
        k1: f64,
        b: f64,
        length: &str,
        delta: Option<f64>,
    ) -> PyResult<PyExplanation> {
        let query = check_query_text(query)?;
        let model = model_from(model, variant, k1, b, length, delta).map_err(CoreError)?;
        let e = search::explain(&self.inner, &query, docid, &model).map_err(CoreError)?;
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

    /// The analyzed terms of `query`, with their query frequency, as the index sees them.
    fn query_terms(&self, query: &str) -> Vec<(String, u32, bool)> {
        search::query_terms(&self.inner, query)
            .into_iter()
            .map(|t| (t.term, t.query_tf, t.ord.is_some()))
            .collect()
    }
}

/// The fingerprint of the source tree under `root`, as stored by `Index.from_source_tree`.
#[pyfunction]
#[pyo3(signature = (root, max_file_bytes = 1_048_576))]
pub fn source_fingerprint(py: Python<'_>, root: PathBuf, max_file_bytes: u64) -> PyResult<String> {
    py.detach(|| walk::list_files(&root, max_file_bytes).map(|f| walk::fingerprint(&f)))
        .map_err(|e| CoreError(e).into())
}

/// Reads queries from a BEIR `queries.jsonl` or a `qid<TAB>text` file.
#[pyfunction]
pub fn read_queries(py: Python<'_>, path: PathBuf) -> PyResult<Vec<(String, String)>> {
    py.detach(|| corpus::read_queries(&path))
        .map_err(|e| CoreError(e).into())
}

/// The `source` recorded in the meta file of the saved index at `path`.
#[pyfunction]
pub fn saved_index_source(path: PathBuf) -> PyResult<Option<String>> {
    Ok(store::read_meta(&path).map_err(CoreError)?.source)
}
