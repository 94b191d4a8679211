//! The constructors of `Index`: from Python objects, JSONL files or a source
//! tree, or a saved folder; with the build's progress bar.

use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pyo3::exceptions::PyRuntimeWarning;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rserini_core::analysis::AnalyzerConfig;
use rserini_core::document::Doc;
use rserini_core::index::{Duplicates, Index, IndexBuilder};
use rserini_core::project::walk;
use rserini_core::reorder::Reorder;
use rserini_core::{Error, corpus, store};

use super::PyIndex;
use crate::analyzer::PyAnalyzer;
use crate::args::Threads;
use crate::convert::extract_doc;
use crate::errors::{CoreError, CoreResult};
use crate::rules::DEFAULT_MEMORY_MB;
use crate::threads::detached;

/// Documents handed to the core per batch when building from Python objects.
const PY_BATCH: usize = 20_000;

/// The `cache=` of `Index.load`: on or off, or the cache folder.
#[derive(FromPyObject)]
pub enum CacheArg {
    Enabled(bool),
    Folder(PathBuf),
}

impl CacheArg {
    /// The cache folder to use, if any.
    fn root(&self) -> Option<PathBuf> {
        match self {
            CacheArg::Enabled(true) => rserini_core::lucene_cache::default_root(),
            CacheArg::Enabled(false) => None,
            CacheArg::Folder(path) => Some(path.clone()),
        }
    }
}

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

pub(super) fn json_dumps(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let json = py.import("json")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("ensure_ascii", false)?;
    let partial = py.import("functools")?.getattr("partial")?;
    partial.call((json.getattr("dumps")?,), Some(&kwargs))
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
    /// build several times slower. ``fields`` names other fields to index beside
    /// the main text, as Anserini's ``-fields`` (``fields=["title"]``): a field's
    /// text is the document dict's member of that name (``None`` or missing: empty;
    /// a ``(docid, text)`` pair has none), analyzed as the main text; search them
    /// with ``fields=`` of :meth:`search` (:meth:`field_names`).
    ///
    /// Raises
    /// ------
    /// DocumentError
    ///     For an empty docid, or a duplicate one unless ``duplicates="keep"``; for a
    ///     named field whose value is not a string.
    /// QueryError
    ///     For ``threads`` out of range or an unknown ``duplicates`` policy.
    /// ValueError
    ///     For a ``reorder`` other than ``"bp"``, ``"none"`` or ``None``; for a field
    ///     named twice, ``"contents"``, or not 1 to 128 ASCII letters, digits, ``_``,
    ///     ``-`` or ``.``.
    /// TypeError
    ///     For an item that is neither a pair nor a dict, or non-str fields.
    #[staticmethod]
    #[pyo3(signature = (docs, *, analyzer = AnalyzerArg::Name("lucene-english".into()), store = true, threads = None, progress = true, memory_mb = DEFAULT_MEMORY_MB, duplicates = "error", reorder = None, fields = Vec::new()))]
    // The defaults PyO3 would show as `...` (Rust expressions), spelled out for `help()`.
    #[pyo3(
        text_signature = "(docs, *, analyzer='lucene-english', store=True, threads=None, progress=True, memory_mb=256, duplicates='error', reorder=None, fields=())"
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
        fields: Vec<String>,
    ) -> PyResult<Self> {
        let config = analyzer.config(py).map_err(CoreError)?;
        let budget = memory_budget(memory_mb)?;
        let duplicates = Duplicates::parse(duplicates).map_err(CoreError)?;
        let reorder = Reorder::parse(reorder.unwrap_or("none")).map_err(CoreError)?;
        let threads = threads.map(|t| t.0);
        let builder = IndexBuilder::new(config, store)
            .and_then(|b| b.with_fields(&fields))
            .map_err(CoreError)?
            .with_memory_budget(budget)
            .with_duplicates(duplicates);
        let index = build_from_py(py, docs, builder, threads, progress)?;
        let index = detached(py, threads, || reorder.apply(index))?;
        Ok(PyIndex::new(index, None))
    }

    /// Indexes JSONL files (``.jsonl``, ``.jsonl.gz``, ``.json``; a file or a folder),
    /// reading them in a stream; ``memory_mb``, ``threads``, ``duplicates``,
    /// ``reorder`` and ``fields`` (a line's members of those names) are as for
    /// :meth:`build`. In a folder holding ``corpus.jsonl`` or
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
    #[pyo3(signature = (path, *, analyzer = AnalyzerArg::Name("lucene-english".into()), store = true, threads = None, progress = true, memory_mb = DEFAULT_MEMORY_MB, duplicates = "error", max_line_bytes = corpus::DEFAULT_MAX_LINE_BYTES, reorder = None, fields = Vec::new()))]
    #[pyo3(
        text_signature = "(path, *, analyzer='lucene-english', store=True, threads=None, progress=True, memory_mb=256, duplicates='error', max_line_bytes=67108864, reorder=None, fields=())"
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
        fields: Vec<String>,
    ) -> PyResult<Self> {
        let config = analyzer.config(py).map_err(CoreError)?;
        let budget = memory_budget(memory_mb)?;
        let duplicates = Duplicates::parse(duplicates).map_err(CoreError)?;
        let reorder = Reorder::parse(reorder.unwrap_or("none")).map_err(CoreError)?;
        let bar = progress_bar(progress, None, "indexing");
        let index = detached(py, threads.map(|t| t.0), || {
            let mut builder = IndexBuilder::new(config, store)?
                .with_fields(&fields)?
                .with_memory_budget(budget)
                .with_duplicates(duplicates);
            // A field's text is read from the line.
            let keep_raw = store || !fields.is_empty();
            corpus::read_documents(&path, keep_raw, max_line_bytes, |batch| {
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
    /// A Lucene index folder (Anserini's, Pyserini's) is converted into rserini's
    /// format once and the conversion kept in a cache outside the folder, which is
    /// never written: ``cache=True`` uses rserini's cache folder (``$RSERINI_CACHE``,
    /// else ``$XDG_CACHE_HOME/rserini``, else ``~/.cache/rserini``), a path uses that
    /// folder instead, ``False`` converts in memory and writes nothing. A new commit
    /// of the Lucene index is converted again; a damaged cache entry is never used. A
    /// cache that cannot be written (read-only, full) gives a ``RuntimeWarning`` and
    /// the conversion in memory.
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
    #[pyo3(signature = (path, *, mmap = true, cache = CacheArg::Enabled(true)))]
    #[pyo3(text_signature = "(path, *, mmap=True, cache=True)")]
    fn load(py: Python<'_>, path: PathBuf, mmap: bool, cache: CacheArg) -> PyResult<Self> {
        let (index, source, warning) = detached(py, None, || {
            if rserini_core::lucene::is_lucene_folder(&path) {
                let root = cache.root();
                let opened = rserini_core::lucene_cache::open(&path, root.as_deref(), mmap)?;
                return Ok((opened.index, None, opened.warning));
            }
            let source = store::read_meta(&path)?.source;
            Ok((store::load(&path, mmap)?, source, None))
        })?;
        if let Some(warning) = warning {
            let message = std::ffi::CString::new(warning.replace('\0', " "))
                .expect("no NUL left in the message");
            PyErr::warn(py, &py.get_type::<PyRuntimeWarning>(), &message, 1)?;
        }
        Ok(PyIndex::new(index, source))
    }
}
