//! `rserini.Index`: build, save, load, update, search, explain.
//!
//! Python inputs are copied into owned Rust values first; all indexing and
//! searching then runs with the GIL released (`py.detach`), on the pools of
//! [`crate::threads`] (never rayon's global pool, which breaks after `fork()`).
//! The Python object holds the current snapshot of the index; `add` and
//! `delete` collect changes that `commit` turns into the next snapshot (and
//! saves, when the index lives in a folder).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, mpsc};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use rayon::prelude::*;
use rserini_core::analysis::AnalyzerConfig;
use rserini_core::index::{Duplicates, Index, IndexBuilder};
use rserini_core::qld::QldParams;
use rserini_core::reorder::Reorder;
use rserini_core::rm3::{self, Rm3Params};
use rserini_core::rocchio::{self, RocchioParams};
use rserini_core::scoring::{Bm25Params, Bm25Variant, LengthMode};
use rserini_core::search::{self, Algorithm, Model, ScoredDoc};
use rserini_core::segment::Doc;
use rserini_core::{Error, corpus, store, walk};

use crate::analyzer::{PyAnalyzer, config_dict};
use crate::args::{Hits, Threads};
use crate::convert::{extract_doc, query_text};
use crate::errors::{CoreError, CoreResult};
use crate::results::{DocidStrings, PyExplanation, explanation, hits, pairs};
use crate::snapshot_ids;
use crate::threads::{self, with_threads};

/// `batch_search`'s result: internal ids and scores, both of shape (queries, k).
type IdsAndScores<'py> = (Bound<'py, PyArray2<i32>>, Bound<'py, PyArray2<f32>>);

/// The default memory budget of a build, in MB (the core's default).
const DEFAULT_MEMORY_MB: f64 = (rserini_core::index::DEFAULT_MEMORY_BUDGET >> 20) as f64;

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
    mu: f64,
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
        "qld" => Ok(Model::Qld(QldParams::new(mu)?)),
        other => Err(Error::Query(format!(
            "unknown model {other:?}; choose \"bm25\", \"tfidf\" or \"qld\""
        ))),
    }
}

/// Lucene's BM25 with `k1` and `b`: the first and second stages of feedback.
fn lucene_bm25(k1: f64, b: f64) -> PyResult<Bm25Params> {
    Ok(Bm25Params::new(k1, b, Bm25Variant::Lucene, LengthMode::Lucene, None).map_err(CoreError)?)
}

/// Runs a feedback search `search` for every query on `threads` threads and
/// packs the rankings as `batch_search` does (`k` columns, ids bound to
/// `index`).
fn feedback_rows<'py>(
    py: Python<'py>,
    queries: &[String],
    k: usize,
    threads: Option<Threads>,
    index: &Arc<Index>,
    search: impl Fn(&str) -> Result<Vec<ScoredDoc>, Error> + Sync,
) -> PyResult<IdsAndScores<'py>> {
    let (ids, scores) = py
        .detach(|| {
            with_threads(threads.map(|t| t.0), || -> Result<_, Error> {
                let results: Vec<Vec<ScoredDoc>> = queries
                    .par_iter()
                    .map(|q| search(q))
                    .collect::<Result<_, Error>>()?;
                let mut ids = vec![-1i32; results.len() * k];
                let mut scores = vec![f32::NEG_INFINITY; results.len() * k];
                for (row, docs) in results.iter().enumerate() {
                    for (col, d) in docs.iter().enumerate() {
                        ids[row * k + col] = d.doc as i32;
                        scores[row * k + col] = d.score;
                    }
                }
                let n = results.len();
                Ok((
                    Array2::from_shape_vec((n, k), ids).expect("n*k elements"),
                    Array2::from_shape_vec((n, k), scores).expect("n*k elements"),
                ))
            })
        })
        .map_err(CoreError)?
        .map_err(CoreError)?;
    Ok((
        snapshot_ids::bound_array(py, ids, Arc::clone(index))?,
        scores.into_pyarray(py),
    ))
}

/// Runs `search(i)` for every `i < count` on `threads` threads (all cores
/// for `None`) and hands each ranking to `found(i, ranking)` on this
/// thread, which holds the GIL, as soon as it is ready.
///
/// Only the GIL's thread can make Python objects, and for deep rankings
/// that is as much work as the search, so this thread takes part: it
/// hands over what the other threads found when there is any, and
/// searches the next query itself (the GIL released) when there is none.
/// With one thread, it searches and hands over in turn.
fn search_each<S: Fn(usize) -> Vec<ScoredDoc> + Sync>(
    py: Python<'_>,
    threads: Option<usize>,
    count: usize,
    search: S,
    mut found: impl FnMut(usize, Vec<ScoredDoc>) -> PyResult<()>,
) -> PyResult<()> {
    let shared = Queries {
        next: AtomicUsize::new(0),
        count,
        search,
    };
    let shared = &shared;
    let pool = threads::pool(threads).map_err(CoreError)?;
    pool.in_place_scope(|scope| shared.run(py, scope, pool.current_num_threads() - 1, &mut found))
}

/// The queries of one [`search_each`] call.
struct Queries<S> {
    /// The next query no thread has taken.
    next: AtomicUsize,
    count: usize,
    search: S,
}

impl<S: Fn(usize) -> Vec<ScoredDoc> + Sync> Queries<S> {
    /// Takes the next query, if any is left.
    fn claim(&self) -> Option<usize> {
        Some(self.next.fetch_add(1, Ordering::Relaxed)).filter(|&i| i < self.count)
    }

    /// [`search_each`] with `helpers` threads of `scope` beside this one.
    fn run<'scope>(
        &'scope self,
        py: Python<'_>,
        scope: &rayon::Scope<'scope>,
        helpers: usize,
        found: &mut impl FnMut(usize, Vec<ScoredDoc>) -> PyResult<()>,
    ) -> PyResult<()> {
        let (sender, mut receiver) = mpsc::channel();
        for _ in 0..helpers {
            let sender = sender.clone();
            scope.spawn(move |_| {
                while let Some(i) = self.claim() {
                    if sender.send((i, (self.search)(i))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for _ in 0..self.count {
            let (i, docs) = match receiver.try_recv() {
                Ok(ready) => ready,
                Err(_) => match self.claim() {
                    Some(i) => (i, py.detach(|| (self.search)(i))),
                    None => {
                        let ready;
                        (receiver, ready) = py.detach(move || {
                            let ready = receiver.recv().ok();
                            (receiver, ready)
                        });
                        // `None`: a helper panicked; the scope raises it.
                        let Some(ready) = ready else { break };
                        ready
                    }
                },
            };
            if let Err(e) = found(i, docs) {
                // The helpers stop at their next claim.
                self.next.store(self.count, Ordering::Relaxed);
                return Err(e);
            }
        }
        Ok(())
    }
}

/// Runs `f` without the GIL, on `threads` threads; core errors become
/// Python exceptions.
fn detached<T: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    f: impl FnOnce() -> Result<T, Error> + Send,
) -> PyResult<T> {
    py.detach(|| with_threads(threads, f))
        .map_err(CoreError)?
        .map_err(|e| CoreError(e).into())
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

/// Changes collected by `add` and `delete` until `commit`.
#[derive(Default)]
struct Pending {
    adds: Vec<Doc>,
    /// The policy the queued additions were given (one per commit).
    duplicates: Duplicates,
    deletes: Vec<String>,
    lock: Option<store::WriteLock>,
}

/// An immutable inverted index, safe to share between threads.
///
/// Build it with :meth:`build`, :meth:`from_jsonl` or :meth:`from_source_tree`,
/// or open a saved one with :meth:`load`. All scoring parameters are chosen
/// per query. A saved index pickles as its path, an in-memory one as its bytes.
#[pyclass(name = "Index", module = "rserini._core", frozen)]
pub struct PyIndex {
    current: RwLock<Arc<Index>>,
    pending: Mutex<Pending>,
    source: Option<String>,
    store: bool,
    docids: DocidStrings,
}

impl PyIndex {
    fn new(index: Index, source: Option<String>) -> Self {
        let store = index.has_store();
        PyIndex {
            current: RwLock::new(Arc::new(index)),
            pending: Mutex::new(Pending::default()),
            source,
            store,
            docids: DocidStrings::default(),
        }
    }

    /// The current snapshot.
    fn snapshot(&self) -> Arc<Index> {
        self.current.read().expect("not poisoned").clone()
    }

    fn replace(&self, index: Index) {
        *self.current.write().expect("not poisoned") = Arc::new(index);
    }
}

/// The builder's memory budget in bytes from the `memory_mb` argument.
fn memory_budget(memory_mb: f64) -> CoreResult<usize> {
    if !memory_mb.is_finite() || memory_mb < 0.0 {
        return Err(Error::Query(format!(
            "memory_mb must be a non-negative number of megabytes, got {memory_mb}"
        ))
        .into());
    }
    Ok((memory_mb * 1_048_576.0) as usize)
}

/// Feeds Python documents to `builder` in batches and finishes it.
fn build_from_py(
    py: Python<'_>,
    docs: &Bound<'_, PyAny>,
    mut builder: IndexBuilder,
    threads: Option<usize>,
    progress: bool,
) -> PyResult<Index> {
    let total = docs.len().ok().map(|n| n as u64);
    let bar = progress_bar(progress, total, "indexing");
    let dumps = json_dumps(py)?;
    let mut batch = Vec::with_capacity(PY_BATCH);
    let add = |py: Python<'_>, builder: &mut IndexBuilder, batch: Vec<Doc>| -> PyResult<()> {
        let n = batch.len() as u64;
        detached(py, threads, || builder.add_batch(batch))?;
        bar.inc(n);
        Ok(())
    };
    for (position, item) in docs.try_iter()?.enumerate() {
        batch.push(extract_doc(&item?, position, &dumps)?);
        if batch.len() == PY_BATCH {
            add(py, &mut builder, std::mem::take(&mut batch))?;
        }
    }
    if !batch.is_empty() {
        add(py, &mut builder, batch)?;
    }
    let index = detached(py, threads, || builder.finish())?;
    bar.finish_and_clear();
    Ok(index)
}

fn json_dumps(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let json = py.import("json")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("ensure_ascii", false)?;
    let partial = py.import("functools")?.getattr("partial")?;
    partial.call((json.getattr("dumps")?,), Some(&kwargs))
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
    /// Indexes ``(docid, text)`` pairs, :class:`rserini.Document` objects or dicts
    /// (``{"id", "contents"}``, or BEIR ``{"_id", "title", "text"}`` indexed as
    /// ``title + " " + text``).
    /// With ``store``, the documents are kept for :meth:`doc` and :meth:`contents`.
    /// ``memory_mb`` bounds the memory the build keeps uncompressed: past it, the
    /// postings gathered so far are compressed into a segment of their own, and
    /// the segments are merged into one at the end (the index is the same
    /// whatever the budget; only the build's time and peak memory change).
    /// ``duplicates="keep"`` indexes every copy of a repeated docid, as Lucene
    /// does (see :meth:`add`). ``threads`` is ``None`` (all cores) or between 1
    /// and 256 (four per core on larger machines); every call with threads runs
    /// on a kept pool, rebuilt after ``fork()``. ``reorder="bp"`` renumbers the
    /// documents by recursive graph bisection once built, so that documents sharing
    /// terms are adjacent (shorter gaps in the postings): the same results, for a
    /// build several times slower.
    ///
    /// Raises
    /// ------
    /// DocumentError
    ///     For an empty docid, or a duplicate one unless ``duplicates="keep"``.
    /// QueryError
    ///     For ``threads`` out of range or an unknown ``duplicates`` policy.
    /// ValueError
    ///     For a ``reorder`` other than ``"bp"``, ``"none"`` or ``None``.
    /// TypeError
    ///     For an item that is neither a pair nor a dict, or non-str fields.
    #[staticmethod]
    #[pyo3(signature = (docs, *, analyzer = AnalyzerArg::Name("lucene-english".into()), store = true, threads = None, progress = true, memory_mb = DEFAULT_MEMORY_MB, duplicates = "error", reorder = None))]
    // The defaults PyO3 would show as `...` (Rust expressions), spelled out for `help()`.
    #[pyo3(
        text_signature = "(docs, *, analyzer='lucene-english', store=True, threads=None, progress=True, memory_mb=256, duplicates='error', reorder=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn build(
        py: Python<'_>,
        docs: &Bound<'_, PyAny>,
        analyzer: AnalyzerArg,
        store: bool,
        threads: Option<Threads>,
        progress: bool,
        memory_mb: f64,
        duplicates: &str,
        reorder: Option<&str>,
    ) -> PyResult<Self> {
        let config = analyzer.config(py).map_err(CoreError)?;
        let budget = memory_budget(memory_mb)?;
        let duplicates = Duplicates::parse(duplicates).map_err(CoreError)?;
        let reorder = Reorder::parse(reorder.unwrap_or("none")).map_err(CoreError)?;
        let threads = threads.map(|t| t.0);
        let builder = IndexBuilder::new(config, store)
            .map_err(CoreError)?
            .with_memory_budget(budget)
            .with_duplicates(duplicates);
        let index = build_from_py(py, docs, builder, threads, progress)?;
        let index = detached(py, threads, || reorder.apply(index))?;
        Ok(PyIndex::new(index, None))
    }

    /// Indexes JSONL files (``.jsonl``, ``.jsonl.gz``, ``.json``; a file or a folder),
    /// reading them in a stream; ``memory_mb``, ``threads``, ``duplicates`` and
    /// ``reorder`` are as for :meth:`build`. In a folder holding ``corpus.jsonl`` or
    /// ``corpus.jsonl.gz`` (a BEIR data set) only that file is read. A UTF-8 byte order
    /// mark opening a file is skipped.
    ///
    /// Raises
    /// ------
    /// ParseError
    ///     For a malformed line, or one longer than ``max_line_bytes`` (64 MiB by
    ///     default), with ``path`` and ``line`` set.
    /// DocumentError
    ///     For a corpus file that is not a regular file (a FIFO, a device).
    #[staticmethod]
    #[pyo3(signature = (path, *, analyzer = AnalyzerArg::Name("lucene-english".into()), store = true, threads = None, progress = true, memory_mb = DEFAULT_MEMORY_MB, duplicates = "error", max_line_bytes = corpus::DEFAULT_MAX_LINE_BYTES, reorder = None))]
    #[pyo3(
        text_signature = "(path, *, analyzer='lucene-english', store=True, threads=None, progress=True, memory_mb=256, duplicates='error', max_line_bytes=67108864, reorder=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn from_jsonl(
        py: Python<'_>,
        path: PathBuf,
        analyzer: AnalyzerArg,
        store: bool,
        threads: Option<Threads>,
        progress: bool,
        memory_mb: f64,
        duplicates: &str,
        max_line_bytes: usize,
        reorder: Option<&str>,
    ) -> PyResult<Self> {
        let config = analyzer.config(py).map_err(CoreError)?;
        let budget = memory_budget(memory_mb)?;
        let duplicates = Duplicates::parse(duplicates).map_err(CoreError)?;
        let reorder = Reorder::parse(reorder.unwrap_or("none")).map_err(CoreError)?;
        let bar = progress_bar(progress, None, "indexing");
        let index = detached(py, threads.map(|t| t.0), || {
            let mut builder = IndexBuilder::new(config, store)?
                .with_memory_budget(budget)
                .with_duplicates(duplicates);
            corpus::read_documents(&path, store, max_line_bytes, |batch| {
                let n = batch.len() as u64;
                builder.add_batch(batch)?;
                bar.inc(n);
                Ok(())
            })?;
            reorder.apply(builder.finish()?)
        })?;
        bar.finish_and_clear();
        Ok(PyIndex::new(
            index,
            Some(format!("jsonl:{}", path.display())),
        ))
    }

    /// Indexes the text files under ``root`` (honouring ``.gitignore``), one
    /// document per file, docid = relative path; a file whose path is not UTF-8 is
    /// left out, since no docid names it losslessly.
    #[staticmethod]
    #[pyo3(signature = (root, *, analyzer = AnalyzerArg::Name("code".into()), max_file_bytes = 1_048_576, store = true, threads = None, progress = true))]
    #[pyo3(
        text_signature = "(root, *, analyzer='code', max_file_bytes=1048576, store=True, threads=None, progress=True)"
    )]
    fn from_source_tree(
        py: Python<'_>,
        root: PathBuf,
        analyzer: AnalyzerArg,
        max_file_bytes: u64,
        store: bool,
        threads: Option<Threads>,
        progress: bool,
    ) -> PyResult<Self> {
        let config = analyzer.config(py).map_err(CoreError)?;
        let (index, fingerprint) = detached(py, threads.map(|t| t.0), || {
            let files = walk::list_files(&root, max_file_bytes)?;
            let fingerprint = walk::fingerprint(&files);
            let bar = progress_bar(progress, Some(files.len() as u64), "indexing");
            let docs = walk::read_files(&root, &files);
            bar.set_position(files.len() as u64);
            let mut builder = IndexBuilder::new(config, store)?;
            builder.add_batch(docs)?;
            let index = builder.finish()?;
            bar.finish_and_clear();
            Ok((index, fingerprint))
        })?;
        Ok(PyIndex::new(index, Some(fingerprint)))
    }

    /// Opens an index saved with :meth:`save`; ``mmap`` maps its large files
    /// (milliseconds to open, pages shared between processes) instead of reading them.
    ///
    /// Raises
    /// ------
    /// FileNotFoundError
    ///     If the folder does not exist.
    /// IndexCorruptedError
    ///     If a file is missing, truncated or damaged, or is a link, FIFO or device
    ///     (links inside an index folder are never followed).
    /// IndexVersionError
    ///     If the index was written in another format version.
    /// MemoryError
    ///     If ``mmap=False`` and a file does not fit in memory.
    #[staticmethod]
    #[pyo3(signature = (path, *, mmap = true))]
    fn load(py: Python<'_>, path: PathBuf, mmap: bool) -> PyResult<Self> {
        let (index, meta) = detached(py, None, || {
            let meta = store::read_meta(&path)?;
            Ok((store::load(&path, mmap)?, meta))
        })?;
        Ok(PyIndex::new(index, meta.source))
    }

    /// Saves into the folder ``path``, crash-safely; replaces only an existing
    /// rserini index.
    ///
    /// Raises
    /// ------
    /// FileExistsError
    ///     If ``path`` is a non-empty folder that is not an rserini index (its
    ///     ``meta.json``, if any, is not an index's); nothing in it is touched.
    /// IndexLockedError
    ///     If another writer holds the folder.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        if self.pending.lock().expect("not poisoned").lock.is_some() {
            return Err(CoreError(Error::Query(
                "this index has queued changes for its folder: commit() or rollback() them before save()"
                    .into(),
            ))
            .into());
        }
        let index = self.snapshot();
        let source = self.source.clone();
        let saved = detached(py, None, || store::save(&index, &path, source))?;
        self.replace(saved);
        Ok(())
    }

    /// Queues documents to add at the next :meth:`commit` (takes the folder's
    /// writer lock when the index lives in a folder).
    ///
    /// With ``duplicates="keep"``, a docid already in the index (or given twice) is
    /// indexed again, as Lucene's ``addDocument`` does: every copy is searched and
    /// ranked on its own, copies with equal scores in the order they were added;
    /// :meth:`doc`, :meth:`contents`, :meth:`explain` and ``in`` read the first copy;
    /// :meth:`delete` deletes every copy. One commit's additions share one policy
    /// (a :class:`QueryError` otherwise).
    ///
    /// Raises
    /// ------
    /// IndexLockedError
    ///     If another writer holds the folder, or this process was forked from the
    ///     process that took the lock (a child never commits its parent's changes).
    #[pyo3(signature = (docs, *, duplicates = "error"))]
    fn add(&self, py: Python<'_>, docs: &Bound<'_, PyAny>, duplicates: &str) -> PyResult<()> {
        let duplicates = Duplicates::parse(duplicates).map_err(CoreError)?;
        let dumps = json_dumps(py)?;
        let mut new = Vec::new();
        for (position, item) in docs.try_iter()?.enumerate() {
            new.push(extract_doc(&item?, position, &dumps)?);
        }
        self.queue(new, duplicates)
    }

    /// Queues the documents of JSONL files (read as by :meth:`from_jsonl`);
    /// returns how many.
    #[pyo3(signature = (path, *, duplicates = "error", max_line_bytes = corpus::DEFAULT_MAX_LINE_BYTES))]
    #[pyo3(text_signature = "($self, path, *, duplicates='error', max_line_bytes=67108864)")]
    fn add_jsonl(
        &self,
        py: Python<'_>,
        path: PathBuf,
        duplicates: &str,
        max_line_bytes: usize,
    ) -> PyResult<usize> {
        let duplicates = Duplicates::parse(duplicates).map_err(CoreError)?;
        let mut docs = Vec::new();
        detached(py, None, || {
            corpus::read_documents(&path, true, max_line_bytes, |batch| {
                docs.extend(batch);
                Ok(())
            })
        })?;
        let count = docs.len();
        self.queue(docs, duplicates)?;
        Ok(count)
    }

    /// Queues documents to delete at the next :meth:`commit`; a docid with several
    /// copies loses them all, as Lucene's delete-by-term.
    ///
    /// Raises
    /// ------
    /// UnknownDocidError
    ///     For a docid that is neither in the index nor queued.
    fn delete(&self, docids: &Bound<'_, PyAny>) -> PyResult<()> {
        let docids: Vec<String> = if let Ok(one) = docids.cast::<PyString>() {
            vec![one.to_str()?.to_owned()]
        } else {
            docids.extract()?
        };
        let mut pending = self.pending.lock().expect("not poisoned");
        self.take_lock(&mut pending)?;
        let index = self.snapshot();
        for docid in &docids {
            let queued = pending.adds.iter().any(|d| &d.docid == docid);
            if !queued {
                index.doc(docid).map_err(CoreError)?;
            }
        }
        for docid in docids {
            if pending.duplicates == Duplicates::Keep {
                // Lucene's delete-by-term: every copy, queued or indexed.
                pending.adds.retain(|d| d.docid != docid);
                if index.doc(&docid).is_ok() {
                    pending.deletes.push(docid);
                }
                continue;
            }
            match pending.adds.iter().position(|d| d.docid == docid) {
                Some(at) => {
                    pending.adds.remove(at);
                }
                None => pending.deletes.push(docid),
            }
        }
        Ok(())
    }

    /// Applies the queued changes (deletions, then additions as a new segment,
    /// then merges) on top of the latest saved state, saves them crash-safely if
    /// the index lives in a folder, and releases the writer lock. A failed
    /// commit discards the queued changes.
    #[pyo3(signature = (*, threads = None))]
    fn commit(&self, py: Python<'_>, threads: Option<Threads>) -> PyResult<()> {
        let mut pending = self.pending.lock().expect("not poisoned");
        if !pending.adds.is_empty() || !pending.deletes.is_empty() {
            // Changes queued before the index was saved need the lock now.
            self.take_lock(&mut pending)?;
        }
        let index = self.snapshot();
        let adds = std::mem::take(&mut pending.adds);
        let deletes = std::mem::take(&mut pending.deletes);
        let duplicates = std::mem::take(&mut pending.duplicates);
        let source = self.source.clone();
        let store = self.store;
        let lock = pending.lock.as_ref();
        let result = detached(py, threads.map(|t| t.0), || {
            let latest = store::latest(&index, true)?;
            let base = latest.as_ref().unwrap_or(&index);
            if adds.is_empty() && deletes.is_empty() {
                return Ok(latest);
            }
            // Documents another writer deleted meanwhile need no deleting.
            let deletes: Vec<String> = deletes
                .into_iter()
                .filter(|d| base.doc(d).is_ok())
                .collect();
            let next = base.with_changes_as(adds, &deletes, store, duplicates)?;
            match (base.dir(), lock) {
                (Some(dir), Some(lock)) => store::save_locked(&next, dir, source, lock).map(Some),
                _ => Ok(Some(next)),
            }
        });
        pending.lock = None;
        if let Some(next) = result? {
            self.replace(next);
        }
        Ok(())
    }

    /// Discards the queued changes and releases the writer lock.
    fn rollback(&self) {
        let mut pending = self.pending.lock().expect("not poisoned");
        *pending = Pending::default();
    }

    /// Merges all segments into one, dropping deleted documents.
    fn optimize(&self, py: Python<'_>) -> PyResult<()> {
        let mut pending = self.pending.lock().expect("not poisoned");
        self.take_lock(&mut pending)?;
        let index = self.snapshot();
        let source = self.source.clone();
        let lock = pending.lock.as_ref();
        let result = py.detach(|| {
            with_threads(None, || -> Result<Index, Error> {
                let latest = store::latest(&index, true)?;
                let base = latest.as_ref().unwrap_or(&index);
                let merged = base.merged()?;
                match (base.dir(), lock) {
                    (Some(dir), Some(lock)) => store::save_locked(&merged, dir, source, lock),
                    _ => Ok(merged),
                }
            })
            .and_then(|merged| merged)
        });
        if pending.adds.is_empty() && pending.deletes.is_empty() {
            pending.lock = None;
        }
        self.replace(result.map_err(CoreError)?);
        Ok(())
    }

    /// Checks every file of the saved index, including the checksums of large
    /// files that loading skips; raises :class:`IndexCorruptedError`.
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        let index = self.snapshot();
        let Some(dir) = index.dir() else {
            return Ok(());
        };
        let dir = dir.to_path_buf();
        detached(py, None, || store::verify(&dir))
    }

    /// Where the index was last saved or loaded from.
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.snapshot().dir().map(PathBuf::from)
    }

    /// Origin of the documents, if recorded.
    #[getter]
    fn source(&self) -> Option<String> {
        self.source.clone()
    }

    /// Whether changes are waiting for :meth:`commit`.
    #[getter]
    fn has_pending_changes(&self) -> bool {
        let pending = self.pending.lock().expect("not poisoned");
        !pending.adds.is_empty() || !pending.deletes.is_empty()
    }

    /// The analyzer of documents and queries.
    #[getter]
    fn analyzer(&self) -> PyAnalyzer {
        PyAnalyzer {
            inner: Arc::new(
                rserini_core::analysis::Analyzer::new(self.snapshot().analyzer().config().clone())
                    .expect("valid config"),
            ),
        }
    }

    /// Counts (live documents, terms, postings, total terms, avgdl, segments,
    /// deleted documents), sizes (postings and store bytes) and the analyzer.
    /// ``avgdl`` is the mean length over all documents (0 for an empty index);
    /// ``avgdl_lucene`` and ``avgdl_exact`` are the means BM25 scores with under
    /// ``length="lucene"`` (documents with at least one indexed term, as Lucene)
    /// and ``length="exact"`` (every document).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let index = self.snapshot();
        let s = index.stats();
        let d = PyDict::new(py);
        d.set_item("num_docs", s.num_docs)?;
        d.set_item("num_nonempty_docs", s.num_nonempty_docs)?;
        d.set_item("num_terms", s.num_terms)?;
        d.set_item("num_postings", s.num_postings)?;
        d.set_item("total_terms", s.total_terms)?;
        let avgdl = if s.num_docs == 0 {
            0.0
        } else {
            s.total_terms as f64 / s.num_docs as f64
        };
        d.set_item("avgdl", avgdl)?;
        // The mean lengths the scorers use: Lucene's counts only documents
        // with at least one indexed term.
        for (name, mode) in [
            ("avgdl_lucene", LengthMode::Lucene),
            ("avgdl_exact", LengthMode::Exact),
        ] {
            d.set_item(name, index.collection_stats(mode).avgdl())?;
        }
        d.set_item("postings_bytes", s.postings_bytes)?;
        d.set_item("store_bytes", s.store_bytes)?;
        d.set_item("num_segments", s.num_segments)?;
        d.set_item("num_deleted", s.num_deleted)?;
        d.set_item("analyzer", config_dict(py, index.analyzer().config())?)?;
        Ok(d)
    }

    fn __len__(&self) -> usize {
        self.snapshot().len()
    }

    fn __contains__(&self, docid: &str) -> bool {
        self.snapshot().doc(docid).is_ok()
    }

    fn __repr__(&self) -> String {
        let index = self.snapshot();
        let s = index.stats();
        format!(
            "Index(docs={}, terms={}, segments={}, analyzer={:?})",
            s.num_docs,
            s.num_terms,
            s.num_segments,
            index.analyzer().config().preset_name().unwrap_or("custom")
        )
    }

    /// A saved index pickles as its path; an in-memory one as its files' bytes.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        if let Some(path) = slf.get().path() {
            return Ok((slf.get_type().getattr("load")?, PyTuple::new(py, [path])?));
        }
        let index = slf.get().snapshot();
        let source = slf.get().source.clone();
        let files = detached(py, None, || {
            let scratch = scratch_dir()?;
            let saved = store::save(&index, scratch.path(), source.clone());
            saved.and_then(|_| read_folder(scratch.path()))
        })?;
        let dict = PyDict::new(py);
        for (name, bytes) in files {
            dict.set_item(name, PyBytes::new(py, &bytes))?;
        }
        let from_files = py.import("rserini._core")?.getattr("_index_from_files")?;
        Ok((
            from_files,
            PyTuple::new(
                py,
                [
                    dict.into_any(),
                    slf.get().source.clone().into_pyobject(py)?.into_any(),
                ],
            )?,
        ))
    }

    /// The original fields of a stored document (its JSON object, or
    /// ``{"id", "contents"}`` for a pair).
    ///
    /// Raises
    /// ------
    /// UnknownDocidError
    ///     For a docid not in the index.
    /// QueryError
    ///     If the index was built with ``store=False``.
    fn doc<'py>(&self, py: Python<'py>, docid: &str) -> PyResult<Bound<'py, PyAny>> {
        let stored = self.snapshot().stored(docid).map_err(CoreError)?;
        match stored.raw {
            // Python's own reader gives back exactly what `json.dumps` or the file held.
            Some(raw) => py.import("json")?.call_method1("loads", (raw,)),
            None => {
                let d = PyDict::new(py);
                d.set_item("id", docid)?;
                d.set_item("contents", stored.contents)?;
                Ok(d.into_any())
            }
        }
    }

    /// The indexed text of a stored document.
    fn contents(&self, docid: &str) -> PyResult<String> {
        Ok(self.snapshot().stored(docid).map_err(CoreError)?.contents)
    }

    /// Maps internal ids (1-D or 2-D, ``-1`` skipped) to docids. The ids array of
    /// :meth:`batch_search` (or a view of it) is read in the snapshot that produced
    /// it, even after a commit; other ids (lists, copies) in the current one.
    fn docids<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let index = match snapshot_ids::snapshot_of(ids)? {
            Some(bound) => bound,
            None => self.snapshot(),
        };
        let np = py.import("numpy")?;
        let array = np.call_method1("asarray", (ids, "int64"))?;
        let array = array.cast::<numpy::PyArrayDyn<i64>>()?;
        let read = array.readonly();
        let shape = read.shape().to_vec();
        let view = read.as_array();
        let row = |values: &mut dyn Iterator<Item = &i64>| -> PyResult<Bound<'py, PyList>> {
            let unknown =
                |i: i64| PyValueError::new_err(format!("internal id {i} is not in this index"));
            let ids = values
                .filter(|&&i| i != -1)
                .map(|&i| u32::try_from(i).map_err(|_| unknown(i)))
                .collect::<PyResult<Vec<u32>>>()?;
            let names = self.docids.get(py, &index, &ids);
            let names = names
                .into_iter()
                .zip(&ids)
                .map(|(name, &i)| name.ok_or_else(|| unknown(i64::from(i))))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, names)
        };
        match shape.len() {
            1 => row(&mut view.iter()),
            2 => {
                let rows = PyList::empty(py);
                for r in view.outer_iter() {
                    rows.append(row(&mut r.iter())?)?;
                }
                Ok(rows)
            }
            n => Err(PyValueError::new_err(format!(
                "ids must be 1- or 2-dimensional, got {n} dimensions"
            ))),
        }
    }

    /// The ``k`` best documents sharing a term with ``query``: score
    /// descending, then docid ascending.
    ///
    /// Parameters
    /// ----------
    /// query
    ///     The query text, analyzed as the documents were.
    /// k
    ///     The number of hits (any positive number: 1000 is as cheap per hit as 10).
    /// model
    ///     ``"bm25"``, ``"tfidf"`` (cosine of log-tf, smoothed-idf vectors) or ``"qld"``
    ///     (query likelihood with Dirichlet smoothing, as Lucene's
    ///     ``LMDirichletSimilarity``: Pyserini's ``set_qld``; scored exhaustively).
    /// variant
    ///     The BM25 variant: ``"lucene"`` (Pyserini's), ``"robertson"``, ``"atire"``,
    ///     ``"bm25l"`` or ``"bm25+"``.
    /// k1, b
    ///     BM25's term-frequency saturation (``k1 >= 0``) and length normalisation
    ///     (``0 <= b <= 1``); 0.9 and 0.4 are Pyserini's defaults.
    /// length
    ///     ``"lucene"``: Lucene's one-byte document-length norm and statistics, as
    ///     Pyserini; ``"exact"``: exact token counts.
    /// delta
    ///     The delta of ``bm25l`` (default 0.5) and ``bm25+`` (default 1.0).
    /// mu
    ///     The Dirichlet prior of ``"qld"`` (Pyserini's default 1000).
    /// algorithm
    ///     How the top k is found: ``"exhaustive"`` scoring, exact ``"maxscore"`` or
    ///     block-max WAND (``"bmw"``) pruning; every choice returns the same hits,
    ///     ``"auto"`` picks the fastest.
    ///
    /// Returns
    /// -------
    /// list[Hit]
    ///     At most ``k`` hits, best first (fewer when fewer documents match).
    ///
    /// Raises
    /// ------
    /// QueryError
    ///     For an empty query, ``k`` outside [1, 2**63 - 1], ``k1`` or ``delta``
    ///     negative or not finite in float32, ``b`` outside [0, 1], or ``mu``
    ///     negative or not finite.
    /// TypeError
    ///     For a ``k`` that is not an int.
    #[pyo3(signature = (query, k = Hits(10), *, model = "bm25", variant = "lucene", k1 = 0.9, b = 0.4, length = "lucene", delta = None, mu = 1000.0, algorithm = "auto"), text_signature = "($self, query, k=10, *, model=\"bm25\", variant=\"lucene\", k1=0.9, b=0.4, length=\"lucene\", delta=None, mu=1000.0, algorithm=\"auto\")")]
    #[allow(clippy::too_many_arguments)]
    fn search<'py>(
        &self,
        py: Python<'py>,
        query: &Bound<'py, PyAny>,
        k: Hits,
        model: &str,
        variant: &str,
        k1: f64,
        b: f64,
        length: &str,
        delta: Option<f64>,
        mu: f64,
        algorithm: &str,
    ) -> PyResult<Bound<'py, PyList>> {
        let model = model_from(model, variant, k1, b, length, delta, mu).map_err(CoreError)?;
        let (index, docs) = self.ranked(py, query, k, &model, algorithm)?;
        hits(py, &index, &self.docids, &docs)
    }

    /// ``search`` as ``(docid, score)`` tuples, best first, without ``Hit``
    /// objects: the cheapest way to a deep ranking (evaluation, fusion).
    /// Parameters and errors as ``search``.
    #[pyo3(signature = (query, k = Hits(10), *, model = "bm25", variant = "lucene", k1 = 0.9, b = 0.4, length = "lucene", delta = None, mu = 1000.0, algorithm = "auto"), text_signature = "($self, query, k=10, *, model=\"bm25\", variant=\"lucene\", k1=0.9, b=0.4, length=\"lucene\", delta=None, mu=1000.0, algorithm=\"auto\")")]
    #[allow(clippy::too_many_arguments)]
    fn search_pairs<'py>(
        &self,
        py: Python<'py>,
        query: &Bound<'py, PyAny>,
        k: Hits,
        model: &str,
        variant: &str,
        k1: f64,
        b: f64,
        length: &str,
        delta: Option<f64>,
        mu: f64,
        algorithm: &str,
    ) -> PyResult<Bound<'py, PyList>> {
        let model = model_from(model, variant, k1, b, length, delta, mu).map_err(CoreError)?;
        let (index, docs) = self.ranked(py, query, k, &model, algorithm)?;
        pairs(py, &index, &self.docids, &docs)
    }

    /// Runs all queries in parallel without the GIL; returns ``(ids, scores)``,
    /// two arrays of shape ``(len(queries), min(k, N))`` for an index of ``N``
    /// documents: int32 internal ids, ``-1`` padding rows with fewer hits, and
    /// float32 scores, ``-inf`` padding. :meth:`docids` maps the ids to docids, in the
    /// snapshot searched even after a commit; an empty query gives a row of padding.
    /// Other parameters and errors as ``search``; ``threads`` defaults to all cores.
    #[pyo3(signature = (queries, k = Hits(1000), *, threads = None, model = "bm25", variant = "lucene", k1 = 0.9, b = 0.4, length = "lucene", delta = None, mu = 1000.0, algorithm = "auto"), text_signature = "($self, queries, k=1000, *, threads=None, model=\"bm25\", variant=\"lucene\", k1=0.9, b=0.4, length=\"lucene\", delta=None, mu=1000.0, algorithm=\"auto\")")]
    #[allow(clippy::too_many_arguments)]
    fn batch_search<'py>(
        &self,
        py: Python<'py>,
        queries: &Bound<'py, PyAny>,
        k: Hits,
        threads: Option<Threads>,
        model: &str,
        variant: &str,
        k1: f64,
        b: f64,
        length: &str,
        delta: Option<f64>,
        mu: f64,
        algorithm: &str,
    ) -> PyResult<IdsAndScores<'py>> {
        let owned = query_list(queries)?;
        let index = self.snapshot();
        // Columns beyond the number of documents could only hold padding.
        let k = k.0.min(index.len());
        let model = model_from(model, variant, k1, b, length, delta, mu).map_err(CoreError)?;
        let algorithm = Algorithm::parse(algorithm).map_err(CoreError)?;
        let (ids, scores) = py
            .detach(|| {
                with_threads(threads.map(|t| t.0), || {
                    let results = search::batch_search(&index, &owned, k, &model, algorithm);
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
        Ok((
            snapshot_ids::bound_array(py, ids, index)?,
            scores.into_pyarray(py),
        ))
    }

    /// ``batch_search`` as ``(docid, score)`` tuples: one list per query, in
    /// input order, each as ``search_pairs`` gives it (``[]`` for an empty query).
    /// The calling thread makes the tuples of each ranking as soon as it is found,
    /// and searches too (without the GIL) while none is waiting.
    #[pyo3(signature = (queries, k = Hits(1000), *, threads = None, model = "bm25", variant = "lucene", k1 = 0.9, b = 0.4, length = "lucene", delta = None, mu = 1000.0, algorithm = "auto"), text_signature = "($self, queries, k=1000, *, threads=None, model=\"bm25\", variant=\"lucene\", k1=0.9, b=0.4, length=\"lucene\", delta=None, mu=1000.0, algorithm=\"auto\")")]
    #[allow(clippy::too_many_arguments)]
    fn batch_search_pairs<'py>(
        &self,
        py: Python<'py>,
        queries: &Bound<'py, PyAny>,
        k: Hits,
        threads: Option<Threads>,
        model: &str,
        variant: &str,
        k1: f64,
        b: f64,
        length: &str,
        delta: Option<f64>,
        mu: f64,
        algorithm: &str,
    ) -> PyResult<Bound<'py, PyList>> {
        let owned = query_list(queries)?;
        let k = k.0;
        let model = model_from(model, variant, k1, b, length, delta, mu).map_err(CoreError)?;
        let algorithm = Algorithm::parse(algorithm).map_err(CoreError)?;
        let index = self.snapshot();
        let out = PyList::new(py, (0..owned.len()).map(|_| py.None()))?;
        search_each(
            py,
            threads.map(|t| t.0),
            owned.len(),
            |i| search::search_with(&index, &owned[i], k, &model, algorithm),
            |i, docs| out.set_item(i, pairs(py, &index, &self.docids, &docs)?),
        )?;
        Ok(out)
    }

    /// Breaks the score of ``docid`` for ``query`` down by term: each term's
    /// query and document frequencies, idf and share, with the formula; ``str()``
    /// prints it. Parameters as ``search``; an unknown docid raises
    /// ``UnknownDocidError``.
    #[pyo3(signature = (query, docid, *, model = "bm25", variant = "lucene", k1 = 0.9, b = 0.4, length = "lucene", delta = None, mu = 1000.0))]
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
        mu: f64,
    ) -> PyResult<PyExplanation> {
        let query = query_text(query)?;
        let model = model_from(model, variant, k1, b, length, delta, mu).map_err(CoreError)?;
        let e = search::explain(&self.snapshot(), &query, docid, &model).map_err(CoreError)?;
        explanation(py, e)
    }

    /// RM3 feedback as Anserini's reranker (Pyserini's ``set_rm3``), for many
    /// queries in parallel: a Lucene BM25 (``k1``, ``b``) first stage, then the
    /// expanded query; returns ``(ids, scores)`` as ``batch_search``.
    ///
    /// Raises
    /// ------
    /// QueryError
    ///     For ``k <= 0``, ``fb_terms`` or ``fb_docs`` below 1,
    ///     ``original_query_weight`` outside [0, 1], or an index without a
    ///     document store (rebuild it with ``store=True``).
    #[pyo3(signature = (queries, k = Hits(1000), *, threads = None, k1 = 0.9, b = 0.4, fb_terms = 10, fb_docs = 10, original_query_weight = 0.5, filter_terms = true), text_signature = "($self, queries, k=1000, *, threads=None, k1=0.9, b=0.4, fb_terms=10, fb_docs=10, original_query_weight=0.5, filter_terms=True)")]
    #[allow(clippy::too_many_arguments)]
    fn batch_search_rm3<'py>(
        &self,
        py: Python<'py>,
        queries: &Bound<'py, PyAny>,
        k: Hits,
        threads: Option<Threads>,
        k1: f64,
        b: f64,
        fb_terms: i64,
        fb_docs: i64,
        original_query_weight: f64,
        filter_terms: bool,
    ) -> PyResult<IdsAndScores<'py>> {
        let owned = query_list(queries)?;
        let index = self.snapshot();
        let k = k.0.min(index.len().max(1));
        let bm25 = lucene_bm25(k1, b)?;
        let params = Rm3Params::new(fb_terms, fb_docs, original_query_weight, filter_terms)
            .map_err(CoreError)?;
        feedback_rows(py, &owned, k, threads, &index, |q| {
            rm3::search(&index, q, k, &bm25, &params, Algorithm::Auto)
        })
    }

    /// Rocchio feedback as Anserini's reranker (Pyserini's ``set_rocchio``), for
    /// many queries in parallel: a Lucene BM25 (``k1``, ``b``) first stage to depth
    /// ``k``, then the new query; returns ``(ids, scores)`` as ``batch_search``.
    ///
    /// Raises
    /// ------
    /// QueryError
    ///     For ``k <= 0``, a count below 1, a weight outside [0, 1], or an index
    ///     without a document store (rebuild it with ``store=True``).
    #[pyo3(signature = (queries, k = Hits(1000), *, threads = None, k1 = 0.9, b = 0.4, top_fb_terms = 10, top_fb_docs = 10, bottom_fb_terms = 10, bottom_fb_docs = 10, alpha = 1.0, beta = 0.75, gamma = 0.0, use_negative = false), text_signature = "($self, queries, k=1000, *, threads=None, k1=0.9, b=0.4, top_fb_terms=10, top_fb_docs=10, bottom_fb_terms=10, bottom_fb_docs=10, alpha=1.0, beta=0.75, gamma=0.0, use_negative=False)")]
    #[allow(clippy::too_many_arguments)]
    fn batch_search_rocchio<'py>(
        &self,
        py: Python<'py>,
        queries: &Bound<'py, PyAny>,
        k: Hits,
        threads: Option<Threads>,
        k1: f64,
        b: f64,
        top_fb_terms: i64,
        top_fb_docs: i64,
        bottom_fb_terms: i64,
        bottom_fb_docs: i64,
        alpha: f64,
        beta: f64,
        gamma: f64,
        use_negative: bool,
    ) -> PyResult<IdsAndScores<'py>> {
        let owned = query_list(queries)?;
        let index = self.snapshot();
        let k = k.0.min(index.len().max(1));
        let bm25 = lucene_bm25(k1, b)?;
        let params = RocchioParams::new(
            [top_fb_terms, top_fb_docs, bottom_fb_terms, bottom_fb_docs],
            [alpha, beta, gamma],
            use_negative,
        )
        .map_err(CoreError)?;
        feedback_rows(py, &owned, k, threads, &index, |q| {
            rocchio::search(&index, q, k, &bm25, &params, Algorithm::Auto)
        })
    }

    /// The Rocchio query of ``query`` (first stage to depth ``k``) as ``(term,
    /// weight)`` pairs, terms in ascending order. Raises as ``batch_search_rocchio``.
    #[pyo3(signature = (query, k = Hits(1000), *, k1 = 0.9, b = 0.4, top_fb_terms = 10, top_fb_docs = 10, bottom_fb_terms = 10, bottom_fb_docs = 10, alpha = 1.0, beta = 0.75, gamma = 0.0, use_negative = false), text_signature = "($self, query, k=1000, *, k1=0.9, b=0.4, top_fb_terms=10, top_fb_docs=10, bottom_fb_terms=10, bottom_fb_docs=10, alpha=1.0, beta=0.75, gamma=0.0, use_negative=False)")]
    #[allow(clippy::too_many_arguments)]
    fn rocchio_query(
        &self,
        py: Python<'_>,
        query: &str,
        k: Hits,
        k1: f64,
        b: f64,
        top_fb_terms: i64,
        top_fb_docs: i64,
        bottom_fb_terms: i64,
        bottom_fb_docs: i64,
        alpha: f64,
        beta: f64,
        gamma: f64,
        use_negative: bool,
    ) -> PyResult<Vec<(String, f32)>> {
        let index = self.snapshot();
        let k = k.0;
        let bm25 = lucene_bm25(k1, b)?;
        let params = RocchioParams::new(
            [top_fb_terms, top_fb_docs, bottom_fb_terms, bottom_fb_docs],
            [alpha, beta, gamma],
            use_negative,
        )
        .map_err(CoreError)?;
        Ok(py
            .detach(|| rocchio::expanded_query(&index, query, k, &bm25, &params, Algorithm::Auto))
            .map_err(CoreError)?)
    }

    /// The RM3-expanded query of ``query`` as ``(term, weight)`` pairs, terms in
    /// ascending order: the boosts of the second-stage BM25 query. Raises as
    /// ``batch_search_rm3``.
    #[pyo3(signature = (query, *, k1 = 0.9, b = 0.4, fb_terms = 10, fb_docs = 10, original_query_weight = 0.5, filter_terms = true))]
    #[allow(clippy::too_many_arguments)]
    fn rm3_query(
        &self,
        py: Python<'_>,
        query: &str,
        k1: f64,
        b: f64,
        fb_terms: i64,
        fb_docs: i64,
        original_query_weight: f64,
        filter_terms: bool,
    ) -> PyResult<Vec<(String, f32)>> {
        let index = self.snapshot();
        let bm25 = lucene_bm25(k1, b)?;
        let params = Rm3Params::new(fb_terms, fb_docs, original_query_weight, filter_terms)
            .map_err(CoreError)?;
        Ok(py
            .detach(|| rm3::expanded_query(&index, query, &bm25, &params, Algorithm::Auto))
            .map_err(CoreError)?)
    }

    /// ``(term, query frequency, known to the index)`` for each distinct query term.
    fn query_terms(&self, query: &str) -> Vec<(String, u32, bool)> {
        search::query_terms(&self.snapshot(), query)
            .into_iter()
            .map(|t| (t.term, t.query_tf, t.df > 0))
            .collect()
    }

    /// ``(term, query frequency, document frequency)`` for each distinct analyzed
    /// term of ``query``, in first-occurrence order; df counts live documents. With
    /// ``stats()``'s ``num_docs`` and ``avgdl``, enough to score any text span with the
    /// index's BM25 statistics.
    fn term_stats(&self, query: &str) -> Vec<(String, u32, u64)> {
        search::query_terms(&self.snapshot(), query)
            .into_iter()
            .map(|t| (t.term, t.query_tf, t.df))
            .collect()
    }
}

impl PyIndex {
    /// The `k` best documents for `query` in the current snapshot, found
    /// without the GIL.
    fn ranked(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        k: Hits,
        model: &Model,
        algorithm: &str,
    ) -> PyResult<(Arc<Index>, Vec<search::ScoredDoc>)> {
        let query = nonempty_query(query_text(query)?)?;
        let k = k.0;
        let algorithm = Algorithm::parse(algorithm).map_err(CoreError)?;
        let index = self.snapshot();
        let docs = py.detach(|| search::search_with(&index, &query, k, model, algorithm));
        Ok((index, docs))
    }

    /// Queues documents to add at the next `commit`, taking the writer lock.
    fn queue(&self, docs: Vec<Doc>, duplicates: Duplicates) -> PyResult<()> {
        let mut pending = self.pending.lock().expect("not poisoned");
        if !pending.adds.is_empty() && pending.duplicates != duplicates {
            return Err(CoreError(Error::Query(format!(
                "the queued documents were added with duplicates={:?}: commit() them before adding with duplicates={:?}",
                policy_name(pending.duplicates),
                policy_name(duplicates)
            )))
            .into());
        }
        self.take_lock(&mut pending)?;
        pending.adds.extend(docs);
        pending.duplicates = duplicates;
        Ok(())
    }

    /// Takes the folder's writer lock for the pending changes, if the index
    /// lives in a folder and the lock is not held yet (a lock inherited
    /// through `fork()` is refused, not used).
    /// Once locked, the index moves to the latest saved state, since
    /// another writer may have committed after this object was loaded.
    fn take_lock(&self, pending: &mut Pending) -> PyResult<()> {
        if let Some(lock) = &pending.lock {
            lock.check().map_err(CoreError)?;
        }
        let index = self.snapshot();
        if pending.lock.is_none()
            && let Some(dir) = index.dir()
        {
            let lock = store::lock(dir).map_err(CoreError)?;
            if let Some(latest) = store::latest(&index, true).map_err(CoreError)? {
                self.replace(latest);
            }
            pending.lock = Some(lock);
        }
        Ok(())
    }
}

/// The Python name of a duplicates policy.
fn policy_name(duplicates: Duplicates) -> &'static str {
    match duplicates {
        Duplicates::Error => "error",
        Duplicates::Keep => "keep",
    }
}

/// The texts of a list of queries.
fn query_list(queries: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if queries.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "queries must be a list of str, not a single str; use search() for one query",
        ));
    }
    let mut owned = Vec::new();
    for q in queries.try_iter()? {
        owned.push(query_text(&q?)?);
    }
    Ok(owned)
}

/// A fresh scratch folder under the system's temporary folder, created
/// exclusively and private to this user (a predictable name there could be
/// planted by another user), removed on drop.
fn scratch_dir() -> Result<tempfile::TempDir, Error> {
    tempfile::Builder::new()
        .prefix("rserini-pickle-")
        .tempdir()
        .map_err(|e| Error::io(std::env::temp_dir(), e))
}

/// Every file of a folder, by name.
fn read_folder(dir: &std::path::Path) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let bytes = std::fs::read(entry.path()).map_err(|e| Error::io(entry.path(), e))?;
        out.push((name, bytes));
    }
    Ok(out)
}

/// Rebuilds an in-memory index from its pickled files.
#[pyfunction]
#[pyo3(signature = (files, source = None))]
pub fn _index_from_files(
    py: Python<'_>,
    files: std::collections::HashMap<String, Vec<u8>>,
    source: Option<String>,
) -> PyResult<PyIndex> {
    let index = detached(py, None, || {
        // The folder is removed when `scratch` drops.
        let scratch = scratch_dir()?;
        let dir = scratch.path();
        for (name, bytes) in &files {
            if name.contains(['/', '\\']) || name.starts_with('.') {
                return Err(Error::corrupted(
                    dir,
                    format!("bad file name {name:?} in a pickle"),
                ));
            }
            std::fs::write(dir.join(name), bytes).map_err(|e| Error::io(dir.join(name), e))?;
        }
        store::load(dir, false)?.in_memory()
    })?;
    Ok(PyIndex::new(index, source))
}

/// Fingerprint of the files under ``root`` as :meth:`Index.from_source_tree` sees them.
#[pyfunction]
#[pyo3(signature = (root, max_file_bytes = 1_048_576))]
pub fn source_fingerprint(py: Python<'_>, root: PathBuf, max_file_bytes: u64) -> PyResult<String> {
    detached(py, None, || {
        walk::list_files(&root, max_file_bytes).map(|f| walk::fingerprint(&f))
    })
}

/// Reads a BEIR ``queries.jsonl`` or a ``qid<TAB>text`` file.
#[pyfunction]
pub fn read_queries(py: Python<'_>, path: PathBuf) -> PyResult<Vec<(String, String)>> {
    detached(py, None, || corpus::read_queries(&path))
}

/// The ``source`` recorded in a saved index.
#[pyfunction]
pub fn saved_index_source(path: PathBuf) -> PyResult<Option<String>> {
    Ok(store::read_meta(&path).map_err(CoreError)?.source)
}
