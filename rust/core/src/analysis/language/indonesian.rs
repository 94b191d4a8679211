//! Indonesian: Lucene's `IndonesianStemmer` with derivational stemming
//! (Tala, "A Study of Stemming Effects on Information Retrieval in Bahasa
//! Indonesia"): particles, possessive pronouns, then prefixes and suffixes
//! while the word keeps more than two syllables.

use super::utf16::{delete_n, ends_with, starts_with, unit, with_units};

const REMOVED_KE: u8 = 1;
const REMOVED_PENG: u8 = 2;
const REMOVED_DI: u8 = 4;
const REMOVED_MENG: u8 = 8;
const REMOVED_TER: u8 = 16;
const REMOVED_BER: u8 = 32;
const REMOVED_PE: u8 = 64;

fn is_vowel(u: u16) -> bool {
    "aeiou".encode_utf16().any(|v| v == u)
}

/// The stemmer's state: syllables (vowels) left and which affixes went.
struct Stemmer {
    syllables: usize,
    flags: u8,
}

/// `IndonesianStemmer.stem(.., stemDerivational = true)`.
pub fn stem(term: &str) -> String {
    with_units(term, |s, mut len| {
        let mut st = Stemmer {
            syllables: s[..len].iter().filter(|&&u| is_vowel(u)).count(),
            flags: 0,
        };
        if st.syllables > 2 {
            len = st.particle(s, len);
        }
        if st.syllables > 2 {
            len = st.possessive(s, len);
        }
        let old = len;
        if st.syllables > 2 {
            len = st.first_order_prefix(s, len);
        }
        if old != len {
            let old = len;
            if st.syllables > 2 {
                len = st.suffix(s, len);
            }
            if old != len && st.syllables > 2 {
                len = st.second_order_prefix(s, len);
            }
        } else {
            if st.syllables > 2 {
                len = st.second_order_prefix(s, len);
            }
            if st.syllables > 2 {
                len = st.suffix(s, len);
            }
        }
        len
    })
}

impl Stemmer {
    /// Drops `n` units at the end (a suffix) and one syllable.
    fn cut(&mut self, len: usize, n: usize) -> usize {
        self.syllables -= 1;
        len - n
    }

    /// Drops the first `n` units (a prefix), one syllable, and sets `flag`.
    fn behead(&mut self, s: &mut [u16], len: usize, n: usize, flag: u8) -> usize {
        self.flags |= flag;
        self.syllables -= 1;
        delete_n(s, 0, len, n)
    }

    fn particle(&mut self, s: &[u16], len: usize) -> usize {
        if ["kah", "lah", "pun"].iter().any(|x| ends_with(s, len, x)) {
            return self.cut(len, 3);
        }
        len
    }

    fn possessive(&mut self, s: &[u16], len: usize) -> usize {
        if ends_with(s, len, "ku") || ends_with(s, len, "mu") {
            return self.cut(len, 2);
        }
        if ends_with(s, len, "nya") {
            return self.cut(len, 3);
        }
        len
    }

    fn first_order_prefix(&mut self, s: &mut [u16], len: usize) -> usize {
        let starts = |s: &[u16], p| starts_with(s, len, p);
        if starts(s, "meng") {
            return self.behead(s, len, 4, REMOVED_MENG);
        }
        if starts(s, "meny") && len > 4 && is_vowel(s[4]) {
            s[3] = unit('s');
            return self.behead(s, len, 3, REMOVED_MENG);
        }
        if starts(s, "men") || starts(s, "mem") {
            return self.behead(s, len, 3, REMOVED_MENG);
        }
        if starts(s, "me") {
            return self.behead(s, len, 2, REMOVED_MENG);
        }
        if starts(s, "peng") {
            return self.behead(s, len, 4, REMOVED_PENG);
        }
        if starts(s, "peny") && len > 4 && is_vowel(s[4]) {
            s[3] = unit('s');
            return self.behead(s, len, 3, REMOVED_PENG);
        }
        if starts(s, "peny") {
            return self.behead(s, len, 4, REMOVED_PENG);
        }
        if starts(s, "pen") && len > 3 && is_vowel(s[3]) {
            s[2] = unit('t');
            return self.behead(s, len, 2, REMOVED_PENG);
        }
        if starts(s, "pen") || starts(s, "pem") {
            return self.behead(s, len, 3, REMOVED_PENG);
        }
        if starts(s, "di") {
            return self.behead(s, len, 2, REMOVED_DI);
        }
        if starts(s, "ter") {
            return self.behead(s, len, 3, REMOVED_TER);
        }
        if starts(s, "ke") {
            return self.behead(s, len, 2, REMOVED_KE);
        }
        len
    }

    fn second_order_prefix(&mut self, s: &mut [u16], len: usize) -> usize {
        let starts = |s: &[u16], p| starts_with(s, len, p);
        if starts(s, "ber") || (len == 7 && starts(s, "belajar")) {
            return self.behead(s, len, 3, REMOVED_BER);
        }
        if starts(s, "be") && len > 4 && !is_vowel(s[2]) && s[3] == unit('e') && s[4] == unit('r') {
            return self.behead(s, len, 2, REMOVED_BER);
        }
        if starts(s, "per") || (len == 7 && starts(s, "pelajar")) {
            return self.behead(s, len, 3, 0);
        }
        if starts(s, "pe") {
            return self.behead(s, len, 2, REMOVED_PE);
        }
        len
    }

    fn suffix(&mut self, s: &[u16], len: usize) -> usize {
        let flags = self.flags;
        let removed = |flag| flags & flag != 0;
        if ends_with(s, len, "kan")
            && !removed(REMOVED_KE)
            && !removed(REMOVED_PENG)
            && !removed(REMOVED_PE)
        {
            return self.cut(len, 3);
        }
        if ends_with(s, len, "an")
            && !removed(REMOVED_DI)
            && !removed(REMOVED_MENG)
            && !removed(REMOVED_TER)
        {
            return self.cut(len, 2);
        }
        if ends_with(s, len, "i")
            && !ends_with(s, len, "si")
            && !removed(REMOVED_BER)
            && !removed(REMOVED_KE)
            && !removed(REMOVED_PENG)
        {
            return self.cut(len, 1);
        }
        len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        assert_eq!(stem("bukunya"), "buku");
        assert_eq!(stem("menyapu"), "sapu");
        assert_eq!(stem("pembangunan"), "bangun");
        assert_eq!(stem("berlari"), "lari");
        assert_eq!(stem("buku"), "buku");
    }
}
