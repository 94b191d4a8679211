//! Hindi: Lucene's `HindiNormalizer` (Pingali and Varma's spelling
//! normalization, with Larkey et al.'s additions) and `HindiStemmer`
//! (Ramanathan and Rao's light suffix stripper).

use super::utf16::{cut_suffix, delete_n, with_units};

/// The replacement of one unit, when it is simply replaced.
fn replacement(unit: u16) -> Option<u16> {
    Some(match unit {
        0x0901 => 0x0902, // candrabindu to anusvara
        0x0929 => 0x0928, // nukta forms to their base letter
        0x0931 => 0x0930,
        0x0934 => 0x0933,
        0x0958 => 0x0915,
        0x0959 => 0x0916,
        0x095A => 0x0917,
        0x095B => 0x091C,
        0x095C => 0x0921,
        0x095D => 0x0922,
        0x095E => 0x092B,
        0x095F => 0x092F,
        0x0945 | 0x0946 => 0x0947, // candra and short vowel signs
        0x0949 | 0x094A => 0x094B,
        0x090D | 0x090E => 0x090F, // candra and short vowels
        0x0911 | 0x0912 => 0x0913,
        0x0972 => 0x0905,
        0x0906 => 0x0905, // long vowels to short
        0x0908 => 0x0907,
        0x090A => 0x0909,
        0x0960 => 0x090B,
        0x0961 => 0x090C,
        0x0910 => 0x090F,
        0x0914 => 0x0913,
        0x0940 => 0x093F, // long vowel signs to short
        0x0942 => 0x0941,
        0x0944 => 0x0943,
        0x0963 => 0x0962,
        0x0948 => 0x0947,
        0x094C => 0x094B,
        _ => return None,
    })
}

/// `HindiNormalizer` over `s[..len]`; the new length.
pub fn normalize(s: &mut [u16], mut len: usize) -> usize {
    let mut i = 0;
    while i < len {
        match s[i] {
            // Dead n (na and virama) becomes anusvara.
            0x0928 if i + 1 < len && s[i + 1] == 0x094D => {
                s[i] = 0x0902;
                len = delete_n(s, i + 1, len, 1);
            }
            // Nukta, virama and the zero-width (non-)joiner go.
            0x093C | 0x094D | 0x200C | 0x200D => {
                len = delete_n(s, i, len, 1);
                continue;
            }
            unit => {
                if let Some(r) = replacement(unit) {
                    s[i] = r;
                }
            }
        }
        i += 1;
    }
    len
}

/// Suffixes by the number of units they remove, longest first; each group
/// applies only to terms longer than that number plus one.
const SUFFIXES: &[(usize, &[&str])] = &[
    (5, &["ाएंगी", "ाएंगे", "ाऊंगी", "ाऊंगा", "ाइयाँ", "ाइयों", "ाइयां"]),
    (
        4,
        &[
            "ाएगी",
            "ाएगा",
            "ाओगी",
            "ाओगे",
            "एंगी",
            "ेंगी",
            "एंगे",
            "ेंगे",
            "ूंगी",
            "ूंगा",
            "ातीं",
            "नाओं",
            "नाएं",
            "ताओं",
            "ताएं",
            "ियाँ",
            "ियों",
            "ियां",
        ],
    ),
    (
        3,
        &[
            "ाकर",
            "ाइए",
            "ाईं",
            "ाया",
            "ेगी",
            "ेगा",
            "ोगी",
            "ोगे",
            "ाने",
            "ाना",
            "ाते",
            "ाती",
            "ाता",
            "तीं",
            "ाओं",
            "ाएं",
            "ुओं",
            "ुएं",
            "ुआं",
        ],
    ),
    (
        2,
        &[
            "कर", "ाओ", "िए", "ाई", "ाए", "ने", "नी", "ना", "ते", "ीं", "ती", "ता", "ाँ", "ां", "ों", "ें",
        ],
    ),
    (1, &["ो", "े", "ू", "ु", "ी", "ि", "ा"]),
];

/// `HindiStemmer`: the longest group with a matching suffix is cut.
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
        assert_eq!(normalized("हिंदी"), "हिंदि");
        assert_eq!(normalized("क़"), "क");
        assert_eq!(normalized("न्ह"), "ंह");
        assert_eq!(normalized("आ"), "अ");
    }

    #[test]
    fn stems() {
        assert_eq!(stem("लडका"), "लडक");
        assert_eq!(stem("लडकों"), "लडक");
        assert_eq!(stem("जाएंगी"), "जा");
        assert_eq!(stem("का"), "का");
    }
}
