//! The searchable index: an analyzer plus a list of immutable segments,
//! each with its set of deleted documents.
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

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crate::analysis::{Analyzer, AnalyzerConfig};
use crate::docstore::{DocStoreWriter, StoredDoc};
use crate::document::Doc;
use crate::error::{Error, Result};
use crate::scoring::{CollectionStats, LengthMode};
use crate::segment::{Deletions, SegmentBuilder, SegmentData, SortedRun};

/// Documents per batch when building from an in-memory list.
const BUILD_BATCH: usize = 50_000;

/// More segments than this trigger a merge of the smallest ones.
pub const MAX_SEGMENTS: usize = 8;
/// A segment with more than this share of deleted documents is rewritten.
pub const MAX_DELETED_SHARE: f64 = 0.3;

/// What to do with a document whose docid is already in the index or batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Duplicates {
    /// Refuse it: docids are unique (the default).
    #[default]
    Error,
    /// Index every copy, as Lucene does: each is searched and ranked on its
    /// own (copies with equal scores in the order they were added), lookups
    /// by docid find the first copy, and deleting a docid deletes them all.
    Keep,
}

impl Duplicates {
    /// Parses `"error"` or `"keep"`.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "error" => Ok(Duplicates::Error),
            "keep" => Ok(Duplicates::Keep),
            other => Err(Error::Query(format!(
                "unknown duplicates policy {other:?}; choose \"error\" or \"keep\""
            ))),
        }
    }
}

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

/// A segment as part of an index: its data, its deletions and where it is stored.
#[derive(Clone, Debug)]
pub struct Segment {
    pub(crate) data: Arc<SegmentData>,
    pub(crate) deletions: Option<Arc<Deletions>>,
    /// Live document frequency per term ordinal, when there are deletions.
    pub(crate) live_df: Option<Arc<Vec<u32>>>,
    /// File name stem on disk, once saved.
    pub(crate) name: Option<String>,
    /// Deletions file on disk matching `deletions`, once saved.
    pub(crate) deletions_file: Option<String>,
    live_docs: u64,
    live_nonempty: u64,
    live_total_terms: u64,
}

impl Segment {
    /// A segment without deletions, not yet saved.
    pub fn new(data: SegmentData) -> Self {
        Segment::with_deletions(Arc::new(data), None, None, None)
    }

    pub(crate) fn with_deletions(
        data: Arc<SegmentData>,
        deletions: Option<Arc<Deletions>>,
        name: Option<String>,
        deletions_file: Option<String>,
    ) -> Self {
        let deletions = deletions.filter(|d| d.count() > 0);
        let live = |doc: u32| !deletions.as_ref().is_some_and(|d| d.contains(doc));
        let (mut live_docs, mut live_nonempty, mut live_total_terms) = (0u64, 0u64, 0u64);
        for (doc, &len) in data.lengths.iter().enumerate() {
            if live(doc as u32) {
                live_docs += 1;
                live_nonempty += u64::from(len > 0);
                live_total_terms += u64::from(len);
            }
        }
        let live_df = deletions.as_ref().map(|del| {
            let mut df = vec![0u32; data.num_terms()];
            for (ord, slot) in df.iter_mut().enumerate() {
                data.for_each_posting(ord as u32, |doc, _| *slot += u32::from(!del.contains(doc)));
            }
            Arc::new(df)
        });
        Segment {
            data,
            deletions,
            live_df,
            name,
            deletions_file,
            live_docs,
            live_nonempty,
            live_total_terms,
        }
    }

    /// The segment's documents and postings.
    pub fn data(&self) -> &SegmentData {
        &self.data
    }

    /// Whether local document `doc` is deleted.
    #[inline]
    pub fn is_deleted(&self, doc: u32) -> bool {
        self.deletions.as_ref().is_some_and(|d| d.contains(doc))
    }

    /// The deletions, if any.
    pub fn deletions(&self) -> Option<&Deletions> {
        self.deletions.as_deref()
    }

    /// Whether the segment has deleted documents.
    pub fn has_deletions(&self) -> bool {
        self.deletions.is_some()
    }

    /// Live document frequency of term `ord`.
    pub fn live_df(&self, ord: u32) -> u32 {
        match &self.live_df {
            Some(df) => df.get(ord as usize).copied().unwrap_or(0),
            None => self.data.term_info(ord).df,
        }
    }

    /// Number of live documents.
    pub fn live_docs(&self) -> u64 {
        self.live_docs
    }

    /// Name on disk, once saved.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

/// An immutable, searchable inverted index. `Send + Sync`: share it freely.
pub struct Index {
    pub(crate) analyzer: Arc<Analyzer>,
    pub(crate) segments: Vec<Segment>,
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
}

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
        segments: Vec<Segment>,
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
        })
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
    pub fn segments(&self) -> &[Segment] {
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
        let num_docs = match length {
            LengthMode::Lucene => self.stats.num_nonempty_docs,
            LengthMode::Exact => self.stats.num_docs,
        };
        CollectionStats {
            num_docs,
            total_terms: self.stats.total_terms,
        }
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
                    if !s.is_deleted(d) {
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

    /// A new index with `deletes` removed and `adds` added as a new segment,
    /// then merged by the merge policy. Fails, changing nothing, on an unknown
    /// docid to delete or an added docid that would not be unique.
    pub fn with_changes(&self, adds: Vec<Doc>, deletes: &[String], store: bool) -> Result<Index> {
        self.with_changes_as(adds, deletes, store, Duplicates::Error)
    }

    /// [`Index::with_changes`] under a [`Duplicates`] policy: with `Keep`,
    /// added docids need not be unique, and deleting a docid deletes every
    /// copy.
    pub fn with_changes_as(
        &self,
        adds: Vec<Doc>,
        deletes: &[String],
        store: bool,
        duplicates: Duplicates,
    ) -> Result<Index> {
        let mut deletions: Vec<Option<Deletions>> = vec![None; self.segments.len()];
        let mut deleted: HashSet<&str> = HashSet::new();
        for docid in deletes {
            if !deleted.insert(docid.as_str()) {
                continue;
            }
            for id in self.copies(docid)? {
                let (s, d) = self.locate(id).expect("lookup ids are valid");
                let seg = &self.segments[s];
                deletions[s]
                    .get_or_insert_with(|| {
                        seg.deletions
                            .as_deref()
                            .cloned()
                            .unwrap_or_else(|| Deletions::new(seg.data.len()))
                    })
                    .insert(d);
            }
        }
        match duplicates {
            Duplicates::Error => {
                for doc in &adds {
                    let exists =
                        !deleted.contains(doc.docid.as_str()) && self.doc(&doc.docid).is_ok();
                    if exists {
                        return Err(Error::Document(format!(
                            "docid {:?} is already in the index; delete it first to replace it, or add it with duplicates=\"keep\"",
                            doc.docid
                        )));
                    }
                }
                check_new_docids(&adds, 0, |_| None)?;
            }
            Duplicates::Keep => check_nonempty_docids(&adds, 0)?,
        }
        let mut segments: Vec<Segment> = self
            .segments
            .iter()
            .zip(deletions)
            .map(|(seg, del)| match del {
                None => seg.clone(),
                Some(del) => Segment::with_deletions(
                    seg.data.clone(),
                    Some(Arc::new(del)),
                    seg.name.clone(),
                    None,
                ),
            })
            .collect();
        if !adds.is_empty() {
            let mut builder = SegmentBuilder::new(self.analyzer.clone(), store);
            builder.add(adds)?;
            segments.push(Segment::new(builder.finish()?));
        }
        segments.retain(|s| s.live_docs > 0);
        let segments = merge_policy(segments)?;
        Index::from_segments(self.analyzer.clone(), segments, self.dir.clone())
    }

    /// A new index whose live documents are all in one segment.
    pub fn merged(&self) -> Result<Index> {
        let segments =
            if self.segments.len() <= 1 && !self.segments.iter().any(Segment::has_deletions) {
                self.segments.clone()
            } else {
                vec![merge(&self.segments)?]
            };
        Index::from_segments(self.analyzer.clone(), segments, self.dir.clone())
    }

    /// The same index, detached from any folder (as if never saved).
    pub fn in_memory(&self) -> Result<Index> {
        let segments = self
            .segments
            .iter()
            .map(|s| Segment::with_deletions(s.data.clone(), s.deletions.clone(), None, None))
            .collect();
        Index::from_segments(self.analyzer.clone(), segments, None)
    }

    /// The same index, recorded as saved in `dir` as `generation`.
    pub(crate) fn persisted(
        &self,
        dir: PathBuf,
        generation: u64,
        segments: Vec<Segment>,
    ) -> Result<Index> {
        let mut index = Index::from_segments(self.analyzer.clone(), segments, Some(dir))?;
        index.generation = generation;
        Ok(index)
    }
}

/// Default memory budget of an [`IndexBuilder`], in bytes.
pub const DEFAULT_MEMORY_BUDGET: usize = 256 << 20;

/// Documents analyzed between two checks of the memory budget, at most.
const BUDGET_CHECK_DOCS: usize = 8192;

/// Documents analyzed between two checks of a `budget`: about one per KB of
/// budget, between 64 and [`BUDGET_CHECK_DOCS`], so a small budget is not
/// overshot by a whole batch.
fn budget_check_docs(budget: usize) -> usize {
    (budget >> 10).clamp(64, BUDGET_CHECK_DOCS)
}

/// Streams documents into a one-segment [`Index`], in bounded memory.
///
/// Documents are analyzed in parallel into an in-memory segment. Once that
/// segment's estimated size passes the memory budget, its postings are
/// compressed and kept as a sorted run, and a new one is started; `finish`
/// merges the runs into one segment, term by term, and builds its term
/// dictionary once. The result is the segment a single pass would build
/// (same document order, terms, postings and statistics), except that the
/// document store's compressed blocks are also cut where runs end.
pub struct IndexBuilder {
    analyzer: Arc<Analyzer>,
    store: bool,
    budget: usize,
    segment: SegmentBuilder,
    /// Compressed runs of the documents before `segment`'s.
    done: Vec<SortedRun>,
    done_docs: usize,
    seen: DocidSet,
    duplicates: Duplicates,
}

impl IndexBuilder {
    /// A builder whose documents (and later queries) go through `config`;
    /// keeps a document store if `store`. Uses [`DEFAULT_MEMORY_BUDGET`].
    pub fn new(config: AnalyzerConfig, store: bool) -> Result<Self> {
        let analyzer = Arc::new(Analyzer::new(config)?);
        Ok(IndexBuilder {
            segment: SegmentBuilder::new(analyzer.clone(), store),
            analyzer,
            store,
            budget: DEFAULT_MEMORY_BUDGET,
            done: Vec::new(),
            done_docs: 0,
            seen: DocidSet::default(),
            duplicates: Duplicates::Error,
        })
    }

    /// Sets what to do with a docid added twice (default: an error).
    pub fn with_duplicates(mut self, duplicates: Duplicates) -> Self {
        self.duplicates = duplicates;
        self
    }

    /// Sets the memory budget: the estimated bytes of uncompressed postings,
    /// terms and docids held before they are compressed into a sorted run
    /// of their own (the runs are merged into one segment at `finish`). Smaller budgets use less
    /// memory and build a little slower; 0 compresses after every batch.
    pub fn with_memory_budget(mut self, bytes: usize) -> Self {
        self.budget = bytes;
        self
    }

    /// The memory budget in bytes.
    pub fn memory_budget(&self) -> usize {
        self.budget
    }

    /// Number of documents added.
    pub fn len(&self) -> usize {
        self.done_docs + self.segment.len()
    }

    /// Whether no document was added.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The docid of the `position`-th document added.
    fn docid_at(&self, position: usize) -> Option<&str> {
        if position >= self.done_docs {
            return self.segment.docid(position - self.done_docs);
        }
        let mut local = position;
        for run in &self.done {
            let n = run.len();
            if local < n {
                return run.docid(local);
            }
            local -= n;
        }
        None
    }

    /// Analyzes and adds a batch, in parallel. Fails, adding nothing, on an
    /// empty or duplicate docid.
    pub fn add_batch(&mut self, docs: Vec<Doc>) -> Result<()> {
        if self.len() + docs.len() > u32::MAX as usize {
            return Err(Error::Document(
                "an index holds at most 4,294,967,295 documents".into(),
            ));
        }
        if self.duplicates == Duplicates::Keep {
            check_nonempty_docids(&docs, self.len())?;
        } else {
            let mut seen = std::mem::take(&mut self.seen);
            let recorded = seen.insert_batch(&docs, self.len(), |p| self.docid_at(p));
            self.seen = seen;
            recorded?;
        }
        let mut docs = docs;
        while !docs.is_empty() {
            let rest = docs.split_off(docs.len().min(budget_check_docs(self.budget)));
            let part = std::mem::replace(&mut docs, rest);
            self.segment.add(part)?;
            if self.segment.memory_bytes() >= self.budget {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Compresses the in-memory segment and keeps it as a sorted run.
    fn flush(&mut self) -> Result<()> {
        if self.segment.is_empty() {
            return Ok(());
        }
        let full = std::mem::replace(
            &mut self.segment,
            SegmentBuilder::new(self.analyzer.clone(), self.store),
        );
        let run = full.finish_run()?;
        self.done_docs += run.len();
        self.done.push(run);
        Ok(())
    }

    /// Compresses what was added into an index of one segment.
    pub fn finish(mut self) -> Result<Index> {
        let segments = if self.done.is_empty() {
            let data = self.segment.finish()?;
            if data.is_empty() {
                Vec::new()
            } else {
                vec![Segment::new(data)]
            }
        } else {
            self.flush()?;
            let mut done = std::mem::take(&mut self.done);
            let run = if done.len() == 1 {
                done.pop().expect("one run")
            } else {
                SortedRun::merge(done)?
            };
            vec![Segment::new(run.into_segment()?)]
        };
        Index::from_segments(self.analyzer, segments, None)
    }
}

/// The docids added to an [`IndexBuilder`], by a 64-bit hash and the
/// position of the document: the docids themselves are read back from the
/// builder, so the set costs a few bytes per document.
#[derive(Default)]
struct DocidSet {
    /// (hash, position of the first docid with that hash).
    first: hashbrown::HashTable<(u64, u32)>,
    /// Docids whose hash an earlier, different docid has, by position.
    clashes: HashMap<String, usize>,
}

impl DocidSet {
    fn hash(docid: &str) -> u64 {
        use std::hash::BuildHasher;
        rustc_hash::FxBuildHasher.hash_one(docid)
    }

    /// Records `docid`, whose hash is `hash`, at `position`; or, if it was
    /// recorded before, returns that position. `docid_at` reads the docid
    /// recorded at a position.
    fn insert<'a>(
        &mut self,
        docid: &str,
        hash: u64,
        position: usize,
        docid_at: impl Fn(usize) -> Option<&'a str>,
    ) -> std::result::Result<(), usize> {
        let first = match self.first.entry(hash, |&(h, _)| h == hash, |&(h, _)| h) {
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert((hash, position as u32));
                return Ok(());
            }
            hashbrown::hash_table::Entry::Occupied(entry) => entry.get().1 as usize,
        };
        if docid_at(first) == Some(docid) {
            return Err(first);
        }
        match self.clashes.entry(docid.to_owned()) {
            std::collections::hash_map::Entry::Occupied(entry) => Err(*entry.get()),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(position);
                Ok(())
            }
        }
    }

    /// Undoes [`DocidSet::insert`] of `docid` (hash `hash`) at `position`.
    fn remove(&mut self, docid: &str, hash: u64, position: usize) {
        let recorded = |&(h, p): &(u64, u32)| h == hash && p as usize == position;
        if let Ok(entry) = self.first.find_entry(hash, recorded) {
            entry.remove();
        } else if self.clashes.get(docid) == Some(&position) {
            self.clashes.remove(docid);
        }
    }

    /// Records the docids of `docs`, at positions from `base`; `docid_at`
    /// reads the docids of earlier positions. Fails, recording none, on an
    /// empty docid or one recorded before. One hash and one table probe per
    /// docid: the table outgrows the caches on a large corpus.
    fn insert_batch<'a>(
        &mut self,
        docs: &'a [Doc],
        base: usize,
        docid_at: impl Fn(usize) -> Option<&'a str>,
    ) -> Result<()> {
        let at = |p: usize| match p.checked_sub(base) {
            Some(i) => docs.get(i).map(|doc| doc.docid.as_str()),
            None => docid_at(p),
        };
        for (i, doc) in docs.iter().enumerate() {
            let position = base + i;
            let error = if doc.docid.is_empty() {
                empty_docid(position)
            } else {
                match self.insert(&doc.docid, Self::hash(&doc.docid), position, at) {
                    Ok(()) => continue,
                    Err(first) => duplicate_docid(&doc.docid, first, position),
                }
            };
            for (j, doc) in docs[..i].iter().enumerate() {
                self.remove(&doc.docid, Self::hash(&doc.docid), base + j);
            }
            return Err(error);
        }
        Ok(())
    }
}

fn empty_docid(position: usize) -> Error {
    Error::Document(format!(
        "document #{position} has an empty docid; every document needs a unique, non-empty id"
    ))
}

fn duplicate_docid(docid: &str, first: usize, position: usize) -> Error {
    Error::Document(format!(
        "duplicate docid {docid:?} (documents #{first} and #{position}); docids must be unique, or give duplicates=\"keep\" to index every copy as Lucene does"
    ))
}

/// Checks that new documents, numbered from `base`, have non-empty docids.
fn check_nonempty_docids(docs: &[Doc], base: usize) -> Result<()> {
    match docs.iter().position(|doc| doc.docid.is_empty()) {
        Some(i) => Err(empty_docid(base + i)),
        None => Ok(()),
    }
}

/// Checks that new documents, numbered from `base`, have non-empty docids,
/// unique among themselves and not among those `existing` gives a position.
pub(crate) fn check_new_docids<'a>(
    docs: &'a [Doc],
    base: usize,
    existing: impl Fn(&'a str) -> Option<usize>,
) -> Result<()> {
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(docs.len());
    for (i, doc) in docs.iter().enumerate() {
        let position = base + i;
        if doc.docid.is_empty() {
            return Err(empty_docid(position));
        }
        let first = existing(&doc.docid).or_else(|| seen.get(doc.docid.as_str()).copied());
        if let Some(first) = first {
            return Err(duplicate_docid(&doc.docid, first, position));
        }
        seen.insert(&doc.docid, position);
    }
    Ok(())
}

/// The merge policy: rewrite segments with over [`MAX_DELETED_SHARE`]
/// deleted documents, and merge the smallest segments while there are more
/// than [`MAX_SEGMENTS`].
fn merge_policy(segments: Vec<Segment>) -> Result<Vec<Segment>> {
    let mut out = Vec::with_capacity(segments.len());
    for seg in segments {
        let deleted = seg.deletions.as_ref().map_or(0, |d| d.count());
        if deleted as f64 > MAX_DELETED_SHARE * seg.data.len() as f64 {
            out.push(merge(std::slice::from_ref(&seg))?);
        } else {
            out.push(seg);
        }
    }
    if out.len() > MAX_SEGMENTS {
        // Keep the largest MAX_SEGMENTS - 1, merge the rest into one, in index order.
        let mut by_size: Vec<usize> = (0..out.len()).collect();
        by_size.sort_by_key(|&i| std::cmp::Reverse(out[i].live_docs));
        let keep: HashSet<usize> = by_size[..MAX_SEGMENTS - 1].iter().copied().collect();
        let mut kept = Vec::with_capacity(MAX_SEGMENTS);
        let mut small = Vec::new();
        for (i, seg) in out.into_iter().enumerate() {
            if keep.contains(&i) {
                kept.push(seg);
            } else {
                small.push(seg);
            }
        }
        kept.push(merge(&small)?);
        let merged = kept;
        out = merged;
    }
    Ok(out)
}

/// Every term of `segments` once, in order, with the ordinal it has in each.
fn term_union(segments: &[Segment]) -> fst::map::Union<'_> {
    let mut union = fst::map::OpBuilder::new();
    for s in segments {
        union = union.add(&s.data.terms);
    }
    union.union()
}

/// Merges the live documents of `segments`, in order, into one new segment,
/// straight from their postings.
pub(crate) fn merge(segments: &[Segment]) -> Result<Segment> {
    // New local id of each live document, per segment.
    let mut remap: Vec<Vec<u32>> = Vec::with_capacity(segments.len());
    let mut docids: Vec<&str> = Vec::new();
    let mut lengths: Vec<u32> = Vec::new();
    let store = segments.iter().all(|s| s.data.store.is_some());
    let mut store_writer = store.then(DocStoreWriter::default);
    for seg in segments {
        let mut map = vec![u32::MAX; seg.data.len()];
        for d in 0..seg.data.len() as u32 {
            if seg.is_deleted(d) {
                continue;
            }
            map[d as usize] = docids.len() as u32;
            docids.push(seg.data.docid(d).unwrap_or(""));
            lengths.push(seg.data.length(d));
            if let Some(w) = &mut store_writer {
                let doc = seg.data.stored(d).unwrap_or(StoredDoc {
                    contents: String::new(),
                    raw: None,
                    derived: false,
                });
                w.add(&doc.contents, doc.raw.as_deref(), doc.derived);
            }
        }
        remap.push(map);
    }
    let mut stream = term_union(segments);
    let mut term_builder = fst::MapBuilder::memory();
    let mut written = crate::segment::PostingsWriter::default();
    let mut batch = crate::segment::ListBatch::default();
    let mut hits = Vec::new();
    let mut num_terms = 0u64;
    while let Some((term, found)) = fst::Streamer::next(&mut stream) {
        hits.clear();
        hits.extend_from_slice(found);
        hits.sort_unstable_by_key(|h: &fst::map::IndexedValue| h.index);
        let before = batch.docs.len();
        for h in &hits {
            let map = &remap[h.index];
            segments[h.index]
                .data
                .for_each_posting(h.value as u32, |d, tf| {
                    if let Some(&new) = map.get(d as usize)
                        && new != u32::MAX
                    {
                        batch.docs.push(new);
                        batch.tfs.push(tf);
                    }
                });
        }
        if batch.docs.len() == before {
            continue;
        }
        term_builder
            .insert(term, num_terms)
            .map_err(|e| Error::Document(format!("cannot build the term dictionary: {e}")))?;
        num_terms += 1;
        batch.end_list(&mut written, &lengths);
    }
    batch.flush(&mut written, &lengths);
    let terms = crate::data::Data::owned(
        term_builder
            .into_inner()
            .map_err(|e| Error::Document(format!("cannot build the term dictionary: {e}")))?,
    );
    let docid_bytes = crate::segment::DocIds::encode(docids.iter().copied());
    let data = crate::segment::assemble(
        docid_bytes,
        &docids,
        lengths,
        terms,
        written,
        store_writer
            .map(|w| crate::segment::open_store(w.finish(), docids.len() as u32))
            .transpose()?,
    )?;
    Ok(Segment::new(data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::Bm25Params;
    use crate::search::{Model, search};

    /// A small corpus with a skewed vocabulary, some empty and some
    /// stopword-only documents.
    fn corpus(n: usize) -> Vec<Doc> {
        let mut next = crate::testing::xorshift(12345);
        (0..n)
            .map(|i| {
                let words = (next() % 40) as usize;
                let text: Vec<String> = (0..words)
                    .map(|_| {
                        let r = next() % 1000;
                        match r % 7 {
                            0 => "the".to_owned(),
                            1 => format!("running{}", r % 13),
                            _ => format!("w{}", (r * r) % 997),
                        }
                    })
                    .collect();
                // Docids out of order, so docid ranks matter.
                let docid = format!("d{}", (i * 7919) % n);
                let raw = format!(
                    "{{\"id\": \"{docid}\", \"contents\": \"{}\"}}",
                    text.join(" ")
                );
                Doc {
                    docid,
                    contents: text.join(" "),
                    raw: Some(raw),
                    derived: true,
                }
            })
            .collect()
    }

    fn build(docs: &[Doc], store: bool, budget: Option<usize>, batch: usize) -> Index {
        let mut builder = IndexBuilder::new(AnalyzerConfig::default(), store).unwrap();
        if let Some(b) = budget {
            builder = builder.with_memory_budget(b);
        }
        for part in docs.chunks(batch) {
            builder.add_batch(part.to_vec()).unwrap();
        }
        builder.finish().unwrap()
    }

    fn same(a: &Index, b: &Index) {
        // Stores hold the same documents; their compressed blocks are cut at
        // run boundaries.
        let unstored = |i: &Index| IndexStats {
            store_bytes: 0,
            ..i.stats()
        };
        assert_eq!(unstored(a), unstored(b));
        assert_eq!(a.segments.len(), 1);
        assert_eq!(b.segments.len(), 1);
        let (x, y) = (a.segments[0].data(), b.segments[0].data());
        assert_eq!(x.docids.bytes(), y.docids.bytes());
        assert_eq!(x.docid_rank, y.docid_rank);
        assert_eq!(x.lengths, y.lengths);
        assert_eq!(x.norms, y.norms);
        assert_eq!(x.terms.as_fst().as_bytes(), y.terms.as_fst().as_bytes());
        assert_eq!(&x.postings[..], &y.postings[..]);
        assert_eq!(x.num_terms(), y.num_terms());
        for ord in 0..x.num_terms() as u32 {
            assert_eq!(x.term_info(ord), y.term_info(ord));
        }
        assert_eq!(x.store.is_some(), y.store.is_some());
        for d in 0..x.len() as u32 {
            assert_eq!(x.stored(d), y.stored(d));
        }
        let model = Model::Bm25(Bm25Params::default());
        for query in ["w1 w2 w3", "running", "the w5", "w996 running3", "nothing"] {
            let (ha, hb) = (search(a, query, 50, &model), search(b, query, 50, &model));
            assert_eq!(ha.len(), hb.len());
            for (p, q) in ha.iter().zip(&hb) {
                assert_eq!((p.doc, p.score.to_bits()), (q.doc, q.score.to_bits()));
            }
        }
    }

    #[test]
    fn a_memory_budget_builds_the_same_index() {
        let docs = corpus(3000);
        for store in [false, true] {
            let whole = build(&docs, store, None, 100_000);
            for (budget, batch) in [(0, 7), (0, 37), (1, 500), (20_000, 64), (200_000, 1000)] {
                let spilled = build(&docs, store, Some(budget), batch);
                same(&whole, &spilled);
            }
        }
    }

    /// A builder with a memory budget of 0, given `docs` in batches of `batch`:
    /// every batch becomes a run of its own.
    fn zero_budget_builder(docs: &[Doc], batch: usize) -> IndexBuilder {
        let mut builder = IndexBuilder::new(AnalyzerConfig::default(), false)
            .unwrap()
            .with_memory_budget(0);
        for part in docs.chunks(batch) {
            builder.add_batch(part.to_vec()).unwrap();
        }
        builder
    }

    #[test]
    fn a_budget_keeps_compressed_runs_until_finish() {
        let docs = corpus(500);
        let builder = zero_budget_builder(&docs, 50);
        assert_eq!(builder.done.len(), 10);
        assert_eq!(builder.len(), 500);
        assert_eq!(builder.finish().unwrap().segments.len(), 1);
    }

    #[test]
    fn duplicates_are_found_across_flushed_segments() {
        let docs = corpus(300);
        let mut builder = zero_budget_builder(&docs, 100);
        let again = vec![Doc::new("x", "new"), docs[5].clone()];
        let err = builder.add_batch(again).unwrap_err().to_string();
        assert!(err.contains("duplicate docid"), "{err}");
        assert!(err.contains("documents #5 and #301"), "{err}");
        // Nothing was added by the failed batch.
        assert_eq!(builder.len(), 300);
        builder.add_batch(vec![Doc::new("x", "new")]).unwrap();
        let err = builder
            .add_batch(vec![Doc::new("y", "a"), Doc::new("y", "b")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("documents #301 and #302"), "{err}");
        let index = builder.finish().unwrap();
        assert_eq!(index.len(), 301);
        assert_eq!(index.doc("x").unwrap(), 300);
    }

    #[test]
    fn docid_hash_clashes_are_told_apart() {
        let mut set = DocidSet::default();
        let docids = ["a", "b", "c", "c", "a", "d"];
        let at = |p: usize| docids.get(p).copied();
        // "a", "c" and "d" share a hash.
        assert_eq!(set.insert("a", 7, 0, at), Ok(()));
        assert_eq!(set.insert("b", 8, 1, at), Ok(()));
        assert_eq!(set.insert("c", 7, 2, at), Ok(()));
        assert_eq!(set.clashes.get("c"), Some(&2));
        assert_eq!(set.insert("c", 7, 3, at), Err(2));
        assert_eq!(set.insert("a", 7, 4, at), Err(0));
        assert_eq!(set.insert("d", 7, 5, at), Ok(()));
        set.remove("d", 7, 5);
        set.remove("a", 7, 0);
        assert_eq!(set.clashes.get("d"), None);
        assert_eq!(set.insert("a", 7, 4, at), Ok(()));
        assert_eq!(set.insert("c", 7, 3, at), Err(2));
    }
}
