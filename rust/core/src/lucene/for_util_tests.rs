use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::lucene::testing::Out;

/// Where bit `q` (0 = most significant) of value `n` lies in a block of
/// `bits` bits a value: (stored word, bit of that word). A direct reading
/// of the layout, one bit at a time, as the reference for `unpack`.
fn bit_position(n: usize, q: u32, bits: u32) -> (usize, u32) {
    let lane = if bits <= 8 {
        8
    } else if bits <= 16 {
        16
    } else {
        32
    };
    let words = 2 * bits as usize;
    let per_lane = 2 * lane as usize;
    let (j, k) = (n / per_lane, n % per_lane);
    let lane_low = 64 - lane * (j as u32 + 1);
    let whole = (lane / bits) as usize * words;
    if k < whole {
        let (g, i) = (k / words, k % words);
        let in_lane = lane - (g as u32 + 1) * bits + (bits - 1 - q);
        (i, lane_low + in_lane)
    } else {
        let rem = lane % bits;
        let s = (k - whole) as u32 * bits + q;
        let (t, o) = (s / rem, s % rem);
        (t as usize, lane_low + rem - 1 - o)
    }
}

fn pack_reference(values: &[u32; BLOCK_SIZE], bits: u32) -> Vec<u8> {
    let mut words = vec![0u64; 2 * bits as usize];
    for (n, &v) in values.iter().enumerate() {
        for q in 0..bits {
            if (v >> (bits - 1 - q)) & 1 == 1 {
                let (w, b) = bit_position(n, q, bits);
                words[w] |= 1 << b;
            }
        }
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn unpack_reference(bytes: &[u8], bits: u32) -> [u32; BLOCK_SIZE] {
    let words: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut out = [0u32; BLOCK_SIZE];
    for (n, v) in out.iter_mut().enumerate() {
        for q in 0..bits {
            let (w, b) = bit_position(n, q, bits);
            *v |= (((words[w] >> b) & 1) as u32) << (bits - 1 - q);
        }
    }
    out
}

#[test]
fn eight_bits_hand_computed() {
    // Eight bits fill a lane: word i holds values i, 16+i, ..., 112+i from
    // the top byte down, so its little-endian bytes run 112+i down to i.
    let mut bytes = vec![0u8; packed_len(8)];
    for i in 0..16 {
        for j in 0..8 {
            bytes[8 * i + (7 - j)] = (16 * j + i) as u8;
        }
    }
    let mut out = [0u32; BLOCK_SIZE];
    unpack(&bytes, 8, &mut out);
    let expected: Vec<u32> = (0..128).collect();
    assert_eq!(out.to_vec(), expected);
}

#[test]
fn one_bit_hand_computed() {
    // Value 0 is the top bit of the top byte of the first word.
    let mut bytes = vec![0u8; packed_len(1)];
    bytes[7] = 0x80;
    let mut out = [0u32; BLOCK_SIZE];
    unpack(&bytes, 1, &mut out);
    assert_eq!(out[0], 1);
    assert_eq!(out.iter().sum::<u32>(), 1);
    // Value 1 is the top bit of the second word; value 2 the next bit of the first.
    let mut bytes = vec![0u8; packed_len(1)];
    bytes[15] = 0x80;
    bytes[7] = 0x40;
    unpack(&bytes, 1, &mut out);
    assert_eq!((out[1], out[2], out.iter().sum::<u32>()), (1, 1, 2));
}

#[test]
fn pfor_all_equal_with_an_exception() {
    // Token: one exception, 0 bits; the common value 1 as a vLong; then
    // value 5 gets high bits 4 (shifted by 0 bits): 1 | 4 = 5.
    let mut out_bytes = Out::default();
    out_bytes.byte(1 << 5);
    out_bytes.vlong(1);
    out_bytes.raw(&[5, 4]);
    let path = Path::new("t.doc");
    let mut input = Input::new(path, &out_bytes.bytes);
    let mut out = [0u32; BLOCK_SIZE];
    read_pfor(&mut input, &mut out).unwrap();
    assert_eq!(out[5], 5);
    assert_eq!(out.iter().filter(|&&v| v == 1).count(), 127);
    assert_eq!(input.remaining(), 0);
    let mut input = Input::new(path, &out_bytes.bytes);
    skip_pfor(&mut input).unwrap();
    assert_eq!(input.remaining(), 0);
}

#[test]
fn pfor_patches_high_bits() {
    let mut values = [0u32; BLOCK_SIZE];
    for (i, v) in values.iter_mut().enumerate() {
        *v = (i % 4) as u32;
    }
    let mut o = Out::default();
    o.byte((2 << 5) | 2);
    o.raw(&pack_reference(&values, 2));
    o.raw(&[7, 0x11, 127, 1]);
    let path = Path::new("t.doc");
    let mut input = Input::new(path, &o.bytes);
    let mut out = [0u32; BLOCK_SIZE];
    read_pfor(&mut input, &mut out).unwrap();
    values[7] |= 0x11 << 2;
    values[127] |= 1 << 2;
    assert_eq!(out, values);
}

#[test]
fn for_delta_zero_means_all_ones_and_bad_width_is_corruption() {
    let path = Path::new("t.doc");
    let mut out = [0u32; BLOCK_SIZE];
    read_for_delta(&mut Input::new(path, &[0]), &mut out).unwrap();
    assert!(out.iter().all(|&v| v == 1));
    let err = read_for_delta(&mut Input::new(path, &[40; 700]), &mut out).unwrap_err();
    assert!(matches!(err, crate::Error::Corrupted { .. }), "{err}");
    let err = read_for_delta(&mut Input::new(path, &[5, 1, 2]), &mut out).unwrap_err();
    assert!(matches!(err, crate::Error::Corrupted { .. }), "{err}");
}

fn block(bits: u32) -> impl Strategy<Value = [u32; BLOCK_SIZE]> {
    let max = if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    prop::collection::vec(0..=max, BLOCK_SIZE).prop_map(|v| v.try_into().unwrap())
}

proptest! {
    #[test]
    fn round_trip_through_the_reference_packer(
        (bits, values) in (1u32..=32).prop_flat_map(|b| (Just(b), block(b)))
    ) {
        let bytes = pack_reference(&values, bits);
        prop_assert_eq!(bytes.len(), packed_len(bits));
        let mut out = [0u32; BLOCK_SIZE];
        unpack(&bytes, bits, &mut out);
        prop_assert_eq!(out, values);
    }

    #[test]
    fn unpack_agrees_with_the_reference_on_any_bytes(
        (bits, bytes) in (1u32..=32).prop_flat_map(|b| (Just(b), prop::collection::vec(any::<u8>(), packed_len(b))))
    ) {
        let mut out = [0u32; BLOCK_SIZE];
        unpack(&bytes, bits, &mut out);
        prop_assert_eq!(out, unpack_reference(&bytes, bits));
    }

    #[test]
    fn damaged_blocks_are_errors_not_panics(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let path = Path::new("t.doc");
        let mut out = [0u32; BLOCK_SIZE];
        let _ = read_pfor(&mut Input::new(path, &bytes), &mut out);
        let _ = skip_pfor(&mut Input::new(path, &bytes));
        let _ = read_for_delta(&mut Input::new(path, &bytes), &mut out);
    }
}
