//! Collection statistics as plain integers, summable across indexes.
//!
//! An index partitioned into shards scores exactly like the single index
//! when every shard scores with the statistics of the whole: N, the total
//! length and each query term's document frequency, all counts of live
//! documents. Counts add up across a partition (a float such as avgdl does
//! not), so a [`GlobalStats`] holds only counts; each search derives avgdl
//! and idf from them exactly as an index does from its own
//! ([`GlobalStats::collection_stats`]). Query likelihood also needs each
//! term's collection frequency (`cfs`), gathered only when asked for: it
//! costs a pass over the term's postings, where a df is a lookup.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::index::Index;
use crate::scoring::{CollectionStats, LengthMode};

/// Counts of live documents over one or several indexes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GlobalStats {
    documents: u64,
    documents_with_terms: u64,
    total_terms: u64,
    /// Analyzed term → live documents holding it.
    dfs: BTreeMap<String, u64>,
    /// Analyzed term → its occurrences in live documents.
    cfs: BTreeMap<String, u64>,
}

impl GlobalStats {
    /// Checked statistics: `documents_with_terms ≤ documents`,
    /// `documents_with_terms ≤ total_terms` (a document with a term has a
    /// length of at least one), every df `≤ documents_with_terms`, every
    /// cf `≤ total_terms` and at least its term's df.
    pub fn new(
        documents: u64,
        documents_with_terms: u64,
        total_terms: u64,
        dfs: BTreeMap<String, u64>,
        cfs: BTreeMap<String, u64>,
    ) -> Result<Self> {
        if documents_with_terms > documents {
            return Err(Error::Argument(format!(
                "documents_with_terms ({documents_with_terms}) cannot exceed documents ({documents})"
            )));
        }
        if documents_with_terms > total_terms {
            return Err(Error::Argument(format!(
                "documents_with_terms ({documents_with_terms}) cannot exceed total_terms ({total_terms}): each such document holds at least one term"
            )));
        }
        if let Some((term, df)) = dfs.iter().find(|(_, df)| **df > documents_with_terms) {
            return Err(Error::Argument(format!(
                "the df of {term:?} ({df}) exceeds documents_with_terms ({documents_with_terms})"
            )));
        }
        for (term, &cf) in &cfs {
            let df = dfs.get(term).copied().unwrap_or(0);
            if cf > total_terms || cf < df {
                return Err(Error::Argument(format!(
                    "the cf of {term:?} ({cf}) must lie between its df ({df}) and total_terms ({total_terms})"
                )));
            }
        }
        Ok(GlobalStats {
            documents,
            documents_with_terms,
            total_terms,
            dfs,
            cfs,
        })
    }

    /// The collection statistics of `index` (no dfs).
    pub fn of_index(index: &Index) -> Self {
        let s = index.stats();
        GlobalStats {
            documents: s.num_docs,
            documents_with_terms: s.num_nonempty_docs,
            total_terms: s.total_terms,
            dfs: BTreeMap::new(),
            cfs: BTreeMap::new(),
        }
    }

    /// The collection statistics of `index` with the live df of each of
    /// `terms` (analyzed terms, taken as they are), and its collection
    /// frequency if `cfs`.
    pub fn of_terms<'a>(
        index: &Index,
        terms: impl IntoIterator<Item = &'a str>,
        cfs: bool,
    ) -> Self {
        let mut stats = GlobalStats::of_index(index);
        for term in terms {
            if !stats.dfs.contains_key(term) {
                stats.dfs.insert(term.to_owned(), index.df(term));
                if cfs {
                    stats.cfs.insert(term.to_owned(), index.cf(term));
                }
            }
        }
        stats
    }

    /// The collection statistics of `index` with the live df of every
    /// analyzed term of `queries`: what one shard answers before a search
    /// of them over all shards.
    pub fn of_queries(index: &Index, queries: &[String], cfs: bool) -> Self {
        let mut terms = std::collections::BTreeSet::new();
        for query in queries {
            index.analyzer().analyze_with(query, &mut |t| {
                if !terms.contains(t) {
                    terms.insert(t.to_owned());
                }
            });
        }
        GlobalStats::of_terms(index, terms.iter().map(String::as_str), cfs)
    }

    /// Live documents, empty ones included.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Live documents with at least one indexed term (Lucene's `docCount`).
    pub fn documents_with_terms(&self) -> u64 {
        self.documents_with_terms
    }

    /// Sum of the lengths of live documents.
    pub fn total_terms(&self) -> u64 {
        self.total_terms
    }

    /// Term → live document frequency, in term order.
    pub fn dfs(&self) -> &BTreeMap<String, u64> {
        &self.dfs
    }

    /// The live df of `term`, if these statistics hold it.
    pub fn df(&self, term: &str) -> Option<u64> {
        self.dfs.get(term).copied()
    }

    /// Term → live collection frequency, in term order.
    pub fn cfs(&self) -> &BTreeMap<String, u64> {
        &self.cfs
    }

    /// The live collection frequency of `term`, if these statistics hold it.
    pub fn cf(&self, term: &str) -> Option<u64> {
        self.cfs.get(term).copied()
    }

    /// N and the total length as BM25 in `length` mode reads them: the
    /// same rule as [`Index::collection_stats`], so that statistics summed
    /// over a partition give the single index's avgdl and idf.
    pub fn collection_stats(&self, length: LengthMode) -> CollectionStats {
        CollectionStats {
            num_docs: match length {
                LengthMode::Lucene => self.documents_with_terms,
                LengthMode::Exact => self.documents,
            },
            total_terms: self.total_terms,
        }
    }

    /// The statistics of the union of two disjoint collections: every
    /// count added (dfs by term), refusing to wrap past `u64::MAX`.
    pub fn add(&self, other: &GlobalStats) -> Result<GlobalStats> {
        let sum = |what: &str, a: u64, b: u64| {
            a.checked_add(b).ok_or_else(|| {
                Error::Argument(format!(
                    "the sum of {what} overflows a 64-bit count ({a} + {b})"
                ))
            })
        };
        let by_term = |what: &str, mine: &BTreeMap<String, u64>, theirs: &BTreeMap<String, u64>| {
            let mut out = mine.clone();
            for (term, &count) in theirs {
                let slot = out.entry(term.clone()).or_insert(0);
                *slot = sum(&format!("the {what} of {term:?}"), *slot, count)?;
            }
            Ok::<_, Error>(out)
        };
        Ok(GlobalStats {
            documents: sum("documents", self.documents, other.documents)?,
            documents_with_terms: sum(
                "documents_with_terms",
                self.documents_with_terms,
                other.documents_with_terms,
            )?,
            total_terms: sum("total_terms", self.total_terms, other.total_terms)?,
            dfs: by_term("df", &self.dfs, &other.dfs)?,
            cfs: by_term("cf", &self.cfs, &other.cfs)?,
        })
    }

    /// The sum of `parts` (all zero for none).
    pub fn sum<'a>(parts: impl IntoIterator<Item = &'a GlobalStats>) -> Result<GlobalStats> {
        parts
            .into_iter()
            .try_fold(GlobalStats::default(), |acc, part| acc.add(part))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::AnalyzerConfig;

    fn dfs(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
        pairs.iter().map(|(t, d)| ((*t).to_owned(), *d)).collect()
    }

    #[test]
    fn checks_consistency() {
        assert!(GlobalStats::new(3, 2, 5, dfs(&[("a", 2)]), dfs(&[("a", 3)])).is_ok());
        assert!(GlobalStats::new(0, 0, 0, BTreeMap::new(), BTreeMap::new()).is_ok());
        assert!(GlobalStats::new(2, 3, 5, BTreeMap::new(), BTreeMap::new()).is_err());
        assert!(GlobalStats::new(3, 3, 2, BTreeMap::new(), BTreeMap::new()).is_err());
        let err = GlobalStats::new(3, 2, 5, dfs(&[("a", 3)]), BTreeMap::new()).unwrap_err();
        assert!(err.to_string().contains("\"a\""), "{err}");
        let cf_below_df = GlobalStats::new(3, 2, 5, dfs(&[("a", 2)]), dfs(&[("a", 1)]));
        assert!(cf_below_df.is_err());
        assert!(GlobalStats::new(3, 2, 5, BTreeMap::new(), dfs(&[("a", 6)])).is_err());
    }

    #[test]
    fn sums_by_term_and_refuses_overflow() {
        let a = GlobalStats::new(3, 2, 5, dfs(&[("a", 2), ("b", 1)]), dfs(&[("b", 2)])).unwrap();
        let b = GlobalStats::new(4, 4, 9, dfs(&[("b", 3), ("c", 4)]), dfs(&[("b", 5)])).unwrap();
        let s = GlobalStats::sum([&a, &b]).unwrap();
        let want = GlobalStats::new(
            7,
            6,
            14,
            dfs(&[("a", 2), ("b", 4), ("c", 4)]),
            dfs(&[("b", 7)]),
        );
        assert_eq!(s, want.unwrap());
        assert_eq!(GlobalStats::sum([]).unwrap(), GlobalStats::default());
        let huge = GlobalStats::new(u64::MAX, 1, 1, BTreeMap::new(), BTreeMap::new()).unwrap();
        assert!(
            huge.add(&huge)
                .unwrap_err()
                .to_string()
                .contains("documents")
        );
    }

    #[test]
    fn an_index_counts_live_documents_only() {
        let docs = [("d1", "a b"), ("d2", "b c c"), ("d3", ""), ("d4", "a")]
            .map(|(d, t)| (d.to_owned(), t.to_owned()));
        let config = AnalyzerConfig::preset("whitespace").unwrap();
        let index = Index::build(config, docs.to_vec()).unwrap();
        let index = index
            .with_changes(Vec::new(), &["d4".to_owned()], false)
            .unwrap();
        let stats = GlobalStats::of_terms(&index, ["a", "c", "zz"], true);
        let counts = |c| dfs(&[("a", 1), ("c", c), ("zz", 0)]);
        assert_eq!(
            stats,
            GlobalStats::new(3, 2, 5, counts(1), counts(2)).unwrap()
        );
        assert_eq!(stats.collection_stats(LengthMode::Lucene).num_docs, 2);
        assert_eq!(stats.collection_stats(LengthMode::Exact).num_docs, 3);
    }
}
