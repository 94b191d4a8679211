use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::lucene::testing::Out;

/// `LowercaseAsciiCompression.compress`, as its description reads, for
/// round trips: `None` when the bytes do not compress.
fn compress_lowercase_ascii(input: &[u8]) -> Option<Vec<u8>> {
    let len = input.len();
    let compressible = |b: u8| {
        let high = (u32::from(b) + 1) & !0x1f;
        high == 0x20 || high == 0x60
    };
    if len < 8 {
        return None;
    }
    let mut exceptions = Vec::new(); // (gap, byte)
    let mut previous = 0;
    for (i, &b) in input.iter().enumerate() {
        if !compressible(b) {
            while i - previous > 0xff {
                previous += 0xff;
                exceptions.push((0xff, input[previous]));
            }
            exceptions.push(((i - previous) as u8, b));
            previous = i;
        }
    }
    if exceptions.len() > len >> 5 {
        return None;
    }
    let packed = len - (len >> 2);
    let mut tmp: Vec<u8> = input
        .iter()
        .map(|&b| {
            let b = u32::from(b) + 1;
            ((b & 0x1f) | ((b & 0x40) >> 1)) as u8
        })
        .collect();
    let mut o = 0;
    for shift in [(0x30, 2), (0x0c, 4), (0x03, 6)] {
        for i in packed..len {
            tmp[o] |= (tmp[i] & shift.0) << shift.1;
            o += 1;
        }
    }
    let mut out = Out::default();
    out.raw(&tmp[..packed]);
    out.vint(exceptions.len() as u32);
    for (gap, b) in exceptions {
        out.byte(gap);
        out.byte(b);
    }
    Some(out.bytes)
}

#[test]
fn lowercase_ascii_hand_example() {
    let text = b"information.retrieval_2024-x";
    let packed = compress_lowercase_ascii(text).unwrap();
    assert!(packed.len() < text.len());
    let mut out = Vec::new();
    lowercase_ascii(
        &mut Input::new(Path::new("t.tim"), &packed),
        text.len(),
        &mut out,
    )
    .unwrap();
    assert_eq!(out, text);
}

#[test]
fn a_non_leaf_block_with_plain_suffixes() {
    let mut o = Out::default();
    o.raw(&[0; 5]); // earlier bytes of the file
    o.vint(3 << 1 | 1); // three entries, last in floor
    o.vlong(7 << 3); // 7 suffix bytes, not a leaf, no compression
    o.raw(b"abcdefg");
    let mut lengths = Out::default();
    lengths.vint(2 << 1); // term "ab"
    lengths.vint(3 << 1 | 1); // sub-block "cde"...
    lengths.vlong(4); // ...4 bytes back
    lengths.vint(2 << 1); // term "fg"
    o.vint((lengths.bytes.len() as u32) << 1);
    o.raw(&lengths.bytes);
    o.vint(2);
    o.raw(&[4, 6]); // stats
    o.vint(1);
    o.raw(&[0]); // metadata
    let end = o.bytes.len() as u64;
    let tim = Input::new(Path::new("t.tim"), &o.bytes);
    let mut b = TermBlock::default();
    b.load(&tim, 5).unwrap();
    assert_eq!((b.entries, b.last_in_floor, b.leaf), (3, true, false));
    assert_eq!(b.suffixes, b"abcdefg");
    assert_eq!(b.lengths, lengths.bytes);
    assert_eq!((b.stats.1, b.meta.1, b.fp_end), (2, 1, end));
}

proptest! {
    #[test]
    fn lowercase_ascii_round_trips(text in "[a-z0-9._-]{8,300}", noise in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4)) {
        let mut bytes = text.into_bytes();
        for (at, b) in noise {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        if let Some(packed) = compress_lowercase_ascii(&bytes) {
            let mut out = Vec::new();
            lowercase_ascii(&mut Input::new(Path::new("t.tim"), &packed), bytes.len(), &mut out).unwrap();
            prop_assert_eq!(out, bytes);
        }
    }

    #[test]
    fn any_block_bytes_are_an_error_or_a_block(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let tim = Input::new(Path::new("t.tim"), &bytes);
        let mut b = TermBlock::default();
        if b.load(&tim, 0).is_ok() {
            prop_assert!(b.fp_end as usize <= bytes.len());
        }
    }
}
