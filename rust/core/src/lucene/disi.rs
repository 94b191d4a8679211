//! Lucene's `IndexedDISI`: the set of documents that have a value (a norm,
//! a doc value), in blocks of 65,536 ids, each block `ALL` (every id),
//! `DENSE` (a bitset, after a rank table) or `SPARSE` (16-bit low halves),
//! ended by a sentinel block and a jump table that sequential reading skips.

use super::input::Input;
use crate::error::Result;

const BLOCK: u32 = 1 << 16;
/// A block with more documents than this is stored as a bitset.
const MAX_SPARSE: u32 = (1 << 12) - 1;

/// Decodes the `count` document ids of the set stored in `input` (the
/// slice `docsWithField`), each below `max_doc`, in increasing order.
pub fn read_docs(
    input: &mut Input<'_>,
    count: u32,
    dense_rank_power: i8,
    max_doc: u32,
) -> Result<Vec<u32>> {
    if count > max_doc {
        return Err(input.corrupt(format!(
            "{count} documents with values, more than the segment's {max_doc}"
        )));
    }
    let rank_bytes = match dense_rank_power {
        -1 => 0,
        7..=15 => (1024usize >> (dense_rank_power - 7)) as u64,
        p => return Err(input.corrupt(format!("invalid dense rank power {p}"))),
    };
    let mut docs = Vec::with_capacity(count as usize);
    let mut last_block: i64 = -1;
    while (docs.len() as u32) < count {
        let block = u32::from(input.read_short()?);
        if i64::from(block) <= last_block {
            return Err(input.corrupt("document set blocks out of order"));
        }
        last_block = i64::from(block);
        let cardinality = u32::from(input.read_short()?) + 1;
        let base = block * BLOCK;
        if docs.len() as u32 + cardinality > count
            || u64::from(base) + u64::from(cardinality) > u64::from(max_doc)
        {
            return Err(input.corrupt(format!(
                "document set block {block} holds {cardinality} documents, beyond the {count} expected"
            )));
        }
        if cardinality <= MAX_SPARSE {
            let mut prev = -1i64;
            for _ in 0..cardinality {
                let low = input.read_short()?;
                if i64::from(low) <= prev {
                    return Err(input.corrupt("document set entries out of order"));
                }
                prev = i64::from(low);
                docs.push(base + u32::from(low));
            }
        } else if cardinality == BLOCK {
            docs.extend(base..base + BLOCK);
        } else {
            input.skip(rank_bytes)?;
            let before = docs.len();
            for word in 0..1024u32 {
                let mut bits = input.read_long()?;
                while bits != 0 {
                    docs.push(base + word * 64 + bits.trailing_zeros());
                    bits &= bits - 1;
                }
            }
            if (docs.len() - before) as u32 != cardinality {
                return Err(input.corrupt(format!(
                    "dense block {block} holds {} documents, its header says {cardinality}",
                    docs.len() - before
                )));
            }
        }
        if docs.last().is_some_and(|&d| d >= max_doc) {
            return Err(input.corrupt(format!(
                "document {} beyond the segment's {max_doc}",
                docs[docs.len() - 1]
            )));
        }
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;

    use super::*;
    use crate::lucene::testing::Out;

    /// Writes `docs` (sorted, distinct) as Lucene does, rank power 9.
    fn encode(docs: &[u32]) -> Vec<u8> {
        let mut out = Out::default();
        let mut i = 0;
        while i < docs.len() {
            let block = docs[i] >> 16;
            let j = docs[i..]
                .iter()
                .position(|&d| d >> 16 != block)
                .map_or(docs.len(), |p| i + p);
            let card = (j - i) as u32;
            out.raw(&(block as u16).to_le_bytes());
            out.raw(&((card - 1) as u16).to_le_bytes());
            if card <= MAX_SPARSE {
                for &d in &docs[i..j] {
                    out.raw(&((d & 0xffff) as u16).to_le_bytes());
                }
            } else if card < BLOCK {
                out.raw(&[0u8; 256]);
                let mut words = [0u64; 1024];
                for &d in &docs[i..j] {
                    let low = d & 0xffff;
                    words[(low / 64) as usize] |= 1 << (low % 64);
                }
                for w in words {
                    out.long(w);
                }
            }
            i = j;
        }
        out.bytes
    }

    proptest! {
        #[test]
        fn round_trips(blocks in proptest::collection::vec((0u32..4, 0u32..3), 1..4)) {
            let mut docs = Vec::new();
            for (b, (kind, seed)) in blocks.iter().enumerate() {
                let base = b as u32 * BLOCK;
                match kind {
                    0 => docs.extend((0..50).map(|i| base + i * 7 + seed)),
                    1 => docs.extend((0..BLOCK).filter(|i| (i + seed) % 3 != 0).map(|i| base + i)),
                    2 => docs.extend(base..base + BLOCK),
                    _ => {}
                }
            }
            let bytes = encode(&docs);
            let max_doc = blocks.len() as u32 * BLOCK;
            let mut input = Input::new(Path::new("_0.nvd"), &bytes);
            let got = read_docs(&mut input, docs.len() as u32, 9, max_doc).unwrap();
            prop_assert_eq!(got, docs);
        }

        #[test]
        fn damage_is_an_error_not_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), count in 0u32..100) {
            let mut input = Input::new(Path::new("_0.nvd"), &bytes);
            if let Ok(docs) = read_docs(&mut input, count, 9, 1000) {
                prop_assert!(docs.windows(2).all(|w| w[0] < w[1]));
                prop_assert!(docs.iter().all(|&d| d < 1000));
            }
        }
    }
}
