//! Lucene's two stored-fields compression modes, decompression only.
//!
//! Both cut a piece into a dictionary (its first bytes) and sub-blocks
//! compressed with that dictionary as history:
//! - `BEST_SPEED` (LZ4): vInt dictionary length, vInt block length, the
//!   vInt compressed length of the dictionary then of each block, then the
//!   compressed bytes, LZ4 block format ([`lz4_flex`]).
//! - `BEST_COMPRESSION` (DEFLATE): vInt dictionary length, vInt block
//!   length, then the dictionary and each block as a vInt compressed length
//!   and raw DEFLATE bytes ([`miniz_oxide`], the dictionary preloaded as
//!   history).

use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress as inflate, inflate_flags};

use super::input::Input;
use crate::error::Result;

/// A compression mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `BEST_SPEED`.
    Lz4,
    /// `BEST_COMPRESSION`.
    Deflate,
}

/// Decompresses one piece of `len` bytes from `input`, appending to `out`.
pub fn decompress(mode: Mode, input: &mut Input<'_>, len: usize, out: &mut Vec<u8>) -> Result<()> {
    let dict_len = input.read_vint_at_most(len, "dictionary length")?;
    let block_len = input.read_vint_at_most(len.max(1), "block length")?;
    if block_len == 0 && dict_len < len {
        return Err(input.corrupt("zero block length"));
    }
    let start = out.len();
    match mode {
        Mode::Lz4 => lz4(input, len, dict_len, block_len, out)?,
        Mode::Deflate => deflate(input, len, dict_len, block_len, out)?,
    }
    if out.len() - start != len {
        return Err(input.corrupt(format!(
            "decompressed {} bytes, {len} expected",
            out.len() - start
        )));
    }
    Ok(())
}

fn lz4(
    input: &mut Input<'_>,
    len: usize,
    dict_len: usize,
    block_len: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    let dict_compressed = input.read_vint_at_most(input.remaining(), "compressed length")?;
    let mut compressed = Vec::new();
    let mut total = dict_len;
    while total < len {
        compressed.push(input.read_vint_at_most(input.remaining(), "compressed length")?);
        total += block_len;
    }
    let start = out.len();
    let bad = |input: &Input<'_>, e: lz4_flex::block::DecompressError| {
        input.corrupt(format!("invalid LZ4 data: {e}"))
    };
    let source = input.read_bytes(dict_compressed)?;
    out.resize(start + dict_len, 0);
    if dict_len > 0 {
        let n = lz4_flex::block::decompress_into(source, &mut out[start..])
            .map_err(|e| bad(input, e))?;
        if n != dict_len {
            return Err(input.corrupt("illegal LZ4 dictionary length"));
        }
    }
    let mut block = vec![0u8; block_len];
    for (i, &c) in compressed.iter().enumerate() {
        let n = block_len.min(len - dict_len - i * block_len);
        let source = input.read_bytes(c)?;
        let dict = &out[start..start + dict_len];
        let got = lz4_flex::block::decompress_into_with_dict(source, &mut block[..n], dict)
            .map_err(|e| bad(input, e))?;
        if got != n {
            return Err(input.corrupt("LZ4 block shorter than its length"));
        }
        out.extend_from_slice(&block[..n]);
    }
    Ok(())
}

fn deflate(
    input: &mut Input<'_>,
    len: usize,
    dict_len: usize,
    block_len: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    let start = out.len();
    // The dictionary, then each block decompressed after it in one buffer,
    // so that back-references reach into the dictionary.
    let mut buffer = vec![0u8; dict_len + block_len];
    let n = inflate_piece(input, &mut buffer[..dict_len], 0)?;
    if n != dict_len {
        return Err(input.corrupt("unexpected DEFLATE dictionary length"));
    }
    out.extend_from_slice(&buffer[..dict_len]);
    let mut done = dict_len;
    while done < len {
        let want = block_len.min(len - done);
        let n = inflate_piece(input, &mut buffer[..dict_len + want], dict_len)?;
        if n != want {
            return Err(input.corrupt("DEFLATE block shorter than its length"));
        }
        out.extend_from_slice(&buffer[dict_len..dict_len + want]);
        done += block_len;
    }
    debug_assert!(out.len() >= start);
    Ok(())
}

/// Inflates one vInt-prefixed raw DEFLATE stream into `buffer[from..]`
/// (`buffer[..from]` is the history); returns the bytes produced.
fn inflate_piece(input: &mut Input<'_>, buffer: &mut [u8], from: usize) -> Result<usize> {
    let compressed_len = input.read_vint_at_most(input.remaining(), "compressed length")?;
    if compressed_len == 0 {
        return Ok(0);
    }
    let source = input.read_bytes(compressed_len)?;
    let mut state = DecompressorOxide::new();
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let (status, _, written) = inflate(&mut state, source, buffer, from, flags);
    match status {
        TINFLStatus::Done => Ok(written),
        s => Err(input.corrupt(format!("invalid DEFLATE data ({s:?})"))),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;

    use super::*;
    use crate::lucene::testing::Out;

    /// Compresses `data` as Lucene's `BEST_SPEED` mode lays it out.
    fn lz4_piece(data: &[u8]) -> Vec<u8> {
        let dict_len = (data.len() / 20).min(1 << 16);
        let block_len = (data.len() - dict_len).div_ceil(10);
        let mut out = Out::default();
        out.vint(dict_len as u32);
        out.vint(block_len as u32);
        let dict = &data[..dict_len];
        let mut parts = vec![lz4_flex::block::compress(dict)];
        let mut start = dict_len;
        while start < data.len() {
            let end = (start + block_len).min(data.len());
            parts.push(lz4_flex::block::compress_with_dict(&data[start..end], dict));
            start = end;
        }
        for p in &parts {
            out.vint(p.len() as u32);
        }
        for p in &parts {
            out.raw(p);
        }
        out.bytes
    }

    /// Compresses `data` as Lucene's `BEST_COMPRESSION` mode lays it out
    /// (blocks compressed without the dictionary: a valid stream too).
    fn deflate_piece(data: &[u8]) -> Vec<u8> {
        let dict_len = data.len() / 60;
        let block_len = (data.len() - dict_len).div_ceil(10);
        let mut out = Out::default();
        out.vint(dict_len as u32);
        out.vint(block_len as u32);
        let mut piece = |bytes: &[u8]| {
            if bytes.is_empty() {
                out.vint(0);
            } else {
                let c = miniz_oxide::deflate::compress_to_vec(bytes, 6);
                out.vint(c.len() as u32);
                out.raw(&c);
            }
        };
        piece(&data[..dict_len]);
        let mut start = dict_len;
        while start < data.len() {
            let end = (start + block_len).min(data.len());
            piece(&data[start..end]);
            start = end;
        }
        out.bytes
    }

    fn sample(n: usize, seed: u8) -> Vec<u8> {
        (0..n)
            .map(|i| b"the quick brown fox "[(i * 7 + seed as usize) % 20])
            .collect()
    }

    proptest! {
        #[test]
        fn round_trips(n in 1usize..5000, seed in any::<u8>()) {
            let data = sample(n, seed);
            for (mode, bytes) in [(Mode::Lz4, lz4_piece(&data)), (Mode::Deflate, deflate_piece(&data))] {
                let mut input = Input::new(Path::new("_0.fdt"), &bytes);
                let mut out = Vec::new();
                decompress(mode, &mut input, data.len(), &mut out).unwrap();
                prop_assert_eq!(&out, &data);
                prop_assert_eq!(input.remaining(), 0);
            }
        }

        #[test]
        fn damage_is_an_error_not_a_panic(n in 1usize..2000, flip in any::<usize>(), cut in any::<usize>()) {
            let data = sample(n, 1);
            for (mode, bytes) in [(Mode::Lz4, lz4_piece(&data)), (Mode::Deflate, deflate_piece(&data))] {
                let mut damaged = bytes[..cut % (bytes.len() + 1)].to_vec();
                if !damaged.is_empty() {
                    let bit = flip % (8 * damaged.len());
                    damaged[bit / 8] ^= 1 << (bit % 8);
                }
                let mut input = Input::new(Path::new("_0.fdt"), &damaged);
                let mut out = Vec::new();
                let _ = decompress(mode, &mut input, data.len(), &mut out);
            }
        }
    }
}
