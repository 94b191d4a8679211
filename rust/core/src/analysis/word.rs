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

/// Whether each ASCII byte is a word character (`[A-Za-z0-9_]`).
const ASCII_WORD: [bool; 128] = {
    let mut table = [false; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// Whether the character starting at byte `i` of `text` is a word character,
/// and its length in bytes. ASCII bytes are classified by table; only other
/// characters are decoded.
#[inline(always)]
fn word_char_at(text: &str, i: usize) -> (bool, usize) {
    let b = text.as_bytes()[i];
    if b < 0x80 {
        return (ASCII_WORD[b as usize], 1);
    }
    let c = text[i..].chars().next().expect("i is a char boundary");
    (is_word_char(c), c.len_utf8())
}

/// Calls `emit(start, end)` with the byte range of each maximal run of word
/// characters in `text`, in order.
#[inline]
pub fn for_each_span(text: &str, mut emit: impl FnMut(usize, usize)) {
    let n = text.len();
    let mut i = 0;
    while i < n {
        let (word, len) = word_char_at(text, i);
        if !word {
            i += len;
            continue;
        }
        let start = i;
        i += len;
        while i < n {
            let (word, len) = word_char_at(text, i);
            if !word {
                break;
            }
            i += len;
        }
        emit(start, i);
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
        fn table_fast_path_equals_char_by_char(
            text in "[a-zA-Z0-9_ .,'\\-\u{0}\u{7f}\u{80}é\u{301}²½İΣς東\u{1F600}\u{2028}]{0,40}",
        ) {
            prop_assert_eq!(words(&text), words_by_char(&text));
        }

        #[test]
        fn table_fast_path_equals_char_by_char_on_any_text(text in "\\PC{0,40}") {
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
