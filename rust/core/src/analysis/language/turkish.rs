//! Turkish token filters: Lucene's `ApostropheFilter` and
//! `TurkishLowerCaseFilter`.

use unicode_general_category::{GeneralCategory, get_general_category};

use crate::analysis::filters::lucene_lowercase;

const COMBINING_DOT_ABOVE: char = '\u{307}';

/// `ApostropheFilter`: drops everything from the first apostrophe (U+0027
/// or U+2019) on, the suffix of a proper name (`Türkiye'de` → `Türkiye`).
pub fn strip_apostrophe(token: &str) -> &str {
    match token.find(['\'', '\u{2019}']) {
        Some(at) => &token[..at],
        None => token,
    }
}

fn is_nonspacing_mark(c: char) -> bool {
    get_general_category(c) == GeneralCategory::NonspacingMark
}

/// `TurkishLowerCaseFilter`: `I` becomes dotless `ı` unless a combining dot
/// above follows it (through other non-spacing marks), in which case it is
/// `i` and the dot goes; everything else is lowercased as Lucene's
/// `LowerCaseFilter` does (`İ` → `i`).
pub fn lowercase(token: &str) -> String {
    let chars: Vec<char> = token.chars().collect();
    let mut out = String::with_capacity(token.len());
    // Within an `I` and the non-spacing marks after it.
    let mut after_i = false;
    for (i, &c) in chars.iter().enumerate() {
        after_i = c == 'I' || (after_i && is_nonspacing_mark(c));
        if after_i {
            if c == COMBINING_DOT_ABOVE {
                continue;
            }
            if c == 'I' {
                let dot_follows = chars[i + 1..]
                    .iter()
                    .take_while(|&&m| m == COMBINING_DOT_ABOVE || is_nonspacing_mark(m))
                    .any(|&m| m == COMBINING_DOT_ABOVE);
                if dot_follows {
                    out.push('i');
                } else {
                    out.push('ı');
                    after_i = false;
                }
                continue;
            }
        }
        let mut buf = [0u8; 4];
        out.push_str(&lucene_lowercase(c.encode_utf8(&mut buf)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apostrophe_ends_the_token() {
        assert_eq!(strip_apostrophe("Türkiye'de"), "Türkiye");
        assert_eq!(strip_apostrophe("Ankara\u{2019}nın"), "Ankara");
        assert_eq!(strip_apostrophe("kitap"), "kitap");
    }

    #[test]
    fn dotted_and_dotless_i() {
        assert_eq!(lowercase("ISTANBUL"), "ıstanbul");
        assert_eq!(lowercase("İSTANBUL"), "istanbul");
        assert_eq!(lowercase("I\u{307}stanbul"), "istanbul");
        assert_eq!(lowercase("I\u{301}\u{307}x"), "i\u{301}x");
        assert_eq!(lowercase("I\u{301}x"), "ı\u{301}x");
        assert_eq!(lowercase("ÇAĞ"), "çağ");
    }
}
