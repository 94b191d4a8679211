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

/// Calls `emit` with each maximal run of word characters in `text`.
pub fn tokenize<'a>(text: &'a str, emit: &mut dyn FnMut(&'a str)) {
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (is_word_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                emit(&text[s..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        emit(&text[s..]);
    }
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

    fn words(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        tokenize(text, &mut |t| out.push(t));
        out
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
