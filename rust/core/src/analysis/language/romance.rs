//! Lucene's light stemmers for Spanish and Italian (Savoy, "Report on
//! CLEF-2001 Experiments") and Portuguese (Savoy's "UniNE" light stemmer).

use super::utf16::{ends_with, unit, with_units};

/// Folds the accented vowels the Spanish and Italian stemmers fold.
fn fold_vowels(s: &mut [u16]) {
    for u in s.iter_mut() {
        *u = match char::from_u32(u32::from(*u)) {
            Some('à' | 'á' | 'â' | 'ä') => unit('a'),
            Some('ò' | 'ó' | 'ô' | 'ö') => unit('o'),
            Some('è' | 'é' | 'ê' | 'ë') => unit('e'),
            Some('ù' | 'ú' | 'û' | 'ü') => unit('u'),
            Some('ì' | 'í' | 'î' | 'ï') => unit('i'),
            _ => *u,
        };
    }
}

/// `SpanishLightStemmer`: a final vowel, or a plural `s`/`es`/`ces`.
pub fn spanish(term: &str) -> String {
    with_units(term, |s, len| {
        let c = unit;
        if len < 5 {
            return len;
        }
        fold_vowels(&mut s[..len]);
        let last = s[len - 1];
        if last == c('o') || last == c('a') || last == c('e') {
            return len - 1;
        }
        if last == c('s') {
            if s[len - 2] == c('e') && s[len - 3] == c('s') && s[len - 4] == c('e') {
                return len - 2;
            }
            if s[len - 2] == c('e') && s[len - 3] == c('c') {
                s[len - 3] = c('z');
                return len - 2;
            }
            if [c('o'), c('a'), c('e')].contains(&s[len - 2]) {
                return len - 2;
            }
        }
        len
    })
}

/// `ItalianLightStemmer`: a final vowel, with the `i`/`h` before some.
pub fn italian(term: &str) -> String {
    with_units(term, |s, len| {
        let c = unit;
        if len < 6 {
            return len;
        }
        fold_vowels(&mut s[..len]);
        let before = s[len - 2];
        match char::from_u32(u32::from(s[len - 1])) {
            Some('e' | 'i') if before == c('i') || before == c('h') => len - 2,
            Some('a' | 'o') if before == c('i') => len - 2,
            Some('e' | 'i' | 'a' | 'o') => len - 1,
            _ => len,
        }
    })
}

/// `PortugueseLightStemmer`: plural and adverb suffixes, feminine forms,
/// a final vowel, then accents folded.
pub fn portuguese(term: &str) -> String {
    with_units(term, |s, mut len| {
        let c = unit;
        if len < 4 {
            return len;
        }
        len = portuguese_suffix(s, len);
        if len > 3 && s[len - 1] == c('a') {
            len = portuguese_feminine(s, len);
        }
        if len > 4 && [c('e'), c('a'), c('o')].contains(&s[len - 1]) {
            len -= 1;
        }
        for u in s[..len].iter_mut() {
            *u = match char::from_u32(u32::from(*u)) {
                Some('à' | 'á' | 'â' | 'ä' | 'ã') => c('a'),
                Some('ò' | 'ó' | 'ô' | 'ö' | 'õ') => c('o'),
                Some('è' | 'é' | 'ê' | 'ë') => c('e'),
                Some('ù' | 'ú' | 'û' | 'ü') => c('u'),
                Some('ì' | 'í' | 'î' | 'ï') => c('i'),
                Some('ç') => c('c'),
                _ => *u,
            };
        }
        len
    })
}

fn portuguese_suffix(s: &mut [u16], len: usize) -> usize {
    let c = unit;
    if len > 4 && ends_with(s, len, "es") && [c('r'), c('s'), c('l'), c('z')].contains(&s[len - 3])
    {
        return len - 2;
    }
    if len > 3 && ends_with(s, len, "ns") {
        s[len - 2] = c('m');
        return len - 1;
    }
    if len > 4 && (ends_with(s, len, "eis") || ends_with(s, len, "éis")) {
        s[len - 3] = c('e');
        s[len - 2] = c('l');
        return len - 1;
    }
    if len > 4 && ends_with(s, len, "ais") {
        s[len - 2] = c('l');
        return len - 1;
    }
    if len > 4 && ends_with(s, len, "óis") {
        s[len - 3] = c('o');
        s[len - 2] = c('l');
        return len - 1;
    }
    if len > 4 && ends_with(s, len, "is") {
        s[len - 1] = c('l');
        return len;
    }
    if len > 3 && (ends_with(s, len, "ões") || ends_with(s, len, "ães")) {
        let len = len - 1;
        s[len - 2] = c('ã');
        s[len - 1] = c('o');
        return len;
    }
    if len > 6 && ends_with(s, len, "mente") {
        return len - 5;
    }
    if len > 3 && s[len - 1] == c('s') {
        return len - 1;
    }
    len
}

fn portuguese_feminine(s: &mut [u16], len: usize) -> usize {
    let c = unit;
    let any = |s: &[u16], suffixes: &[&str]| suffixes.iter().any(|x| ends_with(s, len, x));
    if len > 7 && any(s, &["inha", "iaca", "eira"]) {
        s[len - 1] = c('o');
        return len;
    }
    if len > 6 {
        if any(s, &["osa", "ica", "ida", "ada", "iva", "ama"]) {
            s[len - 1] = c('o');
            return len;
        }
        if ends_with(s, len, "ona") {
            s[len - 3] = c('ã');
            s[len - 2] = c('o');
            return len - 1;
        }
        if ends_with(s, len, "ora") {
            return len - 1;
        }
        if ends_with(s, len, "esa") {
            s[len - 3] = c('ê');
            return len - 1;
        }
        if ends_with(s, len, "na") {
            s[len - 1] = c('o');
            return len;
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spanish_stems() {
        assert_eq!(spanish("niños"), "niñ");
        assert_eq!(spanish("luces"), "luz");
        assert_eq!(spanish("intereses"), "interes");
        assert_eq!(spanish("casa"), "casa");
    }

    #[test]
    fn italian_stems() {
        assert_eq!(italian("amiche"), "amic");
        assert_eq!(italian("grazie"), "graz");
        assert_eq!(italian("città"), "città");
        assert_eq!(italian("attività"), "attivit");
        assert_eq!(italian("ragazzi"), "ragazz");
        assert_eq!(italian("studio"), "stud");
    }

    #[test]
    fn portuguese_stems() {
        assert_eq!(portuguese("animais"), "animal");
        assert_eq!(portuguese("canções"), "canca");
        assert_eq!(portuguese("bonitinha"), "bonitinh");
        assert_eq!(portuguese("rapidamente"), "rapid");
    }
}
