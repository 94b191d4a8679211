//! A segment: an immutable inverted index over a batch of documents, with
//! its own term dictionary, postings, lengths and document store.
//!
//! An [`crate::index::Index`] is a list of segments plus, per segment, the
//! set of deleted documents. [`SegmentBuilder`] analyzes documents in
//! parallel (rayon) and gathers posting lists in memory; `finish` sorts the
//! vocabulary, builds the term dictionary (an `fst` map from term to term
//! ordinal) and compresses the postings ([`crate::postings`]).
//!
//! Document ids inside a segment are `u32`s in insertion order. The tie rule
//! (docid ascending) uses each document's rank in docid order within the
//! segment, computed once when the segment is built.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use crate::analysis::Analyzer;
use crate::bits::{self, BitWriter};
use crate::data::Data;
use crate::docstore::{DocStore, DocStoreWriter, StoredDoc};
use crate::error::{Error, Result};
use crate::fieldnorm;
use crate::postings::{self, BlockMeta, PostingList, TermInfo, TermTable};

/// Documents per parallel analysis task.
const ANALYSIS_CHUNK: usize = 512;

/// A term's ordinal in a segment's term dictionary.
pub type TermOrd = u32;

/// One document to index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doc {
    /// External id, unique in the index.
    pub docid: String,
    /// The text that is analyzed and indexed.
    pub contents: String,
    /// The original JSON object, when the document came as JSON.
    pub raw: Option<String>,
    /// Whether [`crate::corpus::document_fields`] of `raw` gives `contents`,
    /// so that the document store need not keep the text twice.
    pub derived: bool,
}

impl Doc {
    /// A document without original JSON.
    pub fn new(docid: impl Into<String>, contents: impl Into<String>) -> Self {
        Doc {
            docid: docid.into(),
            contents: contents.into(),
            raw: None,
            derived: false,
        }
    }
}

/// Docids of a segment: a u8 bit width `w`, `n + 1` offsets bit-packed at
/// `w` bits (LSB first, zero-padded to a byte), then the UTF-8 bytes.
#[derive(Clone, Debug)]
pub struct DocIds {
    data: Data,
    count: usize,
    width: u8,
    text_at: usize,
}

impl DocIds {
    /// Encodes `docids` in the on-disk layout.
    pub fn encode<'a>(docids: impl ExactSizeIterator<Item = &'a str> + Clone) -> Vec<u8> {
        let total: usize = docids.clone().map(str::len).sum();
        let width = bits::width(total as u64);
        let mut out = BitWriter::after(vec![width]);
        let mut offset = 0u64;
        out.push(offset, width);
        for d in docids.clone() {
            offset += d.len() as u64;
            out.push(offset, width);
        }
        let mut out = out.finish();
        out.reserve(total);
        for d in docids {
            out.extend_from_slice(d.as_bytes());
        }
        out
    }

    /// Opens `count` docids; `None` if the layout is inconsistent: offsets
    /// must start at 0, never decrease and end at the data's end, and every
    /// docid must be UTF-8.
    pub fn open(data: Data, count: usize) -> Option<Self> {
        let width = *data.first()?;
        if width > 64 {
            return None;
        }
        let text_at = bits::packed_len(count.checked_add(1)?, width)?.checked_add(1)?;
        if data.len() < text_at {
            return None;
        }
        let ids = DocIds {
            data,
            count,
            width,
            text_at,
        };
        let text_len = (ids.data.len() - text_at) as u64;
        if ids.offset(0) != 0 || ids.offset(count) != text_len {
            return None;
        }
        let text = std::str::from_utf8(&ids.data[text_at..]).ok()?;
        let mut offsets = bits::Reader::new(&ids.data[1..text_at], width);
        let mut previous = offsets.next_value();
        for _ in 0..count {
            let next = offsets.next_value();
            if next < previous || !text.is_char_boundary(usize::try_from(next).ok()?) {
                return None;
            }
            previous = next;
        }
        Some(ids)
    }

    fn offset(&self, i: usize) -> u64 {
        bits::read(
            &self.data[1..self.text_at],
            i * usize::from(self.width),
            self.width,
        )
    }

    /// The docid of document `doc`.
    pub fn get(&self, doc: u32) -> Option<&str> {
        std::str::from_utf8(self.get_bytes(doc)?).ok()
    }

    /// The UTF-8 bytes of the docid of `doc` (they compare as the docids do).
    pub fn get_bytes(&self, doc: u32) -> Option<&[u8]> {
        let i = doc as usize;
        if i >= self.count {
            return None;
        }
        let (a, b) = (self.offset(i) as usize, self.offset(i + 1) as usize);
        self.data[self.text_at..].get(a..b)
    }

    /// Number of docids.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there is no docid.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The encoded bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }
}

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

    /// The ordinal of `term`, if the segment has it.
    pub fn term_ord(&self, term: &str) -> Option<TermOrd> {
        self.terms.get(term).map(|o| o as TermOrd)
    }

    /// Number of distinct terms.
    pub fn num_terms(&self) -> usize {
        self.term_infos.len()
    }

    /// Where `ord`'s postings are.
    pub fn term_info(&self, ord: TermOrd) -> TermInfo {
        self.term_infos.get(ord)
    }

    /// `ord`'s posting list (empty if inconsistent).
    pub fn postings(&self, ord: TermOrd) -> PostingList<'_> {
        let info = self.term_info(ord);
        let end = match ord.checked_add(1) {
            Some(next) if (next as usize) < self.term_infos.len() => {
                self.term_infos.get(next).offset
            }
            _ => self.postings.len() as u64,
        };
        let blocks = if info.has_blocks() {
            let first = info.first_block as usize;
            self.blocks
                .get(first..first + postings::num_blocks(info.df))
        } else {
            Some(&[][..])
        };
        let bytes = usize::try_from(info.offset)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(a, b)| self.postings.get(a..b));
        match (blocks, bytes) {
            (Some(blocks), Some(bytes)) => PostingList {
                bytes,
                blocks,
                df: info.df,
            },
            _ => PostingList::EMPTY,
        }
    }

    /// The largest tf and the smallest exact document length among `ord`'s
    /// postings (`(0, 0)` for a term the segment lacks): from the block table
    /// of a long list, by decoding a short one.
    pub fn term_bounds(&self, ord: TermOrd) -> (u32, u32) {
        let list = self.postings(ord);
        if !list.blocks.is_empty() {
            return list.blocks.iter().fold((0, u32::MAX), |(tf, len), b| {
                (tf.max(b.max_tf), len.min(b.min_length))
            });
        }
        let (mut max_tf, mut min_length) = (0, u32::MAX);
        self.for_each_posting(ord, |doc, tf| {
            max_tf = max_tf.max(tf);
            min_length = min_length.min(self.length(doc));
        });
        (max_tf, if max_tf == 0 { 0 } else { min_length })
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

/// Postings of one term while building: parallel arrays.
#[derive(Default)]
struct TermPostings {
    docs: Vec<u32>,
    tfs: Vec<u32>,
}

/// Analyzed documents of one chunk, with chunk-local term grouping.
struct AnalyzedChunk {
    lengths: Vec<u32>,
    postings: HashMap<String, TermPostings>,
}

/// Accumulates documents, then compresses them into a [`SegmentData`].
pub struct SegmentBuilder {
    analyzer: Arc<Analyzer>,
    docids: Vec<String>,
    lengths: Vec<u32>,
    term_ids: HashMap<String, u32>,
    postings: Vec<TermPostings>,
    store: Option<DocStoreWriter>,
}

impl SegmentBuilder {
    /// A builder analyzing with `analyzer`; keeps a document store if `store`.
    pub fn new(analyzer: Arc<Analyzer>, store: bool) -> Self {
        SegmentBuilder {
            analyzer,
            docids: Vec::new(),
            lengths: Vec::new(),
            term_ids: HashMap::new(),
            postings: Vec::new(),
            store: store.then(DocStoreWriter::default),
        }
    }

    /// Number of documents added.
    pub fn len(&self) -> usize {
        self.docids.len()
    }

    /// Whether no document was added.
    pub fn is_empty(&self) -> bool {
        self.docids.is_empty()
    }

    /// Analyzes and adds `docs` in parallel. Docids must already be checked.
    pub fn add(&mut self, docs: Vec<Doc>) -> Result<()> {
        let base = self.docids.len();
        if base + docs.len() > u32::MAX as usize {
            return Err(Error::Document(
                "a segment holds at most 4,294,967,295 documents".into(),
            ));
        }
        let analyzer = &*self.analyzer;
        let chunks: Vec<AnalyzedChunk> = docs
            .par_chunks(ANALYSIS_CHUNK)
            .map(|chunk| analyze_chunk(analyzer, chunk))
            .collect();
        for (chunk_index, chunk) in chunks.into_iter().enumerate() {
            let offset = (base + chunk_index * ANALYSIS_CHUNK) as u32;
            self.lengths.extend_from_slice(&chunk.lengths);
            for (term, local) in chunk.postings {
                let next_id = self.postings.len() as u32;
                let id = *self.term_ids.entry(term).or_insert(next_id);
                if id == next_id {
                    self.postings.push(TermPostings::default());
                }
                let global = &mut self.postings[id as usize];
                global.docs.extend(local.docs.iter().map(|d| d + offset));
                global.tfs.extend_from_slice(&local.tfs);
            }
        }
        for doc in docs {
            if let Some(store) = &mut self.store {
                store.add(&doc.contents, doc.raw.as_deref(), doc.derived);
            }
            self.docids.push(doc.docid);
        }
        Ok(())
    }

    /// Sorts the vocabulary, compresses the postings and returns the segment.
    pub fn finish(self) -> Result<SegmentData> {
        let SegmentBuilder {
            docids,
            lengths,
            term_ids,
            postings,
            store,
            ..
        } = self;
        let mut terms: Vec<(String, u32)> = term_ids.into_iter().collect();
        terms.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let lists: Vec<(&[u32], &[u32])> = terms
            .iter()
            .map(|(_, id)| {
                let p = &postings[*id as usize];
                (p.docs.as_slice(), p.tfs.as_slice())
            })
            .collect();
        let term_map = fst::Map::from_iter(
            terms
                .iter()
                .enumerate()
                .map(|(ord, (t, _))| (t.as_bytes(), ord as u64)),
        )
        .map_err(|e| Error::Document(format!("cannot build the term dictionary: {e}")))?;
        let terms_data = Data::owned(term_map.into_fst().into_inner());
        let docid_bytes = DocIds::encode(docids.iter().map(String::as_str));
        let store = store.map(|s| s.finish());
        assemble(
            docid_bytes,
            &docids_as_strs(&docids),
            lengths,
            terms_data,
            &lists,
            store,
        )
    }
}

fn docids_as_strs(docids: &[String]) -> Vec<&str> {
    docids.iter().map(String::as_str).collect()
}

/// Builds a segment from its parts: `lists` are the (docs, tfs) posting lists
/// in term order of `terms`.
pub(crate) fn assemble(
    docid_bytes: Vec<u8>,
    docids: &[&str],
    lengths: Vec<u32>,
    terms: Data,
    lists: &[(&[u32], &[u32])],
    store: Option<Vec<u8>>,
) -> Result<SegmentData> {
    let n = docids.len();
    let norms: Vec<u8> = lengths
        .iter()
        .map(|&l| fieldnorm::length_to_norm(l))
        .collect();
    let docid_rank = docid_ranks(docids);
    // Compress each term's list in parallel, then concatenate in term order.
    let encoded: Vec<(Vec<u8>, Vec<BlockMeta>, TermInfo)> = lists
        .par_iter()
        .map(|(docs, tfs)| {
            let mut bytes = Vec::new();
            let mut blocks = Vec::new();
            let info =
                postings::encode(docs, tfs, |d| lengths[d as usize], &mut bytes, &mut blocks);
            (bytes, blocks, info)
        })
        .collect();
    let mut all_bytes = Vec::with_capacity(encoded.iter().map(|e| e.0.len()).sum());
    let mut all_blocks = Vec::with_capacity(encoded.iter().map(|e| e.1.len()).sum());
    let mut term_infos = Vec::with_capacity(encoded.len());
    for (bytes, blocks, info) in encoded {
        term_infos.push(TermInfo {
            offset: all_bytes.len() as u64,
            first_block: if info.has_blocks() {
                all_blocks.len() as u32
            } else {
                0
            },
            df: info.df,
        });
        all_bytes.extend_from_slice(&bytes);
        all_blocks.extend_from_slice(&blocks);
    }
    let term_count = term_infos.len();
    let term_infos = TermTable::open(Data::owned(TermTable::encode(&term_infos)), term_count)
        .ok_or_else(|| Error::Document("term table layout error".into()))?;
    let terms =
        fst::Map::new(terms).map_err(|e| Error::Document(format!("bad term dictionary: {e}")))?;
    let store = match store {
        Some(bytes) => Some(
            DocStore::open(Data::owned(bytes), n as u32)
                .ok_or_else(|| Error::Document("document store layout error".into()))?,
        ),
        None => None,
    };
    Ok(SegmentData {
        docids: DocIds::open(Data::owned(docid_bytes), n)
            .ok_or_else(|| Error::Document("docid table layout error".into()))?,
        docid_rank,
        lengths,
        norms,
        terms,
        term_infos,
        blocks: all_blocks,
        postings: Data::owned(all_bytes),
        store,
    })
}

/// Each document's rank in ascending (byte-wise) docid order.
pub(crate) fn docid_ranks(docids: &[&str]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..docids.len() as u32).collect();
    order.par_sort_unstable_by(|&a, &b| docids[a as usize].cmp(docids[b as usize]));
    let mut rank = vec![0u32; docids.len()];
    for (r, &doc) in order.iter().enumerate() {
        rank[doc as usize] = r as u32;
    }
    rank
}

fn analyze_chunk(analyzer: &Analyzer, chunk: &[Doc]) -> AnalyzedChunk {
    let mut postings: HashMap<String, TermPostings> = HashMap::new();
    let mut lengths = Vec::with_capacity(chunk.len());
    let mut counts: HashMap<String, u32> = HashMap::new();
    for (local_doc, doc) in chunk.iter().enumerate() {
        let mut length = 0u32;
        analyzer.analyze_with(&doc.contents, &mut |term| {
            length = length.saturating_add(1);
            match counts.get_mut(term) {
                Some(c) => *c += 1,
                None => {
                    counts.insert(term.to_owned(), 1);
                }
            }
        });
        lengths.push(length);
        for (term, tf) in counts.drain() {
            let list = postings.entry(term).or_default();
            list.docs.push(local_doc as u32);
            list.tfs.push(tf);
        }
    }
    AnalyzedChunk { lengths, postings }
}

/// A set of deleted documents of one segment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deletions {
    words: Vec<u64>,
    count: usize,
}

impl Deletions {
    /// No deletion among `n` documents.
    pub fn new(n: usize) -> Self {
        Deletions {
            words: vec![0; n.div_ceil(64)],
            count: 0,
        }
    }

    /// Whether `doc` is deleted.
    #[inline]
    pub fn contains(&self, doc: u32) -> bool {
        self.words
            .get(doc as usize / 64)
            .is_some_and(|w| w >> (doc % 64) & 1 == 1)
    }

    /// Marks `doc` deleted; returns whether it was live.
    pub fn insert(&mut self, doc: u32) -> bool {
        let Some(w) = self.words.get_mut(doc as usize / 64) else {
            return false;
        };
        let bit = 1u64 << (doc % 64);
        let was_live = *w & bit == 0;
        *w |= bit;
        self.count += usize::from(was_live);
        was_live
    }

    /// Number of deleted documents.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The on-disk bytes: the 64-bit words, little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// Reads deletions of `n` documents; `None` if the size is wrong.
    pub fn from_bytes(bytes: &[u8], n: usize) -> Option<Self> {
        if bytes.len() != n.div_ceil(64) * 8 {
            return None;
        }
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        // Bits past the last document must be clear.
        if !n.is_multiple_of(64) && words.last().is_some_and(|w| w >> (n % 64) != 0) {
            return None;
        }
        let count = words.iter().map(|w| w.count_ones() as usize).sum();
        Some(Deletions { words, count })
    }
}
