//! The feedback methods of `Index`: sugar for a search with
//! `feedback=Rm3(...)` or `feedback=Rocchio(...)`, their keywords making the
//! value; the expanded queries; and the check that an index can serve one.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rserini_core::search::Request;

use super::PyIndex;
use super::search::{IdsAndScores, SearchArgs};
use crate::args::{Hits, Threads};
use crate::errors::CoreError;
use crate::feedback::{self, PyRm3, PyRocchio, RM3_KEYWORDS, ROCCHIO_KEYWORDS};
use crate::scoring::{Keywords, PyBm25};

#[pymethods]
impl PyIndex {
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
            fields: None,
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
            fields: None,
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
            fields: None,
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
            fields: None,
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
}

impl PyIndex {
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
