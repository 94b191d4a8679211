//! Document lengths, exact and as Lucene stores them.
//!
//! Lucene keeps each document's length in one byte (`SmallFloat.intToByte4`):
//! exact up to 23 tokens, then only the 4 most significant bits survive. BM25
//! in Lucene, and so in Pyserini, scores with the decoded, lossy length. We
//! store both: the exact `u32` for textbook BM25 and the byte for parity.

/// Values below this are stored verbatim; `255 - intToByte4(i32::MAX)`.
const NUM_FREE_VALUES: u32 = 24;

/// Lucene's `SmallFloat.longToInt4`: 4 significant bits, 1 implicit.
fn long_to_int4(i: u64) -> u32 {
    let num_bits = 64 - i.leading_zeros();
    if num_bits < 4 {
        i as u32
    } else {
        let shift = num_bits - 4;
        let mantissa = ((i >> shift) as u32) & 0x07;
        mantissa | ((shift + 1) << 3)
    }
}

/// Lucene's `SmallFloat.int4ToLong`.
fn int4_to_long(i: u32) -> u64 {
    let bits = u64::from(i & 0x07);
    match i >> 3 {
        0 => bits,
        exp => (bits | 0x08) << (exp - 1),
    }
}

/// Lucene's `SmallFloat.intToByte4`: the one-byte norm of a length.
pub fn length_to_norm(length: u32) -> u8 {
    // Lengths beyond i32::MAX cannot occur in Lucene; saturate like it would fail.
    let length = length.min(i32::MAX as u32);
    if length < NUM_FREE_VALUES {
        length as u8
    } else {
        (NUM_FREE_VALUES + long_to_int4(u64::from(length - NUM_FREE_VALUES))) as u8
    }
}

/// Lucene's `SmallFloat.byte4ToInt`: the length a norm byte stands for.
pub fn norm_to_length(norm: u8) -> u32 {
    let i = u32::from(norm);
    if i < NUM_FREE_VALUES {
        i
    } else {
        (u64::from(NUM_FREE_VALUES) + int4_to_long(i - NUM_FREE_VALUES)) as u32
    }
}

/// `norm_to_length` for all 256 norms (Lucene's `BM25Similarity.LENGTH_TABLE`).
pub fn length_table() -> [f32; 256] {
    std::array::from_fn(|i| norm_to_length(i as u8) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_below_24() {
        for len in 0..24 {
            assert_eq!(norm_to_length(length_to_norm(len)), len);
        }
    }

    #[test]
    fn known_lucene_values() {
        // Checked against Lucene's SmallFloat: 24 → 24, 25 → 25, 40 → 40,
        // 41 → 40 (coarser steps start), i32::MAX → byte 255.
        assert_eq!(norm_to_length(length_to_norm(24)), 24);
        assert_eq!(norm_to_length(length_to_norm(41)), 40);
        assert_eq!(length_to_norm(i32::MAX as u32), 255);
        assert_eq!(norm_to_length(255), 2_013_265_944);
    }

    #[test]
    fn monotone_and_never_above_the_length() {
        let mut last = 0u8;
        for len in 0..200_000u32 {
            let norm = length_to_norm(len);
            assert!(norm >= last);
            assert!(norm_to_length(norm) <= len);
            last = norm;
        }
        for norm in 0..=255u8 {
            assert_eq!(length_to_norm(norm_to_length(norm)), norm);
        }
    }
}
