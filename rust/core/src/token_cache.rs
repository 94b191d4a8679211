//! A memo of the terms of each distinct token of a corpus, so that an
//! indexer analyzes each token once and then pays one hash lookup per
//! occurrence. Tokens of up to 16 bytes (nearly all words) are kept inline
//! as two integers: a lookup hashes and compares those, reading no string.

use hashbrown::HashTable;

use crate::segment::{Interner, term_hash};

/// A token of up to 16 bytes, zero-padded: unambiguous for tokens without
/// NUL bytes, as `\w+` tokens are.
type ShortKey = [u64; 2];

#[derive(Clone, Copy)]
struct Short {
    key: ShortKey,
    /// `terms[from..to]` are the token's terms.
    from: u32,
    to: u32,
}

/// Terms (as ids) of each distinct token seen so far.
#[derive(Default)]
pub(crate) struct TokenCache {
    short: HashTable<Short>,
    long: Interner,
    /// Per long token id: its range in `terms`.
    long_ranges: Vec<(u32, u32)>,
    terms: Vec<u32>,
}

/// `text[start..end]` as a [`ShortKey`], if at most 16 bytes long.
#[inline(always)]
fn short_key(text: &[u8], start: usize, end: usize) -> Option<ShortKey> {
    let len = end - start;
    if len > 16 {
        return None;
    }
    let word = match text.get(start..start + 16) {
        // One unaligned 16-byte load, the bytes past the token masked off.
        Some(window) => {
            let word = u128::from_le_bytes(window.try_into().expect("16 bytes"));
            word & u128::MAX.checked_shr(8 * (16 - len) as u32).unwrap_or(0)
        }
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
fn short_hash(key: ShortKey) -> u64 {
    let product =
        u128::from(key[0] ^ 0x243f_6a88_85a3_08d3) * u128::from(key[1] ^ 0x1319_8a2e_0370_7344);
    (product as u64) ^ ((product >> 64) as u64)
}

impl TokenCache {
    /// The terms of the token `text[start..end]` (which holds no NUL byte).
    /// The first time a token is seen, `analyze(token, out)` pushes its
    /// terms onto `out`; they must depend on the token alone.
    #[inline]
    pub(crate) fn terms(
        &mut self,
        text: &str,
        start: usize,
        end: usize,
        analyze: impl FnOnce(&str, &mut Vec<u32>),
    ) -> &[u32] {
        let token = &text.as_bytes()[start..end];
        debug_assert!(!token.contains(&0), "a cached token holds no NUL byte");
        let (from, to) = match short_key(text.as_bytes(), start, end) {
            Some(key) => {
                let hash = short_hash(key);
                match self.short.find(hash, |s| s.key == key) {
                    Some(s) => (s.from, s.to),
                    None => {
                        let range = self.analyze(&text[start..end], analyze);
                        let entry = Short {
                            key,
                            from: range.0,
                            to: range.1,
                        };
                        self.short.insert_unique(hash, entry, |s| short_hash(s.key));
                        range
                    }
                }
            }
            None => {
                let token = &text[start..end];
                let (id, new) = self.long.intern(token, term_hash(token));
                if new {
                    let range = self.analyze(token, analyze);
                    self.long_ranges.push(range);
                }
                self.long_ranges[id as usize]
            }
        };
        &self.terms[from as usize..to as usize]
    }

    fn analyze(&mut self, token: &str, analyze: impl FnOnce(&str, &mut Vec<u32>)) -> (u32, u32) {
        let from = self.terms.len();
        analyze(token, &mut self.terms);
        let range = (from, self.terms.len());
        // More than 4G term ids of distinct tokens cannot fit in memory
        // anyway; fail loudly rather than wrap.
        let to_u32 = |n: usize| u32::try_from(n).expect("fewer than 2^32 cached terms");
        (to_u32(range.0), to_u32(range.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Each token's cached terms are those computed for it alone, for
        /// short, 16-byte and long tokens, at the end of the text or not
        /// (`é` makes some lengths odd).
        #[test]
        fn cached_terms_are_the_tokens_own(
            tokens in proptest::collection::vec("[a-cé]{1,20}", 0..60),
        ) {
            let text = tokens.join(" ");
            let mut cache = TokenCache::default();
            let mut start = 0;
            for token in &tokens {
                let end = start + token.len();
                // A token's "terms": its bytes, which tell it apart.
                let got = cache
                    .terms(&text, start, end, |t, out| out.extend(t.bytes().map(u32::from)))
                    .to_vec();
                let want: Vec<u32> = token.bytes().map(u32::from).collect();
                prop_assert_eq!(got, want);
                start = end + 1;
            }
        }
    }
}
