//! LZ4 block decompression in Lucene's framing (`org.apache.lucene.util.compress.LZ4`):
//! sequences of a token (literal length in the high 4 bits, match length
//! minus 4 in the low 4, 15 meaning "more bytes follow, 255 meaning more
//! again"), the literals, then a little-endian 16-bit match distance. The
//! last sequence has literals only. Used for term suffixes and stored
//! fields.

use super::input::Input;
use crate::error::Result;

const MIN_MATCH: usize = 4;

fn extra_length(input: &mut Input, mut len: usize) -> Result<usize> {
    loop {
        let b = input.read_byte()?;
        len += usize::from(b);
        if b != 0xff {
            return Ok(len);
        }
    }
}

/// Decompresses `len` bytes from `input`, appending them to `out`. Matches
/// may reach back into what `out` already holds (a preset dictionary).
pub fn decompress(input: &mut Input, len: usize, out: &mut Vec<u8>) -> Result<()> {
    let end = out
        .len()
        .checked_add(len)
        .ok_or_else(|| input.corrupt("LZ4 length overflows"))?;
    out.reserve(len);
    while out.len() < end {
        let at = input.pos();
        let token = input.read_byte()?;
        let mut literals = usize::from(token >> 4);
        if literals == 0x0f {
            literals = extra_length(input, literals)?;
        }
        if literals > end - out.len() {
            return Err(input.corrupt(format!(
                "LZ4 sequence at offset {at}: literals run past the {len} decompressed bytes"
            )));
        }
        out.extend_from_slice(input.read_bytes(literals)?);
        if out.len() >= end {
            break;
        }
        let distance = usize::from(input.read_short()?);
        let mut matched = usize::from(token & 0x0f);
        if matched == 0x0f {
            matched = extra_length(input, matched)?;
        }
        matched += MIN_MATCH;
        if distance == 0 || distance > out.len() || matched > end - out.len() {
            return Err(input.corrupt(format!(
                "LZ4 sequence at offset {at}: match of {matched} bytes at distance {distance} is out of bounds"
            )));
        }
        let from = out.len() - distance;
        if distance >= matched {
            out.extend_from_within(from..from + matched);
        } else {
            // Overlapping: each byte may be one just written.
            for i in 0..matched {
                let b = out[from + i];
                out.push(b);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;

    use super::*;

    fn run(bytes: &[u8], len: usize) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        decompress(&mut Input::new(Path::new("_0.fdt"), bytes), len, &mut out)?;
        Ok(out)
    }

    #[test]
    fn literals_then_an_overlapping_match() {
        // "ab", then a match of 6 at distance 2: "abababab"; then literal "c".
        let bytes = [0x22, b'a', b'b', 2, 0, 0x10, b'c'];
        assert_eq!(run(&bytes, 9).unwrap(), b"ababababc");
    }

    #[test]
    fn long_lengths_use_extra_bytes() {
        let mut bytes = vec![0xf0, 255, 3]; // 15 + 255 + 3 = 273 literals
        bytes.extend(std::iter::repeat_n(b'x', 273));
        assert_eq!(run(&bytes, 273).unwrap(), vec![b'x'; 273]);
    }

    #[test]
    fn a_match_before_the_start_is_corruption() {
        let err = run(&[0x10, b'a', 5, 0], 10).unwrap_err();
        assert!(err.to_string().contains("_0.fdt"), "{err}");
    }

    proptest! {
        #[test]
        fn any_bytes_are_an_error_or_exactly_len_bytes(
            bytes in prop::collection::vec(any::<u8>(), 0..64), len in 0usize..200
        ) {
            if let Ok(out) = run(&bytes, len) {
                prop_assert_eq!(out.len(), len);
            }
        }
    }
}
