//! Posting lists: for each term, the ascending ids of the documents holding
//! it and how often, in blocks of [`BLOCK_LEN`] documents.
//!
//! A full block is two bit-packed arrays (`bitpacking`'s SIMD `BitPacker4x`):
//! doc-id deltas and `tf − 1`. The last, partial block of a list is LEB128
//! varints, one per document: `delta << 1 | (tf == 1)`, followed by `tf`
//! when it is not 1 (most postings have tf = 1 and cost one byte). A list of
//! at least one full block has a [`BlockMeta`] per block with its last doc id
//! (to skip it), largest tf and smallest document length, which bound the
//! block's score for any k1, b and BM25 variant chosen at query time. A
//! shorter list has no stored bounds: it is decoded whole anyway.
//!
//! Per-term metadata lives in a [`TermTable`]: groups of bit-packed rows,
//! each group's fields as wide as its largest value, so a lookup is O(1) and
//! the table stays a couple of bytes per term. The block table is bit-packed
//! on disk ([`encode_blocks`]) and decoded into [`BlockMeta`]s when a segment
//! is opened.
//!
//! Not for: positions (no phrase queries).

use bitpacking::{BitPacker, BitPacker4x};

use crate::bits::{self, BitWriter};
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
    };
    if !info.has_blocks() {
        info.first_block = 0;
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

impl<'a> PostingList<'a> {
    /// An empty list (of a term a segment does not have).
    pub const EMPTY: PostingList<'static> = PostingList {
        bytes: &[],
        blocks: &[],
        df: 0,
    };

    /// The list `info` describes, its bytes ending at `end`, in a segment's
    /// postings `bytes` and block table `blocks` (empty if they disagree:
    /// only a damaged file makes them).
    pub fn within(info: TermInfo, end: u64, bytes: &'a [u8], blocks: &'a [BlockMeta]) -> Self {
        let blocks = if info.has_blocks() {
            let first = info.first_block as usize;
            blocks.get(first..first + num_blocks(info.df))
        } else {
            Some(&[][..])
        };
        let bytes = usize::try_from(info.offset)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(a, b)| bytes.get(a..b));
        match (blocks, bytes) {
            (Some(blocks), Some(bytes)) => PostingList {
                bytes,
                blocks,
                df: info.df,
            },
            _ => PostingList::EMPTY,
        }
    }

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

/// Terms per group of the [`TermTable`].
const GROUP: usize = 16;
/// Bits of each of a group's two field widths.
const GROUP_WIDTH_BITS: u8 = 7;

/// Per-term document frequency and postings offset, in groups of
/// [`GROUP`] terms with their own field widths, so a lookup is O(1) and a
/// group of rare terms costs a few bits per term.
///
/// Layout: two u8 widths (anchor, row start), then one header per group
/// (its first term's postings offset — the anchor —, the bit position of its
/// rows from the start of the rows, and its two row field widths, 7 bits
/// each), then the rows: `df − 1` and the offset from the group's anchor.
/// Everything after the two width bytes is one LSB-first bit stream.
///
/// The index of a term's first block in the block table is not stored: it
/// is the number of blocks of the terms before it, computed when the table
/// is opened (only terms with a block table are remembered).
#[derive(Clone, Debug)]
pub struct TermTable {
    data: Data,
    len: usize,
    anchor_bits: u8,
    start_bits: u8,
    rows_at: usize,
    /// `(ordinal, first block)` of every term with a block table, ascending.
    block_terms: Vec<(u32, u32)>,
    num_blocks: usize,
}

struct GroupHeader {
    anchor: u64,
    start: u64,
    df_bits: u8,
    offset_bits: u8,
}

impl TermTable {
    /// Encodes the `df` and `offset` of `infos` (`first_block` is implied).
    pub fn encode(infos: &[TermInfo]) -> Vec<u8> {
        let mut groups = Vec::with_capacity(infos.len().div_ceil(GROUP));
        let mut start = 0u64;
        for chunk in infos.chunks(GROUP) {
            let anchor = chunk[0].offset;
            let df_bits = chunk
                .iter()
                .map(|t| bits::width(u64::from(t.df.wrapping_sub(1))))
                .max()
                .unwrap_or(0);
            let offset_bits = chunk
                .iter()
                .map(|t| bits::width(t.offset.wrapping_sub(anchor)))
                .max()
                .unwrap_or(0);
            groups.push(GroupHeader {
                anchor,
                start,
                df_bits,
                offset_bits,
            });
            start += (chunk.len() * usize::from(df_bits + offset_bits)) as u64;
        }
        let anchor_bits = bits::width(groups.iter().map(|g| g.anchor).max().unwrap_or(0));
        let start_bits = bits::width(groups.iter().map(|g| g.start).max().unwrap_or(0));
        let mut out = BitWriter::after(vec![anchor_bits, start_bits]);
        for g in &groups {
            out.push(g.anchor, anchor_bits);
            out.push(g.start, start_bits);
            out.push(u64::from(g.df_bits), GROUP_WIDTH_BITS);
            out.push(u64::from(g.offset_bits), GROUP_WIDTH_BITS);
        }
        for (chunk, g) in infos.chunks(GROUP).zip(&groups) {
            for t in chunk {
                out.push(u64::from(t.df.wrapping_sub(1)), g.df_bits);
                out.push(t.offset.wrapping_sub(g.anchor), g.offset_bits);
            }
        }
        out.finish()
    }

    /// Opens a table of `len` terms; `None` if its layout is inconsistent.
    pub fn open(data: Data, len: usize) -> Option<Self> {
        let &[anchor_bits, start_bits] = data.get(..2)? else {
            return None;
        };
        if anchor_bits > 64 || start_bits > 64 {
            return None;
        }
        let header_bits = usize::from(anchor_bits) + usize::from(start_bits) + 14;
        let rows_at = len
            .div_ceil(GROUP)
            .checked_mul(header_bits)?
            .checked_add(16)?;
        let mut table = TermTable {
            data,
            len,
            anchor_bits,
            start_bits,
            rows_at,
            block_terms: Vec::new(),
            num_blocks: 0,
        };
        let mut expected_start = 0usize;
        for g in 0..len.div_ceil(GROUP) {
            let h = table.group(g);
            if h.df_bits > 32 || h.offset_bits > 64 || h.start != expected_start as u64 {
                return None;
            }
            let rows = GROUP.min(len - g * GROUP);
            expected_start = expected_start
                .checked_add(rows.checked_mul(usize::from(h.df_bits + h.offset_bits))?)?;
        }
        if table.data.len() != rows_at.checked_add(expected_start)?.div_ceil(8) {
            return None;
        }
        let mut num_blocks = 0usize;
        let mut block_terms = Vec::new();
        let mut overflow = false;
        table.scan(|ord, df, _| {
            if df as usize >= BLOCK_LEN {
                match u32::try_from(num_blocks) {
                    Ok(first) => block_terms.push((ord, first)),
                    Err(_) => overflow = true,
                }
                num_blocks = num_blocks.saturating_add(self::num_blocks(df));
            }
            !overflow
        });
        if overflow {
            return None;
        }
        table.block_terms = block_terms;
        table.num_blocks = num_blocks;
        Some(table)
    }

    fn group(&self, g: usize) -> GroupHeader {
        let mut at = 16 + g * (usize::from(self.anchor_bits) + usize::from(self.start_bits) + 14);
        let mut next = |width: u8| {
            let v = bits::read(&self.data, at, width);
            at += usize::from(width);
            v
        };
        GroupHeader {
            anchor: next(self.anchor_bits),
            start: next(self.start_bits),
            df_bits: next(GROUP_WIDTH_BITS) as u8,
            offset_bits: next(GROUP_WIDTH_BITS) as u8,
        }
    }

    /// Calls `f(ord, df, offset)` for every term in order, decoding each
    /// group's header once (a whole-table pass at a few ns per term);
    /// stops early when `f` returns false.
    pub fn scan(&self, mut f: impl FnMut(u32, u32, u64) -> bool) {
        for g in 0..self.len.div_ceil(GROUP) {
            let h = self.group(g);
            let width = usize::from(h.df_bits + h.offset_bits);
            let mut at = self.rows_at + h.start as usize;
            for row in g * GROUP..(g * GROUP + GROUP).min(self.len) {
                let df = (bits::read(&self.data, at, h.df_bits) as u32).wrapping_add(1);
                let offset = bits::read(&self.data, at + usize::from(h.df_bits), h.offset_bits);
                at += width;
                if !f(row as u32, df, h.anchor.wrapping_add(offset)) {
                    return;
                }
            }
        }
    }

    /// `(df, offset)` of `ord < len` (the table was checked by `open`).
    fn raw(&self, ord: u32) -> (u32, u64) {
        let row = ord as usize;
        let g = self.group(row / GROUP);
        let at = self.rows_at
            + g.start as usize
            + (row % GROUP) * usize::from(g.df_bits + g.offset_bits);
        let df = (bits::read(&self.data, at, g.df_bits) as u32).wrapping_add(1);
        let offset = bits::read(&self.data, at + usize::from(g.df_bits), g.offset_bits);
        (df, g.anchor.wrapping_add(offset))
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of blocks of all the terms' block tables.
    pub fn num_blocks(&self) -> usize {
        self.num_blocks
    }

    /// `(ordinal, first block)` of every term with a block table, ascending.
    pub fn block_terms(&self) -> &[(u32, u32)] {
        &self.block_terms
    }

    /// The info of term `ord` (a default, empty info if out of range).
    pub fn get(&self, ord: u32) -> TermInfo {
        if ord as usize >= self.len {
            return TermInfo::default();
        }
        let (df, offset) = self.raw(ord);
        let first_block = if df as usize >= BLOCK_LEN {
            self.block_terms
                .binary_search_by_key(&ord, |&(o, _)| o)
                .map_or(0, |i| self.block_terms[i].1)
        } else {
            0
        };
        TermInfo {
            df,
            offset,
            first_block,
        }
    }

    /// The encoded bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }
}

/// Bits of a block's doc and tf bit widths in the block table.
const BLOCK_WIDTH_BITS: u8 = 6;

/// Encodes a block table: three u8 widths (last doc, `max tf − 1`, min
/// length), then per block, bit-packed: last doc, doc bits (6 bits), tf bits
/// (6 bits), `max tf − 1`, min length. Block offsets are not stored: they
/// follow from the bit widths of the blocks before (see [`decode_blocks`]).
/// Blocks must have `doc_bits` and `tf_bits` ≤ 32.
pub fn encode_blocks(blocks: &[BlockMeta]) -> Vec<u8> {
    let max =
        |f: fn(&BlockMeta) -> u32| bits::width(u64::from(blocks.iter().map(f).max().unwrap_or(0)));
    let last_bits = max(|b| b.last_doc);
    let tf_bits = max(|b| b.max_tf.wrapping_sub(1));
    let length_bits = max(|b| b.min_length);
    let mut out = BitWriter::after(vec![last_bits, tf_bits, length_bits]);
    for b in blocks {
        debug_assert!(b.doc_bits <= 32 && b.tf_bits <= 32);
        out.push(u64::from(b.last_doc), last_bits);
        out.push(u64::from(b.doc_bits), BLOCK_WIDTH_BITS);
        out.push(u64::from(b.tf_bits), BLOCK_WIDTH_BITS);
        out.push(u64::from(b.max_tf.wrapping_sub(1)), tf_bits);
        out.push(u64::from(b.min_length), length_bits);
    }
    out.finish()
}

/// Decodes the block table of the terms of `terms`, computing each block's
/// byte offset from its list's start; `None` if the table is inconsistent.
pub fn decode_blocks(bytes: &[u8], terms: &TermTable) -> Option<Vec<BlockMeta>> {
    let &[last_bits, tf_bits, length_bits] = bytes.get(..3)? else {
        return None;
    };
    if last_bits > 32 || tf_bits > 32 || length_bits > 32 {
        return None;
    }
    let row_bits = last_bits + 2 * BLOCK_WIDTH_BITS + tf_bits + length_bits;
    let rows = &bytes[3..];
    if rows.len() != bits::packed_len(terms.num_blocks(), row_bits)? {
        return None;
    }
    let mut blocks = Vec::with_capacity(terms.num_blocks());
    let mut at = 0usize;
    for &(ord, _) in terms.block_terms() {
        let df = terms.raw(ord).0 as usize;
        let mut offset = 0u32;
        for i in 0..df.div_ceil(BLOCK_LEN) {
            let mut next = |width: u8| {
                let v = bits::read(rows, at, width) as u32;
                at += usize::from(width);
                v
            };
            let block = BlockMeta {
                last_doc: next(last_bits),
                offset,
                doc_bits: next(BLOCK_WIDTH_BITS) as u8,
                tf_bits: next(BLOCK_WIDTH_BITS) as u8,
                max_tf: next(tf_bits).wrapping_add(1),
                min_length: next(length_bits),
            };
            if block.doc_bits > 32 || block.tf_bits > 32 {
                return None;
            }
            if (i + 1) * BLOCK_LEN <= df {
                let size =
                    (u32::from(block.doc_bits) + u32::from(block.tf_bits)) * BLOCK_BYTES_PER_BIT;
                offset = offset.checked_add(size)?;
            }
            blocks.push(block);
        }
    }
    Some(blocks)
}

/// Bytes per bit of width of a packed full block.
const BLOCK_BYTES_PER_BIT: u32 = (BLOCK_LEN / 8) as u32;

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
            prop_assert_eq!(info.df as usize, docs.len());
            if docs.len() < BLOCK_LEN {
                prop_assert!(blocks.is_empty());
            }
            for (i, meta) in blocks.iter().enumerate() {
                let range = i * BLOCK_LEN..((i + 1) * BLOCK_LEN).min(docs.len());
                prop_assert_eq!(meta.max_tf, *tfs[range.clone()].iter().max().unwrap());
                prop_assert_eq!(meta.min_length, docs[range.clone()].iter().map(|d| d % 7 + 1).min().unwrap());
                prop_assert_eq!(meta.last_doc, docs[range.end - 1]);
            }
        }

        #[test]
        fn term_table_round_trips(rows in proptest::collection::vec((1u32..400, 0u64..5000), 0..300)) {
            let mut infos = Vec::new();
            let (mut offset, mut first_block) = (0u64, 0u32);
            for &(df, size) in &rows {
                let info = TermInfo { df, offset, first_block: if df as usize >= BLOCK_LEN { first_block } else { 0 } };
                first_block += num_blocks(df) as u32;
                offset += size;
                infos.push(info);
            }
            let table = TermTable::open(Data::owned(TermTable::encode(&infos)), infos.len()).unwrap();
            for (i, info) in infos.iter().enumerate() {
                prop_assert_eq!(table.get(i as u32), *info);
            }
            prop_assert_eq!(table.get(infos.len() as u32), TermInfo::default());
            prop_assert_eq!(table.num_blocks(), first_block as usize);
            let mut bytes = TermTable::encode(&infos);
            bytes.pop();
            prop_assert!(TermTable::open(Data::owned(bytes), infos.len()).is_none());
        }

        #[test]
        fn block_table_round_trips(lists in proptest::collection::vec((1usize..700, 1u32..40, any::<u32>()), 0..20)) {
            let (mut bytes, mut blocks, mut infos) = (Vec::new(), Vec::new(), Vec::new());
            for &(df, gap, seed) in &lists {
                let docs: Vec<u32> = (0..df as u32).map(|i| i * gap).collect();
                let tfs: Vec<u32> = docs.iter().map(|d| (d ^ seed) % 5 + 1).collect();
                let info = encode(&docs, &tfs, |d| (d ^ seed) % 11, &mut bytes, &mut blocks);
                infos.push(info);
            }
            let table = TermTable::open(Data::owned(TermTable::encode(&infos)), infos.len()).unwrap();
            let encoded = encode_blocks(&blocks);
            prop_assert_eq!(decode_blocks(&encoded, &table), Some(blocks.clone()));
            prop_assert_eq!(decode_blocks(&encoded[..encoded.len() - 1], &table), None);
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
        assert!(TermTable::open(Data::owned(vec![70, 0]), 0).is_none());
        assert!(TermTable::open(Data::owned(vec![0, 0, 0]), 0).is_none());
        assert!(TermTable::open(Data::owned(vec![0, 0]), 0).is_some());
        assert!(
            decode_blocks(
                &[0, 0, 0, 1],
                &TermTable::open(Data::owned(vec![0, 0]), 0).unwrap()
            )
            .is_none()
        );
    }
}
