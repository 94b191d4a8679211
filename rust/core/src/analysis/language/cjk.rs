//! Lucene's `CJKAnalyzer` before its stopword filter: `StandardTokenizer`,
//! `CJKWidthFilter`, `LowerCaseFilter` and `CJKBigramFilter` (Pyserini's
//! analyzer for `zh` and `ko`).
//!
//! Han, hiragana, katakana and Hangul tokens that touch (no character
//! between them) form one run, cut into overlapping bigrams; a run of one
//! character stays a unigram. Other tokens pass through.

use std::ops::Range;

use crate::analysis::filters::lucene_lowercase;
use crate::analysis::standard::{self, cjk_type};

/// Halfwidth katakana U+FF65–U+FF9F as fullwidth (the last two, the
/// voiced sound marks, only when they cannot combine with the kana before).
const KANA_NORM: [u16; 59] = [
    0x30fb, 0x30f2, 0x30a1, 0x30a3, 0x30a5, 0x30a7, 0x30a9, 0x30e3, 0x30e5, 0x30e7, 0x30c3, 0x30fc,
    0x30a2, 0x30a4, 0x30a6, 0x30a8, 0x30aa, 0x30ab, 0x30ad, 0x30af, 0x30b1, 0x30b3, 0x30b5, 0x30b7,
    0x30b9, 0x30bb, 0x30bd, 0x30bf, 0x30c1, 0x30c4, 0x30c6, 0x30c8, 0x30ca, 0x30cb, 0x30cc, 0x30cd,
    0x30ce, 0x30cf, 0x30d2, 0x30d5, 0x30d8, 0x30db, 0x30de, 0x30df, 0x30e0, 0x30e1, 0x30e2, 0x30e4,
    0x30e6, 0x30e8, 0x30e9, 0x30ea, 0x30eb, 0x30ec, 0x30ed, 0x30ef, 0x30f3, 0x3099, 0x309a,
];

/// Kana U+30A6–U+30FD: what the voiced mark U+FF9E adds to each.
#[rustfmt::skip]
const VOICED: [u8; 88] = [
    78, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0,
    1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
];

/// Kana U+30A6–U+30FD: what the semi-voiced mark U+FF9F adds to each
/// (the `h` row takes it).
fn semi_voiced(kana: u16) -> u16 {
    match kana {
        0x30cf | 0x30d2 | 0x30d5 | 0x30d8 | 0x30db => 2,
        _ => 0,
    }
}

/// `CJKWidthFilter`: fullwidth ASCII to ASCII, halfwidth katakana to
/// fullwidth, a halfwidth voiced mark merged into the kana before it.
pub fn fold_width(token: &str) -> String {
    fold(token, None)
}

/// `CJKWidthCharFilter`, the text-level [`fold_width`] Lucene's
/// `JapaneseAnalyzer` reads through: the folded text, and for each of its
/// characters the byte range of `text` it comes from (a kana and the
/// halfwidth voiced mark merged into it span both).
pub fn fold_width_spans(text: &str) -> (String, Vec<Range<usize>>) {
    let mut sources = Vec::with_capacity(text.len());
    let folded = fold(text, Some(&mut sources));
    (folded, sources)
}

/// The folding of both filters; with `sources`, the byte range each folded
/// character comes from. (The char filter never merges a mark into a kana
/// that is itself a merge; no merged kana takes a mark, so they fold alike.)
fn fold(text: &str, mut sources: Option<&mut Vec<Range<usize>>>) -> String {
    let mut folded = String::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        let end = at + c.len_utf8();
        let unit = u32::from(c);
        let last = folded.chars().next_back().map(u32::from);
        let added = match (unit, last) {
            (0xFF9E, Some(p @ 0x30A6..=0x30FD)) => u32::from(VOICED[(p - 0x30A6) as usize]),
            (0xFF9F, Some(p @ 0x30A6..=0x30FD)) => u32::from(semi_voiced(p as u16)),
            _ => 0,
        };
        if let (true, Some(p)) = (added != 0, last) {
            folded.pop();
            folded.push(char::from_u32(p + added).expect("a kana"));
            if let Some(sources) = sources.as_deref_mut() {
                sources.last_mut().expect("a kana before").end = end;
            }
            continue;
        }
        folded.push(match unit {
            0xFF01..=0xFF5E => char::from_u32(unit - 0xFEE0).expect("ASCII"),
            0xFF65..=0xFF9F => {
                char::from_u32(u32::from(KANA_NORM[(unit - 0xFF65) as usize])).expect("a kana")
            }
            _ => c,
        });
        if let Some(sources) = sources.as_deref_mut() {
            sources.push(at..end);
        }
    }
    folded
}

/// Calls `emit` with each term of `text` before the stopword filter.
pub fn tokenize(text: &str, emit: &mut dyn FnMut(&str)) {
    tokenize_spans(text, &mut |term, _| emit(term));
}

/// One character of a run of CJK tokens, with the byte span of `text` it
/// is given (`CJKBigramFilter`'s per-code-point offsets).
#[derive(Clone, Copy)]
struct RunChar {
    c: char,
    start: usize,
    end: usize,
}

/// [`tokenize`], with the byte range of `text` each term comes from: a
/// bigram spans both characters, any other term its token.
pub fn tokenize_spans(text: &str, emit: &mut dyn FnMut(&str, Range<usize>)) {
    // The current run of touching CJK tokens: its characters (after width
    // folding and lowercasing), where it ends in `text`, and whether a
    // bigram has come out of it.
    let mut run: Vec<RunChar> = Vec::new();
    let mut run_end = 0;
    let mut emitted_bigram = false;
    let flush_lone =
        |run: &[RunChar], emitted_bigram: bool, emit: &mut dyn FnMut(&str, Range<usize>)| {
            if let [lone] = run
                && !emitted_bigram
            {
                let mut buf = [0u8; 4];
                emit(lone.c.encode_utf8(&mut buf), lone.start..lone.end);
            }
        };
    let base = text.as_ptr() as usize;
    standard::tokenize(text, &mut |token| {
        let start = token.as_ptr() as usize - base;
        let end = start + token.len();
        let term = fold_width(token);
        let term = lucene_lowercase(&term);
        if cjk_type(token).is_none() {
            flush_lone(&run, emitted_bigram, emit);
            run.clear();
            emitted_bigram = false;
            emit(&term, start..end);
            return;
        }
        if start != run_end {
            flush_lone(&run, emitted_bigram, emit);
            run.clear();
            emitted_bigram = false;
        }
        run_end = end;
        let mut spans = CharSpans::new(token, &term, start);
        for c in term.chars() {
            let (start, end) = spans.next(c);
            run.push(RunChar { c, start, end });
            if let [.., a, b] = run[..] {
                let bigram: String = [a.c, b.c].into_iter().collect();
                emit(&bigram, a.start..b.end);
                emitted_bigram = true;
            }
        }
    });
    flush_lone(&run, emitted_bigram, emit);
}

/// The span of each character of a CJK token's term, as `CJKBigramFilter`
/// gives it: when the term has as many UTF-16 units as the token, each code
/// point its own units in turn; else (width folding merged a voiced mark)
/// every code point the whole token.
struct CharSpans<'a> {
    /// The token's characters still to walk, when spans are per code point.
    token: Option<std::str::Chars<'a>>,
    /// The token's start in the text, and its length in bytes.
    start: usize,
    len: usize,
    /// UTF-16 units of the term passed, of the token passed, and bytes of
    /// the token passed.
    term_units: usize,
    token_units: usize,
    token_at: usize,
}

impl<'a> CharSpans<'a> {
    fn new(token: &'a str, term: &str, start: usize) -> Self {
        let same = term == token || term.encode_utf16().count() == token.encode_utf16().count();
        CharSpans {
            token: same.then(|| token.chars()),
            start,
            len: token.len(),
            term_units: 0,
            token_units: 0,
            token_at: 0,
        }
    }

    /// The byte span of the term's next character `c`.
    fn next(&mut self, c: char) -> (usize, usize) {
        let Some(chars) = &mut self.token else {
            return (self.start, self.start + self.len);
        };
        let from = self.token_at;
        self.term_units += c.len_utf16();
        // Walk the token to the same UTF-16 position.
        while self.token_units < self.term_units {
            match chars.next() {
                Some(t) => {
                    self.token_units += t.len_utf16();
                    self.token_at += t.len_utf8();
                }
                None => break,
            }
        }
        (self.start + from, self.start + self.token_at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        tokenize(text, &mut |t| out.push(t.to_owned()));
        out
    }

    #[test]
    fn width() {
        assert_eq!(fold_width("Ｔｅｓｔ１２"), "Test12");
        assert_eq!(fold_width("ｶﾀｶﾅ"), "カタカナ");
        assert_eq!(fold_width("ｶﾞｷﾞﾊﾟ"), "ガギパ");
        assert_eq!(fold_width("ﾞa"), "\u{3099}a");
    }

    #[test]
    fn bigrams() {
        assert_eq!(terms("中华人民"), ["中华", "华人", "人民"]);
        assert_eq!(terms("中 国"), ["中", "国"]);
        assert_eq!(terms("我 Hello 世界"), ["我", "hello", "世界"]);
        assert_eq!(
            terms("東京タワーに"),
            ["東京", "京タ", "タワ", "ワー", "ーに"]
        );
        assert_eq!(terms("한국어 사전"), ["한국", "국어", "사전"]);
        assert_eq!(terms("한국abc"), ["한국abc"]);
        assert_eq!(terms("Ｔｅｓｔ"), ["test"]);
    }
}
