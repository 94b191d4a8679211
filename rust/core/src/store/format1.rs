//! Readers of format version 1 files, converting them into the in-memory
//! structures of the current format when an old index is loaded.
//!
//! Version 1 differs in four files: `docids` (u64 offsets), `lengths` and
//! `docrank` (u32 per document), `terminfo` (five bit-packed fields per term,
//! including a first block index and the bounds of short lists) and `blocks`
//! (20-byte records). `norms`, `terms`, `postings`, `store` and `*.del` are
//! unchanged.

use crate::bits;
use crate::data::Data;
use crate::postings::{self, BlockMeta, TermInfo, TermTable};
use crate::segment::DocIds;

const BLOCK_META_LEN: usize = 20;
const TERM_FIELDS: usize = 5;

/// `n` little-endian u32s; `None` if the size differs.
pub fn u32s(data: &[u8], n: usize) -> Option<Vec<u32>> {
    if Some(data.len()) != n.checked_mul(4) {
        return None;
    }
    Some(
        data.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect(),
    )
}

/// A v1 docid table (`n + 1` u64 offsets, then the text) as [`DocIds`].
pub fn docids(data: &[u8], n: usize) -> Option<DocIds> {
    let table = n.checked_add(1)?.checked_mul(8)?;
    let offsets: Vec<usize> = data
        .get(..table)?
        .chunks_exact(8)
        .map(|c| usize::try_from(u64::from_le_bytes(c.try_into().expect("8 bytes"))).ok())
        .collect::<Option<_>>()?;
    let text = &data[table..];
    let ids: Vec<&str> = offsets
        .windows(2)
        .map(|w| std::str::from_utf8(text.get(w[0]..w[1])?).ok())
        .collect::<Option<_>>()?;
    if offsets[0] != 0 || offsets[n] != text.len() {
        return None;
    }
    DocIds::open(Data::owned(DocIds::encode(ids.into_iter())), n)
}

/// A v1 term table (five field widths, fixed-width rows, 8 bytes of
/// padding) as a [`TermTable`]; `None` if its size is wrong or its first
/// block indexes are not the running block count.
pub fn term_table(data: &[u8], len: usize) -> Option<TermTable> {
    let widths: [u8; TERM_FIELDS] = data.get(..TERM_FIELDS)?.try_into().ok()?;
    if widths.iter().any(|&w| w > 64) {
        return None;
    }
    let row_bits: usize = widths.iter().map(|&w| usize::from(w)).sum();
    if data.len() != TERM_FIELDS + len.checked_mul(row_bits)?.div_ceil(8) + 8 {
        return None;
    }
    let rows = &data[TERM_FIELDS..];
    let mut infos = Vec::with_capacity(len);
    let mut blocks = 0usize;
    for row in 0..len {
        let mut at = row * row_bits;
        let mut next = |w: u8| {
            let v = bits::read(rows, at, w);
            at += usize::from(w);
            v
        };
        let df = u32::try_from(next(widths[0])).ok()?;
        let offset = next(widths[1]);
        let first_block = next(widths[2]);
        let info = TermInfo {
            df,
            offset,
            first_block: if info_has_blocks(df) {
                first_block as u32
            } else {
                0
            },
        };
        if info.has_blocks() {
            if first_block != blocks as u64 {
                return None;
            }
            blocks = blocks.checked_add(postings::num_blocks(df))?;
        }
        infos.push(info);
    }
    TermTable::open(Data::owned(TermTable::encode(&infos)), len)
}

fn info_has_blocks(df: u32) -> bool {
    df as usize >= postings::BLOCK_LEN
}

/// A v1 block table (20-byte records) as [`BlockMeta`]s; `None` if its size
/// is not a whole number of records or a bit width is over 32.
pub fn blocks(data: &[u8]) -> Option<Vec<BlockMeta>> {
    if !data.len().is_multiple_of(BLOCK_META_LEN) {
        return None;
    }
    let u32_at = |c: &[u8], at: usize| u32::from_le_bytes(c[at..at + 4].try_into().expect("4"));
    data.chunks_exact(BLOCK_META_LEN)
        .map(|c| {
            let b = BlockMeta {
                last_doc: u32_at(c, 0),
                offset: u32_at(c, 4),
                doc_bits: c[8],
                tf_bits: c[9],
                max_tf: u32_at(c, 12),
                min_length: u32_at(c, 16),
            };
            (b.doc_bits <= 32 && b.tf_bits <= 32).then_some(b)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_docids_convert() {
        let mut v1 = Vec::new();
        for o in [0u64, 2, 5] {
            v1.extend_from_slice(&o.to_le_bytes());
        }
        v1.extend_from_slice(b"d1doc");
        let ids = docids(&v1, 2).unwrap();
        assert_eq!(
            (ids.get(0), ids.get(1), ids.get(2)),
            (Some("d1"), Some("doc"), None)
        );
        assert!(docids(&v1[..v1.len() - 1], 2).is_none());
        assert!(docids(&v1, 3).is_none());
    }

    #[test]
    fn v1_term_table_converts() {
        // widths: df 8, offset 8, first block 8, max tf 0, min length 0.
        let mut v1 = vec![8, 8, 8, 0, 0];
        v1.extend_from_slice(&[3, 0, 0, 200, 10, 0, 130, 90, 2]);
        v1.extend_from_slice(&[0; 8]);
        let table = term_table(&v1, 3).unwrap();
        let infos: Vec<TermInfo> = (0..3).map(|o| table.get(o)).collect();
        assert_eq!(
            infos[0],
            TermInfo {
                df: 3,
                offset: 0,
                first_block: 0
            }
        );
        assert_eq!(
            infos[1],
            TermInfo {
                df: 200,
                offset: 10,
                first_block: 0
            }
        );
        assert_eq!(
            infos[2],
            TermInfo {
                df: 130,
                offset: 90,
                first_block: 2
            }
        );
        assert_eq!(table.num_blocks(), 4);
        v1[5 + 8] = 1; // the third term's first block is not the running count
        assert!(term_table(&v1, 3).is_none());
        assert!(term_table(&v1, 2).is_none());
    }
}
