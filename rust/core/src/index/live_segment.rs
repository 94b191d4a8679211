//! A segment as part of an index: its data, its deletions, where it is
//! stored, and its live statistics.

use std::sync::Arc;

use crate::impacts::ImpactCache;
use crate::segment::{Deletions, SegmentData};

/// A segment as part of an index: its data, its deletions and where it is stored.
#[derive(Clone, Debug)]
pub struct LiveSegment {
    pub(crate) data: Arc<SegmentData>,
    pub(crate) deletions: Option<Arc<Deletions>>,
    /// Live document frequency per term ordinal, when there are deletions.
    pub(crate) live_df: Option<Arc<Vec<u32>>>,
    /// File name stem on disk, once saved.
    pub(crate) name: Option<String>,
    /// Deletions file on disk matching `deletions`, once saved.
    pub(crate) deletions_file: Option<String>,
    pub(super) live_docs: u64,
    pub(super) live_nonempty: u64,
    pub(super) live_total_terms: u64,
    /// The number of tokens of all its documents, deleted ones included: a
    /// bound on its number of postings.
    pub(crate) tokens: u64,
    /// Materialized BM25 postings, shared by the clones of this segment
    /// (they do not depend on deletions).
    pub(crate) impacts: Arc<ImpactCache>,
    /// Whether the deleted documents still count in the collection
    /// statistics (N, lengths, df, cf), as in a Lucene index until its
    /// segments merge.
    pub(crate) stats_count_deleted: bool,
}

impl LiveSegment {
    /// A segment without deletions, not yet saved.
    pub fn new(data: SegmentData) -> Self {
        LiveSegment::with_deletions(Arc::new(data), None, None, None)
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
        let mut tokens = 0u64;
        for (doc, &len) in data.lengths.iter().enumerate() {
            tokens += u64::from(len);
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
        LiveSegment {
            data,
            deletions,
            live_df,
            name,
            deletions_file,
            live_docs,
            live_nonempty,
            live_total_terms,
            tokens,
            impacts: Arc::default(),
            stats_count_deleted: false,
        }
    }

    /// A segment of a Lucene index with Lucene's deletions: the deleted
    /// documents are never hits but still count in the collection
    /// statistics, as Lucene counts them until its segments merge.
    pub(crate) fn counting_deleted(
        data: Arc<SegmentData>,
        deletions: Option<Arc<Deletions>>,
    ) -> Self {
        let mut segment = LiveSegment::with_deletions(data, None, None, None);
        segment.live_nonempty = segment.data.lengths.iter().filter(|&&l| l > 0).count() as u64;
        segment.live_total_terms = segment.tokens;
        segment.stats_count_deleted = true;
        segment.deletions = deletions.filter(|d| d.count() > 0);
        if let Some(del) = &segment.deletions {
            segment.live_docs -= del.count() as u64;
        }
        segment
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

    /// Document frequency of term `ord` in the statistics: live documents
    /// only, unless deleted ones count ([`LiveSegment::counting_deleted`]).
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

/// Every term of `segments` once, in order, with the ordinal it has in each.
pub(super) fn term_union(segments: &[LiveSegment]) -> fst::map::Union<'_> {
    let mut union = fst::map::OpBuilder::new();
    for s in segments {
        union = union.add(&s.data.terms);
    }
    union.union()
}
