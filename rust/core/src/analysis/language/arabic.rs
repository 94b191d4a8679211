//! Arabic: Lucene's `ArabicNormalizer` and `ArabicStemmer` (Larkey, Ballesteros
//! and Connell's light stemmer: one article prefix, then suffixes).

use super::utf16::{delete_n, with_units};

/// `ArabicNormalizer`: alef forms to bare alef, alef maksura to yeh, teh
/// marbuta to heh; tatweel and the harakat go.
pub fn normalize(term: &str) -> String {
    term.chars()
        .filter_map(|c| match c {
            '\u{622}' | '\u{623}' | '\u{625}' => Some('\u{627}'),
            '\u{649}' => Some('\u{64A}'),
            '\u{629}' => Some('\u{647}'),
            '\u{640}' | '\u{64B}'..='\u{652}' => None,
            _ => Some(c),
        })
        .collect()
}

/// Article and conjunction prefixes, tried in order; the first that fits goes.
const PREFIXES: [&str; 7] = ["ال", "وال", "بال", "كال", "فال", "لل", "و"];
/// Suffixes, each removed in turn when it fits.
const SUFFIXES: [&str; 10] = ["ها", "ان", "ات", "ون", "ين", "يه", "ية", "ه", "ة", "ي"];

/// `ArabicStemmer`: a prefix leaving at least two characters (three for
/// `و`), then every suffix that leaves at least two.
pub fn stem(term: &str) -> String {
    with_units(term, |s, mut len| {
        for prefix in PREFIXES {
            let p: Vec<u16> = prefix.encode_utf16().collect();
            let long_enough = if p.len() == 1 {
                len >= 4
            } else {
                len >= p.len() + 2
            };
            if long_enough && s[..p.len()] == p[..] {
                len = delete_n(s, 0, len, p.len());
                break;
            }
        }
        for suffix in SUFFIXES {
            let x: Vec<u16> = suffix.encode_utf16().collect();
            if len >= x.len() + 2 && s[len - x.len()..len] == x[..] {
                len -= x.len();
            }
        }
        len
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization() {
        assert_eq!(normalize("أحمد"), "احمد");
        assert_eq!(normalize("مكتبة"), "مكتبه");
        assert_eq!(normalize("كتـــاب"), "كتاب");
        assert_eq!(normalize("كَتَبَ"), "كتب");
    }

    #[test]
    fn stems() {
        assert_eq!(stem("الكتاب"), "كتاب");
        assert_eq!(stem("والكتاب"), "كتاب");
        assert_eq!(stem("وكتب"), "كتب");
        assert_eq!(stem("وله"), "ول");
        assert_eq!(stem("كتابها"), "كتاب");
        assert_eq!(stem("معلمون"), "معلم");
    }
}
