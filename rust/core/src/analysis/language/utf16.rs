//! Terms as Lucene's stemmers see them: UTF-16 code units with a length, so
//! that "longer than five" counts what Java counts.

use unicode_general_category::{GeneralCategory as G, get_general_category};

/// Runs `stem` over the UTF-16 units of `term` and returns the kept prefix.
pub fn with_units(term: &str, stem: impl FnOnce(&mut [u16], usize) -> usize) -> String {
    let mut units: Vec<u16> = term.encode_utf16().collect();
    let len = units.len();
    let len = stem(&mut units, len);
    String::from_utf16_lossy(&units[..len])
}

/// Whether `s[..len]` ends with `suffix` (`StemmerUtil.endsWith`).
pub fn ends_with(s: &[u16], len: usize, suffix: &str) -> bool {
    let suffix: Vec<u16> = suffix.encode_utf16().collect();
    len >= suffix.len() && s[len - suffix.len()..len] == suffix[..]
}

/// Whether `s[..len]` starts with `prefix` (`StemmerUtil.startsWith`).
pub fn starts_with(s: &[u16], len: usize, prefix: &str) -> bool {
    let prefix: Vec<u16> = prefix.encode_utf16().collect();
    len >= prefix.len() && s[..prefix.len()] == prefix[..]
}

/// Deletes `n` units at `pos` of `s[..len]`; the new length
/// (`StemmerUtil.deleteN`).
pub fn delete_n(s: &mut [u16], pos: usize, len: usize, n: usize) -> usize {
    s.copy_within(pos + n..len, pos);
    len - n
}

/// The light stemmers of Indic languages: the first group `(n, suffixes)`
/// whose term is longer than `n + 1` units and ends with one of its
/// suffixes loses `n` units (`n`, not the suffix's length, as in Lucene).
pub fn cut_suffix(s: &[u16], len: usize, groups: &[(usize, &[&str])]) -> usize {
    for &(n, suffixes) in groups {
        if len > n + 1 && suffixes.iter().any(|x| ends_with(s, len, x)) {
            return len - n;
        }
    }
    len
}

/// Java's `Character.isLetter(char)`: a BMP letter (surrogates are not).
pub fn is_letter(unit: u16) -> bool {
    char::from_u32(u32::from(unit)).is_some_and(|c| {
        matches!(
            get_general_category(c),
            G::UppercaseLetter
                | G::LowercaseLetter
                | G::TitlecaseLetter
                | G::ModifierLetter
                | G::OtherLetter
        )
    })
}

/// The UTF-16 unit of a BMP character.
pub const fn unit(c: char) -> u16 {
    c as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        let s: Vec<u16> = "abcdé".encode_utf16().collect();
        assert!(ends_with(&s, 5, "dé") && ends_with(&s, 3, "bc") && !ends_with(&s, 1, "ab"));
        assert!(starts_with(&s, 5, "ab") && !starts_with(&s, 1, "ab"));
        let mut t = s.clone();
        assert_eq!(delete_n(&mut t, 1, 5, 2), 3);
        assert_eq!(String::from_utf16_lossy(&t[..3]), "adé");
        assert!(is_letter(unit('é')) && !is_letter(unit('1')) && !is_letter(0xD800));
        assert_eq!(with_units("x😀yz", |_, len| len - 1), "x😀y");
    }
}
