//! The searches of `Index`: each call's options become one core
//! [`Request`], run without the GIL; hits as `Hit`s, pairs, arrays or
//! columns.

use std::sync::Arc;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use rserini_core::index::Index;
use rserini_core::search::{self, Algorithm, Request, ScoredDoc};

use super::PyIndex;
use crate::args::{Hits, Threads};
use crate::columns::Packed;
use crate::convert::query_text;
use crate::errors::CoreError;
use crate::feedback;
use crate::global_stats::PyGlobalStats;
use crate::results::{PyExplanation, explanation, hits, pairs};
use crate::scoring::{self, Keywords, PyBm25};
use crate::snapshot_ids;
use crate::threads::{self, detached};

/// `batch_search`'s result: internal ids and scores, both of shape (queries, k).
pub(super) type IdsAndScores<'py> = (Bound<'py, PyArray2<i32>>, Bound<'py, PyArray2<f32>>);

/// A search call's options besides its queries and `k`, as the methods take
/// them; [`SearchArgs::request`] makes the core's request of them.
pub(super) struct SearchArgs<'a, 'py> {
    /// The method's name in messages.
    pub(super) method: &'a str,
    /// The loose keywords it takes besides `scoring=`.
    pub(super) keywords: Keywords,
    pub(super) scoring: Option<Bound<'py, PyBm25>>,
    pub(super) algorithm: &'a str,
    pub(super) stats: Option<Bound<'py, PyGlobalStats>>,
    pub(super) feedback: Option<Bound<'py, PyAny>>,
    pub(super) fields: Option<Bound<'py, PyDict>>,
    pub(super) options: Option<Bound<'py, PyDict>>,
}

impl SearchArgs<'_, '_> {
    /// The request to depth `k`, its options checked together.
    pub(super) fn request(&self, k: usize) -> PyResult<Request> {
        let model = scoring::model(
            self.method,
            self.keywords,
            self.scoring.as_ref(),
            self.options.as_ref(),
        )?;
        let request = Request::new(model, k)
            .with_algorithm(Algorithm::parse(self.algorithm).map_err(CoreError)?)
            .with_stats(self.stats.as_ref().map(|s| Arc::clone(&s.get().inner)))
            .with_feedback(feedback::from_arg(self.feedback.as_ref())?)
            .with_fields(
                self.fields
                    .as_ref()
                    .map(|f| field_boosts(self.method, f))
                    .transpose()?,
            );
        request.check(None).map_err(CoreError)?;
        Ok(request)
    }
}

/// `fields=`: a dict of field name → boost (a number).
fn field_boosts(method: &str, fields: &Bound<'_, PyDict>) -> PyResult<Vec<(String, f32)>> {
    if fields.is_empty() {
        return Err(PyValueError::new_err(format!(
            "{method}: fields= needs at least one field, e.g. {{\"contents\": 1.0}}"
        )));
    }
    fields
        .iter()
        .map(|(name, boost)| {
            let name: String = name.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{method}: fields= maps field names (str) to boosts"
                ))
            })?;
            let boost: f64 = boost.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{method}: the boost of field {name:?} must be a number"
                ))
            })?;
            Ok((name, boost as f32))
        })
        .collect()
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

#[pymethods]
impl PyIndex {
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
    /// fields
    ///     Search these fields with these boosts, as Pyserini's
    ///     ``search(q, k, fields={"contents": 1.0, "title": 0.5})``: per field BM25
    ///     under the field's own statistics, summed as Lucene sums a boolean query
    ///     of boosted per-field queries. ``"contents"`` is the main field; the
    ///     others are those of the index (:meth:`field_names`). BM25 only, with the
    ///     index's own statistics and no feedback.
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
    ///     For an empty query or one over :func:`query_limits`, ``k`` outside
    ///     [1, 2**63 - 1], ``k1`` negative or not finite in float32, ``delta`` outside
    ///     [0, 1000], ``b`` outside [0, 1], or ``mu`` not a positive normal float32;
    ///     for ``stats`` lacking a query term's df, counting
    ///     less than this index holds, or given with ``model="tfidf"`` (its document
    ///     norms need every term's global df) or, without a query term's ``cfs``,
    ///     with ``model="qld"``; for ``feedback`` with another model than Lucene's
    ///     BM25, with ``stats``, or on an index without a document store.
    /// TypeError
    ///     For a ``k`` that is not an int, an unknown keyword, both ``scoring``
    ///     and a keyword of it, or a ``feedback`` that is not a feedback value.
    #[pyo3(signature = (query, k = Hits(10), *, scoring = None, algorithm = "auto", stats = None, feedback = None, fields = None, **options))]
    #[pyo3(
        text_signature = "($self, query, k=10, *, scoring=None, algorithm='auto', stats=None, feedback=None, fields=None, **options)"
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
        fields: Option<Bound<'py, PyDict>>,
        options: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let args = SearchArgs {
            method: "Index.search",
            keywords: Keywords::Model,
            scoring,
            algorithm,
            stats,
            feedback,
            fields,
            options,
        };
        let (index, docs) = self.ranked(py, query, args.request(k.0)?)?;
        hits(py, &index, &self.docids, &docs)
    }

    /// ``search`` as ``(docid, score)`` tuples, best first, without ``Hit``
    /// objects: the cheapest way to a deep ranking (evaluation, fusion).
    /// Parameters and errors as ``search``.
    #[pyo3(signature = (query, k = Hits(10), *, scoring = None, algorithm = "auto", stats = None, feedback = None, fields = None, **options))]
    #[pyo3(
        text_signature = "($self, query, k=10, *, scoring=None, algorithm='auto', stats=None, feedback=None, fields=None, **options)"
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
        fields: Option<Bound<'py, PyDict>>,
        options: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let args = SearchArgs {
            method: "Index.search_pairs",
            keywords: Keywords::Model,
            scoring,
            algorithm,
            stats,
            feedback,
            fields,
            options,
        };
        let (index, docs) = self.ranked(py, query, args.request(k.0)?)?;
        pairs(py, &index, &self.docids, &docs)
    }

    /// Runs all queries in parallel without the GIL; returns ``(ids, scores)``,
    /// two arrays of shape ``(len(queries), min(k, N))`` for an index of ``N``
    /// documents: int32 internal ids, ``-1`` padding rows with fewer hits, and
    /// float32 scores, ``-inf`` padding. The ids are a
    /// :class:`~rserini.snapshot_ids.SnapshotIdArray`: :meth:`docids` maps them, their
    /// copies and their ``tolist()`` in the snapshot searched, even after a commit. An
    /// empty query gives a row of padding.
    /// Other parameters and errors as ``search``; ``threads`` defaults to all cores.
    #[pyo3(signature = (queries, k = Hits(1000), *, threads = None, scoring = None, algorithm = "auto", stats = None, feedback = None, fields = None, **options))]
    #[pyo3(
        text_signature = "($self, queries, k=1000, *, threads=None, scoring=None, algorithm='auto', stats=None, feedback=None, fields=None, **options)"
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
        fields: Option<Bound<'py, PyDict>>,
        options: Option<Bound<'py, PyDict>>,
    ) -> PyResult<IdsAndScores<'py>> {
        let args = SearchArgs {
            method: "Index.batch_search",
            keywords: Keywords::Model,
            scoring,
            algorithm,
            stats,
            feedback,
            fields,
            options,
        };
        self.batch_arrays(py, queries, k, threads, &args)
    }

    /// ``batch_search`` as ``(docid, score)`` tuples: one list per query, in
    /// input order, each as ``search_pairs`` gives it (``[]`` for an empty query).
    /// The calling thread makes the tuples of each ranking as soon as it is found,
    /// and searches too (without the GIL) while none is waiting.
    #[pyo3(signature = (queries, k = Hits(1000), *, threads = None, scoring = None, algorithm = "auto", stats = None, feedback = None, fields = None, **options))]
    #[pyo3(
        text_signature = "($self, queries, k=1000, *, threads=None, scoring=None, algorithm='auto', stats=None, feedback=None, fields=None, **options)"
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
        fields: Option<Bound<'py, PyDict>>,
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
            fields,
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
    #[pyo3(signature = (queries, k = Hits(1000), *, threads = None, scoring = None, algorithm = "auto", stats = None, feedback = None, fields = None, **options))]
    #[pyo3(
        text_signature = "($self, queries, k=1000, *, threads=None, scoring=None, algorithm='auto', stats=None, feedback=None, fields=None, **options)"
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
        fields: Option<Bound<'py, PyDict>>,
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
            fields,
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
        let query = query_text(query)?;
        search::check_query(&query).map_err(CoreError)?;
        let index = self.snapshot();
        let docs = py
            .detach(|| request.search(&index, query.as_str()))
            .map_err(CoreError)?;
        Ok((index, docs))
    }

    /// `batch_search`'s arrays for `queries` under `args`: `min(k, N)`
    /// columns for an index of `N` documents, ids bound to the snapshot.
    pub(super) fn batch_arrays<'py>(
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
}
