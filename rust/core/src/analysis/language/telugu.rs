//! Telugu: Lucene's `TeluguNormalizer` (spelling variants) and
//! `TeluguStemmer` (a light suffix stripper).

use super::utf16::{cut_suffix, delete_n, with_units};

/// `TeluguNormalizer` over `s[..len]`; the new length.
pub fn normalize(s: &mut [u16], mut len: usize) -> usize {
    let mut i = 0;
    while i < len {
        let next = s.get(i + 1).copied().filter(|_| i + 1 < len);
        match s[i] {
            // Candrabindu to anusvara.
            0x0C00 | 0x0C01 => s[i] = 0x0C02,
            // Visarga and the zero-width (non-)joiner go.
            0x0C03 | 0x200C | 0x200D => {
                len = delete_n(s, i, len, 1);
                continue;
            }
            // Long vowels and vowel signs to short.
            0x0C14 => s[i] = 0x0C13,
            0x0C10 => s[i] = 0x0C0F,
            0x0C06 => s[i] = 0x0C05,
            0x0C08 => s[i] = 0x0C07,
            0x0C0A => s[i] = 0x0C09,
            0x0C40 => s[i] = 0x0C3F,
            0x0C42 => s[i] = 0x0C41,
            0x0C47 => s[i] = 0x0C46,
            0x0C4B => s[i] = 0x0C4A,
            // Decomposed ai sign, oo and au to their precomposed forms.
            0x0C46 if next == Some(0x0C56) => {
                s[i] = 0x0C48;
                len = delete_n(s, i + 1, len, 1);
            }
            0x0C12 if next == Some(0x0C55) => {
                s[i] = 0x0C13;
                len = delete_n(s, i + 1, len, 1);
            }
            0x0C12 if next == Some(0x0C4C) => {
                s[i] = 0x0C14;
                len = delete_n(s, i + 1, len, 1);
            }
            _ => {}
        }
        i += 1;
    }
    len
}

/// Suffixes by the number of units they remove.
const SUFFIXES: &[(usize, &[&str])] = &[
    (4, &["ళ్ళు", "డ్లు"]),
    (
        2,
        &[
            "డు", "ము", "వు", "లు", "ని", "ను", "చే", "కై", "లో", "ది", "కి", "సు", "వై", "పై",
        ],
    ),
    (1, &["ి", "ీ", "ు", "ూ", "ె", "ే", "ొ", "ో", "ా"]),
];

/// `TeluguStemmer`.
pub fn stem(term: &str) -> String {
    with_units(term, |s, len| cut_suffix(s, len, SUFFIXES))
}

/// Normalization, as a string function.
pub fn normalized(term: &str) -> String {
    with_units(term, normalize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization() {
        assert_eq!(normalized("ఆట"), "అట");
        assert_eq!(normalized("దుఃఖం"), "దుఖం");
        assert_eq!(normalized("\u{C12}\u{C55}"), "\u{C13}");
    }

    #[test]
    fn stems() {
        assert_eq!(stem("పిల్లలు"), "పిల్ల");
        assert_eq!(stem("రాముడు"), "రాము");
        assert_eq!(stem("ఆట"), "ఆట");
    }
}
