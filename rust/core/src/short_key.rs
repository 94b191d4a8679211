//! Strings of up to 16 bytes (nearly all words and terms) as two integers,
//! and their hash: a table of them hashes and compares keys without
//! reading any string (the token cache of indexing, the lexicon of a
//! segment).

/// A string of up to 16 bytes, zero-padded: unambiguous among strings
/// without NUL bytes (or with their lengths compared too).
pub(crate) type ShortKey = [u64; 2];

/// Per length `n`: the mask keeping a 16-byte window's first `n` bytes (a
/// table read is cheaper than a 128-bit shift).
const KEEP: [u128; 17] = {
    let mut keep = [0u128; 17];
    let mut n = 1;
    while n <= 16 {
        keep[n] = u128::MAX >> (8 * (16 - n));
        n += 1;
    }
    keep
};

/// `text[start..end]` as a [`ShortKey`], if at most 16 bytes long.
#[inline(always)]
pub(crate) fn short_key(text: &[u8], start: usize, end: usize) -> Option<ShortKey> {
    let len = end - start;
    if len > 16 {
        return None;
    }
    let word = match text.get(start..start + 16) {
        // One unaligned 16-byte load, the bytes past the token masked off.
        Some(window) => u128::from_le_bytes(window.try_into().expect("16 bytes")) & KEEP[len],
        None => {
            let mut buf = [0u8; 16];
            buf[..len].copy_from_slice(&text[start..end]);
            u128::from_le_bytes(buf)
        }
    };
    Some([word as u64, (word >> 64) as u64])
}

/// A folded 64×64→128-bit multiply: every key bit reaches both the low
/// (bucket) and high (tag) bits of the hash.
#[inline(always)]
pub(crate) fn short_hash(key: ShortKey) -> u64 {
    let product =
        u128::from(key[0] ^ 0x243f_6a88_85a3_08d3) * u128::from(key[1] ^ 0x1319_8a2e_0370_7344);
    (product as u64) ^ ((product >> 64) as u64)
}
