//! One block of the block-tree terms dictionary (`.tim`), as
//! `SegmentTermsEnumFrame.loadBlock` describes it:
//!
//! - vInt `entries << 1 | last_in_floor`;
//! - vLong `suffix_bytes << 3 | leaf << 2 | compression`, then the suffixes
//!   of all entries, stored plainly (0), in lowercase-ASCII packing (1) or
//!   LZ4 (2);
//! - vInt `n << 1 | all_equal`, then `n` bytes of suffix lengths (or one
//!   byte repeated `n` times): a vInt suffix length per entry in a leaf
//!   block; elsewhere `length << 1 | is_sub_block`, a sub-block followed by
//!   a vLong distance back from this block to the sub-block;
//! - vInt length, then the term statistics; vInt length, then the postings
//!   metadata of the block's terms.
//!
//! The next block of a floor (a block split by the next label) starts where
//! this one ends.

use super::input::Input;
use super::lz4;
use crate::error::Result;

/// A loaded block, its entries read in order.
#[derive(Default)]
pub struct TermBlock {
    /// Where the block starts in `.tim`; sub-blocks lie before it.
    pub fp: u64,
    /// Where the block ends: the next block of its floor, if any.
    pub fp_end: u64,
    /// Entries in the block.
    pub entries: u32,
    /// Whether the block is the last (or only) one of its floor.
    pub last_in_floor: bool,
    /// Whether every entry is a term.
    pub leaf: bool,
    /// The suffixes, decompressed.
    pub suffixes: Vec<u8>,
    /// The suffix lengths (and sub-block pointers).
    pub lengths: Vec<u8>,
    /// Where the statistics lie in `.tim`.
    pub stats: (usize, usize),
    /// Where the postings metadata lies in `.tim`.
    pub meta: (usize, usize),
}

impl TermBlock {
    /// Loads the block at `fp` of `tim` (the whole `.tim` file).
    pub fn load(&mut self, tim: &Input, fp: u64) -> Result<()> {
        let mut input = tim.clone();
        input.seek(fp)?;
        self.fp = fp;
        let code = input.read_vint()?;
        self.entries = code >> 1;
        self.last_in_floor = code & 1 == 1;
        if self.entries == 0 {
            return Err(input.corrupt(format!("term block at offset {fp} has no entries")));
        }
        let code = input.read_vlong()?;
        self.leaf = code & 4 != 0;
        let n = usize::try_from(code >> 3).unwrap_or(usize::MAX);
        self.suffixes.clear();
        match code & 3 {
            0 => self.suffixes.extend_from_slice(input.read_bytes(n)?),
            1 => lowercase_ascii(&mut input, n, &mut self.suffixes)?,
            2 => {
                // LZ4 expands at most 255-fold: a larger length is damage.
                if n / 255 > input.remaining() {
                    return Err(input.corrupt(format!(
                        "term block at offset {fp}: {n} suffix bytes cannot come from what is left"
                    )));
                }
                lz4::decompress(&mut input, n, &mut self.suffixes)?
            }
            c => {
                return Err(input.corrupt(format!(
                    "term block at offset {fp}: unknown suffix compression {c}"
                )));
            }
        }
        let code = input.read_vint()?;
        let n = (code >> 1) as usize;
        self.lengths.clear();
        if code & 1 == 1 {
            let b = input.read_byte()?;
            if n > self.entries as usize * 16 {
                return Err(input.corrupt(format!(
                    "term block at offset {fp}: {n} suffix length bytes for {} entries",
                    self.entries
                )));
            }
            self.lengths.resize(n, b);
        } else {
            self.lengths.extend_from_slice(input.read_bytes(n)?);
        }
        self.stats = region(&mut input)?;
        self.meta = region(&mut input)?;
        self.fp_end = input.pos() as u64;
        Ok(())
    }
}

/// A vInt length and the bytes after it, as (start, length).
fn region(input: &mut Input) -> Result<(usize, usize)> {
    let n = input.read_vint_at_most(input.remaining(), "term block region length")?;
    let start = input.pos();
    input.skip(n as u64)?;
    Ok((start, n))
}

/// `LowercaseAsciiCompression`: bytes moved to 6 bits, four packed into
/// three (the top two bits of the first three quarters hold the last
/// quarter), then patched exceptions as (gap, byte) pairs.
fn lowercase_ascii(input: &mut Input, len: usize, out: &mut Vec<u8>) -> Result<()> {
    let saved = len >> 2;
    let packed = len - saved;
    let start = out.len();
    out.extend_from_slice(input.read_bytes(packed)?);
    out.resize(start + len, 0);
    let o = &mut out[start..];
    for i in 0..saved {
        o[packed + i] =
            ((o[i] & 0xc0) >> 2) | ((o[saved + i] & 0xc0) >> 4) | ((o[2 * saved + i] & 0xc0) >> 6);
    }
    for b in o.iter_mut() {
        let x = *b & 0x3f;
        *b = ((x & 0x1f) | 0x20 | ((x & 0x20) << 1)) - 1;
    }
    let n = input.read_vint_at_most(input.remaining() / 2, "exception count")?;
    let mut i = 0usize;
    for _ in 0..n {
        i += usize::from(input.read_byte()?);
        let b = input.read_byte()?;
        let slot = o
            .get_mut(i)
            .ok_or_else(|| input.corrupt(format!("suffix exception at {i} is past {len} bytes")))?;
        *slot = b;
    }
    Ok(())
}

#[cfg(test)]
#[path = "term_block_tests.rs"]
mod tests;
