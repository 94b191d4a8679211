//! Writes a segment's compact form: posting lists compressed in term
//! order, a batch at a time, then the segment assembled from its parts.

use rayon::prelude::*;

use super::docids::DocIds;
use super::reader::SegmentData;
use crate::data::Data;
use crate::docstore::DocStore;
use crate::error::{Error, Result};
use crate::fieldnorm;
use crate::postings::{self, BlockMeta, TermInfo, TermTable};

/// Postings compressed per parallel batch when finishing or merging: bounds
/// the uncompressed lists held besides the builder's own.
const ENCODE_BATCH: usize = 1 << 20;

/// Terms compressed per parallel task.
const ENCODE_TASK_TERMS: usize = 1024;

/// Posting lists compressed in term order, appended a batch at a time so
/// that the uncompressed lists need not all be in memory at once.
#[derive(Default)]
pub(crate) struct PostingsWriter {
    pub(super) bytes: Vec<u8>,
    pub(super) blocks: Vec<BlockMeta>,
    pub(super) infos: Vec<TermInfo>,
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
        lexicon: Default::default(),
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
