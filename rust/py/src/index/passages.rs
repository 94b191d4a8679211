//! `Index.best_passages`: the best windows of a text for a query, scored in
//! the core (`search::passages`) with the index's analyzer and statistics.

use pyo3::prelude::*;
use rserini_core::search::passages::{PARALLEL_UNITS, PassageParams, best_passages};

use super::PyIndex;
use crate::errors::CoreError;
use crate::scoring::PyBm25;
use crate::threads::detached;

#[pymethods]
impl PyIndex {
    /// The ``k`` best windows of ``window`` consecutive ``units`` (lines, runs of
    /// words; at least 1, at most all of them) that do not overlap, best first, as
    /// ``(start, end, score)``: units ``start`` to ``end - 1`` (0-based) and a score
    /// above 0; ``[]`` when the query has no term or no window holds one.
    ///
    /// Each window is scored as a document of the collection of the text's windows:
    /// BM25 with the ``(k1 + 1)`` factor, ``qtf · idf · tf · (k1 + 1) / (tf + k1 · (1 -
    /// b + b · len / avglen))`` summed over the query's distinct terms, with idf the
    /// variant's over this index's live documents and document frequencies, ``len``
    /// the window's token count and ``avglen`` the mean window length (at least 1),
    /// in float64. ``scoring`` gives ``k1``, ``b`` and the idf's variant (its length
    /// mode and delta do not apply); by default ``k1=1.2``, ``b=0.75``, the usual
    /// passage setting, with Lucene's idf. Ties go to the earlier window. The units
    /// are analyzed with the index's analyzer, in parallel when there are many.
    ///
    /// Raises
    /// ------
    /// TypeError
    ///     If ``units`` is a single str or holds something else.
    /// QueryError
    ///     For a query past the query limits.
    #[pyo3(signature = (query, units, window, k = 1, *, scoring = None))]
    fn best_passages(
        &self,
        py: Python<'_>,
        query: String,
        units: Vec<String>,
        window: usize,
        k: usize,
        scoring: Option<Bound<'_, PyBm25>>,
    ) -> PyResult<Vec<(usize, usize, f64)>> {
        let params = scoring.map_or_else(PassageParams::default, |s| s.get().passage_params());
        let index = self.snapshot();
        let parallel = units.len() > PARALLEL_UNITS;
        let find = move || best_passages(&index, &query, &units, window, k, params);
        // A few units are scored on this thread: a pool's hand-off would cost more.
        let found = match parallel {
            true => detached(py, None, find)?,
            false => py.detach(find).map_err(CoreError)?,
        };
        Ok(found
            .into_iter()
            .map(|p| (p.start, p.end, p.score))
            .collect())
    }
}
