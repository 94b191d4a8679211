//! `rserini.Index`: build, save, load, update, search, explain.
//!
//! Python inputs are copied into owned Rust values first; all indexing and
//! searching then runs with the GIL released (`py.detach`), on the pools of
//! [`crate::threads`] (never rayon's global pool, which breaks after `fork()`).
//! The Python object holds the current snapshot of the index and, while
//! changes are queued, the core's [`IndexWriter`]: `add` and `delete` queue
//! changes that `commit` turns into the next snapshot (and saves, when the
//! index lives in a folder). The writer's mutex is only ever taken with the
//! GIL released, since a commit holds it for long.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use rserini_core::analysis::AnalyzerConfig;
use rserini_core::document::Doc;
use rserini_core::global_stats::GlobalStats;
use rserini_core::index::{Duplicates, Index, IndexBuilder, IndexStats};
use rserini_core::reorder::Reorder;
use rserini_core::scoring::LengthMode;
use rserini_core::search::{self, Algorithm, Request, ScoredDoc};
use rserini_core::writer::IndexWriter;
use rserini_core::{Error, corpus, store, walk};

use crate::analyzer::{PyAnalyzer, config_dict};
use crate::args::{Hits, Threads};
use crate::columns::Packed;
use crate::convert::{extract_doc, query_text};
use crate::errors::{CoreError, CoreResult};
use crate::feedback::{self, PyRm3, PyRocchio, RM3_KEYWORDS, ROCCHIO_KEYWORDS};
use crate::global_stats::PyGlobalStats;
use crate::pickle;
use crate::results::{DocidStrings, PyExplanation, explanation, hits, pairs};
use crate::scoring::{self, Keywords, PyBm25};
use crate::snapshot_ids;
use crate::threads::{self, detached};

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

/// A search call's options besides its queries and `k`, as the methods take
/// them; [`SearchArgs::request`] makes the core's request of them.
struct SearchArgs<'a, 'py> {
    /// The method's name in messages.
    method: &'a str,
    /// The loose keywords it takes besides `scoring=`.
    keywords: Keywords,
    scoring: Option<Bound<'py, PyBm25>>,
    algorithm: &'a str,
    stats: Option<Bound<'py, PyGlobalStats>>,
    feedback: Option<Bound<'py, PyAny>>,
    options: Option<Bound<'py, PyDict>>,
}

impl SearchArgs<'_, '_> {
    /// The request to depth `k`, its options checked together.
    fn request(&self, k: usize) -> PyResult<Request> {
        let model = scoring::model(
            self.method,
            self.keywords,
            self.scoring.as_ref(),
            self.options.as_ref(),
        )?;
        let request = Request::new(model, k)
            .with_algorithm(Algorithm::parse(self.algorithm).map_err(CoreError)?)
            .with_stats(self.stats.as_ref().map(|s| Arc::clone(&s.get().inner)))
            .with_feedback(feedback::from_arg(self.feedback.as_ref())?);
        request.check(None).map_err(CoreError)?;
        Ok(request)
    }
}

/// Rankings as `batch_search` returns them: `(ids, scores)`, `k` columns,
/// padded with `-1` and `-inf`.
fn columns(rankings: &[Vec<ScoredDoc>], k: usize) -> (Array2<i32>, Array2<f32>) {
    let n = rankings.len();
    let mut ids = Array2::from_elem((n, k), -1i32);
    let mut scores = Array2::from_elem((n, k), f32::NEG_INFINITY);
    for (row, docs) in rankings.iter().enumerate() {
        for (col, d) in docs.iter().take(k).enumerate() {
            ids[[row, col]] = d.doc as i32;
            scores[[row, col]] = d.score;
        }
    }
    (ids, scores)
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

/// An immutable inverted index, safe to share between threads.
///
/// Build it with :meth:`build`, :meth:`from_jsonl` or :meth:`from_source_tree`,
/// or open a saved one with :meth:`load`. All scoring parameters are chosen
/// per query. A saved index pickles as its path, an in-memory one as its bytes.
#[pyclass(name = "Index", module = "rserini._core", frozen)]
pub struct PyIndex {
    current: RwLock<Arc<Index>>,
    /// The open transaction: queued changes, and the folder's lock.
    writer: Mutex<Option<IndexWriter>>,
    source: Option<String>,
    /// Whether documents added later are stored.
    store: bool,
    docids: DocidStrings,
}

impl PyIndex {
    pub(crate) fn new(index: Index, source: Option<String>) -> Self {
        let store = index.has_store();
        PyIndex {
            current: RwLock::new(Arc::new(index)),
            writer: Mutex::new(None),
            source,
            store,
            docids: DocidStrings::default(),
        }
    }

    /// The current snapshot.
    pub(crate) fn snapshot(&self) -> Arc<Index> {
        self.current.read().expect("not poisoned").clone()
    }

    fn replace(&self, index: Arc<Index>) {
        *self.current.write().expect("not poisoned") = index;
    }

    /// Runs `f` on the writer without the GIL, first opening one on the
    /// current snapshot if there is none (which takes the folder's lock when
    /// the index lives in a folder, and moves to the latest saved state).
    fn write<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut IndexWriter) -> Result<T, Error> + Send,
    ) -> PyResult<T> {
        detached(py, None, || {
            let mut slot = self.writer.lock().expect("not poisoned");
            if slot.is_none() {
                let writer = IndexWriter::new(self.snapshot())?
                    .with_store(self.store)
                    .with_source(self.source.clone());
                *slot = Some(writer);
            }
            let result = f(slot.as_mut().expect("opened above"));
            self.settle(&mut slot);
            result
        })
    }

    /// After a writer call: the snapshot follows the writer's base, and a
    /// writer left with neither changes nor the lock is closed.
    fn settle(&self, slot: &mut Option<IndexWriter>) {
        if let Some(writer) = slot {
            self.replace(Arc::clone(writer.base()));
            if !writer.has_changes() && !writer.is_locked() {
                *slot = None;
            }
        }
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
        detached(py, None, || {
            let mut slot = self.writer.lock().expect("not poisoned");
            let saved = match slot.as_mut() {
                // Queued changes move with the index to its new folder.
                Some(writer) => writer.save(&path)?,
                None => Arc::new(store::save(&self.snapshot(), &path, self.source.clone())?),
            };
            self.replace(saved);
            Ok(())
        })
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
        self.write(py, |writer| writer.add(new, duplicates))
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
        self.write(py, |writer| writer.add(docs, duplicates))?;
        Ok(count)
    }

    /// Queues documents to delete at the next :meth:`commit`; a docid with several
    /// copies loses them all, as Lucene's delete-by-term.
    ///
    /// Raises
    /// ------
    /// UnknownDocidError
    ///     For a docid that is neither in the index nor queued.
    fn delete(&self, py: Python<'_>, docids: &Bound<'_, PyAny>) -> PyResult<()> {
        let docids: Vec<String> = if let Ok(one) = docids.cast::<PyString>() {
            vec![one.to_str()?.to_owned()]
        } else {
            docids.extract()?
        };
        self.write(py, |writer| writer.delete(docids))
    }

    /// Applies the queued changes (deletions, then additions as a new segment,
    /// then merges) on top of the latest saved state, saves them crash-safely if
    /// the index lives in a folder, and releases the writer lock. A failed
    /// commit discards the queued changes.
    #[pyo3(signature = (*, threads = None))]
    fn commit(&self, py: Python<'_>, threads: Option<Threads>) -> PyResult<()> {
        detached(py, threads.map(|t| t.0), || {
            let mut slot = self.writer.lock().expect("not poisoned");
            let next = match slot.as_mut() {
                Some(writer) => {
                    let next = writer.commit();
                    self.settle(&mut slot);
                    next?
                }
                // Nothing queued: move to the latest saved state, if newer.
                None => match store::latest(&self.snapshot(), true)? {
                    Some(latest) => Arc::new(latest),
                    None => return Ok(()),
                },
            };
            self.replace(next);
            Ok(())
        })
    }

    /// Discards the queued changes and releases the writer lock.
    fn rollback(&self, py: Python<'_>) {
        py.detach(|| *self.writer.lock().expect("not poisoned") = None);
    }

    /// Merges all segments into one, dropping deleted documents.
    fn optimize(&self, py: Python<'_>) -> PyResult<()> {
        self.write(py, |writer| writer.optimize().map(drop))
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

    /// This index's current snapshot, recording ``source`` as the origin of its
    /// documents when saved (no queued changes; for a sharded build, whose shards
    /// name the corpus rather than their spill file).
    fn _with_source(&self, source: Option<String>) -> PyIndex {
        PyIndex {
            current: RwLock::new(self.snapshot()),
            writer: Mutex::new(None),
            source,
            store: self.store,
            docids: DocidStrings::default(),
        }
    }

    /// Whether changes are waiting for :meth:`commit`.
    #[getter]
    fn has_pending_changes(&self, py: Python<'_>) -> bool {
        py.detach(|| {
            let slot = self.writer.lock().expect("not poisoned");
            slot.as_ref().is_some_and(IndexWriter::has_changes)
        })
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
    /// ``avgdl_lucene`` and ``avgdl_exact`` are the mean lengths BM25 scores with
    /// under ``length="lucene"`` (the default: documents with at least one indexed
    /// term, as Lucene's ``docCount``) and ``length="exact"`` (every document); they
    /// differ when some document has no indexed term. ``avgdl`` is the mean over
    /// every live document, ``avgdl_exact``'s value (but 0 for an empty index).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let index = self.snapshot();
        let s = index.stats();
        let d = PyDict::new(py);
        d.set_item("num_docs", s.num_docs)?;
        d.set_item("num_nonempty_docs", s.num_nonempty_docs)?;
        d.set_item("num_terms", s.num_terms)?;
        d.set_item("num_postings", s.num_postings)?;
        d.set_item("total_terms", s.total_terms)?;
        d.set_item("avgdl", mean_length(&s))?;
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

    /// What ``rserini info`` prints: ``path``, ``format_version``, ``written_by``,
    /// ``generation``, ``bytes`` (of every file) and ``segments`` (``name``,
    /// ``documents``, ``deleted``) from the folder's ``meta.json``, with ``analyzer``,
    /// ``documents``, ``deleted``, ``terms``, ``postings``, ``avgdl`` (the mean length
    /// over every live document, ``stats()``'s), ``postings_bytes`` and ``store_bytes``.
    /// If another writer has committed since this snapshot, the folder's latest
    /// generation is described, as :meth:`load` would give it now.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     If the index was never saved (it has no folder to describe).
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let snapshot = self.snapshot();
        let Some(dir) = snapshot.dir().map(PathBuf::from) else {
            return Err(PyValueError::new_err(
                "this index was never saved: info() describes an index folder",
            ));
        };
        let (meta, latest) = detached(py, None, || {
            let meta = store::read_meta(&dir)?;
            let latest = match meta.generation == snapshot.generation() {
                true => None,
                false => Some(store::load(&dir, true)?),
            };
            Ok((meta, latest))
        })?;
        let index = latest.as_ref().unwrap_or(&snapshot);
        let s = index.stats();
        let d = PyDict::new(py);
        d.set_item("path", &dir)?;
        d.set_item("format_version", meta.format_version)?;
        d.set_item("written_by", format!("rserini {}", meta.rserini_version))?;
        d.set_item("generation", meta.generation)?;
        d.set_item("analyzer", config_dict(py, index.analyzer().config())?)?;
        d.set_item("documents", s.num_docs)?;
        d.set_item("deleted", s.num_deleted)?;
        d.set_item("terms", s.num_terms)?;
        d.set_item("postings", s.num_postings)?;
        d.set_item("avgdl", mean_length(&s))?;
        let bytes: u64 = meta
            .segments
            .iter()
            .flat_map(|g| &g.files)
            .map(|f| f.bytes)
            .sum();
        d.set_item("bytes", bytes)?;
        d.set_item("postings_bytes", s.postings_bytes)?;
        d.set_item("store_bytes", s.store_bytes)?;
        let segments = PyList::empty(py);
        for g in &meta.segments {
            let seg = PyDict::new(py);
            seg.set_item("name", &g.name)?;
            seg.set_item("documents", g.num_docs)?;
            seg.set_item("deleted", g.num_deleted)?;
            segments.append(seg)?;
        }
        d.set_item("segments", segments)?;
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
        let this = slf.get();
        match this.path() {
            Some(path) => Ok((
                slf.get_type().getattr("load")?,
                PyTuple::new(slf.py(), [path])?,
            )),
            None => pickle::in_memory(slf.py(), &this.snapshot(), this.source.clone()),
        }
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
    /// scoring
    ///     A :class:`Bm25`: BM25's parameters as one value. Give it or the keywords
    ///     below, not both (a ``TypeError``).
    /// algorithm
    ///     How the top k is found: ``"exhaustive"`` scoring, exact ``"maxscore"`` or
    ///     block-max WAND (``"bmw"``) pruning; every choice returns the same hits,
    ///     ``"auto"`` picks the fastest.
    /// model
    ///     ``"bm25"``, ``"tfidf"`` (cosine of log-tf, smoothed-idf vectors) or ``"qld"``
    ///     (query likelihood with Dirichlet smoothing, as Lucene's
    ///     ``LMDirichletSimilarity``: Pyserini's ``set_qld``; scored exhaustively).
    /// variant, k1, b, length, delta
    ///     BM25's parameters as keywords, each as :class:`Bm25` takes it (``k1=1.2``
    ///     is ``scoring=Bm25(k1=1.2)``); ``k1`` and ``b`` default to
    ///     :data:`DEFAULT_K1` and :data:`DEFAULT_B` (0.9 and 0.4, Pyserini's).
    /// mu
    ///     The Dirichlet prior of ``"qld"`` (:data:`DEFAULT_MU`, Pyserini's 1000).
    /// stats
    ///     A :class:`GlobalStats` to score with instead of the index's own
    ///     statistics: those of a whole collection this index is a shard of
    ///     (``GlobalStats.sum`` of every shard's :meth:`global_stats`), from which
    ///     N, avgdl and idf are derived as one index derives its own; the shards'
    ///     hits, merged by :func:`merge_topk`, are then the single index's, bit for
    ///     bit. It must hold the df of every analyzed query term, and for
    ///     ``model="qld"`` its collection frequency (``cfs``); not with ``"tfidf"``.
    /// feedback
    ///     Pseudo-relevance feedback, an :class:`Rm3` or a :class:`Rocchio` (``None``:
    ///     none), over a Lucene BM25 first stage (``scoring`` or the keywords, with
    ///     ``variant`` and ``length`` ``"lucene"``) and the index's own statistics.
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
    ///     negative or not finite; for ``stats`` lacking a query term's df, counting
    ///     less than this index holds, or given with ``model="tfidf"`` (its document
    ///     norms need every term's global df) or, without a query term's ``cfs``,
    ///     with ``model="qld"``; for ``feedback`` with another model than Lucene's
    ///     BM25, with ``stats``, or on an index without a document store.
    /// TypeError
    ///     For a ``k`` that is not an int, an unknown keyword, both ``scoring``
    ///     and a keyword of it, or a ``feedback`` that is not a feedback value.
    #[pyo3(signature = (query, k = Hits(10), *, scoring = None, algorithm = "auto", stats = None, feedback = None, **options))]
    #[pyo3(
        text_signature = "($self, query, k=10, *, scoring=None, algorithm='auto', stats=None, feedback=None, **options)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn search<'py>(
        &self,
        py: Python<'py>,
        query: &Bound<'py, PyAny>,
        k: Hits,
        scoring: Option<Bound<'py, PyBm25>>,
        algorithm: &str,
        stats: Option<Bound<'py, PyGlobalStats>>,
        feedback: Option<Bound<'py, PyAny>>,
        options: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let args = SearchArgs {
            method: "Index.search",
            keywords: Keywords::Model,
            scoring,
            algorithm,
            stats,
            feedback,
            options,
        };
        let (index, docs) = self.ranked(py, query, args.request(k.0)?)?;
        hits(py, &index, &self.docids, &docs)
    }

    /// ``search`` as ``(docid, score)`` tuples, best first, without ``Hit``
    /// objects: the cheapest way to a deep ranking (evaluation, fusion).
    /// Parameters and errors as ``search``.
    #[pyo3(signature = (query, k = Hits(10), *, scoring = None, algorithm = "auto", stats = None, feedback = None, **options))]
    #[pyo3(
        text_signature = "($self, query, k=10, *, scoring=None, algorithm='auto', stats=None, feedback=None, **options)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn search_pairs<'py>(
        &self,
        py: Python<'py>,
        query: &Bound<'py, PyAny>,
        k: Hits,
        scoring: Option<Bound<'py, PyBm25>>,
        algorithm: &str,
        stats: Option<Bound<'py, PyGlobalStats>>,
        feedback: Option<Bound<'py, PyAny>>,
        options: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let args = SearchArgs {
            method: "Index.search_pairs",
            keywords: Keywords::Model,
            scoring,
            algorithm,
            stats,
            feedback,
            options,
        };
        let (index, docs) = self.ranked(py, query, args.request(k.0)?)?;
        pairs(py, &index, &self.docids, &docs)
    }

    /// Runs all queries in parallel without the GIL; returns ``(ids, scores)``,
    /// two arrays of shape ``(len(queries), min(k, N))`` for an index of ``N``
    /// documents: int32 internal ids, ``-1`` padding rows with fewer hits, and
    /// float32 scores, ``-inf`` padding. :meth:`docids` maps the ids to docids, in the
    /// snapshot searched even after a commit; an empty query gives a row of padding.
    /// Other parameters and errors as ``search``; ``threads`` defaults to all cores.
    #[pyo3(signature = (queries, k = Hits(1000), *, threads = None, scoring = None, algorithm = "auto", stats = None, feedback = None, **options))]
    #[pyo3(
        text_signature = "($self, queries, k=1000, *, threads=None, scoring=None, algorithm='auto', stats=None, feedback=None, **options)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn batch_search<'py>(
        &self,
        py: Python<'py>,
        queries: &Bound<'py, PyAny>,
        k: Hits,
        threads: Option<Threads>,
        scoring: Option<Bound<'py, PyBm25>>,
        algorithm: &str,
        stats: Option<Bound<'py, PyGlobalStats>>,
        feedback: Option<Bound<'py, PyAny>>,
        options: Option<Bound<'py, PyDict>>,
    ) -> PyResult<IdsAndScores<'py>> {
        let args = SearchArgs {
            method: "Index.batch_search",
            keywords: Keywords::Model,
            scoring,
            algorithm,
            stats,
            feedback,
            options,
        };
        self.batch_arrays(py, queries, k, threads, &args)
    }

    /// ``batch_search`` as ``(docid, score)`` tuples: one list per query, in
    /// input order, each as ``search_pairs`` gives it (``[]`` for an empty query).
    /// The calling thread makes the tuples of each ranking as soon as it is found,
    /// and searches too (without the GIL) while none is waiting.
    #[pyo3(signature = (queries, k = Hits(1000), *, threads = None, scoring = None, algorithm = "auto", stats = None, feedback = None, **options))]
    #[pyo3(
        text_signature = "($self, queries, k=1000, *, threads=None, scoring=None, algorithm='auto', stats=None, feedback=None, **options)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn batch_search_pairs<'py>(
        &self,
        py: Python<'py>,
        queries: &Bound<'py, PyAny>,
        k: Hits,
        threads: Option<Threads>,
        scoring: Option<Bound<'py, PyBm25>>,
        algorithm: &str,
        stats: Option<Bound<'py, PyGlobalStats>>,
        feedback: Option<Bound<'py, PyAny>>,
        options: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let owned = query_list(queries)?;
        let args = SearchArgs {
            method: "Index.batch_search_pairs",
            keywords: Keywords::Model,
            scoring,
            algorithm,
            stats,
            feedback,
            options,
        };
        let request = args.request(k.0)?;
        let index = self.snapshot();
        let out = PyList::new(py, (0..owned.len()).map(|_| py.None()))?;
        threads::search_each(
            py,
            threads.map(|t| t.0),
            owned.len(),
            |i| request.search(&index, owned[i].as_str()),
            |i, docs| out.set_item(i, pairs(py, &index, &self.docids, &docs)?),
        )?;
        Ok(out)
    }

    /// ``batch_search`` as one :class:`Columns`: the rankings as four flat numpy
    /// arrays (row offsets, float32 scores, docid offsets, UTF-8 docid bytes), made
    /// without the GIL and without a Python object per hit. The compact form to
    /// ship many rankings between processes (:func:`merge_topk` merges them;
    /// ``Columns.to_pairs()`` gives ``batch_search_pairs``' lists). Parameters and
    /// errors as ``batch_search``.
    #[pyo3(signature = (queries, k = Hits(1000), *, threads = None, scoring = None, algorithm = "auto", stats = None, feedback = None, **options))]
    #[pyo3(
        text_signature = "($self, queries, k=1000, *, threads=None, scoring=None, algorithm='auto', stats=None, feedback=None, **options)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn batch_search_columns<'py>(
        &self,
        py: Python<'py>,
        queries: &Bound<'py, PyAny>,
        k: Hits,
        threads: Option<Threads>,
        scoring: Option<Bound<'py, PyBm25>>,
        algorithm: &str,
        stats: Option<Bound<'py, PyGlobalStats>>,
        feedback: Option<Bound<'py, PyAny>>,
        options: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let owned = query_list(queries)?;
        let args = SearchArgs {
            method: "Index.batch_search_columns",
            keywords: Keywords::Model,
            scoring,
            algorithm,
            stats,
            feedback,
            options,
        };
        let request = args.request(k.0)?;
        let index = self.snapshot();
        let packed = detached(py, threads.map(|t| t.0), || {
            let rankings = request.batch(&index, &owned)?;
            Ok(Packed::of_rankings(&index, &rankings))
        })?;
        packed.into_py(py)
    }

    /// Breaks the score of ``docid`` for ``query`` down by term: each term's
    /// query and document frequencies, idf and share, with the formula; ``str()``
    /// prints it. Parameters as ``search``; an unknown docid raises
    /// ``UnknownDocidError``.
    #[pyo3(signature = (query, docid, *, scoring = None, stats = None, **options))]
    #[pyo3(text_signature = "($self, query, docid, *, scoring=None, stats=None, **options)")]
    fn explain(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        docid: &str,
        scoring: Option<Bound<'_, PyBm25>>,
        stats: Option<Bound<'_, PyGlobalStats>>,
        options: Option<Bound<'_, PyDict>>,
    ) -> PyResult<PyExplanation> {
        let query = query_text(query)?;
        let model = scoring::model(
            "Index.explain",
            Keywords::Model,
            scoring.as_ref(),
            options.as_ref(),
        )?;
        let stats = stats.as_ref().map(|s| &*s.get().inner);
        let e =
            search::explain(&self.snapshot(), &query, docid, &model, stats).map_err(CoreError)?;
        explanation(py, e)
    }

    /// RM3 feedback as Anserini's reranker (Pyserini's ``set_rm3``), for many
    /// queries in parallel: ``batch_search`` with ``feedback=Rm3(...)``, the
    /// keywords of :class:`Rm3` given here as keywords, over a Lucene BM25 first
    /// stage (``scoring``, or ``k1`` and ``b`` as keywords); returns ``(ids,
    /// scores)`` as ``batch_search``.
    ///
    /// Raises
    /// ------
    /// QueryError
    ///     For ``k <= 0``, a parameter :class:`Rm3` refuses, a ``scoring`` of another
    ///     variant or length mode than ``"lucene"``, or an index without a document
    ///     store (rebuild it with ``store=True``).
    #[pyo3(signature = (queries, k = Hits(1000), *, threads = None, scoring = None, **options))]
    #[pyo3(text_signature = "($self, queries, k=1000, *, threads=None, scoring=None, **options)")]
    fn batch_search_rm3<'py>(
        &self,
        py: Python<'py>,
        queries: &Bound<'py, PyAny>,
        k: Hits,
        threads: Option<Threads>,
        scoring: Option<Bound<'py, PyBm25>>,
        options: Option<Bound<'py, PyDict>>,
    ) -> PyResult<IdsAndScores<'py>> {
        let (value, options) = feedback::from_keywords::<PyRm3>(py, RM3_KEYWORDS, options)?;
        let args = SearchArgs {
            method: "Index.batch_search_rm3",
            keywords: Keywords::LuceneBm25,
            scoring,
            algorithm: "auto",
            stats: None,
            feedback: Some(value),
            options,
        };
        self.batch_arrays(py, queries, k, threads, &args)
    }

    /// Rocchio feedback as Anserini's reranker (Pyserini's ``set_rocchio``), for
    /// many queries in parallel: ``batch_search`` with ``feedback=Rocchio(...)``,
    /// the keywords of :class:`Rocchio` given here as keywords, over a Lucene BM25
    /// first stage (``scoring``, or ``k1`` and ``b`` as keywords) to depth ``k``;
    /// returns ``(ids, scores)`` as ``batch_search``.
    ///
    /// Raises
    /// ------
    /// QueryError
    ///     For ``k <= 0``, a parameter :class:`Rocchio` refuses, a ``scoring`` of
    ///     another variant or length mode than ``"lucene"``, or an index without a
    ///     document store (rebuild it with ``store=True``).
    #[pyo3(signature = (queries, k = Hits(1000), *, threads = None, scoring = None, **options))]
    #[pyo3(text_signature = "($self, queries, k=1000, *, threads=None, scoring=None, **options)")]
    fn batch_search_rocchio<'py>(
        &self,
        py: Python<'py>,
        queries: &Bound<'py, PyAny>,
        k: Hits,
        threads: Option<Threads>,
        scoring: Option<Bound<'py, PyBm25>>,
        options: Option<Bound<'py, PyDict>>,
    ) -> PyResult<IdsAndScores<'py>> {
        let (value, options) = feedback::from_keywords::<PyRocchio>(py, ROCCHIO_KEYWORDS, options)?;
        let args = SearchArgs {
            method: "Index.batch_search_rocchio",
            keywords: Keywords::LuceneBm25,
            scoring,
            algorithm: "auto",
            stats: None,
            feedback: Some(value),
            options,
        };
        self.batch_arrays(py, queries, k, threads, &args)
    }

    /// The Rocchio query of ``query`` (first stage to depth ``k``) as ``(term,
    /// weight)`` pairs, terms in ascending order. Keywords and errors as
    /// ``batch_search_rocchio``.
    #[pyo3(signature = (query, k = Hits(1000), *, scoring = None, **options))]
    #[pyo3(text_signature = "($self, query, k=1000, *, scoring=None, **options)")]
    fn rocchio_query(
        &self,
        py: Python<'_>,
        query: &str,
        k: Hits,
        scoring: Option<Bound<'_, PyBm25>>,
        options: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Vec<(String, f32)>> {
        let (value, options) = feedback::from_keywords::<PyRocchio>(py, ROCCHIO_KEYWORDS, options)?;
        let args = SearchArgs {
            method: "Index.rocchio_query",
            keywords: Keywords::LuceneBm25,
            scoring,
            algorithm: "auto",
            stats: None,
            feedback: Some(value),
            options,
        };
        self.expanded_query(py, query, &args.request(k.0)?)
    }

    /// The RM3-expanded query of ``query`` as ``(term, weight)`` pairs, terms in
    /// ascending order: the boosts of the second-stage BM25 query. Keywords and
    /// errors as ``batch_search_rm3``.
    #[pyo3(signature = (query, *, scoring = None, **options))]
    #[pyo3(text_signature = "($self, query, *, scoring=None, **options)")]
    fn rm3_query(
        &self,
        py: Python<'_>,
        query: &str,
        scoring: Option<Bound<'_, PyBm25>>,
        options: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Vec<(String, f32)>> {
        let (value, options) = feedback::from_keywords::<PyRm3>(py, RM3_KEYWORDS, options)?;
        let args = SearchArgs {
            method: "Index.rm3_query",
            keywords: Keywords::LuceneBm25,
            scoring,
            algorithm: "auto",
            stats: None,
            feedback: Some(value),
            options,
        };
        // RM3's first stage has its own depth (`fb_docs`, at most 50): k is not read.
        self.expanded_query(py, query, &args.request(1)?)
    }

    /// Checks that this index can serve ``feedback`` (an :class:`Rm3` or a
    /// :class:`Rocchio`), as a search with it would, without searching.
    ///
    /// Raises
    /// ------
    /// QueryError
    ///     If the index keeps no document store (rebuild it with ``store=True``).
    /// TypeError
    ///     For a ``feedback`` that is neither.
    fn check_feedback(&self, feedback: &Bound<'_, PyAny>) -> PyResult<()> {
        let Some(feedback) = feedback::from_arg(Some(feedback))? else {
            return Err(PyTypeError::new_err("feedback must be an Rm3 or a Rocchio"));
        };
        Ok(feedback.check(&self.snapshot()).map_err(CoreError)?)
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

    /// The index's collection statistics as a :class:`GlobalStats` without dfs:
    /// live documents, those with at least one term, and their total length.
    fn collection_stats(&self) -> PyGlobalStats {
        GlobalStats::of_index(&self.snapshot()).into()
    }

    /// The live document frequency of each of ``terms``, analyzed terms taken as
    /// they are (not analyzed again); 0 for a term the index does not hold.
    ///
    /// Raises
    /// ------
    /// TypeError
    ///     For a single str or an item that is not a str.
    fn term_dfs(&self, py: Python<'_>, terms: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let terms = str_list(terms, "terms")?;
        let index = self.snapshot();
        Ok(py.detach(|| terms.iter().map(|t| index.df(t)).collect()))
    }

    /// The live collection frequency (occurrences in live documents) of each of
    /// ``terms``, analyzed terms taken as they are; 0 for a term the index does not
    /// hold. Each costs a pass over the term's postings.
    ///
    /// Raises
    /// ------
    /// TypeError
    ///     For a single str or an item that is not a str.
    fn term_cfs(&self, py: Python<'_>, terms: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let terms = str_list(terms, "terms")?;
        let index = self.snapshot();
        Ok(py.detach(|| terms.iter().map(|t| index.cf(t)).collect()))
    }

    /// :meth:`collection_stats` with the dfs of every analyzed term of
    /// ``queries``: what this index, as one shard of a collection, contributes to
    /// the :class:`GlobalStats` its shards search with (``GlobalStats.sum`` of
    /// every shard's). With ``cfs``, their collection frequencies too, which
    /// ``model="qld"`` needs (a pass over each term's postings).
    ///
    /// Raises
    /// ------
    /// TypeError
    ///     For a single str or an item that is not a str.
    #[pyo3(signature = (queries, *, cfs = false))]
    fn global_stats(
        &self,
        py: Python<'_>,
        queries: &Bound<'_, PyAny>,
        cfs: bool,
    ) -> PyResult<PyGlobalStats> {
        let queries = str_list(queries, "queries")?;
        let index = self.snapshot();
        Ok(py
            .detach(|| GlobalStats::of_queries(&index, &queries, cfs))
            .into())
    }
}

/// The mean length over every live document, 0 for an empty index: what
/// `stats()` and `info()` report as `avgdl` (the exact-length mean, which
/// `avgdl_exact` gives as 1 for an empty index so that scoring never divides
/// by zero).
fn mean_length(s: &IndexStats) -> f64 {
    if s.num_docs == 0 {
        0.0
    } else {
        s.total_terms as f64 / s.num_docs as f64
    }
}

impl PyIndex {
    /// The best documents for `query` under `request` in the current
    /// snapshot, found without the GIL.
    fn ranked(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        request: Request,
    ) -> PyResult<(Arc<Index>, Vec<search::ScoredDoc>)> {
        let query = nonempty_query(query_text(query)?)?;
        let index = self.snapshot();
        let docs = py
            .detach(|| request.search(&index, query.as_str()))
            .map_err(CoreError)?;
        Ok((index, docs))
    }

    /// `batch_search`'s arrays for `queries` under `args`: `min(k, N)`
    /// columns for an index of `N` documents, ids bound to the snapshot.
    fn batch_arrays<'py>(
        &self,
        py: Python<'py>,
        queries: &Bound<'py, PyAny>,
        k: Hits,
        threads: Option<Threads>,
        args: &SearchArgs<'_, 'py>,
    ) -> PyResult<IdsAndScores<'py>> {
        let owned = query_list(queries)?;
        let index = self.snapshot();
        // Columns beyond the number of documents could only hold padding.
        let k = k.0.min(index.len());
        let request = args.request(k)?;
        let (ids, scores) = detached(py, threads.map(|t| t.0), || {
            Ok(columns(&request.batch(&index, &owned)?, k))
        })?;
        Ok((
            snapshot_ids::bound_array(py, ids, index)?,
            scores.into_pyarray(py),
        ))
    }

    /// The query `request`'s feedback makes of `query`, found without the GIL.
    fn expanded_query(
        &self,
        py: Python<'_>,
        query: &str,
        request: &Request,
    ) -> PyResult<Vec<(String, f32)>> {
        let index = self.snapshot();
        Ok(py
            .detach(|| request.expanded_query(&index, query))
            .map_err(CoreError)?)
    }
}

/// A list of str argument (`name`), refusing a single str.
fn str_list(items: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<String>> {
    if items.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a list of str, not a single str"
        )));
    }
    items
        .try_iter()?
        .map(|item| {
            let item = item?;
            item.extract::<String>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{name} must hold str, got {}",
                    item.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })
        })
        .collect()
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

/// Reads a BEIR ``queries.jsonl`` or a ``qid<TAB>text`` file.
#[pyfunction]
pub fn read_queries(py: Python<'_>, path: PathBuf) -> PyResult<Vec<(String, String)>> {
    detached(py, None, || corpus::read_queries(&path))
}
