//! The `\w+` tokenizer of Python's `re` module on `str` patterns: a token is
//! a maximal run of characters that are letters (`L*`), numbers (`N*`) or
//! `_`, which is what `ch.isalnum() or ch == "_"` accepts. Combining marks
//! (`Mn`, `Mc`) are *not* word characters, exactly as in Python, so an
//! NFD-decomposed accent splits a token.

use unicode_general_category::{GeneralCategory as Gc, get_general_category};

/// Whether `c` matches Python's Unicode `\w`.
#[inline]
pub fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    matches!(
        get_general_category(c),
        Gc::UppercaseLetter
            | Gc::LowercaseLetter
            | Gc::TitlecaseLetter
            | Gc::ModifierLetter
            | Gc::OtherLetter
            | Gc::DecimalNumber
            | Gc::LetterNumber
            | Gc::OtherNumber
    )
}

/// The top bit of each byte of a `u64`.
const HIGH: u64 = 0x8080_8080_8080_8080;

/// `b` in every byte of a `u64`.
#[inline(always)]
const fn splat(b: u8) -> u64 {
    b as u64 * 0x0101_0101_0101_0101
}

/// Eight bytes of `bytes` from `i`, little-endian, zero-padded past the end
/// (NUL is not a word character).
#[inline(always)]
fn load8(bytes: &[u8], i: usize) -> u64 {
    match bytes.get(i..i + 8) {
        Some(word) => u64::from_le_bytes(word.try_into().expect("8 bytes")),
        None => {
            let mut buf = [0u8; 8];
            let tail = &bytes[i.min(bytes.len())..];
            buf[..tail.len()].copy_from_slice(tail);
            u64::from_le_bytes(buf)
        }
    }
}

/// Of eight bytes, the top bit of each one that is an ASCII word character
/// (`[0-9A-Za-z_]`), computed for all eight at once. Each byte's top bit is
/// cleared first, so the additions never carry into the next byte.
#[inline(always)]
fn ascii_word_bytes(x: u64) -> u64 {
    let y = x & !HIGH;
    // For 7-bit `v`: top bit of `v + (0x80 - lo)` is `v >= lo`, of
    // `v + (0x7f - hi)` is `v > hi`.
    #[inline(always)]
    fn within(v: u64, lo: u8, hi: u8) -> u64 {
        (v + splat(0x80 - lo)) & !(v + splat(0x7f - hi))
    }
    // `| 0x20` maps `A-Z` onto `a-z` and nothing else onto `a-z`.
    let letter = within(y | splat(0x20), b'a', b'z');
    (letter | within(y, b'0', b'9') | within(y, b'_', b'_')) & !x & HIGH
}

/// One bit per byte of the 64 bytes of `bytes` from `base` (bit `k` for
/// byte `base + k`; bytes past the end are 0): the ASCII word characters,
/// and the non-ASCII bytes. Eight bytes at a time in plain integers.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn block_masks_swar(bytes: &[u8], base: usize) -> (u64, u64) {
    // Gathers the top bit of each of eight bytes into bits 0..8.
    #[inline(always)]
    fn gather(high: u64) -> u64 {
        ((high >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
    }
    let (mut words, mut non_ascii) = (0, 0);
    for k in 0..8 {
        let x = load8(bytes, base + 8 * k);
        words |= gather(ascii_word_bytes(x)) << (8 * k);
        non_ascii |= gather(x & HIGH) << (8 * k);
    }
    (words, non_ascii)
}

/// [`block_masks_swar`], sixteen bytes at a time with SSE2 (part of every
/// x86-64 processor): a third of the instructions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn block_masks_sse2(bytes: &[u8], base: usize) -> (u64, u64) {
    use std::arch::x86_64::{
        _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    let splat = |b: u8| _mm_set1_epi8(b as i8);
    let (mut words, mut non_ascii) = (0, 0);
    for k in 0..4 {
        let at = base + 16 * k;
        let mut padded = [0u8; 16];
        let chunk: &[u8; 16] = match bytes.get(at..at + 16) {
            Some(chunk) => chunk.try_into().expect("16 bytes"),
            None => {
                let tail = &bytes[at.min(bytes.len())..];
                padded[..tail.len()].copy_from_slice(tail);
                &padded
            }
        };
        // SAFETY: `chunk` is 16 readable bytes, and an unaligned load needs
        // no more.
        #[allow(unsafe_code)]
        let x = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
        // Signed compares: non-ASCII bytes are negative and fall in no
        // range. `| 0x20` maps `A-Z` onto `a-z` and nothing else onto it.
        let within = |v, lo: u8, hi: u8| {
            _mm_and_si128(
                _mm_cmpgt_epi8(v, splat(lo - 1)),
                _mm_cmplt_epi8(v, splat(hi + 1)),
            )
        };
        let letter = within(_mm_or_si128(x, splat(0x20)), b'a', b'z');
        let digit = within(x, b'0', b'9');
        let underscore = _mm_cmpeq_epi8(x, splat(b'_'));
        let word = _mm_or_si128(_mm_or_si128(letter, digit), underscore);
        words |= u64::from(_mm_movemask_epi8(word) as u16) << (16 * k);
        non_ascii |= u64::from(_mm_movemask_epi8(x) as u16) << (16 * k);
    }
    (words, non_ascii)
}

/// The masks of [`block_masks_swar`], by the fastest means at hand.
#[inline(always)]
fn block_masks(bytes: &[u8], base: usize) -> (u64, u64) {
    // SAFETY: SSE2 is part of the x86-64 baseline: every such processor
    // has it.
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    return unsafe { block_masks_sse2(bytes, base) };
    #[cfg(not(target_arch = "x86_64"))]
    return block_masks_swar(bytes, base);
}

/// Calls `emit(start, end)` with the byte range of each maximal run of word
/// characters in `text`, in order. The text is classified 64 bytes at a
/// time into a bit mask (eight ASCII bytes at once; only non-ASCII
/// characters are decoded), and the runs are read off its bit changes.
#[inline]
pub fn for_each_span(text: &str, mut emit: impl FnMut(usize, usize)) {
    let bytes = text.as_bytes();
    let mut start = 0;
    // Whether the byte before the block is in a run.
    let mut in_run = false;
    // Whether the last non-ASCII character seen is a word character: its
    // continuation bytes, which may fall in the next block, are the same.
    let mut last_word = false;
    for base in (0..bytes.len()).step_by(64) {
        let (mut words, mut non_ascii) = block_masks(bytes, base);
        while non_ascii != 0 {
            let k = non_ascii.trailing_zeros() as usize;
            non_ascii &= non_ascii - 1;
            if text.is_char_boundary(base + k) {
                let c = text[base + k..].chars().next().expect("a char boundary");
                last_word = is_word_char(c);
            }
            words |= u64::from(last_word) << k;
        }
        let mut changes = words ^ ((words << 1) | u64::from(in_run));
        while changes != 0 {
            let at = base + changes.trailing_zeros() as usize;
            changes &= changes - 1;
            if in_run {
                emit(start, at);
            } else {
                start = at;
            }
            in_run = !in_run;
        }
        in_run = words >> 63 != 0;
    }
    if in_run {
        emit(start, bytes.len());
    }
}

/// Calls `emit` with each maximal run of word characters in `text`.
pub fn tokenize<'a>(text: &'a str, emit: &mut dyn FnMut(&'a str)) {
    for_each_span(text, |start, end| emit(&text[start..end]));
}

/// Whether Python's `str.split()` splits at `c`: Unicode White_Space plus the
/// four information separators U+001C..U+001F, which Python also counts.
#[inline]
fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Calls `emit` with each run of non-whitespace characters, splitting where
/// Python's `str.split()` does.
pub fn tokenize_whitespace<'a>(text: &'a str, emit: &mut dyn FnMut(&'a str)) {
    text.split(is_python_space)
        .filter(|t| !t.is_empty())
        .for_each(emit);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        tokenize(text, &mut |t| out.push(t));
        out
    }

    /// The definition, one decoded char at a time.
    fn words_by_char(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in text.char_indices() {
            match (is_word_char(c), start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    out.push(&text[s..i]);
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push(&text[s..]);
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn fast_path_equals_char_by_char(
            text in "[a-zA-Z0-9_ .,'\\-\u{0}\u{7f}\u{80}é\u{301}²½İΣς東\u{1F600}\u{2028}]{0,40}",
        ) {
            prop_assert_eq!(words(&text), words_by_char(&text));
        }

        /// Long ASCII runs with non-ASCII word and non-word characters at
        /// every offset of the eight-byte blocks.
        #[test]
        fn block_fast_path_equals_char_by_char_on_long_runs(
            text in "([a-zA-Z0-9_]{0,19}[ .\u{0}\u{7f}é\u{301}²İ東\u{2028}]{0,3}){0,8}",
        ) {
            prop_assert_eq!(words(&text), words_by_char(&text));
        }

        /// Both ways of classifying a block agree, on any bytes and at
        /// any distance from the end.
        #[test]
        fn block_masks_agree(bytes in proptest::collection::vec(any::<u8>(), 0..200), base in 0usize..200) {
            let base = base.min(bytes.len());
            let want = block_masks_swar(&bytes, base);
            prop_assert_eq!(block_masks(&bytes, base), want);
        }

        #[test]
        fn fast_path_equals_char_by_char_on_any_text(text in "\\PC{0,40}") {
            prop_assert_eq!(words(&text), words_by_char(&text));
        }
    }

    #[test]
    fn splits_like_python_re_w() {
        assert_eq!(
            words("don't stop-me now_2"),
            ["don", "t", "stop", "me", "now_2"]
        );
        assert_eq!(
            words("café naïve 東京タワー"),
            ["café", "naïve", "東京タワー"]
        );
        // NFD "é" = "e" + U+0301 (Mn): the mark is not a word character.
        assert_eq!(words("cafe\u{301}"), ["cafe"]);
        assert_eq!(words("x²+½"), ["x²", "½"]);
        assert_eq!(words(""), Vec::<&str>::new());
        assert_eq!(words("  ... "), Vec::<&str>::new());
    }

    #[test]
    fn whitespace_splits_like_python_str_split() {
        let mut out = Vec::new();
        tokenize_whitespace(" a\u{1c}b\u{a0}c\td ", &mut |t| out.push(t));
        assert_eq!(out, ["a", "b", "c", "d"]);
    }
}
