//! Bengali: Lucene's `BengaliNormalizer` (after UzZaman and Khan's Double
//! Metaphone for Bangla) and `BengaliStemmer` (Sengupta and Chaudhuri's verb
//! suffixes with Savoy's light rules).

use super::utf16::{cut_suffix, delete_n, with_units};

const VIRAMA: u16 = 0x09CD;

/// `BengaliNormalizer` over `s[..len]`; the new length. Each position is
/// looked at once, except where a deletion steps back (as in Lucene).
pub fn normalize(s: &mut [u16], mut len: usize) -> usize {
    let mut i: isize = 0;
    while (i as usize) < len {
        let at = i as usize;
        match s[at] {
            // Chandrabindu goes.
            0x0981 => {
                len = delete_n(s, at, len, 1);
                i -= 1;
            }
            // Long i and u signs to short.
            0x09C0 => s[at] = 0x09BF,
            0x09C2 => s[at] = 0x09C1,
            // Ka, virama, i sign: khio.
            0x0995 if at + 2 < len && s[at + 1] == VIRAMA && s[at + 2] == 0x09BF => {
                if at == 0 {
                    s[at] = 0x0996;
                    len = delete_n(s, at + 1, len, 2);
                } else {
                    s[at + 1] = 0x0996;
                    len = delete_n(s, at + 2, len, 1);
                }
            }
            // Nga to anusvara.
            0x0999 => s[at] = 0x0982,
            // Ya phala.
            0x09AF if at == 2 && s[1] == VIRAMA => {
                s[1] = 0x09C7;
                if at + 1 < len && s[at + 1] == 0x09BE {
                    len = delete_n(s, at + 1, len, 1);
                }
                len = delete_n(s, at, len, 1);
                i -= 1;
            }
            0x09AF if at >= 1 && s[at - 1] == VIRAMA => {
                len = delete_n(s, at - 1, len, 2);
                i -= 2;
            }
            // Ba phala.
            0x09AC if at >= 1 && s[at - 1] == VIRAMA => {
                if at == 2 || (at >= 5 && s[at - 3] == VIRAMA) {
                    len = delete_n(s, at - 1, len, 2);
                    i -= 2;
                } else if at >= 2 {
                    s[at - 1] = s[at - 2];
                    len = delete_n(s, at, len, 1);
                    i -= 1;
                }
            }
            // Visarga: ha in a short word's last place, gone in a longer
            // one's, else a copy of the next unit.
            0x0983 if at + 1 == len => {
                if len <= 3 {
                    s[at] = 0x09B9;
                } else {
                    len = delete_n(s, at, len, 1);
                }
            }
            0x0983 => s[at] = s[at + 1],
            // Sibilants to sa, nna to na, rra and rha to ra, khanda ta to ta.
            0x09B6 | 0x09B7 => s[at] = 0x09B8,
            0x09A3 => s[at] = 0x09A8,
            0x09DC | 0x09DD => s[at] = 0x09B0,
            0x09CE => s[at] = 0x09A4,
            _ => {}
        }
        i += 1;
    }
    len
}

/// Suffixes by the number of units they remove (`য়` precomposed, as the
/// Indic normalization leaves it).
const SUFFIXES: &[(usize, &[&str])] = &[
    (
        8,
        &[
            "িয়াছিলাম",
            "িতেছিলাম",
            "িতেছিলেন",
            "ইতেছিলেন",
            "িয়াছিলেন",
            "ইয়াছিলেন",
        ],
    ),
    (
        7,
        &[
            "িতেছিলি",
            "িতেছিলে",
            "িয়াছিলা",
            "িয়াছিলে",
            "িতেছিলা",
            "িয়াছিলি",
            "য়েদেরকে",
        ],
    ),
    (
        6,
        &[
            "িতেছিস",
            "িতেছেন",
            "িয়াছিস",
            "িয়াছেন",
            "েছিলাম",
            "েছিলেন",
            "েদেরকে",
        ],
    ),
    (
        5,
        &[
            "িতেছি",
            "িতেছা",
            "িতেছে",
            "ছিলাম",
            "ছিলেন",
            "িয়াছি",
            "িয়াছা",
            "িয়াছে",
            "েছিলে",
            "েছিলা",
            "য়েদের",
            "দেরকে",
        ],
    ),
    (
        4,
        &[
            "িলাম",
            "িলেন",
            "িতাম",
            "িতেন",
            "িবেন",
            "ছিলি",
            "ছিলে",
            "ছিলা",
            "তেছে",
            "িতেছ",
            "খানা",
            "খানি",
            "গুলো",
            "গুলি",
            "য়েরা",
            "েদের",
        ],
    ),
    (
        3,
        &[
            "লাম",
            "িলি",
            "ইলি",
            "িলে",
            "ইলে",
            "লেন",
            "িলা",
            "ইলা",
            "তাম",
            "িতি",
            "ইতি",
            "িতে",
            "ইতে",
            "তেন",
            "িতা",
            "িবা",
            "ইবা",
            "িবি",
            "ইবি",
            "বেন",
            "িবে",
            "ইবে",
            "ছেন",
            "য়োন",
            "য়ের",
            "েরা",
            "দের",
        ],
    ),
    (
        2,
        &[
            "িস", "েন", "লি", "লে", "লা", "তি", "তে", "তা", "বি", "বে", "বা", "ছি", "ছা", "ছে", "ুন",
            "ুক", "টা", "টি", "নি", "ের", "তে", "রা", "কে",
        ],
    ),
    (1, &["ি", "ী", "া", "ো", "ে", "ব", "ত"]),
];

/// `BengaliStemmer`.
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
        assert_eq!(normalized("বাড়ী"), "বাড়ি");
        assert_eq!(normalized("শাষণ"), "সাসন");
        assert_eq!(normalized("দুঃখ"), "দুখখ");
        assert_eq!(normalized("চাঁদ"), "চাদ");
    }

    #[test]
    fn stems() {
        assert_eq!(stem("কিতাবগুলি"), "কিতাব");
        assert_eq!(
            stem("\u{9ac}\u{9be}\u{9a1}\u{9bc}\u{9bf}\u{9a4}\u{9c7}"),
            "\u{9ac}\u{9be}\u{9a1}\u{9bc}"
        );
        assert_eq!(stem("কে"), "কে");
    }
}
