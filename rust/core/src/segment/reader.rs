//! A segment as read: its docids, lengths, norms, term dictionary,
//! postings and document store, over owned or mapped bytes.

use super::docids::DocIds;
use super::lexicon::Lexicon;
use crate::data::Data;
use crate::docstore::{DocStore, StoredDoc};
use crate::postings::{self, BlockMeta, PostingList, TermInfo, TermTable};

/// A term's ordinal in a segment's term dictionary.
pub type TermOrd = u32;

/// The immutable content of a segment.
pub struct SegmentData {
    pub(crate) docids: DocIds,
    pub(crate) docid_rank: Vec<u32>,
    pub(crate) lengths: Vec<u32>,
    pub(crate) norms: Vec<u8>,
    pub(crate) terms: fst::Map<Data>,
    pub(crate) term_infos: TermTable,
    pub(crate) blocks: Vec<BlockMeta>,
    pub(crate) postings: Data,
    pub(crate) store: Option<DocStore>,
    /// The term dictionary as a hash table, for small segments.
    pub(crate) lexicon: Lexicon,
}

impl std::fmt::Debug for SegmentData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentData")
            .field("docs", &self.docids.len())
            .field("terms", &self.term_infos.len())
            .finish_non_exhaustive()
    }
}

impl SegmentData {
    /// Number of documents, deleted ones included.
    pub fn len(&self) -> usize {
        self.docids.len()
    }

    /// Whether the segment holds no document.
    pub fn is_empty(&self) -> bool {
        self.docids.is_empty()
    }

    /// The docid of `doc`.
    pub fn docid(&self, doc: u32) -> Option<&str> {
        self.docids.get(doc)
    }

    /// Rank of `doc`'s docid in ascending docid order within the segment.
    #[inline]
    pub fn docid_rank(&self, doc: u32) -> u32 {
        self.docid_rank
            .get(doc as usize)
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// Exact length of `doc`.
    #[inline]
    pub fn length(&self, doc: u32) -> u32 {
        self.lengths.get(doc as usize).copied().unwrap_or(0)
    }

    /// Lucene's one-byte norm of `doc`.
    #[inline]
    pub fn norm(&self, doc: u32) -> u8 {
        self.norms.get(doc as usize).copied().unwrap_or(0)
    }

    /// Lucene's one-byte norms, by doc id.
    #[inline]
    pub fn norms(&self) -> &[u8] {
        &self.norms
    }

    /// The ordinal of `term`, if the segment has it.
    pub fn term_ord(&self, term: &str) -> Option<TermOrd> {
        match self.lexicon.ord(&self.terms, &self.term_infos, term) {
            Some(ord) => ord,
            None => self.terms.get(term).map(|o| o as TermOrd),
        }
    }

    /// Number of distinct terms.
    pub fn num_terms(&self) -> usize {
        self.term_infos.len()
    }

    /// Where `ord`'s postings are.
    pub fn term_info(&self, ord: TermOrd) -> TermInfo {
        match self.lexicon.info(ord) {
            Some(info) => info,
            None => self.term_infos.get(ord),
        }
    }

    /// `ord`'s posting list (empty if inconsistent).
    pub fn postings(&self, ord: TermOrd) -> PostingList<'_> {
        let info = self.term_info(ord);
        let end = match ord.checked_add(1) {
            Some(next) if (next as usize) < self.term_infos.len() => self.term_info(next).offset,
            _ => self.postings.len() as u64,
        };
        PostingList::within(info, end, &self.postings, &self.blocks)
    }

    /// The stored document `doc`, if the segment has a store.
    pub fn stored(&self, doc: u32) -> Option<StoredDoc> {
        self.store.as_ref()?.get(doc)
    }

    /// Calls `f(doc, tf)` for every posting of `ord`, in doc order.
    pub fn for_each_posting(&self, ord: TermOrd, mut f: impl FnMut(u32, u32)) {
        let list = self.postings(ord);
        let mut decoder = postings::BlockDecoder::default();
        for b in 0..list.num_blocks() {
            let Some(len) = decoder.decode(&list, b) else {
                return;
            };
            for i in 0..len {
                f(decoder.docs[i], decoder.tfs[i]);
            }
        }
    }
}
