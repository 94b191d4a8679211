//! A memo of the terms of each distinct token of a corpus, so that an
//! indexer analyzes each token once and then pays one hash lookup per
//! occurrence. Tokens of up to 16 bytes (nearly all words) are kept inline
//! as two integers: a lookup hashes and compares those, reading no string;
//! a token with a single term (most) keeps that term inline too, so a
//! lookup reads one table entry and nothing else.

use hashbrown::HashTable;

use crate::segment::{Interner, term_hash};
use crate::short_key::{ShortKey, short_hash, short_key};

#[derive(Clone, Copy)]
struct Short {
    key: ShortKey,
    terms: Terms,
}

/// Where a token's terms are.
#[derive(Clone, Copy)]
struct Terms {
    /// The single term (if `len == 1`), else where they start in `terms`.
    first: u32,
    len: u32,
}

/// Terms (as ids) of each distinct token seen so far.
#[derive(Default)]
pub(crate) struct TokenCache {
    short: HashTable<Short>,
    long: Interner,
    /// Per long token id: its terms.
    long_terms: Vec<Terms>,
    /// The terms of tokens with several (or no) terms.
    terms: Vec<u32>,
}

impl TokenCache {
    /// Pushes the terms of the token `text[start..end]` (which holds no NUL
    /// byte) onto `out`. The first time a token is seen, `analyze(token,
    /// terms)` pushes its terms onto `terms`; they must depend on the token
    /// alone.
    #[inline]
    pub(crate) fn push_terms(
        &mut self,
        text: &str,
        start: usize,
        end: usize,
        analyze: impl FnOnce(&str, &mut Vec<u32>),
        out: &mut Vec<u32>,
    ) {
        let token = &text.as_bytes()[start..end];
        debug_assert!(!token.contains(&0), "a cached token holds no NUL byte");
        let TokenCache {
            short,
            long,
            long_terms,
            terms,
        } = self;
        let found = match short_key(text.as_bytes(), start, end) {
            Some(key) => {
                let hash = short_hash(key);
                // Nearly every token was seen before: a plain find first.
                match short.find(hash, |s| s.key == key) {
                    Some(found) => found.terms,
                    None => {
                        let found = Self::analyze(terms, &text[start..end], analyze);
                        short.insert_unique(hash, Short { key, terms: found }, |s| {
                            short_hash(s.key)
                        });
                        found
                    }
                }
            }
            None => {
                let token = &text[start..end];
                let (id, new) = long.intern(token, term_hash(token));
                if new {
                    long_terms.push(Self::analyze(terms, token, analyze));
                }
                long_terms[id as usize]
            }
        };
        // Most tokens have one term: pushed, not copied as a slice.
        if found.len == 1 {
            out.push(found.first);
        } else {
            out.extend_from_slice(&terms[found.first as usize..(found.first + found.len) as usize]);
        }
    }

    /// Runs `analyze` on a new token: a single term is kept inline, others
    /// are appended to `terms`.
    fn analyze(
        terms: &mut Vec<u32>,
        token: &str,
        analyze: impl FnOnce(&str, &mut Vec<u32>),
    ) -> Terms {
        let from = terms.len();
        analyze(token, terms);
        // More than 4G term ids of distinct tokens cannot fit in memory
        // anyway; fail loudly rather than wrap.
        let to_u32 = |n: usize| u32::try_from(n).expect("fewer than 2^32 cached terms");
        let len = to_u32(terms.len() - from);
        if len == 1 {
            let first = terms.pop().expect("one term");
            Terms { first, len }
        } else {
            Terms {
                first: to_u32(from),
                len,
            }
        }
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
            let mut single = TokenCache::default();
            let mut start = 0;
            for token in &tokens {
                let end = start + token.len();
                // A token's "terms": its bytes, which tell it apart.
                let mut got = vec![7];
                cache.push_terms(&text, start, end, |t, out| out.extend(t.bytes().map(u32::from)), &mut got);
                prop_assert_eq!(got.remove(0), 7);
                let want: Vec<u32> = token.bytes().map(u32::from).collect();
                prop_assert_eq!(got, want);
                // A token's only "term": its length, kept inline.
                let mut got = Vec::new();
                single.push_terms(&text, start, end, |t, out| out.push(t.len() as u32), &mut got);
                prop_assert_eq!(got, vec![token.len() as u32]);
                start = end + 1;
            }
        }
    }
}
