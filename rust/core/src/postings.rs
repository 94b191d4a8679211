//! Posting lists: for each term, the ascending ids of the documents holding
//! it and how often, in blocks of [`BLOCK_LEN`] documents.
//!
//! A full block is two bit-packed arrays (`bitpacking`'s SIMD `BitPacker4x`):
//! doc-id deltas and `tf − 1`. The last, partial block of a list is LEB128
//! varints, one per document: `delta << 1 | (tf == 1)`, followed by `tf`
//! when it is not 1 (most postings have tf = 1 and cost one byte). A list of
//! at least one full block has a [`BlockMeta`] per block with its last doc id
//! (to skip it), largest tf and smallest document length, which bound the
//! block's score for any k1, b and BM25 variant chosen at query time; a
//! shorter list keeps the same two bounds in its [`TermInfo`].
//!
//! Per-term metadata lives in a [`TermTable`]: fixed-width rows of
//! bit-packed fields, each as wide as its largest value in the segment, so a
//! lookup is O(1) and the table stays a few bytes per term.
//!
//! Not for: positions (no phrase queries).

use bitpacking::{BitPacker, BitPacker4x};

use crate::data::Data;

/// Documents per block; `BitPacker4x`'s block size.
pub const BLOCK_LEN: usize = BitPacker4x::BLOCK_LEN;

/// Where a term's postings are and how many documents hold it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TermInfo {
    /// Document frequency.
    pub df: u32,
    /// Byte offset of the term's postings.
    pub offset: u64,
    /// Index of the term's first block in the block table (lists of at least
    /// [`BLOCK_LEN`] documents only).
    pub first_block: u32,
    /// Largest tf (lists shorter than [`BLOCK_LEN`] only).
    pub max_tf: u32,
    /// Smallest exact document length (lists shorter than [`BLOCK_LEN`] only).
    pub min_length: u32,
}

impl TermInfo {
    /// Whether the list has a block table.
    pub fn has_blocks(&self) -> bool {
        self.df as usize >= BLOCK_LEN
    }
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

/// Appends one term's postings to `bytes` (and, for a list of at least one
/// full block, its block table to `blocks`); returns the term's info with
/// `offset` and `first_block` relative to the given buffers.
///
/// `docs` must be strictly ascending and `tfs` ≥ 1, of the same length;
/// `length_of` gives each document's exact length.
pub fn encode(
    docs: &[u32],
    tfs: &[u32],
    length_of: impl Fn(u32) -> u32,
    bytes: &mut Vec<u8>,
    blocks: &mut Vec<BlockMeta>,
) -> TermInfo {
    debug_assert_eq!(docs.len(), tfs.len());
    let mut info = TermInfo {
        df: docs.len() as u32,
        offset: bytes.len() as u64,
        first_block: blocks.len() as u32,
        ..TermInfo::default()
    };
    if !info.has_blocks() {
        info.first_block = 0;
        info.max_tf = tfs.iter().copied().max().unwrap_or(0);
        info.min_length = docs.iter().map(|&d| length_of(d)).min().unwrap_or(0);
        write_tail(docs, tfs, 0, bytes);
        return info;
    }
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
            write_tail(chunk_docs, chunk_tfs, previous_last, bytes);
        }
        previous_last = meta.last_doc;
        blocks.push(meta);
    }
    info
}

fn write_tail(docs: &[u32], tfs: &[u32], mut previous: u32, out: &mut Vec<u8>) {
    for (&doc, &tf) in docs.iter().zip(tfs) {
        write_varint(out, (u64::from(doc - previous) << 1) | u64::from(tf == 1));
        if tf != 1 {
            write_varint(out, u64::from(tf));
        }
        previous = doc;
    }
}

fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn read_varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f).checked_shl(shift)?;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// One term's postings: its bytes, block table and document frequency.
#[derive(Clone, Copy, Debug)]
pub struct PostingList<'a> {
    /// The term's postings bytes.
    pub bytes: &'a [u8],
    /// Its block table (empty for lists shorter than [`BLOCK_LEN`]).
    pub blocks: &'a [BlockMeta],
    /// Its document frequency.
    pub df: u32,
}

impl PostingList<'_> {
    /// An empty list (of a term a segment does not have).
    pub const EMPTY: PostingList<'static> = PostingList {
        bytes: &[],
        blocks: &[],
        df: 0,
    };

    /// Number of blocks to decode.
    pub fn num_blocks(&self) -> usize {
        if self.blocks.is_empty() {
            usize::from(self.df > 0)
        } else {
            self.blocks.len()
        }
    }
}

/// Decodes blocks of posting lists into reusable buffers.
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
    /// Decodes block `index` of `list`. Returns the number of documents
    /// decoded, or `None` if the bytes are inconsistent (corruption).
    pub fn decode(&mut self, list: &PostingList<'_>, index: usize) -> Option<usize> {
        let df = list.df as usize;
        if list.blocks.is_empty() {
            if index != 0 || df >= BLOCK_LEN {
                return None;
            }
            return self.decode_tail(list.bytes, 0, 0, df);
        }
        let meta = list.blocks.get(index)?;
        let len = df.checked_sub(index * BLOCK_LEN)?.min(BLOCK_LEN);
        let initial = if index == 0 {
            0
        } else {
            list.blocks[index - 1].last_doc
        };
        let pos = meta.offset as usize;
        if len < BLOCK_LEN {
            return self.decode_tail(list.bytes, pos, initial, len);
        }
        if meta.doc_bits > 32 || meta.tf_bits > 32 {
            return None;
        }
        let doc_size = usize::from(meta.doc_bits) * BLOCK_LEN / 8;
        let tf_size = usize::from(meta.tf_bits) * BLOCK_LEN / 8;
        let doc_bytes = list.bytes.get(pos..pos + doc_size)?;
        let tf_bytes = list.bytes.get(pos + doc_size..pos + doc_size + tf_size)?;
        self.packer
            .decompress_sorted(initial, doc_bytes, &mut self.docs, meta.doc_bits);
        self.packer
            .decompress(tf_bytes, &mut self.tfs, meta.tf_bits);
        for tf in &mut self.tfs {
            *tf = tf.wrapping_add(1);
        }
        Some(len)
    }

    fn decode_tail(
        &mut self,
        bytes: &[u8],
        mut pos: usize,
        initial: u32,
        len: usize,
    ) -> Option<usize> {
        let mut doc = initial;
        for i in 0..len {
            let v = read_varint(bytes, &mut pos)?;
            doc = doc.wrapping_add(u32::try_from(v >> 1).ok()?);
            self.docs[i] = doc;
            self.tfs[i] = if v & 1 == 1 {
                1
            } else {
                u32::try_from(read_varint(bytes, &mut pos)?).ok()?
            };
        }
        Some(len)
    }
}

/// Number of bits needed for `v`.
fn bits(v: u64) -> u8 {
    (64 - v.leading_zeros()) as u8
}

/// Per-term metadata as fixed-width rows of bit-packed fields.
///
/// Layout: five field widths (u8: df, offset, first block, max tf, min
/// length), then the rows, then 8 zero bytes of padding so any field can be
/// read with one unaligned 64-bit load.
#[derive(Clone, Debug)]
pub struct TermTable {
    data: Data,
    widths: [u8; 5],
    row_bits: usize,
    len: usize,
}

const FIELDS: usize = 5;

impl TermTable {
    /// Encodes `infos`.
    pub fn encode(infos: &[TermInfo]) -> Vec<u8> {
        let fields = |t: &TermInfo| -> [u64; FIELDS] {
            [
                u64::from(t.df),
                t.offset,
                u64::from(t.first_block),
                u64::from(t.max_tf),
                u64::from(t.min_length),
            ]
        };
        let mut widths = [0u8; FIELDS];
        for t in infos {
            for (w, v) in widths.iter_mut().zip(fields(t)) {
                *w = (*w).max(bits(v));
            }
        }
        let row_bits: usize = widths.iter().map(|&w| usize::from(w)).sum();
        let mut out = widths.to_vec();
        let mut rows = vec![0u8; (infos.len() * row_bits).div_ceil(8) + 8];
        let mut bit = 0usize;
        for t in infos {
            for (&w, v) in widths.iter().zip(fields(t)) {
                let mut v = v;
                let mut remaining = usize::from(w);
                let mut at = bit;
                while remaining > 0 {
                    let take = remaining.min(8 - at % 8);
                    rows[at / 8] |= ((v & ((1 << take) - 1)) as u8) << (at % 8);
                    v >>= take;
                    remaining -= take;
                    at += take;
                }
                bit += usize::from(w);
            }
        }
        out.extend_from_slice(&rows);
        out
    }

    /// Opens a table of `len` rows; `None` if the size does not match.
    pub fn open(data: Data, len: usize) -> Option<Self> {
        let widths: [u8; FIELDS] = data.get(..FIELDS)?.try_into().ok()?;
        if widths.iter().any(|&w| w > 64) {
            return None;
        }
        let row_bits: usize = widths.iter().map(|&w| usize::from(w)).sum();
        let expected = FIELDS + (len.checked_mul(row_bits)?).div_ceil(8) + 8;
        (data.len() == expected).then_some(TermTable {
            data,
            widths,
            row_bits,
            len,
        })
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn field(&self, row: usize, field: usize) -> u64 {
        let width = usize::from(self.widths[field]);
        if width == 0 {
            return 0;
        }
        let offset: usize = self.widths[..field].iter().map(|&w| usize::from(w)).sum();
        let mut bit = row * self.row_bits + offset;
        let mut out = 0u64;
        let mut done = 0usize;
        while done < width {
            let byte = self.data.get(FIELDS + bit / 8).copied().unwrap_or(0);
            let take = (width - done).min(8 - bit % 8);
            out |= u64::from((byte >> (bit % 8)) & (((1u16 << take) - 1) as u8)) << done;
            done += take;
            bit += take;
        }
        out
    }

    /// The info of term `ord` (a default, empty info if out of range).
    pub fn get(&self, ord: u32) -> TermInfo {
        let row = ord as usize;
        if row >= self.len {
            return TermInfo::default();
        }
        TermInfo {
            df: self.field(row, 0) as u32,
            offset: self.field(row, 1),
            first_block: self.field(row, 2) as u32,
            max_tf: self.field(row, 3) as u32,
            min_length: self.field(row, 4) as u32,
        }
    }

    /// The encoded bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }
}

/// Number of blocks in the block table of a list of `df` documents.
pub fn num_blocks(df: u32) -> usize {
    if (df as usize) < BLOCK_LEN {
        0
    } else {
        (df as usize).div_ceil(BLOCK_LEN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(docs: &[u32], tfs: &[u32]) -> (Vec<u32>, Vec<u32>, TermInfo, Vec<BlockMeta>) {
        let mut bytes = Vec::new();
        let mut blocks = Vec::new();
        let info = encode(docs, tfs, |d| d % 7 + 1, &mut bytes, &mut blocks);
        let list = PostingList {
            bytes: &bytes,
            blocks: &blocks,
            df: info.df,
        };
        let mut decoder = BlockDecoder::default();
        let (mut out_docs, mut out_tfs) = (Vec::new(), Vec::new());
        for i in 0..list.num_blocks() {
            let n = decoder.decode(&list, i).unwrap();
            out_docs.extend_from_slice(&decoder.docs[..n]);
            out_tfs.extend_from_slice(&decoder.tfs[..n]);
        }
        (out_docs, out_tfs, info, blocks)
    }

    proptest! {
        #[test]
        fn encode_decode_is_identity(
            deltas in proptest::collection::vec(1u32..5000, 0..700),
            seed in any::<u32>(),
        ) {
            let docs: Vec<u32> = deltas.iter().scan(0u32, |acc, d| { *acc += d; Some(*acc - 1) }).collect();
            let tfs: Vec<u32> = docs.iter().map(|d| if (d ^ seed) % 3 == 0 { 1 } else { (d ^ seed) % 300 + 1 }).collect();
            let (d, t, info, blocks) = round_trip(&docs, &tfs);
            prop_assert_eq!(&d, &docs);
            prop_assert_eq!(&t, &tfs);
            if docs.len() < BLOCK_LEN {
                prop_assert!(blocks.is_empty());
                prop_assert_eq!(info.max_tf, tfs.iter().copied().max().unwrap_or(0));
                prop_assert_eq!(info.min_length, docs.iter().map(|d| d % 7 + 1).min().unwrap_or(0));
            }
            for (i, meta) in blocks.iter().enumerate() {
                let range = i * BLOCK_LEN..((i + 1) * BLOCK_LEN).min(docs.len());
                prop_assert_eq!(meta.max_tf, *tfs[range.clone()].iter().max().unwrap());
                prop_assert_eq!(meta.min_length, docs[range.clone()].iter().map(|d| d % 7 + 1).min().unwrap());
                prop_assert_eq!(meta.last_doc, docs[range.end - 1]);
            }
        }

        #[test]
        fn term_table_round_trips(rows in proptest::collection::vec(
            (any::<u32>(), any::<u64>(), any::<u32>(), 0u32..1000, any::<u32>()), 0..200)) {
            let infos: Vec<TermInfo> = rows.iter().map(|&(df, offset, first_block, max_tf, min_length)| TermInfo {
                df, offset, first_block, max_tf, min_length,
            }).collect();
            let table = TermTable::open(Data::owned(TermTable::encode(&infos)), infos.len()).unwrap();
            for (i, info) in infos.iter().enumerate() {
                prop_assert_eq!(table.get(i as u32), *info);
            }
            prop_assert_eq!(table.get(infos.len() as u32), TermInfo::default());
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
        let cut = PostingList {
            bytes: &bytes[..10],
            blocks: &blocks,
            df: 300,
        };
        assert!(decoder.decode(&cut, 1).is_none());
        let whole = PostingList {
            bytes: &bytes,
            blocks: &blocks,
            df: 300,
        };
        assert!(decoder.decode(&whole, 9).is_none());
        let garbage = PostingList {
            bytes: &[0xff; 4],
            blocks: &blocks,
            df: 300,
        };
        assert!(decoder.decode(&garbage, 2).is_none());
        let short = PostingList {
            bytes: &[0xff; 4],
            blocks: &[],
            df: 5,
        };
        assert!(decoder.decode(&short, 0).is_none());
        assert!(TermTable::open(Data::owned(vec![70, 0, 0, 0, 0]), 0).is_none());
    }
}
