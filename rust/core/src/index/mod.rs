//! The searchable index: an analyzer plus a list of immutable segments,
//! each with its set of deleted documents ([`LiveSegment`]).
//!
//! Document ids exposed by the index ("global ids") number every document of
//! every segment, deleted ones included: segment `s`'s local id `d` is
//! `base(s) + d`. Collection statistics (N, df, avgdl) count live documents
//! only, so an index changed by [`Index::with_changes`] scores exactly like a
//! fresh build over the same live documents.
//!
//! An `Index` value never changes: adding, deleting and merging return a new
//! `Index` that shares the untouched segments, so readers keep a consistent
//! snapshot while a writer commits.
//!
//! Files: `builder.rs` streams documents into a new index, `duplicates.rs`
//! keeps docids unique, `changes.rs` applies deletions and additions,
//! `merge_policy.rs` chooses the segments to merge and `merger.rs` merges
//! them. A transaction of changes beside other writers is
//! [`crate::writer::IndexWriter`]'s.

mod builder;
mod changes;
mod duplicates;
mod fields;
#[cfg(test)]
mod fields_tests;
mod live_segment;
mod merge_policy;
mod merger;
#[cfg(test)]
mod tests;

use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crate::analysis::{Analyzer, AnalyzerConfig};
use crate::docstore::StoredDoc;
use crate::document::Doc;
use crate::error::{Error, Result};
use crate::scoring::{CollectionStats, LengthMode};

pub use builder::{DEFAULT_MEMORY_BUDGET, IndexBuilder};
pub use duplicates::{Duplicates, check_added_docids};
pub use fields::check_field_name;
pub use live_segment::LiveSegment;
use live_segment::term_union;
pub use merge_policy::{MAX_DELETED_SHARE, MAX_SEGMENTS};

/// Documents per batch when building from an in-memory list.
const BUILD_BATCH: usize = 50_000;

/// Size figures of an index (live documents only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// Live documents, empty ones included.
    pub num_docs: u64,
    /// Live documents with at least one indexed term (Lucene's `docCount`).
    pub num_nonempty_docs: u64,
    /// Distinct terms over all segments (deleted documents' terms may count).
    pub num_terms: u64,
    /// (term, document) pairs stored, deleted documents included.
    pub num_postings: u64,
    /// Sum of the lengths of live documents.
    pub total_terms: u64,
    /// Bytes of compressed postings.
    pub postings_bytes: u64,
    /// Bytes of the compressed document store (0 without one).
    pub store_bytes: u64,
    /// Number of segments.
    pub num_segments: u64,
    /// Deleted documents not yet merged away.
    pub num_deleted: u64,
}

impl IndexStats {
    /// The mean length over every live document, 0 for an empty index (what
    /// a user reads as "avgdl"; scoring reads [`IndexStats::collection`]'s,
    /// which is 1 there so that nothing divides by zero).
    pub fn avgdl(&self) -> f64 {
        match self.num_docs {
            0 => 0.0,
            n => self.total_terms as f64 / n as f64,
        }
    }

    /// The collection statistics a model scores with under `length`:
    /// Lucene's count only documents with at least one indexed term (its
    /// `docCount`), exact lengths count every document.
    pub fn collection(&self, length: LengthMode) -> CollectionStats {
        let num_docs = match length {
            LengthMode::Lucene => self.num_nonempty_docs,
            LengthMode::Exact => self.num_docs,
        };
        CollectionStats {
            num_docs,
            total_terms: self.total_terms,
        }
    }
}

/// An immutable, searchable inverted index. `Send + Sync`: share it freely.
pub struct Index {
    pub(crate) analyzer: Arc<Analyzer>,
    pub(crate) segments: Vec<LiveSegment>,
    bases: Vec<u32>,
    stats: IndexStats,
    /// The folder the saved segments live in.
    pub(crate) dir: Option<PathBuf>,
    /// The `meta.json` generation this index was loaded from or saved as (0: never).
    pub(crate) generation: u64,
    docid_lookup: OnceLock<DocidLookup>,
    tfidf_norms: OnceLock<Vec<Vec<f64>>>,
    /// Distinct terms and postings, counted on first use: not load work.
    term_counts: OnceLock<(u64, u64)>,
    /// The other fields searched by name, each an index of the same
    /// documents in the same segments ([`Index::with_fields`]).
    fields: Arc<Vec<(String, Arc<Index>)>>,
    /// The Lucene version that wrote the commit this index was converted
    /// from, if it was.
    lucene_version: Option<String>,
}

/// The name of the field an index searches by default (Anserini's).
pub const MAIN_FIELD: &str = "contents";

/// Live docids to global ids.
struct DocidLookup {
    /// Each docid's first copy.
    first: HashMap<String, u32>,
    /// The further copies of a docid added more than once, by first copy.
    more: HashMap<u32, Vec<u32>>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl Index {
    /// An index over `segments`, analyzing queries with `analyzer`.
    pub fn from_segments(
        analyzer: Arc<Analyzer>,
        segments: Vec<LiveSegment>,
        dir: Option<PathBuf>,
    ) -> Result<Self> {
        let mut bases = Vec::with_capacity(segments.len());
        let mut next = 0u64;
        let mut stats = IndexStats {
            num_segments: segments.len() as u64,
            ..IndexStats::default()
        };
        for s in &segments {
            bases.push(next as u32);
            next += s.data.len() as u64;
            stats.num_docs += s.live_docs;
            stats.num_nonempty_docs += s.live_nonempty;
            stats.total_terms += s.live_total_terms;
            stats.num_deleted += s.deletions.as_ref().map_or(0, |d| d.count() as u64);
            stats.postings_bytes += s.data.postings.len() as u64;
            stats.store_bytes += s.data.store.as_ref().map_or(0, |st| st.size_bytes() as u64);
        }
        if next > u64::from(u32::MAX) {
            return Err(Error::Document(
                "an index holds at most 4,294,967,295 documents".into(),
            ));
        }
        Ok(Index {
            analyzer,
            segments,
            bases,
            stats,
            dir,
            generation: 0,
            docid_lookup: OnceLock::new(),
            tfidf_norms: OnceLock::new(),
            term_counts: OnceLock::new(),
            fields: Arc::default(),
            lucene_version: None,
        })
    }

    /// This index recorded as converted from a Lucene index whose commit
    /// Lucene `version` wrote.
    pub fn from_lucene(mut self, version: String) -> Index {
        self.lucene_version = Some(version);
        self
    }

    /// The Lucene version that wrote the commit this index was converted
    /// from, if it was.
    pub fn lucene_version(&self) -> Option<&str> {
        self.lucene_version.as_deref()
    }

    /// Builds a one-segment index from documents, with a document store if `store`.
    pub fn build_docs(config: AnalyzerConfig, docs: Vec<Doc>, store: bool) -> Result<Index> {
        let mut builder = IndexBuilder::new(config, store)?;
        let mut docs = docs;
        while !docs.is_empty() {
            let rest = docs.split_off(docs.len().min(BUILD_BATCH));
            builder.add_batch(std::mem::replace(&mut docs, rest))?;
        }
        builder.finish()
    }

    /// Builds an index from `(docid, text)` pairs, with a document store.
    pub fn build(config: AnalyzerConfig, docs: Vec<(String, String)>) -> Result<Index> {
        Index::build_docs(
            config,
            docs.into_iter().map(|(d, t)| Doc::new(d, t)).collect(),
            true,
        )
    }

    /// The analyzer queries are run through (the one documents were indexed with).
    pub fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// Size figures.
    pub fn stats(&self) -> IndexStats {
        let (num_terms, num_postings) = *self.term_counts.get_or_init(|| {
            let num_postings = self
                .segments
                .iter()
                .flat_map(|s| {
                    (0..s.data.num_terms() as u32).map(|o| u64::from(s.data.term_info(o).df))
                })
                .sum();
            let num_terms = match self.segments.as_slice() {
                [] => 0,
                [one] => one.data.num_terms() as u64,
                many => {
                    let mut union = term_union(many);
                    let mut count = 0u64;
                    while fst::Streamer::next(&mut union).is_some() {
                        count += 1;
                    }
                    count
                }
            };
            (num_terms, num_postings)
        });
        IndexStats {
            num_terms,
            num_postings,
            ..self.stats
        }
    }

    /// The segments.
    pub fn segments(&self) -> &[LiveSegment] {
        &self.segments
    }

    /// The folder the index was saved to or loaded from.
    pub fn dir(&self) -> Option<&std::path::Path> {
        self.dir.as_deref()
    }

    /// The saved generation this index is (0 if never saved or loaded).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Number of live documents.
    pub fn len(&self) -> usize {
        self.stats.num_docs as usize
    }

    /// Whether the index holds no live document.
    pub fn is_empty(&self) -> bool {
        self.stats.num_docs == 0
    }

    /// One past the largest global id (deleted documents included).
    pub fn id_space(&self) -> u32 {
        match (self.bases.last(), self.segments.last()) {
            (Some(&b), Some(s)) => b + s.data.len() as u32,
            _ => 0,
        }
    }

    /// Global id of segment `segment`'s document `doc`.
    #[inline]
    pub fn global(&self, segment: usize, doc: u32) -> u32 {
        self.bases[segment] + doc
    }

    /// The segment and local id of global id `id`.
    pub fn locate(&self, id: u32) -> Option<(usize, u32)> {
        let s = self.bases.partition_point(|&b| b <= id).checked_sub(1)?;
        let local = id - self.bases[s];
        (local < self.segments[s].data.len() as u32).then_some((s, local))
    }

    /// The docid of global id `id` (deleted documents included).
    pub fn docid(&self, id: u32) -> Option<&str> {
        let (s, d) = self.locate(id)?;
        self.segments[s].data.docid(d)
    }

    /// All live docids, in global id order.
    pub fn live_docids(&self) -> Vec<&str> {
        let mut out = Vec::with_capacity(self.len());
        for s in &self.segments {
            for d in 0..s.data.len() as u32 {
                if !s.is_deleted(d) {
                    out.extend(s.data.docid(d));
                }
            }
        }
        out
    }

    /// The global id of the live document `docid` (its first copy, if it
    /// was added more than once with [`Duplicates::Keep`]).
    pub fn doc(&self, docid: &str) -> Result<u32> {
        self.lookup()
            .first
            .get(docid)
            .copied()
            .ok_or_else(|| Error::UnknownDocid(docid.to_owned()))
    }

    /// The global ids of every live copy of `docid`, first copy first.
    pub fn copies(&self, docid: &str) -> Result<Vec<u32>> {
        let first = self.doc(docid)?;
        let mut ids = vec![first];
        ids.extend(self.lookup().more.get(&first).into_iter().flatten());
        Ok(ids)
    }

    fn lookup(&self) -> &DocidLookup {
        self.docid_lookup.get_or_init(|| {
            let mut lookup = DocidLookup {
                first: HashMap::with_capacity(self.len()),
                more: HashMap::new(),
            };
            for (s, seg) in self.segments.iter().enumerate() {
                for d in 0..seg.data.len() as u32 {
                    if !seg.is_deleted(d)
                        && let Some(id) = seg.data.docid(d)
                    {
                        let global = self.global(s, d);
                        match lookup.first.entry(id.to_owned()) {
                            std::collections::hash_map::Entry::Vacant(slot) => {
                                slot.insert(global);
                            }
                            std::collections::hash_map::Entry::Occupied(first) => {
                                lookup.more.entry(*first.get()).or_default().push(global);
                            }
                        }
                    }
                }
            }
            lookup
        })
    }

    /// The stored text and original fields of `docid`.
    pub fn stored(&self, docid: &str) -> Result<StoredDoc> {
        let (s, d) = self.locate(self.doc(docid)?).expect("lookup ids are valid");
        let segment = &self.segments[s];
        if segment.data.store.is_none() {
            return Err(Error::Query(
                "this index has no document store: build it with store=True to read documents back"
                    .into(),
            ));
        }
        segment.data.stored(d).ok_or_else(|| {
            Error::corrupted(
                self.dir.clone().unwrap_or_default(),
                format!("stored document {docid:?} is damaged"),
            )
        })
    }

    /// Whether every segment keeps a document store.
    pub fn has_store(&self) -> bool {
        self.segments.iter().all(|s| s.data.store.is_some())
    }

    /// The tie rule between two global ids: smaller docid first. Docids are
    /// compared themselves, not through the segments' ranks, so that the
    /// order stays total even if a damaged (checksum-valid) rank file
    /// disagrees with its docids; only ties in score reach this.
    pub fn compare_docids(&self, a: u32, b: u32) -> Ordering {
        self.docid(a).cmp(&self.docid(b)).then(a.cmp(&b))
    }

    /// Collection statistics for BM25 in `length` mode: Lucene counts only
    /// documents with at least one indexed term.
    pub fn collection_stats(&self, length: LengthMode) -> CollectionStats {
        self.stats.collection(length)
    }

    /// Live document frequency of `term` over all segments.
    pub fn df(&self, term: &str) -> u64 {
        self.segments
            .iter()
            .filter_map(|s| s.data.term_ord(term).map(|o| u64::from(s.live_df(o))))
            .sum()
    }

    /// Live collection frequency of `term` (its occurrences in live
    /// documents) over all segments: Lucene's `totalTermFreq`.
    pub fn cf(&self, term: &str) -> u64 {
        let mut cf = 0u64;
        for s in &self.segments {
            if let Some(ord) = s.data.term_ord(term) {
                s.data.for_each_posting(ord, |d, tf| {
                    if s.stats_count_deleted || !s.is_deleted(d) {
                        cf += u64::from(tf);
                    }
                });
            }
        }
        cf
    }

    /// Per-segment, per-document TF-IDF vector norms under the current
    /// statistics, computed on first use.
    pub(crate) fn tfidf_norms(&self) -> &[Vec<f64>] {
        self.tfidf_norms.get_or_init(|| {
            let n = self.stats.num_docs;
            self.segments
                .iter()
                .map(|seg| {
                    let mut squares = vec![0f64; seg.data.len()];
                    let mut stream = seg.data.terms.stream();
                    while let Some((term, ord)) = fst::Streamer::next(&mut stream) {
                        let term = std::str::from_utf8(term).unwrap_or("");
                        let df = if self.segments.len() == 1 {
                            u64::from(seg.live_df(ord as u32))
                        } else {
                            self.df(term)
                        };
                        let idf = crate::scoring::tfidf::idf(n, df);
                        seg.data.for_each_posting(ord as u32, |doc, tf| {
                            if let Some(s) = squares.get_mut(doc as usize) {
                                let w = crate::scoring::tfidf::sublinear_tf(tf) * idf;
                                *s += w * w;
                            }
                        });
                    }
                    squares.into_iter().map(f64::sqrt).collect()
                })
                .collect()
        })
    }

    /// The same index, detached from any folder (as if never saved).
    pub fn in_memory(&self) -> Result<Index> {
        let segments = self
            .segments
            .iter()
            .map(|s| {
                let mut copy = s.clone();
                copy.name = None;
                copy.deletions_file = None;
                copy
            })
            .collect();
        let mut index = Index::from_segments(self.analyzer.clone(), segments, None)?;
        index.fields = self.fields.clone();
        index.lucene_version = self.lucene_version.clone();
        Ok(index)
    }

    /// The same index, recorded as saved in `dir` as `generation`.
    pub(crate) fn persisted(
        &self,
        dir: PathBuf,
        generation: u64,
        segments: Vec<LiveSegment>,
    ) -> Result<Index> {
        let mut index = Index::from_segments(self.analyzer.clone(), segments, Some(dir))?;
        index.generation = generation;
        index.lucene_version = self.lucene_version.clone();
        Ok(index)
    }
}
