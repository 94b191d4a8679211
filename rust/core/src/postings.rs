//! Posting lists: for each term, the ascending ids of the documents holding
//! it and how often, in blocks of [`BLOCK_LEN`] documents.
//!
//! A full block is two bit-packed arrays (`bitpacking`'s SIMD `BitPacker4x`):
//! doc-id deltas and `tf − 1`. The last, partial block of a list is LEB128
//! varints. Every block has a [`BlockMeta`] holding its last doc id (to skip
//! it) and its largest tf and smallest document length, which bound the
//! block's score for any k1, b and BM25 variant chosen at query time.
//!
//! Not for: positions (no phrase queries).

use bitpacking::{BitPacker, BitPacker4x};
use serde::{Deserialize, Serialize};

/// Documents per block; `BitPacker4x`'s block size.
pub const BLOCK_LEN: usize = BitPacker4x::BLOCK_LEN;

/// Where a term's postings are and how many documents hold it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TermInfo {
    /// Document frequency.
    pub df: u32,
    /// Index of the term's first block in the block table.
    pub first_block: u32,
    /// Byte offset of the term's first block in the postings bytes.
    pub offset: u64,
    /// Sum of the term's frequencies over all documents.
    pub total_tf: u64,
}

/// One block's location and score-bounding metadata.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockMeta {
    /// Largest doc id in the block.
    pub last_doc: u32,
    /// Byte offset of the block from the term's first byte.
    pub offset: u32,
    /// Bits per doc delta (full blocks only).
    pub doc_bits: u8,
    /// Bits per `tf − 1` (full blocks only).
    pub tf_bits: u8,
    /// Largest tf in the block.
    pub max_tf: u32,
    /// Smallest exact document length in the block.
    pub min_length: u32,
}

/// Appends one term's postings to `bytes` and `blocks`.
///
/// `docs` must be strictly ascending and `tfs` ≥ 1, of the same length;
/// `length_of` gives each document's exact length.
pub fn encode(
    docs: &[u32],
    tfs: &[u32],
    length_of: impl Fn(u32) -> u32,
    bytes: &mut Vec<u8>,
    blocks: &mut Vec<BlockMeta>,
) {
    debug_assert_eq!(docs.len(), tfs.len());
    let packer = BitPacker4x::new();
    let start = bytes.len();
    let mut previous_last = 0u32;
    let mut scratch = [0u8; 4 * BLOCK_LEN];
    let mut tf_minus_one = [0u32; BLOCK_LEN];
    for (chunk_docs, chunk_tfs) in docs.chunks(BLOCK_LEN).zip(tfs.chunks(BLOCK_LEN)) {
        let mut meta = BlockMeta {
            last_doc: *chunk_docs.last().expect("chunks are non-empty"),
            offset: (bytes.len() - start) as u32,
            max_tf: chunk_tfs.iter().copied().max().unwrap_or(0),
            min_length: chunk_docs.iter().map(|&d| length_of(d)).min().unwrap_or(0),
            ..BlockMeta::default()
        };
        if chunk_docs.len() == BLOCK_LEN {
            meta.doc_bits = packer.num_bits_sorted(previous_last, chunk_docs);
            let n = packer.compress_sorted(previous_last, chunk_docs, &mut scratch, meta.doc_bits);
            bytes.extend_from_slice(&scratch[..n]);
            for (slot, &tf) in tf_minus_one.iter_mut().zip(chunk_tfs) {
                *slot = tf - 1;
            }
            meta.tf_bits = packer.num_bits(&tf_minus_one);
            let n = packer.compress(&tf_minus_one, &mut scratch, meta.tf_bits);
            bytes.extend_from_slice(&scratch[..n]);
        } else {
            let mut prev = previous_last;
            for (&doc, &tf) in chunk_docs.iter().zip(chunk_tfs) {
                write_varint(bytes, doc - prev);
                write_varint(bytes, tf - 1);
                prev = doc;
            }
        }
        previous_last = meta.last_doc;
        blocks.push(meta);
    }
}

/// Byte size of a full block with these bit widths.
pub fn full_block_size(doc_bits: u8, tf_bits: u8) -> usize {
    (usize::from(doc_bits) + usize::from(tf_bits)) * BLOCK_LEN / 8
}

fn write_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn read_varint(bytes: &[u8], pos: &mut usize) -> Option<u32> {
    let mut v = 0u32;
    for shift in (0..35).step_by(7) {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        v |= u32::from(b & 0x7f).checked_shl(shift)?;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// Decodes blocks of one posting list into reusable buffers.
pub struct BlockDecoder {
    packer: BitPacker4x,
    /// Doc ids of the current block.
    pub docs: [u32; BLOCK_LEN],
    /// Term frequencies of the current block.
    pub tfs: [u32; BLOCK_LEN],
}

impl Default for BlockDecoder {
    fn default() -> Self {
        BlockDecoder {
            packer: BitPacker4x::new(),
            docs: [0; BLOCK_LEN],
            tfs: [0; BLOCK_LEN],
        }
    }
}

impl BlockDecoder {
    /// Decodes block `index` (of `blocks`, the term's block table) of a list of
    /// `df` documents whose bytes are `term_bytes`. Returns the number of
    /// documents decoded, or `None` if the bytes are inconsistent (corruption).
    pub fn decode(
        &mut self,
        term_bytes: &[u8],
        blocks: &[BlockMeta],
        index: usize,
        df: u32,
    ) -> Option<usize> {
        let meta = blocks.get(index)?;
        let len = (df as usize).checked_sub(index * BLOCK_LEN)?.min(BLOCK_LEN);
        let initial = if index == 0 {
            0
        } else {
            blocks[index - 1].last_doc
        };
        let mut pos = meta.offset as usize;
        if len == BLOCK_LEN {
            if meta.doc_bits > 32 || meta.tf_bits > 32 {
                return None;
            }
            let doc_size = usize::from(meta.doc_bits) * BLOCK_LEN / 8;
            let tf_size = usize::from(meta.tf_bits) * BLOCK_LEN / 8;
            let doc_bytes = term_bytes.get(pos..pos + doc_size)?;
            let tf_bytes = term_bytes.get(pos + doc_size..pos + doc_size + tf_size)?;
            self.packer
                .decompress_sorted(initial, doc_bytes, &mut self.docs, meta.doc_bits);
            self.packer
                .decompress(tf_bytes, &mut self.tfs, meta.tf_bits);
            for tf in &mut self.tfs {
                *tf = tf.wrapping_add(1);
            }
        } else {
            let mut doc = initial;
            for i in 0..len {
                doc = doc.wrapping_add(read_varint(term_bytes, &mut pos)?);
                self.docs[i] = doc;
                self.tfs[i] = read_varint(term_bytes, &mut pos)?.wrapping_add(1);
            }
        }
        Some(len)
    }
}

/// Number of blocks of a list of `df` documents.
pub fn num_blocks(df: u32) -> usize {
    (df as usize).div_ceil(BLOCK_LEN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(docs: &[u32], tfs: &[u32]) -> (Vec<u32>, Vec<u32>, Vec<BlockMeta>) {
        let mut bytes = Vec::new();
        let mut blocks = Vec::new();
        encode(docs, tfs, |d| d % 7 + 1, &mut bytes, &mut blocks);
        let mut decoder = BlockDecoder::default();
        let (mut out_docs, mut out_tfs) = (Vec::new(), Vec::new());
        for i in 0..num_blocks(docs.len() as u32) {
            let n = decoder
                .decode(&bytes, &blocks, i, docs.len() as u32)
                .unwrap();
            out_docs.extend_from_slice(&decoder.docs[..n]);
            out_tfs.extend_from_slice(&decoder.tfs[..n]);
        }
        (out_docs, out_tfs, blocks)
    }

    proptest! {
        #[test]
        fn encode_decode_is_identity(
            deltas in proptest::collection::vec(1u32..5000, 0..700),
            seed in any::<u32>(),
        ) {
            let docs: Vec<u32> = deltas.iter().scan(0u32, |acc, d| { *acc += d; Some(*acc - 1) }).collect();
            let tfs: Vec<u32> = docs.iter().map(|d| (d ^ seed) % 300 + 1).collect();
            let (d, t, blocks) = round_trip(&docs, &tfs);
            prop_assert_eq!(&d, &docs);
            prop_assert_eq!(&t, &tfs);
            for (i, meta) in blocks.iter().enumerate() {
                let range = i * BLOCK_LEN..((i + 1) * BLOCK_LEN).min(docs.len());
                prop_assert_eq!(meta.max_tf, *tfs[range.clone()].iter().max().unwrap());
                prop_assert_eq!(meta.min_length, docs[range.clone()].iter().map(|d| d % 7 + 1).min().unwrap());
                prop_assert_eq!(meta.last_doc, docs[range.end - 1]);
            }
        }
    }

    #[test]
    fn corrupted_bytes_are_detected_not_panicking() {
        let docs: Vec<u32> = (0..300).map(|i| i * 3).collect();
        let tfs = vec![1; 300];
        let mut bytes = Vec::new();
        let mut blocks = Vec::new();
        encode(&docs, &tfs, |_| 1, &mut bytes, &mut blocks);
        let mut decoder = BlockDecoder::default();
        assert!(decoder.decode(&bytes[..10], &blocks, 1, 300).is_none());
        assert!(decoder.decode(&bytes, &blocks, 9, 300).is_none());
        assert!(decoder.decode(&[0xff; 4], &blocks, 2, 300).is_none());
    }
}
