//! The statistics a query is scored with: the index's own, or
//! [`GlobalStats`] given by the caller (those of a whole collection this
//! index is a shard of), checked once per query so that a search with
//! them is exact or refused.

use super::model::Model;
use super::query::QueryTerm;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::scoring::{CollectionStats, LengthMode};
use crate::shards::global_stats::GlobalStats;

/// The statistics a query is scored with.
#[derive(Clone, Copy)]
pub(crate) enum Statistics<'s> {
    /// The index's own.
    Own,
    /// Given ones, with the query terms' counts checked by [`Statistics::global`].
    Global(&'s GlobalStats, &'s TermCounts),
}

/// Each query term's counts in given statistics, in query order.
pub(crate) struct TermCounts {
    dfs: Vec<u64>,
    /// Collection frequencies (QLD only; empty otherwise).
    cfs: Vec<u64>,
}

/// The error of statistics that count less than `index` holds.
fn not_covering(what: String) -> Error {
    Error::Query(format!(
        "the statistics given count {what} than this index holds: they must cover every index searched with them"
    ))
}

impl Statistics<'_> {
    /// The counts of `terms` in `stats`, checked for a search of `index`
    /// under `model`: every term must be in `stats` (a missing one would
    /// score inexactly), no count below this index's own, and the model
    /// one that counts alone determine (BM25; QLD when `stats` hold
    /// collection frequencies).
    pub(crate) fn global(
        index: &Index,
        terms: &[QueryTerm],
        model: &Model,
        stats: &GlobalStats,
    ) -> Result<TermCounts> {
        if *model == Model::TfIdf {
            return Err(Error::Query(
                "model=\"tfidf\" cannot score with given statistics: its document norms need the global df of every term of every document, not only the query's; search with model=\"bm25\"".into(),
            ));
        }
        let own = index.stats();
        if stats.documents() < own.num_docs
            || stats.documents_with_terms() < own.num_nonempty_docs
            || stats.total_terms() < own.total_terms
        {
            return Err(not_covering(format!(
                "fewer documents, documents with terms or terms ({}, {}, {}) than the ({}, {}, {})",
                stats.documents(),
                stats.documents_with_terms(),
                stats.total_terms(),
                own.num_docs,
                own.num_nonempty_docs,
                own.total_terms
            )));
        }
        let missing = |what: &str, t: &QueryTerm| {
            Error::Query(format!(
                "the statistics given hold no {what} for the query term {:?}: gather them for these queries (Index.global_stats)",
                t.term
            ))
        };
        let mut counts = TermCounts {
            dfs: Vec::with_capacity(terms.len()),
            cfs: Vec::new(),
        };
        for t in terms {
            let df = stats.df(&t.term).ok_or_else(|| missing("df", t))?;
            if df < t.df {
                return Err(not_covering(format!(
                    "{df} documents holding {:?}, fewer",
                    t.term
                )));
            }
            counts.dfs.push(df);
            if let Model::Qld(_) = model {
                let cf = stats
                    .cf(&t.term)
                    .ok_or_else(|| missing("collection frequency (cfs, which QLD needs)", t))?;
                if cf < index.cf(&t.term) {
                    return Err(not_covering(format!(
                        "{cf} occurrences of {:?}, fewer",
                        t.term
                    )));
                }
                counts.cfs.push(cf);
            }
        }
        Ok(counts)
    }

    /// N and the total length as BM25 in `length` mode reads them.
    pub(crate) fn collection(self, index: &Index, length: LengthMode) -> CollectionStats {
        match self {
            Statistics::Own => index.collection_stats(length),
            Statistics::Global(stats, _) => stats.collection_stats(length),
        }
    }

    /// The number of tokens in the collection (QLD's `T`).
    pub(crate) fn total_terms(self, index: &Index) -> u64 {
        match self {
            Statistics::Own => index.stats().total_terms,
            Statistics::Global(stats, _) => stats.total_terms(),
        }
    }

    /// The df of the `i`-th query term `t`.
    pub(crate) fn df(self, i: usize, t: &QueryTerm) -> u64 {
        match self {
            Statistics::Own => t.df,
            Statistics::Global(_, counts) => counts.dfs[i],
        }
    }

    /// The collection frequency of the `i`-th query term `t` (QLD).
    pub(crate) fn cf(self, index: &Index, i: usize, t: &QueryTerm) -> u64 {
        match self {
            Statistics::Own => index.cf(&t.term),
            Statistics::Global(_, counts) => counts.cfs[i],
        }
    }
}
