//! French: Lucene's `FrenchLightStemmer` (Savoy's "UniNE" light stemmer).

use super::utf16::{delete_n, ends_with, is_letter, unit, with_units};

/// `FrenchLightStemmer`: plural and derivational suffixes, then [`norm`].
pub fn stem(term: &str) -> String {
    with_units(term, stem_units)
}

fn stem_units(s: &mut [u16], mut len: usize) -> usize {
    let c = unit;
    if len > 5 && s[len - 1] == c('x') {
        if s[len - 3] == c('a') && s[len - 2] == c('u') && s[len - 4] != c('e') {
            s[len - 2] = c('l');
        }
        len -= 1;
    }
    if len > 3 && s[len - 1] == c('x') {
        len -= 1;
    }
    if len > 3 && s[len - 1] == c('s') {
        len -= 1;
    }
    if len > 9 && ends_with(s, len, "issement") {
        len -= 6;
        s[len - 1] = c('r');
        return norm(s, len);
    }
    if len > 8 && ends_with(s, len, "issant") {
        len -= 4;
        s[len - 1] = c('r');
        return norm(s, len);
    }
    if len > 6 && ends_with(s, len, "ement") {
        len -= 4;
        if len > 3 && ends_with(s, len, "ive") {
            len -= 1;
            s[len - 1] = c('f');
        }
        return norm(s, len);
    }
    if len > 11 && ends_with(s, len, "ficatrice") {
        len -= 5;
        s[len - 2] = c('e');
        s[len - 1] = c('r');
        return norm(s, len);
    }
    if len > 10 && ends_with(s, len, "ficateur") {
        len -= 4;
        s[len - 2] = c('e');
        s[len - 1] = c('r');
        return norm(s, len);
    }
    if len > 9 && ends_with(s, len, "catrice") {
        len -= 3;
        s[len - 4] = c('q');
        s[len - 3] = c('u');
        s[len - 2] = c('e');
        return norm(s, len);
    }
    if len > 8 && ends_with(s, len, "cateur") {
        len -= 2;
        s[len - 4] = c('q');
        s[len - 3] = c('u');
        s[len - 2] = c('e');
        s[len - 1] = c('r');
        return norm(s, len);
    }
    if len > 8 && ends_with(s, len, "atrice") {
        len -= 4;
        s[len - 2] = c('e');
        s[len - 1] = c('r');
        return norm(s, len);
    }
    if len > 7 && ends_with(s, len, "ateur") {
        len -= 3;
        s[len - 2] = c('e');
        s[len - 1] = c('r');
        return norm(s, len);
    }
    if len > 6 && ends_with(s, len, "trice") {
        len -= 1;
        s[len - 3] = c('e');
        s[len - 2] = c('u');
        s[len - 1] = c('r');
    }
    if len > 5 && ends_with(s, len, "ième") {
        return norm(s, len - 4);
    }
    if len > 7 && ends_with(s, len, "teuse") {
        len -= 2;
        s[len - 1] = c('r');
        return norm(s, len);
    }
    if len > 6 && ends_with(s, len, "teur") {
        len -= 1;
        s[len - 1] = c('r');
        return norm(s, len);
    }
    if len > 5 && ends_with(s, len, "euse") {
        return norm(s, len - 2);
    }
    if len > 8 && ends_with(s, len, "ère") {
        len -= 1;
        s[len - 2] = c('e');
        return norm(s, len);
    }
    if len > 7 && ends_with(s, len, "ive") {
        len -= 1;
        s[len - 1] = c('f');
        return norm(s, len);
    }
    if len > 4 && (ends_with(s, len, "folle") || ends_with(s, len, "molle")) {
        len -= 2;
        s[len - 1] = c('u');
        return norm(s, len);
    }
    if len > 9 && ends_with(s, len, "nnelle") {
        return norm(s, len - 5);
    }
    if len > 9 && ends_with(s, len, "nnel") {
        return norm(s, len - 3);
    }
    if len > 4 && ends_with(s, len, "ète") {
        len -= 1;
        s[len - 2] = c('e');
    }
    if len > 8 && ends_with(s, len, "ique") {
        len -= 4;
    }
    if len > 8 && ends_with(s, len, "esse") {
        return norm(s, len - 3);
    }
    if len > 7 && ends_with(s, len, "inage") {
        return norm(s, len - 3);
    }
    if len > 9 && ends_with(s, len, "isation") {
        len -= 7;
        if len > 5 && ends_with(s, len, "ual") {
            s[len - 2] = c('e');
        }
        return norm(s, len);
    }
    if len > 9 && ends_with(s, len, "isateur") {
        return norm(s, len - 7);
    }
    if len > 8 && ends_with(s, len, "ation") {
        return norm(s, len - 5);
    }
    if len > 8 && ends_with(s, len, "ition") {
        return norm(s, len - 5);
    }
    norm(s, len)
}

/// Accents folded and doubled letters merged (on words longer than four),
/// then a final `ie`, `r`, `e`, `e` and doubled letter go.
fn norm(s: &mut [u16], mut len: usize) -> usize {
    let c = unit;
    if len > 4 {
        for u in s[..len].iter_mut() {
            *u = match char::from_u32(u32::from(*u)) {
                Some('à' | 'á' | 'â') => c('a'),
                Some('ô') => c('o'),
                Some('è' | 'é' | 'ê') => c('e'),
                Some('ù' | 'û') => c('u'),
                Some('î') => c('i'),
                Some('ç') => c('c'),
                _ => *u,
            };
        }
        let mut prev = s[0];
        let mut i = 1;
        while i < len {
            if s[i] == prev && is_letter(prev) {
                len = delete_n(s, i, len, 1);
            } else {
                prev = s[i];
                i += 1;
            }
        }
    }
    if len > 4 && ends_with(s, len, "ie") {
        len -= 2;
    }
    if len > 4 {
        if s[len - 1] == c('r') {
            len -= 1;
        }
        if s[len - 1] == c('e') {
            len -= 1;
        }
        if s[len - 1] == c('e') {
            len -= 1;
        }
        if s[len - 1] == s[len - 2] && is_letter(s[len - 1]) {
            len -= 1;
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn light_stems() {
        assert_eq!(stem("chevaux"), "cheval");
        assert_eq!(stem("nationalisation"), "national");
        assert_eq!(stem("heureuse"), "heureu");
        assert_eq!(stem("maison"), "maison");
        assert_eq!(stem("été"), "été");
    }
}
