use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::lucene::testing::Out;

/// Writes `values` as `StoredFieldsInts` does (for `values.len() > 1`).
fn write_ints(values: &[u32]) -> Vec<u8> {
    let mut out = Out::default();
    let max = values.iter().fold(0, |a, &v| a | v);
    if values.iter().all(|&v| v == values[0]) {
        out.byte(0);
        out.vint(values[0]);
        return out.bytes;
    }
    let bits: usize = if max <= 0xff {
        8
    } else if max <= 0xffff {
        16
    } else {
        32
    };
    out.byte(bits as u8);
    let per_long = 64 / bits;
    let longs = 128 / per_long;
    let mut k = 0;
    while k + 128 <= values.len() {
        for i in 0..longs {
            let mut l = 0u64;
            for j in 0..per_long {
                l |= u64::from(values[k + i + j * longs]) << (64 - (j + 1) * bits);
            }
            out.long(l);
        }
        k += 128;
    }
    for &v in &values[k..] {
        match bits {
            8 => out.byte(v as u8),
            16 => out.raw(&(v as u16).to_le_bytes()),
            _ => out.int(v),
        }
    }
    out.bytes
}

proptest! {
    #[test]
    fn ints_round_trip(values in proptest::collection::vec(prop_oneof![0u32..200, 0u32..60000, any::<u32>()], 2..400)) {
        let bytes = write_ints(&values);
        let mut input = Input::new(Path::new("_0.fdt"), &bytes);
        let mut out = Vec::new();
        read_ints(&mut input, values.len() as u32, &mut out).unwrap();
        prop_assert_eq!(out, values);
        prop_assert_eq!(input.remaining(), 0);
    }

    #[test]
    fn damaged_ints_and_fields_are_errors(bytes in proptest::collection::vec(any::<u8>(), 0..300), count in 1u32..300) {
        let mut input = Input::new(Path::new("_0.fdt"), &bytes);
        let mut out = Vec::new();
        let _ = read_ints(&mut input, count, &mut out);
        let mut input = Input::new(Path::new("_0.fdt"), &bytes);
        while read_field(&mut input, &mut |_, _| Ok(())).is_ok() && input.remaining() > 0 {}
    }
}
