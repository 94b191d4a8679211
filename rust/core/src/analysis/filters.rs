//! Token filters of the analysis chain: English possessive removal,
//! lowercasing and stopwords. Each works on one token at a time.

use std::borrow::Cow;

/// Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`: the 33 stopwords of
/// Lucene's (and so Anserini's and Pyserini's) default English analyzer.
pub const LUCENE_ENGLISH_STOPWORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// Lucene's `EnglishPossessiveFilter`: drops a trailing `'s` or `'S`, where
/// the apostrophe may be U+0027, U+2019 (right single quotation mark) or
/// U+FF07 (fullwidth apostrophe).
pub fn strip_possessive(token: &str) -> &str {
    let mut chars = token.chars().rev();
    match (chars.next(), chars.next()) {
        (Some('s' | 'S'), Some(apostrophe @ ('\'' | '\u{2019}' | '\u{FF07}'))) => {
            &token[..token.len() - 1 - apostrophe.len_utf8()]
        }
        _ => token,
    }
}

/// Lucene's `LowerCaseFilter`: per code point simple lowercase mapping
/// (`Character.toLowerCase`), so `Σ` is always `σ` and `İ` becomes `i`.
pub fn lucene_lowercase(token: &str) -> Cow<'_, str> {
    if token.is_ascii() {
        // ASCII maps to ASCII, byte for byte.
        return if token.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(token.to_ascii_lowercase())
        } else {
            Cow::Borrowed(token)
        };
    }
    let unchanged = token
        .chars()
        .all(|c| c.to_lowercase().eq(std::iter::once(c)));
    if unchanged {
        return Cow::Borrowed(token);
    }
    let mut out = String::with_capacity(token.len());
    for c in token.chars() {
        if c == '\u{130}' {
            // The one code point whose full lowercase mapping has two chars;
            // Java's simple mapping gives plain `i`.
            out.push('i');
        } else {
            out.extend(c.to_lowercase());
        }
    }
    Cow::Owned(out)
}

/// Python's `str.lower()`: full Unicode lowercasing, with the final-sigma
/// rule and `İ` → `i̇`.
pub fn python_lowercase(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        if text.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(text.to_ascii_lowercase())
        } else {
            Cow::Borrowed(text)
        }
    } else {
        Cow::Owned(text.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn possessives() {
        assert_eq!(strip_possessive("John's"), "John");
        assert_eq!(strip_possessive("JOHN'S"), "JOHN");
        assert_eq!(strip_possessive("John\u{2019}s"), "John");
        assert_eq!(strip_possessive("John\u{FF07}s"), "John");
        assert_eq!(strip_possessive("'s"), "");
        assert_eq!(strip_possessive("boss"), "boss");
        assert_eq!(strip_possessive("s"), "s");
        assert_eq!(strip_possessive("it's"), "it");
    }

    #[test]
    fn lowercasing() {
        assert_eq!(lucene_lowercase("ΟΔΟΣ"), "οδοσ");
        assert_eq!(python_lowercase("ΟΔΟΣ"), "οδος");
        assert_eq!(lucene_lowercase("İstanbul"), "istanbul");
        assert_eq!(python_lowercase("İstanbul"), "i\u{307}stanbul");
        assert!(matches!(lucene_lowercase("already"), Cow::Borrowed(_)));
        assert_eq!(python_lowercase("MiXeD"), "mixed");
    }
}
