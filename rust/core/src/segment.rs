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

use std::sync::Arc;

use rayon::prelude::*;

use crate::analysis::Analyzer;
use crate::bits::{self, BitWriter};
use crate::data::Data;
use crate::docstore::{DocStore, DocStoreWriter, StoredDoc};
use crate::document::Doc;
use crate::error::{Error, Result};
use crate::fieldnorm;
use crate::postings::{self, BlockMeta, PostingList, TermInfo, TermTable};

/// Documents per parallel analysis task.
const ANALYSIS_CHUNK: usize = 1024;

/// Distinct tokens (and terms) a chunk's interners hold before their tables
/// first grow: 16 per document, at most 2^14 (a chunk of the Linux corpus
/// holds about 9,400 distinct terms, one of SciFact's abstracts about
/// 12,000), so most chunks never rehash.
fn chunk_capacity(docs: usize) -> usize {
    (docs * 16).min(1 << 14)
}

/// Postings compressed per parallel batch when finishing or merging: bounds
/// the uncompressed lists held besides the builder's own.
const ENCODE_BATCH: usize = 1 << 20;

/// Terms compressed per parallel task.
const ENCODE_TASK_TERMS: usize = 1024;

/// A term's ordinal in a segment's term dictionary.
pub type TermOrd = u32;

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

    /// Lucene's one-byte norms, by doc id.
    #[inline]
    pub fn norms(&self) -> &[u8] {
        &self.norms
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

/// Where one term's postings are in a [`PostingPool`].
#[derive(Clone, Copy, Default)]
struct PoolList {
    /// Start of the first slab.
    first: u32,
    /// Start of the last slab.
    slab: u32,
    /// Next free slot, and the end of the last slab.
    write: u32,
    end: u32,
    /// Number of postings.
    len: u32,
}

/// The postings of every term of a segment being built, in one array of
/// slabs: a slab is the index of the term's next slab, then (doc, tf) pairs.
/// A list's slabs hold as many postings as the list had before them (at
/// least 2, at most 256), so there is no allocation per term and little
/// slack.
#[derive(Default)]
struct PostingPool {
    pool: Vec<u32>,
    lists: Vec<PoolList>,
}

impl PostingPool {
    fn slab_capacity(len_before: u32) -> u32 {
        len_before.clamp(2, 256)
    }

    /// Pool slots that adding `postings` postings to `terms` lists may take
    /// at most: the pairs, and a new slab per list.
    fn room_needed(postings: usize, terms: usize) -> usize {
        2 * postings + (1 + 2 * 256) * terms
    }

    #[inline]
    fn push(&mut self, list: u32, doc: u32, tf: u32) {
        let l = &mut self.lists[list as usize];
        if l.write == l.end {
            let cap = Self::slab_capacity(l.len);
            let start = self.pool.len() as u32;
            self.pool.resize(self.pool.len() + 1 + 2 * cap as usize, 0);
            if l.len == 0 {
                l.first = start;
            } else {
                self.pool[l.slab as usize] = start;
            }
            l.slab = start;
            l.write = start + 1;
            l.end = start + 1 + 2 * cap;
        }
        let w = l.write as usize;
        self.pool[w] = doc;
        self.pool[w + 1] = tf;
        l.write += 2;
        l.len += 1;
    }

    /// Appends `list`'s postings to `docs` and `tfs`.
    fn read(&self, list: u32, docs: &mut Vec<u32>, tfs: &mut Vec<u32>) {
        let l = self.lists[list as usize];
        let (mut slab, mut seen) = (l.first as usize, 0u32);
        while seen < l.len {
            let n = Self::slab_capacity(seen).min(l.len - seen) as usize;
            let pairs = &self.pool[slab + 1..slab + 1 + 2 * n];
            for pair in pairs.chunks_exact(2) {
                docs.push(pair[0]);
                tfs.push(pair[1]);
            }
            seen += n as u32;
            slab = self.pool[slab] as usize;
        }
    }
}

/// The hash of a term in the builder's tables.
#[inline]
pub(crate) fn term_hash(term: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(term)
}

/// The first 8 bytes of `term`, zero-padded, as a number that orders as
/// the bytes do: terms whose keys differ compare as their keys.
fn prefix_key(term: &str) -> u64 {
    let mut head = [0u8; 8];
    let n = term.len().min(8);
    head[..n].copy_from_slice(&term.as_bytes()[..n]);
    u64::from_be_bytes(head)
}

/// Where the `i`-th of pieces kept end to end lies, `ends[i]` being where
/// it ends.
fn span(ends: &[usize], i: usize) -> Option<std::ops::Range<usize>> {
    let end = *ends.get(i)?;
    Some(if i == 0 { 0 } else { ends[i - 1] }..end)
}

/// The `i`-th of strings kept end to end in `text` (see [`span`]).
fn piece<'a>(text: &'a str, ends: &[usize], i: usize) -> Option<&'a str> {
    text.get(span(ends, i)?)
}

/// Distinct terms numbered from 0 in order of first appearance, their text
/// kept end to end in one string (no allocation per term).
#[derive(Clone, Debug, Default)]
pub(crate) struct Interner {
    text: String,
    /// `ends[t]` is where term `t`'s text ends in `text`.
    ends: Vec<usize>,
    /// `hashes[t]` is term `t`'s hash: the table grows without reading text.
    hashes: Vec<u64>,
    table: hashbrown::HashTable<u32>,
}

impl Interner {
    /// An interner with room for `terms` terms before its table grows.
    fn with_capacity(terms: usize) -> Self {
        Interner {
            ends: Vec::with_capacity(terms),
            hashes: Vec::with_capacity(terms),
            table: hashbrown::HashTable::with_capacity(terms),
            ..Interner::default()
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The id of `term` (whose hash is `hash`), if interned.
    #[inline]
    pub(crate) fn find(&self, term: &str, hash: u64) -> Option<u32> {
        let (text, ends) = (&self.text, &self.ends);
        self.table
            .find(hash, |&id| Self::get(text, ends, id) == term)
            .copied()
    }

    fn get<'a>(text: &'a str, ends: &[usize], id: u32) -> &'a str {
        piece(text, ends, id as usize).expect("an interned id")
    }

    pub(crate) fn term(&self, id: u32) -> &str {
        Self::get(&self.text, &self.ends, id)
    }

    /// The id of `term` (whose hash is `hash`), and whether it is new.
    #[inline]
    pub(crate) fn intern(&mut self, term: &str, hash: u64) -> (u32, bool) {
        let Interner {
            text,
            ends,
            hashes,
            table,
        } = self;
        if let Some(&id) = table.find(hash, |&id| Self::get(text, ends, id) == term) {
            return (id, false);
        }
        let id = ends.len() as u32;
        text.push_str(term);
        ends.push(text.len());
        hashes.push(hash);
        table.insert_unique(hash, id, |&id| hashes[id as usize]);
        (id, true)
    }
}

/// Analyzed documents of one chunk: a chunk-local vocabulary and, grouped
/// by local term id, the (doc, tf) postings in doc order.
struct AnalyzedChunk {
    lengths: Vec<u32>,
    terms: Interner,
    /// `starts[t]..starts[t + 1]` are local term `t`'s postings.
    starts: Vec<u32>,
    docs: Vec<u32>,
    tfs: Vec<u32>,
}

/// Bytes a builder is charged per distinct term, besides the term's text
/// and postings: the vocabulary entry (text end, hash), the list head and
/// hash table slack.
const TERM_OVERHEAD: usize = 48;
/// Bytes charged per document besides its docid text: length, docid offset.
const DOC_OVERHEAD: usize = 16;

/// Accumulates documents, then compresses them into a [`SegmentData`].
pub struct SegmentBuilder {
    analyzer: Arc<Analyzer>,
    /// Every docid, concatenated; `docid_ends[i]` is where docid `i` ends.
    docid_text: String,
    docid_ends: Vec<usize>,
    lengths: Vec<u32>,
    terms: Interner,
    postings: PostingPool,
    /// Analyzed chunks not yet merged, and the id of their first document.
    pending: Option<(usize, Vec<AnalyzedChunk>)>,
    store: Option<DocStoreWriter>,
}

impl SegmentBuilder {
    /// A builder analyzing with `analyzer`; keeps a document store if `store`.
    pub fn new(analyzer: Arc<Analyzer>, store: bool) -> Self {
        SegmentBuilder {
            analyzer,
            docid_text: String::new(),
            docid_ends: Vec::new(),
            lengths: Vec::new(),
            terms: Interner::default(),
            postings: PostingPool::default(),
            pending: None,
            store: store.then(DocStoreWriter::default),
        }
    }

    /// Number of documents added.
    pub fn len(&self) -> usize {
        self.docid_ends.len()
    }

    /// Whether no document was added.
    pub fn is_empty(&self) -> bool {
        self.docid_ends.is_empty()
    }

    /// The docid of document `doc` added so far.
    pub fn docid(&self, doc: usize) -> Option<&str> {
        piece(&self.docid_text, &self.docid_ends, doc)
    }

    /// An estimate of the memory the builder holds, in bytes: what a memory
    /// budget is compared with.
    pub fn memory_bytes(&self) -> usize {
        self.postings.pool.len() * 4
            + self.terms.len() * TERM_OVERHEAD
            + self.terms.text.len()
            + self.docid_ends.len() * DOC_OVERHEAD
            + self.docid_text.len()
            + self.store.as_ref().map_or(0, DocStoreWriter::memory_bytes)
    }

    /// Analyzes and adds `docs` in parallel. Docids must already be checked.
    pub fn add(&mut self, docs: Vec<Doc>) -> Result<()> {
        let base = self.len();
        if base + docs.len() > u32::MAX as usize {
            return Err(Error::Document(
                "a segment holds at most 4,294,967,295 documents".into(),
            ));
        }
        // The previous batch's chunks are merged while this batch is
        // analyzed, so with two threads or more the serial merge overlaps
        // the parallel analysis.
        let analyzer = self.analyzer.clone();
        let pending = self.pending.take();
        let (merged, chunks) = rayon::join(
            || -> Result<()> {
                if let Some((pending_base, chunks)) = pending {
                    self.merge_chunks(pending_base, chunks)?;
                }
                for doc in &docs {
                    if let Some(store) = &mut self.store {
                        store.add(&doc.contents, doc.raw.as_deref(), doc.derived);
                    }
                    self.docid_text.push_str(&doc.docid);
                    self.docid_ends.push(self.docid_text.len());
                }
                Ok(())
            },
            || -> Vec<AnalyzedChunk> {
                docs.par_chunks(ANALYSIS_CHUNK)
                    .map(|chunk| analyze_chunk(&analyzer, chunk))
                    .collect()
            },
        );
        merged?;
        self.pending = Some((base, chunks));
        Ok(())
    }

    /// Adds analyzed chunks whose first document is `base` to the postings.
    fn merge_chunks(&mut self, base: usize, chunks: Vec<AnalyzedChunk>) -> Result<()> {
        for (chunk_index, chunk) in chunks.into_iter().enumerate() {
            let room = PostingPool::room_needed(chunk.docs.len(), chunk.terms.len());
            if self.postings.pool.len() + room > u32::MAX as usize {
                return Err(Error::Document(
                    "too many postings for one segment; build with a smaller memory budget".into(),
                ));
            }
            let offset = (base + chunk_index * ANALYSIS_CHUNK) as u32;
            self.lengths.extend_from_slice(&chunk.lengths);
            for (t, &hash) in chunk.terms.hashes.iter().enumerate() {
                let (id, new) = self.terms.intern(chunk.terms.term(t as u32), hash);
                if new {
                    self.postings.lists.push(PoolList::default());
                }
                let range = chunk.starts[t] as usize..chunk.starts[t + 1] as usize;
                for (&doc, &tf) in chunk.docs[range.clone()].iter().zip(&chunk.tfs[range]) {
                    self.postings.push(id, doc + offset, tf);
                }
            }
        }
        Ok(())
    }

    /// Sorts the vocabulary, compresses the postings and returns the segment.
    pub fn finish(self) -> Result<SegmentData> {
        self.finish_run()?.into_segment()
    }

    /// Sorts the vocabulary and compresses the postings, without building
    /// the term dictionary yet.
    pub(crate) fn finish_run(mut self) -> Result<SortedRun> {
        if let Some((base, chunks)) = self.pending.take() {
            self.merge_chunks(base, chunks)?;
        }
        let SegmentBuilder {
            docid_text,
            docid_ends,
            lengths,
            terms: vocabulary,
            postings,
            store,
            ..
        } = self;
        // Sorted on an 8-byte prefix first, so most comparisons read no
        // text; the sorted terms are then written out end to end, so the
        // run merge and the dictionary read them in sequence.
        let mut sorted: Vec<(u64, &str, u32)> = (0..vocabulary.len() as u32)
            .map(|id| {
                let term = vocabulary.term(id);
                (prefix_key(term), term, id)
            })
            .collect();
        sorted.par_sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
        let mut term_text = String::with_capacity(vocabulary.text.len());
        let mut term_ends = Vec::with_capacity(sorted.len());
        let mut written = PostingsWriter::default();
        let mut batch = ListBatch::default();
        for &(_, term, id) in &sorted {
            term_text.push_str(term);
            term_ends.push(term_text.len());
            postings.read(id, &mut batch.docs, &mut batch.tfs);
            batch.end_list(&mut written, &lengths);
        }
        batch.flush(&mut written, &lengths);
        let num_docs = docid_ends.len() as u32;
        let store = store
            .map(|writer| open_store(writer.finish(), num_docs))
            .transpose()?;
        Ok(SortedRun {
            term_text,
            term_ends,
            postings: written,
            docid_text,
            docid_ends,
            lengths,
            store,
        })
    }
}

/// A segment's documents and compressed posting lists, its terms in byte
/// order but without a term dictionary: a budgeted build keeps one per
/// part and merges them ([`SortedRun::merge`]), so that the dictionary, the
/// costliest structure to build, is built once.
pub(crate) struct SortedRun {
    /// Term texts in byte order, end to end; `term_ends[t]` is where the
    /// term of ordinal `t` ends.
    term_text: String,
    term_ends: Vec<usize>,
    /// The posting lists, in byte order of their terms.
    postings: PostingsWriter,
    /// Every docid, end to end; `docid_ends[i]` is where docid `i` ends.
    docid_text: String,
    docid_ends: Vec<usize>,
    lengths: Vec<u32>,
    store: Option<DocStore>,
}

impl SortedRun {
    /// Number of documents.
    pub(crate) fn len(&self) -> usize {
        self.docid_ends.len()
    }

    /// The docid of `doc`.
    pub(crate) fn docid(&self, doc: usize) -> Option<&str> {
        piece(&self.docid_text, &self.docid_ends, doc)
    }

    /// Number of terms.
    fn num_terms(&self) -> usize {
        self.term_ends.len()
    }

    /// The term of ordinal `ord` (its rank in byte order).
    fn term(&self, ord: usize) -> &str {
        Interner::get(&self.term_text, &self.term_ends, ord as u32)
    }

    /// The posting list of ordinal `ord`.
    fn postings(&self, ord: usize) -> PostingList<'_> {
        let infos = &self.postings.infos;
        let end = infos
            .get(ord + 1)
            .map_or(self.postings.bytes.len() as u64, |next| next.offset);
        PostingList::within(infos[ord], end, &self.postings.bytes, &self.postings.blocks)
    }

    /// One run of the documents of `runs`, in order: a k-way merge of their
    /// sorted vocabularies, each term's lists concatenated (doc ids shifted
    /// by the documents of the runs before) and compressed again.
    pub(crate) fn merge(runs: Vec<SortedRun>) -> Result<SortedRun> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;

        let mut bases = Vec::with_capacity(runs.len());
        let (mut docid_text, mut docid_ends, mut lengths) = (String::new(), Vec::new(), Vec::new());
        for run in &runs {
            bases.push(lengths.len() as u32);
            let shift = docid_text.len();
            docid_text.push_str(&run.docid_text);
            docid_ends.extend(run.docid_ends.iter().map(|&e| e + shift));
            lengths.extend_from_slice(&run.lengths);
        }
        if lengths.len() > u32::MAX as usize {
            return Err(Error::Document(
                "a segment holds at most 4,294,967,295 documents".into(),
            ));
        }
        let stores: Option<Vec<DocStore>> = runs.iter().map(|r| r.store.clone()).collect();
        let store = stores
            .map(|stores| open_store(DocStore::concat(&stores), lengths.len() as u32))
            .transpose()?;
        // The next term of each run, smallest first; equal terms come out
        // in run order, so each list is concatenated in document order.
        let mut next: BinaryHeap<Reverse<(&str, usize, usize)>> = runs
            .iter()
            .enumerate()
            .filter(|(_, run)| run.num_terms() > 0)
            .map(|(r, run)| Reverse((run.term(0), r, 0)))
            .collect();
        let (mut term_text, mut term_ends) = (String::new(), Vec::new());
        let mut written = PostingsWriter::default();
        let mut batch = ListBatch::default();
        let mut decoder = postings::BlockDecoder::default();
        while let Some(Reverse((term, _, _))) = next.peek().copied() {
            while let Some(Reverse((t, r, ord))) = next.peek().copied()
                && t == term
            {
                next.pop();
                let list = runs[r].postings(ord);
                for b in 0..list.num_blocks() {
                    let Some(len) = decoder.decode(&list, b) else {
                        break;
                    };
                    let shifted = decoder.docs[..len].iter().map(|&d| d + bases[r]);
                    batch.docs.extend(shifted);
                    batch.tfs.extend_from_slice(&decoder.tfs[..len]);
                }
                if ord + 1 < runs[r].num_terms() {
                    next.push(Reverse((runs[r].term(ord + 1), r, ord + 1)));
                }
            }
            term_text.push_str(term);
            term_ends.push(term_text.len());
            batch.end_list(&mut written, &lengths);
        }
        batch.flush(&mut written, &lengths);
        Ok(SortedRun {
            term_text,
            term_ends,
            postings: written,
            docid_text,
            docid_ends,
            lengths,
            store,
        })
    }

    /// The segment: builds the term dictionary.
    pub(crate) fn into_segment(self) -> Result<SegmentData> {
        let mut term_builder = fst::MapBuilder::memory();
        for ord in 0..self.num_terms() {
            term_builder
                .insert(self.term(ord).as_bytes(), ord as u64)
                .map_err(|e| Error::Document(format!("cannot build the term dictionary: {e}")))?;
        }
        let terms = Data::owned(
            term_builder
                .into_inner()
                .map_err(|e| Error::Document(format!("cannot build the term dictionary: {e}")))?,
        );
        let SortedRun {
            postings,
            docid_text,
            docid_ends,
            lengths,
            store,
            ..
        } = self;
        let docids: Vec<&str> = (0..docid_ends.len())
            .map(|d| piece(&docid_text, &docid_ends, d).unwrap_or_default())
            .collect();
        let docid_bytes = DocIds::encode(docids.iter().copied());
        assemble(docid_bytes, &docids, lengths, terms, postings, store)
    }
}

/// Posting lists compressed in term order, appended a batch at a time so
/// that the uncompressed lists need not all be in memory at once.
#[derive(Default)]
pub(crate) struct PostingsWriter {
    bytes: Vec<u8>,
    blocks: Vec<BlockMeta>,
    infos: Vec<TermInfo>,
}

impl PostingsWriter {
    /// [`PostingsWriter::extend`] for lists end to end in `docs` and `tfs`,
    /// list `i` ending at `ends[i]`.
    pub(crate) fn extend_flat(
        &mut self,
        docs: &[u32],
        tfs: &[u32],
        ends: &[usize],
        lengths: &[u32],
    ) {
        let mut start = 0;
        let lists: Vec<(&[u32], &[u32])> = ends
            .iter()
            .map(|&end| {
                let list = (&docs[start..end], &tfs[start..end]);
                start = end;
                list
            })
            .collect();
        self.extend(&lists, lengths);
    }

    /// Compresses `lists` (the next terms' (docs, tfs)) in parallel and
    /// appends them in order; `lengths` are the segment's document lengths.
    pub(crate) fn extend<D, T>(&mut self, lists: &[(D, T)], lengths: &[u32])
    where
        D: AsRef<[u32]> + Sync,
        T: AsRef<[u32]> + Sync,
    {
        // Each task compresses a run of terms into buffers of its own, so
        // there is no allocation per term; offsets are then shifted.
        let encoded: Vec<PostingsWriter> = lists
            .par_chunks(ENCODE_TASK_TERMS)
            .map(|run| {
                let mut part = PostingsWriter::default();
                for (docs, tfs) in run {
                    let info = postings::encode(
                        docs.as_ref(),
                        tfs.as_ref(),
                        |d| lengths[d as usize],
                        &mut part.bytes,
                        &mut part.blocks,
                    );
                    part.infos.push(info);
                }
                part
            })
            .collect();
        self.bytes
            .reserve(encoded.iter().map(|e| e.bytes.len()).sum::<usize>());
        for part in encoded {
            let (byte_base, block_base) = (self.bytes.len() as u64, self.blocks.len() as u32);
            self.infos
                .extend(part.infos.into_iter().map(|info| TermInfo {
                    offset: info.offset + byte_base,
                    first_block: if info.has_blocks() {
                        info.first_block + block_base
                    } else {
                        0
                    },
                    ..info
                }));
            self.bytes.extend_from_slice(&part.bytes);
            self.blocks.extend_from_slice(&part.blocks);
        }
    }
}

/// Posting lists gathered end to end and compressed into a
/// [`PostingsWriter`] a batch at a time, so that the uncompressed lists need
/// not all be in memory at once.
#[derive(Default)]
pub(crate) struct ListBatch {
    /// The postings of the lists gathered, end to end.
    pub(crate) docs: Vec<u32>,
    pub(crate) tfs: Vec<u32>,
    /// `ends[i]` is where list `i` ends.
    ends: Vec<usize>,
}

impl ListBatch {
    /// Ends the list being gathered; compresses the batch into `out` once
    /// it is large. `lengths` are the segment's document lengths.
    pub(crate) fn end_list(&mut self, out: &mut PostingsWriter, lengths: &[u32]) {
        self.ends.push(self.docs.len());
        if self.docs.len() >= ENCODE_BATCH {
            self.flush(out, lengths);
        }
    }

    /// Compresses the lists gathered into `out`.
    pub(crate) fn flush(&mut self, out: &mut PostingsWriter, lengths: &[u32]) {
        out.extend_flat(&self.docs, &self.tfs, &self.ends, lengths);
        self.docs.clear();
        self.tfs.clear();
        self.ends.clear();
    }
}

/// Builds a segment from its parts: `postings` holds the posting lists
/// compressed in term order of `terms`.
pub(crate) fn assemble(
    docid_bytes: Vec<u8>,
    docids: &[&str],
    lengths: Vec<u32>,
    terms: Data,
    postings: PostingsWriter,
    store: Option<DocStore>,
) -> Result<SegmentData> {
    let n = docids.len();
    let norms: Vec<u8> = lengths
        .iter()
        .map(|&l| fieldnorm::length_to_norm(l))
        .collect();
    let docid_rank = docid_ranks(docids);
    let PostingsWriter {
        bytes: all_bytes,
        blocks: all_blocks,
        infos: term_infos,
    } = postings;
    let term_count = term_infos.len();
    let term_infos = TermTable::open(Data::owned(TermTable::encode(&term_infos)), term_count)
        .ok_or_else(|| Error::Document("term table layout error".into()))?;
    let terms =
        fst::Map::new(terms).map_err(|e| Error::Document(format!("bad term dictionary: {e}")))?;
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

/// A store payload just written, as a readable store.
pub(crate) fn open_store(bytes: Vec<u8>, num_docs: u32) -> Result<DocStore> {
    DocStore::open(Data::owned(bytes), num_docs)
        .ok_or_else(|| Error::Document("document store layout error".into()))
}

/// Each document's rank in ascending (byte-wise) docid order.
pub(crate) fn docid_ranks(docids: &[&str]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..docids.len() as u32).collect();
    // Copies of one docid (kept duplicates) rank in the order they were added.
    order.par_sort_unstable_by(|&a, &b| docids[a as usize].cmp(docids[b as usize]).then(a.cmp(&b)));
    let mut rank = vec![0u32; docids.len()];
    for (r, &doc) in order.iter().enumerate() {
        rank[doc as usize] = r as u32;
    }
    rank
}

fn analyze_chunk(analyzer: &Analyzer, chunk: &[Doc]) -> AnalyzedChunk {
    let mut terms = Interner::with_capacity(chunk_capacity(chunk.len()));
    let mut lengths = Vec::with_capacity(chunk.len());
    // Per local term: its count in the current document.
    let mut counts: Vec<u32> = Vec::new();
    let mut touched: Vec<u32> = Vec::new();
    // (local term, local doc, tf), in doc order.
    let mut triples: Vec<(u32, u32, u32)> = Vec::new();
    // Each distinct token is filtered (lowercased, stemmed…) once per chunk:
    // the local terms of token `k` of `tokens` are `token_terms[span(&token_ends, k)]`.
    let mut tokens = Interner::with_capacity(chunk_capacity(chunk.len()));
    let mut token_ends: Vec<usize> = Vec::new();
    let mut token_terms: Vec<u32> = Vec::new();
    for (local_doc, doc) in chunk.iter().enumerate() {
        let mut length = 0u32;
        analyzer.tokenize_with(&doc.contents, &mut |token| {
            let (k, new) = tokens.intern(token, term_hash(token));
            if new {
                analyzer.filter(token, &mut |term| {
                    let hash = term_hash(term);
                    let (id, new) = terms.intern(term, hash);
                    if new {
                        counts.push(0);
                    }
                    token_terms.push(id);
                });
                token_ends.push(token_terms.len());
            }
            let terms_of_token = span(&token_ends, k as usize).expect("a filtered token");
            for &id in &token_terms[terms_of_token] {
                length = length.saturating_add(1);
                let count = &mut counts[id as usize];
                if *count == 0 {
                    touched.push(id);
                }
                *count += 1;
            }
        });
        lengths.push(length);
        for id in touched.drain(..) {
            let count = std::mem::take(&mut counts[id as usize]);
            triples.push((id, local_doc as u32, count));
        }
    }
    // Group by term, keeping doc order (a counting sort).
    let mut starts = vec![0u32; terms.len() + 1];
    for &(id, _, _) in &triples {
        starts[id as usize + 1] += 1;
    }
    for t in 0..terms.len() {
        starts[t + 1] += starts[t];
    }
    let mut fill = starts.clone();
    let mut docs = vec![0u32; triples.len()];
    let mut tfs = vec![0u32; triples.len()];
    for (id, doc, tf) in triples {
        let slot = &mut fill[id as usize];
        docs[*slot as usize] = doc;
        tfs[*slot as usize] = tf;
        *slot += 1;
    }
    AnalyzedChunk {
        lengths,
        terms,
        starts,
        docs,
        tfs,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_posting_pool_gives_back_each_list_in_order() {
        let mut pool = PostingPool::default();
        let mut expected: Vec<(Vec<u32>, Vec<u32>)> = vec![Default::default(); 50];
        pool.lists.resize(50, PoolList::default());
        let mut state = 99u64;
        for doc in 0..20_000u32 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Skewed: low lists get most postings, so some span many slabs.
            let list = ((state >> 33) % 50).min((state >> 40) % 50) as u32;
            let tf = (state >> 20) as u32 % 7 + 1;
            pool.push(list, doc, tf);
            expected[list as usize].0.push(doc);
            expected[list as usize].1.push(tf);
        }
        for (list, (docs, tfs)) in expected.iter().enumerate() {
            let (mut d, mut t) = (vec![7], vec![7]);
            pool.read(list as u32, &mut d, &mut t);
            assert_eq!(&d[1..], docs.as_slice());
            assert_eq!(&t[1..], tfs.as_slice());
        }
    }

    proptest::proptest! {
        #[test]
        fn prefix_keys_order_terms_as_bytes(terms in proptest::collection::vec("[a\\x00b\\u{e9}]{0,10}", 2..40)) {
            let mut by_key: Vec<&str> = terms.iter().map(String::as_str).collect();
            by_key.sort_by(|a, b| prefix_key(a).cmp(&prefix_key(b)).then_with(|| a.cmp(b)));
            let mut by_bytes = by_key.clone();
            by_bytes.sort();
            proptest::prop_assert_eq!(by_key, by_bytes);
        }
    }

    #[test]
    fn built_postings_equal_each_documents_analysis() {
        // Tokens repeat across documents and chunks, so most are filtered
        // once per chunk and their terms reused.
        let words = [
            "The",
            "the",
            "getUserById",
            "user_id",
            "Running",
            "runs",
            "John's",
            "JOHN'S",
            "a",
            "HTTPServer",
            "x2",
            "of",
            "naïve",
            "İx",
            "ΟΔΟΣ",
            "__init__",
            "e-mail",
            "U.S.A.",
        ];
        let docs: Vec<Doc> = (0..2 * ANALYSIS_CHUNK + 37)
            .map(|i| {
                let text: Vec<&str> = (0..i % 23)
                    .map(|j| words[(i * 7 + j * j * 3) % words.len()])
                    .collect();
                Doc::new(format!("d{i}"), text.join(" "))
            })
            .collect();
        for preset in crate::analysis::PRESETS {
            let analyzer = Arc::new(Analyzer::preset(preset).unwrap());
            let mut builder = SegmentBuilder::new(analyzer.clone(), false);
            builder.add(docs.clone()).unwrap();
            let segment = builder.finish().unwrap();
            let mut expected: std::collections::BTreeMap<String, Vec<(u32, u32)>> =
                Default::default();
            for (d, doc) in docs.iter().enumerate() {
                let terms = analyzer.analyze(&doc.contents);
                assert_eq!(segment.length(d as u32) as usize, terms.len(), "{preset}");
                let mut counts: std::collections::BTreeMap<String, u32> = Default::default();
                for term in terms {
                    *counts.entry(term).or_default() += 1;
                }
                for (term, tf) in counts {
                    expected.entry(term).or_default().push((d as u32, tf));
                }
            }
            assert_eq!(segment.num_terms(), expected.len(), "{preset}");
            for (term, list) in expected {
                let ord = segment.term_ord(&term).expect("an indexed term");
                let mut got = Vec::new();
                segment.for_each_posting(ord, |doc, tf| got.push((doc, tf)));
                assert_eq!(got, list, "{preset} {term}");
            }
        }
    }
}
