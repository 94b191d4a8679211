//! Little-endian bit packing: values of a fixed bit width written back to
//! back, least significant bit first, read back by bit position.

/// Number of bits needed for `v` (0 for 0).
pub fn width(v: u64) -> u8 {
    (64 - v.leading_zeros()) as u8
}

/// Appends values of given widths to a byte buffer.
#[derive(Debug, Default)]
pub struct BitWriter {
    bytes: Vec<u8>,
    bits: usize,
}

impl BitWriter {
    /// A writer appending after `prefix` (which ends at a byte boundary).
    pub fn after(prefix: Vec<u8>) -> Self {
        let bits = prefix.len() * 8;
        BitWriter {
            bytes: prefix,
            bits,
        }
    }

    /// Appends the low `width` bits of `v` (`width` ≤ 64).
    pub fn push(&mut self, v: u64, width: u8) {
        debug_assert!(width <= 64 && (width == 64 || v >> width == 0));
        let mut v = v;
        let mut remaining = usize::from(width);
        while remaining > 0 {
            if self.bits.is_multiple_of(8) {
                self.bytes.push(0);
            }
            let at = self.bits % 8;
            let take = remaining.min(8 - at);
            let last = self.bytes.last_mut().expect("a byte was pushed");
            *last |= ((v & ((1u64 << take) - 1)) as u8) << at;
            v = v.checked_shr(take as u32).unwrap_or(0);
            remaining -= take;
            self.bits += take;
        }
    }

    /// The bytes written so far (the last one zero-padded).
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// Reads the `width`-bit value (`width` ≤ 64) at bit `bit` of `bytes`; bits
/// past the end read as 0.
#[inline]
pub fn read(bytes: &[u8], bit: usize, width: u8) -> u64 {
    if width == 0 {
        return 0;
    }
    let start = bit / 8;
    let mut word = [0u8; 16];
    match bytes.get(start..start + 16) {
        Some(chunk) => word.copy_from_slice(chunk),
        None => {
            if let Some(rest) = bytes.get(start..) {
                word[..rest.len()].copy_from_slice(rest);
            }
        }
    }
    let v = u128::from_le_bytes(word) >> (bit % 8);
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    (v as u64) & mask
}

/// Reads values of one width in order, from a bit position on; bits past
/// the end read as 0.
pub struct Reader<'a> {
    bytes: &'a [u8],
    next: usize,
    buf: u128,
    have: u32,
    width: u8,
}

impl<'a> Reader<'a> {
    /// A reader of `width`-bit values (`width` ≤ 64) from the start of `bytes`.
    pub fn new(bytes: &'a [u8], width: u8) -> Self {
        Reader {
            bytes,
            next: 0,
            buf: 0,
            have: 0,
            width: width.min(64),
        }
    }

    /// The next value.
    #[inline]
    pub fn next_value(&mut self) -> u64 {
        let w = u32::from(self.width);
        if self.have < w {
            if let Some(chunk) = self.bytes.get(self.next..self.next + 8) {
                let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                self.buf |= u128::from(word) << self.have;
                self.next += 8;
                self.have += 64;
            } else {
                while self.have < w {
                    let byte = self.bytes.get(self.next).copied().unwrap_or(0);
                    self.buf |= u128::from(byte) << self.have;
                    self.next += 1;
                    self.have += 8;
                }
            }
        }
        let v = (self.buf as u64) & if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        self.buf >>= w;
        self.have -= w;
        v
    }
}

/// Bytes holding `count` values of `width` bits; `None` on overflow.
pub fn packed_len(count: usize, width: u8) -> Option<usize> {
    Some(count.checked_mul(usize::from(width))?.div_ceil(8))
}

/// `values` as one width byte (the widest value's) then the values packed at
/// that width.
pub fn pack_u32s(values: &[u32]) -> Vec<u8> {
    let w = width(u64::from(values.iter().copied().max().unwrap_or(0)));
    let mut out = BitWriter::after(vec![w]);
    for &v in values {
        out.push(u64::from(v), w);
    }
    out.finish()
}

/// Reads `count` values written by [`pack_u32s`]; `None` if the size or
/// width is inconsistent.
pub fn unpack_u32s(bytes: &[u8], count: usize) -> Option<Vec<u32>> {
    let (&w, packed) = bytes.split_first()?;
    if w > 32 || packed.len() != packed_len(count, w)? {
        return None;
    }
    let mut reader = Reader::new(packed, w);
    Some((0..count).map(|_| reader.next_value() as u32).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn packed_values_read_back(values in proptest::collection::vec((any::<u64>(), 0u8..=64), 0..300)) {
            let values: Vec<(u64, u8)> = values
                .into_iter()
                .map(|(v, w)| (if w == 64 { v } else { v & ((1u64 << w) - 1) }, w))
                .collect();
            let mut out = BitWriter::after(vec![0xAB]);
            for &(v, w) in &values {
                out.push(v, w);
            }
            let bytes = out.finish();
            prop_assert_eq!(bytes[0], 0xAB);
            let mut bit = 8;
            for &(v, w) in &values {
                prop_assert_eq!(read(&bytes, bit, w), v);
                bit += usize::from(w);
            }
            for w in [0u8, 1, 7, 13, 32, 57, 64] {
                let mut reader = Reader::new(&bytes, w);
                for i in 0..20 {
                    prop_assert_eq!(reader.next_value(), read(&bytes, i * usize::from(w), w));
                }
            }
            prop_assert_eq!(bytes.len(), bit.div_ceil(8));
        }

        #[test]
        fn u32s_round_trip(values in proptest::collection::vec(any::<u32>(), 0..300)) {
            let packed = pack_u32s(&values);
            prop_assert_eq!(unpack_u32s(&packed, values.len()), Some(values.clone()));
            if packed[0] > 0 {
                prop_assert_eq!(unpack_u32s(&packed, values.len() + 8), None);
            }
        }
    }

    #[test]
    fn small_values_take_few_bits() {
        assert_eq!(pack_u32s(&[0; 100]), vec![0]);
        assert_eq!(pack_u32s(&[1, 0, 1]).len(), 2);
        assert_eq!(unpack_u32s(&[40], 0), None);
        assert_eq!(read(&[0xff], 4, 64), 0x0f);
    }
}
