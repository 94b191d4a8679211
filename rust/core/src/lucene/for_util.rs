//! Lucene 9's packed blocks of 128 integers (`ForUtil`, `PForUtil`,
//! `ForDeltaUtil`), decoded from the format their writers describe.
//!
//! A block of `b` bits a value takes `16 * b` bytes: `2 * b` little-endian
//! 64-bit words (in Lucene 8.4 to 8.11 too, whose other longs are
//! big-endian). Each word is cut into lanes of `P` bits (8 when `b <= 8`,
//! 16 when `b <= 16`, else 32), and value `n` lives in lane `n / (2P)`
//! (lane 0 the most significant) of a "collapsed" word `n % (2P)`. The
//! first `floor(P / b) * 2b` collapsed words are stored `b` bits at a time
//! from the top of each lane of the stored words, one stored word each;
//! the rest are cut into the `P mod b` low bits of each lane, read as one
//! bit stream across the stored words, most significant bits first.
//! Every lane follows the same pattern, so the decoder works on all lanes
//! of a word at once with masks.

use super::input::Input;
use crate::error::Result;

/// Values in one packed block.
pub const BLOCK_SIZE: usize = 128;

/// Bytes of a block of `bits` bits a value.
pub fn packed_len(bits: u32) -> usize {
    16 * bits as usize
}

/// The low `bits` bits (at most 32) of every `lane`-bit lane of a word.
fn lane_mask(lane: u32, bits: u32) -> u64 {
    let one = (1u64 << bits) - 1;
    let mut m = 0u64;
    let mut at = 0;
    while at < 64 {
        m |= one << at;
        at += lane;
    }
    m
}

/// Unpacks 128 values of `bits` bits (1 to 32) from `bytes`, which holds
/// exactly [`packed_len`]`(bits)` bytes.
pub fn unpack(bytes: &[u8], bits: u32, out: &mut [u32; BLOCK_SIZE]) {
    debug_assert!((1..=32).contains(&bits) && bytes.len() == packed_len(bits));
    let lane: u32 = if bits <= 8 {
        8
    } else if bits <= 16 {
        16
    } else {
        32
    };
    let words = 2 * bits as usize;
    let mut stored = [0u64; 64];
    for (w, chunk) in stored[..words].iter_mut().zip(bytes.chunks_exact(8)) {
        *w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
    }
    let stored = &stored[..words];
    let num_collapsed = 2 * lane as usize;
    let mut collapsed = [0u64; 64];
    let mut idx = 0;

    // Whole values at decreasing shifts from the top of each lane.
    let value_mask = lane_mask(lane, bits);
    let mut shift = lane as i32 - bits as i32;
    while shift >= 0 {
        for &w in stored {
            collapsed[idx] = (w >> shift) & value_mask;
            idx += 1;
        }
        shift -= bits as i32;
    }

    // The rest: a bit stream over the low `rem` bits of each lane.
    let rem = (shift + bits as i32) as u32;
    if idx < num_collapsed {
        let rem_mask = lane_mask(lane, rem);
        let mut word = 0;
        let mut left = rem; // unread bits of the current chunk
        while idx < num_collapsed {
            let mut need = bits - left;
            let mut v = (stored[word] & lane_mask(lane, left)) << need;
            word += 1;
            while need >= rem {
                need -= rem;
                v |= (stored[word] & rem_mask) << need;
                word += 1;
            }
            if need > 0 {
                v |= (stored[word] >> (rem - need)) & lane_mask(lane, need);
                left = rem - need;
            } else {
                left = rem;
            }
            collapsed[idx] = v;
            idx += 1;
        }
    }

    // Spread the lanes back into value order.
    let lanes = 64 / lane;
    let one = (1u64 << lane) - 1;
    for j in 0..lanes {
        let at = 64 - lane * (j + 1);
        let base = j as usize * num_collapsed;
        for (k, &c) in collapsed[..num_collapsed].iter().enumerate() {
            out[base + k] = ((c >> at) & one) as u32;
        }
    }
}

/// Reads a `PForUtil` block: a token (exception count in the high 3 bits,
/// bits a value in the low 5), the packed values (or one vLong when all are
/// equal), then (index, high bits) byte pairs patching the exceptions.
pub fn read_pfor(input: &mut Input, out: &mut [u32; BLOCK_SIZE]) -> Result<()> {
    let token = input.read_byte()?;
    let bits = u32::from(token & 0x1f);
    let exceptions = usize::from(token >> 5);
    if bits == 0 {
        let at = input.pos();
        let v = input.read_vlong()?;
        let v = u32::try_from(v)
            .map_err(|_| input.corrupt(format!("packed value {v} at offset {at} is too large")))?;
        out.fill(v);
    } else {
        unpack(input.read_bytes(packed_len(bits))?, bits, out);
    }
    for _ in 0..exceptions {
        let at = input.pos();
        let i = usize::from(input.read_byte()?);
        let high = u64::from(input.read_byte()?) << bits;
        let slot = out.get_mut(i).ok_or_else(|| {
            input.corrupt(format!("exception index {i} at offset {at} is past 128"))
        })?;
        *slot = u32::try_from(u64::from(*slot) | high)
            .map_err(|_| input.corrupt(format!("exception at offset {at} overflows 32 bits")))?;
    }
    Ok(())
}

/// Skips a `PForUtil` block.
pub fn skip_pfor(input: &mut Input) -> Result<()> {
    let token = input.read_byte()?;
    let bits = u32::from(token & 0x1f);
    let exceptions = u64::from(token >> 5);
    if bits == 0 {
        input.read_vlong()?;
    } else {
        input.skip(packed_len(bits) as u64)?;
    }
    input.skip(2 * exceptions)
}

/// Reads a `ForDeltaUtil` block of gaps (the doc blocks of Lucene 8.4 to
/// 8.11 and 9.9 to 9.11): a byte of bits a value, 0 meaning every gap is 1,
/// then the packed gaps.
pub fn read_for_delta(input: &mut Input, out: &mut [u32; BLOCK_SIZE]) -> Result<()> {
    let at = input.pos();
    let bits = u32::from(input.read_byte()?);
    match bits {
        0 => out.fill(1),
        1..=32 => unpack(input.read_bytes(packed_len(bits))?, bits, out),
        _ => {
            return Err(input.corrupt(format!(
                "invalid bits per value {bits} of a packed block at offset {at}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "for_util_tests.rs"]
mod tests;
