//! German: Lucene's `GermanNormalizationFilter` and `GermanLightStemmer`
//! (Savoy's "UniNE" light stemmer).

use super::utf16::{unit, with_units};

/// `GermanNormalizationFilter`: `ß` → `ss`, umlauts folded, and the `e` of
/// `ae`, `oe`, `ue` dropped (not after a vowel or `q` for `ue`).
pub fn normalize(term: &str) -> String {
    // The filter's three states: ordinary, after a vowel that blocks `u`,
    // and after `a`/`o`/`u` where an `e` is an umlaut spelling.
    #[derive(PartialEq)]
    enum State {
        N,
        V,
        U,
    }
    let mut state = State::N;
    let mut out = String::with_capacity(term.len() + 2);
    // Java works on UTF-16 units; every case below is a BMP letter, and a
    // surrogate falls into the default state like any other character.
    for c in term.chars() {
        match c {
            'a' | 'o' => {
                state = State::U;
                out.push(c);
            }
            'u' => {
                state = if state == State::N {
                    State::U
                } else {
                    State::V
                };
                out.push(c);
            }
            'e' => {
                if state != State::U {
                    out.push(c);
                }
                state = State::V;
            }
            'i' | 'q' | 'y' => {
                state = State::V;
                out.push(c);
            }
            'ä' | 'ö' | 'ü' => {
                out.push(match c {
                    'ä' => 'a',
                    'ö' => 'o',
                    _ => 'u',
                });
                state = State::V;
            }
            'ß' => {
                out.push_str("ss");
                state = State::N;
            }
            _ => {
                out.push(c);
                state = State::N;
            }
        }
    }
    out
}

fn st_ending(c: u16) -> bool {
    "bdfghklmnt".encode_utf16().any(|u| u == c)
}

/// `GermanLightStemmer`: accents folded, then two rounds of suffixes.
pub fn stem(term: &str) -> String {
    with_units(term, |s, len| {
        for u in s[..len].iter_mut() {
            *u = match char::from_u32(u32::from(*u)) {
                Some('ä' | 'à' | 'á' | 'â') => unit('a'),
                Some('ö' | 'ò' | 'ó' | 'ô') => unit('o'),
                Some('ï' | 'ì' | 'í' | 'î') => unit('i'),
                Some('ü' | 'ù' | 'ú' | 'û') => unit('u'),
                _ => *u,
            };
        }
        let len = step1(s, len);
        step2(s, len)
    })
}

fn step1(s: &[u16], len: usize) -> usize {
    let at = |i: usize| s[len - i];
    if len > 5 && at(3) == unit('e') && at(2) == unit('r') && at(1) == unit('n') {
        return len - 3;
    }
    if len > 4
        && at(2) == unit('e')
        && [unit('m'), unit('n'), unit('r'), unit('s')].contains(&at(1))
    {
        return len - 2;
    }
    if len > 3 && at(1) == unit('e') {
        return len - 1;
    }
    if len > 3 && at(1) == unit('s') && st_ending(at(2)) {
        return len - 1;
    }
    len
}

fn step2(s: &[u16], len: usize) -> usize {
    let at = |i: usize| s[len - i];
    if len > 5 && at(3) == unit('e') && at(2) == unit('s') && at(1) == unit('t') {
        return len - 3;
    }
    if len > 4 && at(2) == unit('e') && (at(1) == unit('r') || at(1) == unit('n')) {
        return len - 2;
    }
    if len > 4 && at(2) == unit('s') && at(1) == unit('t') && st_ending(at(3)) {
        return len - 2;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization() {
        assert_eq!(normalize("straße"), "strasse");
        assert_eq!(normalize("schaen"), "schan");
        assert_eq!(normalize("haeuser"), "hauser");
        assert_eq!(normalize("quelle"), "quelle");
        assert_eq!(normalize("blau"), "blau");
        assert_eq!(normalize("müller"), "muller");
    }

    #[test]
    fn light_stems() {
        assert_eq!(stem("häuser"), "haus");
        assert_eq!(stem("kinder"), "kind");
        assert_eq!(stem("schönsten"), "schon");
        assert_eq!(stem("bücher"), "buch");
        assert_eq!(stem("abc"), "abc");
    }
}
