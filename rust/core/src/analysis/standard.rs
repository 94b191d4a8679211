//! Word segmentation compatible with Lucene's `StandardTokenizer`.
//!
//! Lucene 9 and 10 (behind Anserini's and Pyserini's default English
//! analyzer) tokenize with the JFlex grammar `StandardTokenizerImpl.jflex`:
//! UAX #29 word boundaries over Unicode 12.1 properties, plus its own rules
//! for which spans become tokens.  This module takes the UAX #29 boundaries
//! from `unicode-segmentation` and applies those rules on top:
//!
//! * `<ALPHANUM>`, `<NUM>`, `<KATAKANA>`, `<HANGUL>`: a segment of letters,
//!   digits or katakana is one token with its inner `.` `'` `’` `:` (between
//!   letters), `.` `,` `;` `'` (between digits), `_`-like connectors (also
//!   leading or trailing) and combining marks: `don't`, `John's`, `U.S.A`,
//!   `3.5`, `1,000`, `example.com`, `auth_domain`, `__init__`.  Other
//!   punctuation splits: `e-mail`, `user@example.com` (`user`,
//!   `example.com`), `http://x.org/a` (`http`, `x.org`, `a`).
//! * `<IDEOGRAPHIC>`, `<HIRAGANA>`: one token per Han or hiragana character.
//! * `<SOUTHEAST_ASIAN>`: a run of Line_Break = Complex_Context characters
//!   (Thai, Lao, Myanmar, Khmer, Tai scripts) is one token, unsegmented.
//! * `<EMOJI>`: a pictograph with its extenders, skin tone and `U+FE0F`,
//!   `U+200D` sequences of those, tag sequences, keycaps (`#️⃣`, `3️⃣`)
//!   and regional-indicator pairs (flags).  `U+FE0E` ends the
//!   token and is dropped, a lone regional indicator is dropped, and symbols
//!   such as `©`, `™`, `★` are tokens.
//! * Everything else is dropped: spaces, punctuation, other symbols,
//!   superscripts and fractions, stray combining marks.
//! * Tokens are at most 255 UTF-16 code units.  Lucene's scanner sees 255
//!   units from the token start as the whole input, so a longer token is cut
//!   to the longest match inside them and scanning resumes right after:
//!   300 letters give 255 + 45.
//!
//! Where `unicode-segmentation` (Unicode 17) and the grammar differ, the
//! grammar wins: `U+200D` + pictograph does not join a word, ideograph or
//! Thai run (no WB3c: `a\u{200D}👍` gives `a\u{200D}`, `👍`); a skin tone,
//! `U+200D` + pictograph or Thai mark after a space still starts a token;
//! symbols that stopped being pictographs after 12.1 (`★`) still form
//! sequences; Hebrew `"`/`'` joins follow the grammar (`ו'1` is one token);
//! and character classes follow Unicode 12.1 where it changes tokens
//! (`a꜈b` splits, Tangut and Nüshu are dropped, `々` is a letter).
//! Characters assigned after Unicode 12.1 are no word characters (Lucene
//! drops them and breaks words there: `aೝb` gives `a`, `b`), except the
//! block U+1FB00–U+1FBFF, which 12.1 reserved for pictographs (`🯰` is an
//! emoji token, not a digit).  A Southeast Asian letter that the segmenter
//! counts as a digit (U+19DA) ends a word; the number signs U+0600–0605,
//! U+06DD, U+070F, U+08E2, U+110BD, U+110CD are format characters that ride
//! along with a preceding letter, katakana, ideograph or Thai run; and the
//! vertical comma and semicolon (U+FE10, U+FE14) join digits (`1︐2`).
//!
//! Checked code point by code point (every character of planes 0–3 and 14
//! in a dozen contexts) and on real multilingual text against Lucene 9.9.1.

use unicode_segmentation::{UWordBoundIndices, UnicodeSegmentation};

/// Lucene's `StandardAnalyzer.DEFAULT_MAX_TOKEN_LENGTH`, in UTF-16 code units.
const MAX_TOKEN_UTF16: usize = 255;
/// Most bytes Lucene's 255-unit window can span (3 per BMP character).
const WINDOW_BYTES: usize = 3 * MAX_TOKEN_UTF16;
/// Bytes handed to the segmenter at once.  Lucene decides a token from the
/// 255 units after its start, so whatever starts `WINDOW_BYTES` before the
/// bound is settled exactly with the bound taken as the end of input; the
/// rest is segmented again.  Bounding the look-ahead keeps restarts cheap
/// inside huge segments (a megabyte-long word is cut into 255-unit tokens).
const SCAN_BYTES: usize = 1536;

const ZWJ: char = '\u{200D}';
const TEXT_PRESENTATION: char = '\u{FE0E}';
const EMOJI_PRESENTATION: char = '\u{FE0F}';
const KEYCAP: char = '\u{20E3}';

/// Calls `emit` with each token of `text` (a sub-slice of `text`, not yet lowercased), in order.
pub fn tokenize<'a>(text: &'a str, emit: &mut dyn FnMut(&'a str)) {
    let bytes = text.as_bytes();
    let mut pos = 0;
    while pos < bytes.len() {
        if bytes[pos].is_ascii() {
            match ascii_step(bytes, pos) {
                Ascii::Token(end) => {
                    emit(&text[pos..end]);
                    pos = end;
                    continue;
                }
                Ascii::Skip(next) => {
                    pos = next;
                    continue;
                }
                Ascii::Unsure => {}
            }
        }
        pos = general_steps(text, pos, emit);
    }
}

enum Ascii {
    Token(usize),
    Skip(usize),
    /// Non-ASCII text may take part: use the general path.
    Unsure,
}

/// Tokenizes ASCII text without the segmenter: UAX #29 and Lucene's grammar
/// agree there, and only a neighbouring non-ASCII character (a combining
/// mark, a letter, a keycap) can change the outcome.
fn ascii_step(bytes: &[u8], pos: usize) -> Ascii {
    let is_core = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let first = bytes[pos];
    if !is_core(first) {
        if matches!(first, b'#' | b'*') && bytes.get(pos + 1).is_some_and(|b| !b.is_ascii()) {
            return Ascii::Unsure;
        }
        let mut i = pos + 1;
        while i < bytes.len()
            && bytes[i].is_ascii()
            && !is_core(bytes[i])
            && !matches!(bytes[i], b'#' | b'*')
        {
            i += 1;
        }
        return Ascii::Skip(i);
    }
    match ascii_word(bytes, pos, bytes.len()) {
        None => Ascii::Unsure,
        Some((end, true)) if end - pos <= MAX_TOKEN_UTF16 => Ascii::Token(end),
        // `_` alone makes no token.
        Some((end, false)) if end - pos <= MAX_TOKEN_UTF16 => Ascii::Skip(end),
        // Too long: the longest match within Lucene's 255-char window.
        Some(_) => match ascii_word(bytes, pos, pos + MAX_TOKEN_UTF16) {
            Some((end, true)) => Ascii::Token(end),
            _ => Ascii::Unsure,
        },
    }
}

/// End of the ASCII word (letters, digits, `_`, inner `.` `,` `;` `'` `:`)
/// at `pos`, taking `eof` as the end of input, and whether it holds a letter
/// or digit; `None` if non-ASCII text may belong to it.  Stops early once
/// the word is longer than a token may be.
fn ascii_word(bytes: &[u8], pos: usize, eof: usize) -> Option<(usize, bool)> {
    let bytes = &bytes[..eof];
    let is_core = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut alphanumeric = false;
    let mut i = pos;
    while let Some(&b) = bytes.get(i) {
        if i - pos > MAX_TOKEN_UTF16 {
            break;
        }
        if is_core(b) {
            alphanumeric |= b != b'_';
            i += 1;
            continue;
        }
        if !b.is_ascii() {
            return None;
        }
        let Some(&next) = bytes.get(i + 1) else {
            break;
        };
        if !next.is_ascii() && matches!(b, b'.' | b',' | b';' | b'\'' | b':') {
            return None;
        }
        let prev = bytes[i - 1];
        // WB11/12 between digits, WB6/7 between letters.
        let joins = match b {
            b'.' | b'\'' if prev.is_ascii_digit() && next.is_ascii_digit() => true,
            b',' | b';' => prev.is_ascii_digit() && next.is_ascii_digit(),
            b'.' | b'\'' | b':' => prev.is_ascii_alphabetic() && next.is_ascii_alphabetic(),
            _ => false,
        };
        if !joins {
            break;
        }
        i += 2;
    }
    Some((i, alphanumeric))
}

/// Runs the segmenter-based scanner from `pos` until it reaches ASCII text
/// again; returns where it stopped.
fn general_steps<'a>(text: &'a str, pos: usize, emit: &mut dyn FnMut(&'a str)) -> usize {
    // Back to the ASCII path only for more than a lone space or punctuation.
    let at_ascii = |at: usize| {
        let bytes = text.as_bytes();
        bytes.get(at).is_some_and(u8::is_ascii) && bytes.get(at + 1).is_none_or(u8::is_ascii)
    };
    let mut scanner = Scanner::new(text, pos);
    loop {
        match scanner.scan() {
            Step::End => return text.len(),
            Step::Restart(at) if at_ascii(at) => return at,
            Step::Restart(at) => scanner = Scanner::new(text, at),
            Step::Token(start, end) if fits(&text[start..end]) => {
                emit(&text[start..end]);
                if at_ascii(end) {
                    return end;
                }
                if end != scanner.consumed {
                    scanner = Scanner::new(text, end);
                }
            }
            Step::Token(start, _) => {
                // Lucene's scanner buffer holds 255 UTF-16 units from the
                // token start and treats its end as the end of input: the
                // token is the longest match inside that window.
                let window = window_end(text, start);
                let mut inner = Scanner::window(text, start, window);
                return match inner.scan() {
                    Step::Token(s, e) if s == start => {
                        emit(&text[s..e]);
                        e
                    }
                    // Nothing matches inside the window: Lucene skips one char.
                    _ => next_attempt(text, start),
                };
            }
        }
    }
}

/// The CJK token types of Lucene's `StandardTokenizer`, which
/// `CJKBigramFilter` cuts into bigrams.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CjkType {
    /// `<IDEOGRAPHIC>`: one Han character.
    Ideographic,
    /// `<HIRAGANA>`: one hiragana character.
    Hiragana,
    /// `<KATAKANA>`: a run of katakana only.
    Katakana,
    /// `<HANGUL>`: a run of Hangul letters only.
    Hangul,
}

/// The CJK type Lucene gives `token`, one of [`tokenize`]'s tokens: the
/// grammar's first rule among the longest matches, so a run mixing Hangul
/// or katakana with other letters is `<ALPHANUM>` (`None`).
pub fn cjk_type(token: &str) -> Option<CjkType> {
    let first = token.chars().next()?;
    match class_of(first) {
        Class::Han => return Some(CjkType::Ideographic),
        Class::Hiragana => return Some(CjkType::Hiragana),
        _ => {}
    }
    let only =
        |pred: fn(char) -> bool| pred(first) && token.chars().all(|c| pred(c) || is_extender(c));
    if only(|c| word_break(c) == Wb::Katakana) {
        Some(CjkType::Katakana)
    } else if only(is_hangul_letter) {
        Some(CjkType::Hangul)
    } else {
        None
    }
}

/// A letter of the Hangul script (`\p{Script:Hangul}` and `WB:ALetter`).
fn is_hangul_letter(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x3131..=0x318E | 0xA960..=0xA97C | 0xAC00..=0xD7A3
        | 0xD7B0..=0xD7C6 | 0xD7CB..=0xD7FB | 0xFFA0..=0xFFDC)
        && class_of(c) == Class::Word
}

/// Lucene's character classes, as far as they decide where tokens start.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    /// Letters, digits and katakana (`\p{WB:ALetter}`, `Hebrew_Letter`,
    /// `Numeric`, `Katakana`).
    Word,
    /// `\p{WB:ExtendNumLet}`: joins words but cannot make one alone.
    ExtendNumLet,
    /// `\p{Script:Han}`: one token per character.
    Han,
    /// `\p{Script:Hiragana}`: one token per character.
    Hiragana,
    /// `\p{LB:Complex_Context}`: runs are one token.
    SouthEastAsian,
    /// `\p{Extended_Pictographic}` that is not a letter.
    Pictographic,
    /// `\p{Emoji_Modifier}` (skin tones).
    EmojiModifier,
    /// `\p{WB:Regional_Indicator}`.
    RegionalIndicator,
    /// Not a word character for Lucene (Unicode 12.1) but a letter or
    /// `MidLetter` for the Unicode 17 segmenter: ends a word.
    DemotedOther,
    /// `\p{WB:Format}` for Lucene (Unicode 12.1) but a letter for the Unicode
    /// 17 segmenter: rides along inside a word, never starts one.
    DemotedFormat,
    /// Anything else: never starts a token.
    Other,
}

fn class_of(c: char) -> Class {
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() {
            Class::Word
        } else if c == '_' {
            Class::ExtendNumLet
        } else {
            Class::Other
        };
    }
    let cp = c as u32;
    let block = (cp >> 8) as usize;
    let mut i = match BLOCK_INDEX.get(block) {
        Some(&i) => usize::from(i),
        None => CLASS_TABLE.partition_point(|&(_, hi, _)| hi < cp),
    };
    while let Some(&(lo, hi, class)) = CLASS_TABLE.get(i) {
        if cp < lo {
            break;
        }
        if cp <= hi {
            return class;
        }
        i += 1;
    }
    // Outside the table, ALetter is Alphabetic (combining marks included:
    // they only matter where a segment starts, see `orphan_possible`).
    if is_common_letter(c) || c.is_alphabetic() {
        Class::Word
    } else {
        Class::Other
    }
}

/// Letters of a few common blocks, checked before the general (slower)
/// `Alphabetic` lookup; never combining marks.
fn is_common_letter(c: char) -> bool {
    match c as u32 {
        0xC0..=0xD6 | 0xD8..=0xF6 | 0xF8..=0x24F => true, // Latin
        0x410..=0x44F | 0x5D0..=0x5EA | 0x620..=0x64A => true, // Cyrillic, Hebrew, Arabic
        0xAC00..=0xD7A3 => true,                          // Hangul syllables
        _ => false,
    }
}

/// Number of 256-code-point blocks indexed by `BLOCK_INDEX`.
const INDEXED_BLOCKS: usize = 0x400;

/// For each block of 256 code points, the first `CLASS_TABLE` entry that
/// does not end before the block.
const BLOCK_INDEX: [u16; INDEXED_BLOCKS] = {
    let mut index = [0u16; INDEXED_BLOCKS];
    let mut block = 0;
    let mut i = 0;
    while block < INDEXED_BLOCKS {
        while i < CLASS_TABLE.len() && CLASS_TABLE[i].1 < (block as u32) << 8 {
            i += 1;
        }
        index[block] = i as u16;
        block += 1;
    }
    index
};

/// `\p{Extended_Pictographic}`, letters included.
fn is_pictographic(c: char) -> bool {
    matches!(
        c as u32,
        0x2139 | 0x24C2 | 0x1F170 | 0x1F171 | 0x1F17E | 0x1F17F
    ) || class_of(c) == Class::Pictographic
}

/// Characters after which UAX #29 does not attach combining marks (WB3a).
fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\r' | '\n' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// `\p{WB:Extend}`: combining marks and the like.  Asked of the grapheme
/// segmenter (`Extend` and `SpacingMark` there), with the few differences
/// between the two properties listed.
fn is_mark(c: char) -> bool {
    if is_demoted_other(c) {
        return false;
    }
    match c as u32 {
        0x102B..=0x102C | 0x1038 | 0x1062..=0x1064 | 0x1067..=0x106D | 0x1083 => true,
        0x1087..=0x108C | 0x108F | 0x109A..=0x109C | 0x1A61 | 0x1A63..=0x1A64 => true,
        0xAA7B | 0xAA7D | 0x11720..=0x11721 => true,
        0xE33 | 0xEB3 => false,
        _ => is_grapheme_extender(c),
    }
}

/// Whether `c` extends a preceding letter into one extended grapheme cluster.
fn is_grapheme_extender(c: char) -> bool {
    let mut buf = [0u8; 8];
    buf[0] = b'a';
    let len = 1 + c.encode_utf8(&mut buf[1..]).len();
    match std::str::from_utf8(&buf[..len]) {
        Ok(s) => s.graphemes(true).nth(1).is_none(),
        Err(_) => false,
    }
}

/// Where to try again after no token matched inside the window at `start`.
/// Lucene drops one char and retries.  Inside a long `_` or `U+200D` run
/// that repeats until the window reaches the letter or pictograph completing
/// a token, so jump straight there, but no further than the first char of
/// the run that may start a token itself (a skin tone, a Thai mark).
fn next_attempt(text: &str, start: usize) -> usize {
    let Some(first) = text[start..].chars().next() else {
        return text.len();
    };
    let one = start + first.len_utf8();
    let (run_end, completes): (usize, fn(char) -> bool) = if first == ZWJ {
        (start + run_len(text, start, |c| c == ZWJ), is_pictographic)
    } else if class_of(first) == Class::ExtendNumLet {
        let in_run =
            |c: char| class_of(c) == Class::ExtendNumLet || (!c.is_ascii() && is_extender(c));
        (start + run_len(text, start, in_run), |c| {
            class_of(c) == Class::Word && !is_mark(c)
        })
    } else {
        return one;
    };
    let starter = if first == ZWJ {
        run_end
    } else {
        text[one..run_end]
            .char_indices()
            .find(|&(_, c)| {
                c == ZWJ || matches!(class_of(c), Class::EmojiModifier | Class::SouthEastAsian)
            })
            .map_or(run_end, |(i, _)| one + i)
    };
    let Some(last) = text[run_end..].chars().next() else {
        return starter;
    };
    if !completes(last) {
        return starter;
    }
    // Earliest start whose window still holds `last`.
    let mut units = last.len_utf16();
    let mut from = run_end;
    for (i, c) in text[..run_end].char_indices().rev() {
        units += c.len_utf16();
        if units > MAX_TOKEN_UTF16 {
            break;
        }
        from = i;
    }
    from.clamp(one, starter.max(one))
}

fn fits(token: &str) -> bool {
    token.len() <= MAX_TOKEN_UTF16 || utf16_len(token) <= MAX_TOKEN_UTF16
}

fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// End of the longest prefix of `text[start..]` that fits in Lucene's buffer.
fn window_end(text: &str, start: usize) -> usize {
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        units += c.len_utf16();
        if units > MAX_TOKEN_UTF16 {
            return start + i;
        }
    }
    text.len()
}

enum Step {
    /// A token at `text[start..end]`.
    Token(usize, usize),
    /// Nothing before this offset starts a token; segment again from it.
    Restart(usize),
    End,
}

/// UAX #29 segments of `text[start..bound]`, turned into Lucene tokens.
struct Scanner<'a> {
    text: &'a str,
    /// Where segmentation started: the segmenter sees the start of text here.
    start: usize,
    bound: usize,
    /// Whether `bound` is a true end of input (text end or Lucene's window).
    bound_is_end: bool,
    segments: UWordBoundIndices<'a>,
    peeked: Option<(usize, &'a str)>,
    /// End of the last segment taken from `segments`.
    consumed: usize,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str, start: usize) -> Self {
        let mut bound = text.len();
        if bound - start > SCAN_BYTES {
            bound = start + SCAN_BYTES;
            while !text.is_char_boundary(bound) {
                bound -= 1;
            }
        }
        Self::with_bound(text, start, bound, bound == text.len())
    }

    fn window(text: &'a str, start: usize, bound: usize) -> Self {
        Self::with_bound(text, start, bound, true)
    }

    fn with_bound(text: &'a str, start: usize, bound: usize, bound_is_end: bool) -> Self {
        Scanner {
            text,
            start,
            bound,
            bound_is_end,
            segments: text[start..bound].split_word_bound_indices(),
            peeked: None,
            consumed: start,
        }
    }

    fn next_segment(&mut self) -> Option<(usize, &'a str)> {
        let next = match self.peeked.take() {
            Some(seg) => Some(seg),
            None => self
                .segments
                .next()
                .map(|(offset, seg)| (self.start + offset, seg)),
        };
        if let Some((offset, seg)) = next {
            self.consumed = offset + seg.len();
        }
        next
    }

    /// Whether Lucene's window at `at` lies within this scan.
    fn settled(&self, at: usize) -> bool {
        self.bound_is_end || at + WINDOW_BYTES <= self.bound
    }

    /// Where to go on after dropping text from `at`: at most up to the first
    /// position whose window reaches past the bound.
    fn resume_point(&self, at: usize) -> usize {
        let mut limit = self.bound.saturating_sub(WINDOW_BYTES).max(at);
        while !self.text.is_char_boundary(limit) {
            limit += 1;
        }
        limit
    }

    /// Whether a segment starting at `at` may begin with a combining mark
    /// that UAX #29 could not attach to anything (Lucene drops those).
    fn orphan_possible(&self, at: usize) -> bool {
        at == self.start
            || self.text[..at]
                .chars()
                .next_back()
                .is_some_and(is_line_break)
    }

    fn scan(&mut self) -> Step {
        if let Some(step) = self.emoji_shortcut() {
            return step;
        }
        while let Some((start, seg)) = self.next_segment() {
            let end = start + seg.len();
            if !self.settled(start) {
                return Step::Restart(start);
            }
            let Some(first) = seg.chars().next() else {
                continue;
            };
            let token_end = match class_of(first) {
                // A combining mark can only start a segment where nothing
                // precedes it to attach to; Lucene drops it there.
                Class::Word
                    if first.is_ascii()
                        || is_common_letter(first)
                        || !self.orphan_possible(start)
                        || !is_mark(first) =>
                {
                    let mut len = self.word_len(start, seg);
                    if is_pictographic(first) {
                        // `🅰`: the <EMOJI> rule may match more than <ALPHANUM>.
                        len = len.max(emoji_len(&self.text[start..self.bound]));
                    }
                    if len == 0 {
                        return Step::Restart(start + first.len_utf8());
                    }
                    Some(start + len)
                }
                Class::Word => None,
                Class::ExtendNumLet if has_word_core(seg) => {
                    match self.word_len(start, seg) {
                        // Its letters were cut off (`_꜈b`): Lucene drops the `_`.
                        0 => return Step::Restart(start + first.len_utf8()),
                        len => Some(start + len),
                    }
                }
                Class::DemotedOther | Class::DemotedFormat => {
                    // The segmenter glued it to the following word; Lucene
                    // drops it alone.
                    let after = first.len_utf8();
                    if after < seg.len() {
                        return Step::Restart(start + after);
                    }
                    None
                }
                Class::ExtendNumLet | Class::Other if !matches!(first, ZWJ | '#' | '*') => None,
                Class::Han | Class::Hiragana => {
                    let rest = &self.text[start..self.bound];
                    Some(start + first.len_utf8() + run_len(rest, first.len_utf8(), is_extender))
                }
                Class::SouthEastAsian => {
                    Some(start + south_east_asian_len(&self.text[start..self.bound]))
                }
                // Emoji sequences are matched on the text itself: the Unicode 17
                // segmenter no longer counts `★` and other symbols as
                // pictographs, so it does not keep `U+200D ★` together.
                _ => match emoji_len(&self.text[start..self.bound]) {
                    0 => None,
                    len => Some(start + len),
                },
            };
            match token_end {
                Some(token_end) => return Step::Token(start, token_end),
                None => {
                    let rest = &self.text[start..self.bound];
                    if let Some(at) = token_start_inside(rest, seg.len()) {
                        return Step::Restart(start + at);
                    }
                    // Dropped chars whose window reaches past the bound are
                    // looked at again.
                    if !self.settled(end) {
                        return Step::Restart(self.resume_point(start + first.len_utf8()));
                    }
                }
            }
        }
        if self.bound_is_end {
            Step::End
        } else {
            Step::Restart(self.resume_point(self.consumed))
        }
    }

    /// Emoji tokens come from the text, not the segmenter, and a stray
    /// presentation selector is dropped: settling those at the scan start
    /// avoids segmenting long `U+200D`-joined runs once per token.
    fn emoji_shortcut(&self) -> Option<Step> {
        if self.peeked.is_some() {
            return None;
        }
        let at = self.consumed;
        if !self.settled(at) {
            return None;
        }
        let c = self.text[at..self.bound].chars().next()?;
        if at == self.start && matches!(c, TEXT_PRESENTATION | EMOJI_PRESENTATION) {
            return Some(Step::Restart(at + c.len_utf8()));
        }
        let emoji_start = matches!(c, ZWJ | '#' | '*')
            || matches!(
                class_of(c),
                Class::Pictographic | Class::EmojiModifier | Class::RegionalIndicator
            );
        if !emoji_start {
            return None;
        }
        match emoji_len(&self.text[at..self.bound]) {
            0 => None,
            len => Some(Step::Token(at, at + len)),
        }
    }

    /// Length of the token Lucene makes of the word segment (letters,
    /// digits, katakana, connectors) `seg` at `start`, or 0.
    fn word_len(&self, start: usize, seg: &str) -> usize {
        let after = &self.text[start + seg.len()..self.bound];
        if seg.is_ascii() && !joins_in_12_1(after) {
            return seg.len();
        }
        let (end, glued_pictograph) = glued_end(seg, true);
        if glued_pictograph
            || has_hebrew_quote(seg)
            || joins_in_12_1(after)
            || seg.chars().any(is_demoted_format)
        {
            return alphanum_len(&self.text[start..self.bound]);
        }
        if end == seg.len() {
            return end;
        }
        // Cut inside: the token is the longest word in front of the cut,
        // which may leave out trailing `.`, `'`, `:`... (`a.꜈b` gives `a`).
        let head = &seg[..end];
        let len = head
            .split_word_bound_indices()
            .next()
            .map_or(end, |(_, first)| first.len());
        if has_word_core(&head[..len]) || !head.starts_with(|c| class_of(c) == Class::ExtendNumLet)
        {
            len
        } else {
            0
        }
    }
}

/// Length of the part of a word, ideograph or Southeast Asian segment that
/// Lucene keeps together, before re-matching: UAX #29 (WB3c) also glues
/// `U+200D` + pictograph to it, the grammar does not, and in words the
/// characters that are letters only since Unicode 12.1 end the word.  Also
/// tells whether a word glued a pictograph that is a letter (`Ⓜ`) this way,
/// after which the segmenter stops the word early.
fn glued_end(seg: &str, word: bool) -> (usize, bool) {
    if seg.is_ascii() {
        return (seg.len(), false);
    }
    let mut after_zwj = false;
    for (i, c) in seg.char_indices() {
        let ends = if word {
            ends_word(c)
        } else {
            is_demoted_other(c)
        };
        if ends {
            return (i, false);
        }
        if after_zwj && is_pictographic(c) {
            if !word || class_of(c) != Class::Word {
                return (i, false);
            }
            return (seg.len(), true);
        }
        after_zwj = c == ZWJ;
    }
    (seg.len(), false)
}

/// `class_of(c) == Class::DemotedOther`, quick for ASCII and common letters.
fn is_demoted_other(c: char) -> bool {
    !c.is_ascii() && !is_common_letter(c) && class_of(c) == Class::DemotedOther
}

/// Whether `c` ends a word segment of the Unicode 17 segmenter for Lucene:
/// characters that are no word characters in Unicode 12.1 (including those
/// assigned since), Southeast Asian characters that the segmenter counts as
/// digits (`U+19DA`), ideographs, hiragana, and pictographs that the
/// segmenter counts as digits (`U+1FBF0`).
fn ends_word(c: char) -> bool {
    !c.is_ascii()
        && !is_common_letter(c)
        && match class_of(c) {
            Class::DemotedOther | Class::Han | Class::Hiragana | Class::Pictographic => true,
            // Southeast Asian marks extend words (`WB:Extend`); letters do not.
            Class::SouthEastAsian => !is_mark(c),
            _ => false,
        }
}

/// Whether the text right after a word segment may continue the word in
/// Lucene's grammar although the Unicode 17 segmenter ended it there: a format
/// character of Unicode 12.1 that is no format character any more (Arabic
/// number signs), possibly after a `.`, `'` or `:`, or the vertical comma or
/// semicolon, which joined digits in 12.1.
fn joins_in_12_1(after: &str) -> bool {
    let mut chars = after.chars();
    match chars.next() {
        Some('\u{FE10}' | '\u{FE14}') => true,
        Some(c) if is_demoted_format(c) => true,
        Some(c) if !matches!(word_break(c), Wb::Letter | Wb::Numeric | Wb::Other) => {
            chars.take_while(|&c| is_extender(c)).any(is_demoted_format)
        }
        _ => false,
    }
}

/// `class_of(c) == Class::DemotedFormat`, quick for ASCII and common letters.
fn is_demoted_format(c: char) -> bool {
    !c.is_ascii() && !is_common_letter(c) && class_of(c) == Class::DemotedFormat
}

/// `{ComplexContextEx}+`: the length of the run of Southeast Asian characters,
/// each with its extenders, at the start of `text`.
fn south_east_asian_len(text: &str) -> usize {
    let mut at = 0;
    while let Some(c) = text[at..].chars().next() {
        if class_of(c) != Class::SouthEastAsian {
            break;
        }
        at += c.len_utf8();
        at += run_len(text, at, is_extender);
    }
    at
}

/// Whether a segment starting with `_`-like connectors also holds the letter
/// or digit that Lucene needs to make a token of it.
fn has_word_core(seg: &str) -> bool {
    seg.chars().any(|c| {
        c.is_ascii_alphanumeric() || (!c.is_ascii() && class_of(c) == Class::Word && !is_mark(c))
    })
}

/// In a segment (`rest[..seg_len]`) that yields no token at its start, the
/// first later offset where Lucene still starts one: UAX #29 attaches
/// skin-tone modifiers, `U+200D` (+ pictograph), and Thai combining marks to
/// spaces and punctuation, while for Lucene they begin an `<EMOJI>` or
/// `<SOUTHEAST_ASIAN>` token.  A `U+200D` run at the end of the segment
/// counts when a pictograph follows it.
fn token_start_inside(rest: &str, seg_len: usize) -> Option<usize> {
    let seg = &rest[..seg_len];
    if seg.is_ascii() {
        return None;
    }
    let mut zwj_run: Option<usize> = None;
    for (i, c) in seg.char_indices().skip(1) {
        if c == ZWJ {
            zwj_run.get_or_insert(i);
            continue;
        }
        match class_of(c) {
            Class::EmojiModifier => return Some(i),
            Class::SouthEastAsian => return Some(i),
            _ if zwj_run.is_some() && is_pictographic(c) => return zwj_run,
            // Pictographs that the segmenter counts as digits (`_🯰`).
            Class::Pictographic => return Some(i),
            _ => {}
        }
        zwj_run = None;
    }
    let next = rest[seg_len..].chars().next()?;
    if is_pictographic(next) {
        return zwj_run;
    }
    None
}

/// Length of Lucene's `<EMOJI>` match at the start of `text`, or 0.
fn emoji_len(text: &str) -> usize {
    match text.chars().next() {
        None => 0,
        Some('#' | '*') => keycap_len(text),
        Some(c) if class_of(c) == Class::RegionalIndicator => flag_len(text),
        Some(_) => zwj_sequence_len(text),
    }
}

/// `\p{WB:Format}`, `\p{WB:Extend}`, `\p{WB:ZWJ}` (Unicode 12.1): characters
/// that ride along with the preceding one.
fn is_extender(c: char) -> bool {
    match c as u32 {
        0..=0x7F => false,
        // U+200D, variation selectors, keycap, skin tones, tags
        0x200D | 0xFE00..=0xFE0F | 0x20E3 | 0x1F3FB..=0x1F3FF | 0xE0020..=0xE007F => true,
        0xE0100..=0xE01EF => true,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x8E2 | 0x180E | 0x200E..=0x200F => true,
        0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB => true,
        0x110BD | 0x110CD | 0x13430..=0x13438 | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A => true,
        0xE0001 => true,
        _ => !is_pictographic(c) && is_mark(c),
    }
}

/// `ExtFmtZwjSansPresSel`: extenders other than the presentation selectors.
fn is_emoji_extender(c: char) -> bool {
    c != TEXT_PRESENTATION && c != EMOJI_PRESENTATION && is_extender(c)
}

/// Byte length of the leading run of `text[from..]` whose chars satisfy `pred`.
fn run_len(text: &str, from: usize, pred: impl Fn(char) -> bool) -> usize {
    text[from..]
        .char_indices()
        .find(|&(_, c)| !pred(c))
        .map_or(text.len() - from, |(i, _)| i)
}

/// `{KeyCapBaseCharEx} {EmojiPresentationSelector}? {KeyCapEx}`; the base is
/// `#` or `*` (digit keycaps are matched at least as long by `<NUM>`).
fn keycap_len(text: &str) -> usize {
    let base = 1;
    let ext = base + run_len(text, base, is_emoji_extender);
    let mut best = 0;
    if text[base..ext].contains(KEYCAP) {
        best = ext;
    }
    let selector_keycap = "\u{FE0F}\u{20E3}";
    if text[ext..].starts_with(selector_keycap) {
        let after = ext + selector_keycap.len();
        best = after + run_len(text, after, is_emoji_extender);
    }
    best
}

/// `{RegionalIndicatorEx}{2}`.
fn flag_len(text: &str) -> usize {
    let mut at = 0;
    for _ in 0..2 {
        match text[at..].chars().next() {
            Some(c) if class_of(c) == Class::RegionalIndicator => at += c.len_utf8(),
            _ => return 0,
        }
        at += run_len(text, at, is_extender);
    }
    at
}

/// `{EmojiCharOrPresSeqOrModSeq} ( \p{WB:ZWJ} {EmojiCharOrPresSeqOrModSeq} )*`,
/// tag sequences included (tag characters are extenders).  Each element is
/// `U+200D`* then a pictograph with extenders and an optional `U+FE0F`, or a
/// skin-tone modifier with extenders.
fn zwj_sequence_len(text: &str) -> usize {
    let element_at = |at: usize| -> Option<bool> {
        // Some(true) for a pictograph, Some(false) for a skin-tone modifier.
        let c = text[at..].chars().next()?;
        if is_pictographic(c) {
            Some(true)
        } else if class_of(c) == Class::EmojiModifier {
            Some(false)
        } else {
            None
        }
    };
    // Only a pictograph may be preceded by U+200D (`\p{WB:ZWJ}* {EmojiCharEx}`).
    let mut at = run_len(text, 0, |c| c == ZWJ);
    match element_at(at) {
        Some(true) => {}
        Some(false) if at == 0 => {}
        _ => return 0,
    }
    let mut first_element = true;
    while let Some(core) = text[at..].chars().next() {
        let is_modifier = !is_pictographic(core);
        at += core.len_utf8();
        let ext_start = at;
        at += run_len(text, at, is_emoji_extender);
        // A U+200D ending the extenders may instead join the next element.
        let mut joiner = text[ext_start..at].ends_with(ZWJ);
        if !is_modifier && text[at..].starts_with(EMOJI_PRESENTATION) {
            at += EMOJI_PRESENTATION.len_utf8();
            joiner = false;
            // `{TagSpec}+ {TagTerm}` may follow the first element (without
            // U+FE0F the extenders already took the tags).
            if first_element {
                let tags = run_len(text, at, |c| matches!(c, '\u{E0020}'..='\u{E007E}'));
                if tags > 0 && text[at + tags..].starts_with('\u{E007F}') {
                    return at + tags + '\u{E007F}'.len_utf8();
                }
            }
        }
        first_element = false;
        let zwjs = run_len(text, at, |c| c == ZWJ);
        let continues = match element_at(at + zwjs) {
            Some(true) => joiner || zwjs > 0,
            // One U+200D joins a modifier; more would have to precede it.
            Some(false) => joiner || zwjs == ZWJ.len_utf8(),
            None => false,
        };
        if !continues {
            break;
        }
        at += zwjs;
    }
    at
}

/// Word-break classes used by `alphanum_len`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wb {
    Letter,
    Hebrew,
    Numeric,
    Katakana,
    ExtendNumLet,
    MidLetter,
    MidNum,
    MidNumLet,
    SingleQuote,
    DoubleQuote,
    Extend,
    Other,
}

fn word_break(c: char) -> Wb {
    match c {
        'a'..='z' | 'A'..='Z' => return Wb::Letter,
        '0'..='9' | '\u{66B}' => return Wb::Numeric,
        '_' => return Wb::ExtendNumLet,
        '\'' => return Wb::SingleQuote,
        '"' => return Wb::DoubleQuote,
        '.' | '\u{2018}' | '\u{2019}' | '\u{2024}' | '\u{FE52}' | '\u{FF07}' | '\u{FF0E}' => {
            return Wb::MidNumLet;
        }
        ':' | '\u{B7}' | '\u{387}' | '\u{5F4}' | '\u{2027}' | '\u{FE13}' | '\u{FE55}'
        | '\u{FF1A}' => return Wb::MidLetter,
        ',' | ';' | '\u{37E}' | '\u{589}' | '\u{60C}' | '\u{60D}' | '\u{66C}' | '\u{7F8}'
        | '\u{2044}' | '\u{FE10}' | '\u{FE14}' | '\u{FE50}' | '\u{FE54}' | '\u{FF0C}'
        | '\u{FF1B}' => return Wb::MidNum,
        _ if c.is_ascii() => return Wb::Other,
        _ => {}
    }
    match c as u32 {
        0x5D0..=0x5EA | 0x5EF..=0x5F2 | 0xFB1D | 0xFB1F..=0xFB28 | 0xFB2A..=0xFB36 => Wb::Hebrew,
        0xFB38..=0xFB3C | 0xFB3E | 0xFB40..=0xFB41 | 0xFB43..=0xFB44 | 0xFB46..=0xFB4F => {
            Wb::Hebrew
        }
        0x3031..=0x3035 | 0x309B..=0x309C | 0x30A0..=0x30FA | 0x30FC..=0x30FF => Wb::Katakana,
        0x31F0..=0x31FF | 0x32D0..=0x32FE | 0x3300..=0x3357 | 0xFF66..=0xFF9D => Wb::Katakana,
        0x1B000 | 0x1B164..=0x1B167 => Wb::Katakana,
        _ => match class_of(c) {
            _ if is_extender(c) => Wb::Extend,
            Class::ExtendNumLet => Wb::ExtendNumLet,
            Class::Word if c.is_numeric() && !c.is_alphabetic() => Wb::Numeric,
            Class::Word => Wb::Letter,
            _ => Wb::Other,
        },
    }
}

/// Length of the longest match of Lucene's `<ALPHANUM>` rule (which covers
/// `<NUM>`, `<KATAKANA>` and `<HANGUL>`) at the start of `text`, or 0.
///
/// Only needed where the rule is not UAX #29: around Hebrew quotes.  Lucene
/// joins `ה'` with a following number or `_`, does not let a `"` join
/// (`צה"ל`) share a letter with a `.`, `'` or `:` join, and stops `a.ב'`
/// before the quote.
fn alphanum_len(text: &str) -> usize {
    // States of the grammar's automaton, as a bit set.
    const START: u16 = 1; // only `_` so far
    const KATAKANA: u16 = 1 << 1;
    const AFTER_CONNECTOR: u16 = 1 << 2; // `_` after a complete part
    const LETTER: u16 = 1 << 3;
    const LETTER_MID: u16 = 1 << 4; // letter + `.`/`'`/`:`, wants a letter
    const HEBREW: u16 = 1 << 5; // a Hebrew letter that may take `'` or `"`
    const HEBREW_DQ: u16 = 1 << 6; // Hebrew letter + `"`, wants a Hebrew letter
    const HEBREW_DONE: u16 = 1 << 7;
    const NUMBER: u16 = 1 << 8;
    const NUMBER_MID: u16 = 1 << 9; // digit + `.`/`,`/`'`, wants a digit
    const ACCEPTING: u16 = KATAKANA | AFTER_CONNECTOR | LETTER | HEBREW_DONE | NUMBER;
    // A part (letters, digits, katakana run) may start after these.
    const PART_START: u16 = START | AFTER_CONNECTOR;
    const PART_END: u16 = LETTER | HEBREW_DONE | NUMBER;

    let mut state = START;
    let mut best = 0;
    for (i, c) in text.char_indices() {
        let wb = word_break(c);
        if wb == Wb::Extend && i > 0 {
            if state & ACCEPTING != 0 {
                best = i + c.len_utf8();
            }
            continue;
        }
        let mut next = 0;
        match wb {
            Wb::ExtendNumLet => {
                if state & START != 0 {
                    next |= START;
                }
                if state & (AFTER_CONNECTOR | KATAKANA | PART_END) != 0 {
                    next |= AFTER_CONNECTOR;
                }
            }
            Wb::Katakana => {
                if state & (PART_START | KATAKANA) != 0 {
                    next |= KATAKANA;
                }
            }
            Wb::Letter | Wb::Hebrew => {
                if state & (PART_START | PART_END | LETTER_MID) != 0 {
                    next |= LETTER;
                }
                if wb == Wb::Hebrew {
                    if state & (PART_START | PART_END) != 0 {
                        next |= HEBREW;
                    }
                    if state & HEBREW_DQ != 0 {
                        next |= HEBREW_DONE;
                    }
                }
            }
            Wb::Numeric => {
                if state & (PART_START | PART_END | NUMBER_MID) != 0 {
                    next |= NUMBER;
                }
            }
            Wb::MidLetter | Wb::MidNum | Wb::MidNumLet | Wb::SingleQuote => {
                if wb != Wb::MidNum && state & LETTER != 0 {
                    next |= LETTER_MID;
                }
                if wb != Wb::MidLetter && state & NUMBER != 0 {
                    next |= NUMBER_MID;
                }
                if wb == Wb::SingleQuote && state & HEBREW != 0 {
                    next |= HEBREW_DONE;
                }
            }
            Wb::DoubleQuote => {
                if state & HEBREW != 0 {
                    next |= HEBREW_DQ;
                }
            }
            Wb::Extend | Wb::Other => {}
        }
        state = next;
        if state == 0 {
            break;
        }
        if state & ACCEPTING != 0 {
            best = i + c.len_utf8();
        }
    }
    best
}

/// Whether UAX #29 and Lucene's grammar may disagree on this word segment:
/// it holds a `"` (only found between Hebrew letters) or ends with `'` (only
/// kept after a Hebrew letter).
fn has_hebrew_quote(seg: &str) -> bool {
    if seg.contains('"') {
        return true;
    }
    seg.rfind('\'')
        .is_some_and(|at| seg[at + 1..].chars().all(is_extender))
}

/// Lucene's class of every non-ASCII code point for which "`Word` if
/// `Alphabetic`, else `Other`" is wrong: Han and Hiragana scripts,
/// Line_Break = Complex_Context, Extended_Pictographic, skin tones, regional
/// indicators, connectors, and the word-break differences between current
/// Unicode and Unicode 12.1 (digits, modifier letters, Tangut, Nüshu, and
/// every character assigned after 12.1 that current Unicode would make part
/// of a token).  Sorted, non-overlapping ranges from Unicode 12.1 data.
#[rustfmt::skip]
const CLASS_TABLE: &[(u32, u32, Class)] = {
    use Class::*;
    &[
        (0x00A9, 0x00A9, Pictographic),
        (0x00AE, 0x00AE, Pictographic),
        (0x00B8, 0x00B8, DemotedOther),
        (0x02C2, 0x02C5, Word),
        (0x02D2, 0x02D7, Word),
        (0x02DE, 0x02DF, Word),
        (0x02E5, 0x02EB, DemotedOther),
        (0x02ED, 0x02ED, Word),
        (0x02EF, 0x02FF, Word),
        (0x055A, 0x055A, DemotedOther),
        (0x055B, 0x055C, Word),
        (0x055E, 0x055E, Word),
        (0x055F, 0x055F, DemotedOther),
        (0x058A, 0x058A, DemotedOther),
        (0x05F3, 0x05F3, Word),
        (0x0600, 0x0605, DemotedFormat),
        (0x0660, 0x0669, Word),
        (0x066B, 0x066B, Word),
        (0x06DD, 0x06DD, DemotedFormat),
        (0x06F0, 0x06F9, Word),
        (0x070F, 0x070F, DemotedFormat),
        (0x07C0, 0x07C9, Word),
        (0x0870, 0x0887, DemotedOther),
        (0x0889, 0x0891, DemotedOther),
        (0x0897, 0x089F, DemotedOther),
        (0x08B5, 0x08B5, DemotedOther),
        (0x08BE, 0x08D2, DemotedOther),
        (0x08E2, 0x08E2, DemotedFormat),
        (0x0966, 0x096F, Word),
        (0x09E6, 0x09EF, Word),
        (0x0A66, 0x0A6F, Word),
        (0x0AE6, 0x0AEF, Word),
        (0x0B55, 0x0B55, DemotedOther),
        (0x0B66, 0x0B6F, Word),
        (0x0BE6, 0x0BEF, Word),
        (0x0C3C, 0x0C3C, DemotedOther),
        (0x0C5C, 0x0C5D, DemotedOther),
        (0x0C66, 0x0C6F, Word),
        (0x0CDC, 0x0CDD, DemotedOther),
        (0x0CE6, 0x0CEF, Word),
        (0x0CF3, 0x0CF3, DemotedOther),
        (0x0D04, 0x0D04, DemotedOther),
        (0x0D66, 0x0D6F, Word),
        (0x0D81, 0x0D81, DemotedOther),
        (0x0DE6, 0x0DEF, Word),
        (0x0E01, 0x0E3A, SouthEastAsian),
        (0x0E40, 0x0E4E, SouthEastAsian),
        (0x0E50, 0x0E59, Word),
        (0x0E81, 0x0E82, SouthEastAsian),
        (0x0E84, 0x0E84, SouthEastAsian),
        (0x0E86, 0x0E8A, SouthEastAsian),
        (0x0E8C, 0x0EA3, SouthEastAsian),
        (0x0EA5, 0x0EA5, SouthEastAsian),
        (0x0EA7, 0x0EBD, SouthEastAsian),
        (0x0EC0, 0x0EC4, SouthEastAsian),
        (0x0EC6, 0x0EC6, SouthEastAsian),
        (0x0EC8, 0x0ECD, SouthEastAsian),
        (0x0ECE, 0x0ECE, DemotedOther),
        (0x0ED0, 0x0ED9, Word),
        (0x0EDC, 0x0EDF, SouthEastAsian),
        (0x0F20, 0x0F29, Word),
        (0x1000, 0x103F, SouthEastAsian),
        (0x1040, 0x1049, Word),
        (0x1050, 0x108F, SouthEastAsian),
        (0x1090, 0x1099, Word),
        (0x109A, 0x109F, SouthEastAsian),
        (0x170D, 0x170D, DemotedOther),
        (0x1715, 0x1715, DemotedOther),
        (0x171F, 0x171F, DemotedOther),
        (0x1780, 0x17D3, SouthEastAsian),
        (0x17D7, 0x17D7, SouthEastAsian),
        (0x17DC, 0x17DD, SouthEastAsian),
        (0x17E0, 0x17E9, Word),
        (0x180F, 0x180F, DemotedOther),
        (0x1810, 0x1819, Word),
        (0x1946, 0x194F, Word),
        (0x1950, 0x196D, SouthEastAsian),
        (0x1970, 0x1974, SouthEastAsian),
        (0x1980, 0x19AB, SouthEastAsian),
        (0x19B0, 0x19C9, SouthEastAsian),
        (0x19D0, 0x19D9, Word),
        (0x19DA, 0x19DA, SouthEastAsian),
        (0x19DE, 0x19DF, SouthEastAsian),
        (0x1A20, 0x1A5E, SouthEastAsian),
        (0x1A60, 0x1A7C, SouthEastAsian),
        (0x1A80, 0x1A89, Word),
        (0x1A90, 0x1A99, Word),
        (0x1AA0, 0x1AAD, SouthEastAsian),
        (0x1ABF, 0x1ADD, DemotedOther),
        (0x1AE0, 0x1AEB, DemotedOther),
        (0x1B4C, 0x1B4C, DemotedOther),
        (0x1B50, 0x1B59, Word),
        (0x1BB0, 0x1BB9, Word),
        (0x1C40, 0x1C49, Word),
        (0x1C50, 0x1C59, Word),
        (0x1C89, 0x1C8A, DemotedOther),
        (0x1DFA, 0x1DFA, DemotedOther),
        (0x202F, 0x202F, ExtendNumLet),
        (0x203C, 0x203C, Pictographic),
        (0x203F, 0x2040, ExtendNumLet),
        (0x2049, 0x2049, Pictographic),
        (0x2054, 0x2054, ExtendNumLet),
        (0x2122, 0x2122, Pictographic),
        (0x2194, 0x2199, Pictographic),
        (0x21A9, 0x21AA, Pictographic),
        (0x231A, 0x231B, Pictographic),
        (0x2328, 0x2328, Pictographic),
        (0x2388, 0x2388, Pictographic),
        (0x23CF, 0x23CF, Pictographic),
        (0x23E9, 0x23F3, Pictographic),
        (0x23F8, 0x23FA, Pictographic),
        (0x25AA, 0x25AB, Pictographic),
        (0x25B6, 0x25B6, Pictographic),
        (0x25C0, 0x25C0, Pictographic),
        (0x25FB, 0x25FE, Pictographic),
        (0x2600, 0x2605, Pictographic),
        (0x2607, 0x2612, Pictographic),
        (0x2614, 0x2685, Pictographic),
        (0x2690, 0x2705, Pictographic),
        (0x2708, 0x2712, Pictographic),
        (0x2714, 0x2714, Pictographic),
        (0x2716, 0x2716, Pictographic),
        (0x271D, 0x271D, Pictographic),
        (0x2721, 0x2721, Pictographic),
        (0x2728, 0x2728, Pictographic),
        (0x2733, 0x2734, Pictographic),
        (0x2744, 0x2744, Pictographic),
        (0x2747, 0x2747, Pictographic),
        (0x274C, 0x274C, Pictographic),
        (0x274E, 0x274E, Pictographic),
        (0x2753, 0x2755, Pictographic),
        (0x2757, 0x2757, Pictographic),
        (0x2763, 0x2767, Pictographic),
        (0x2795, 0x2797, Pictographic),
        (0x27A1, 0x27A1, Pictographic),
        (0x27B0, 0x27B0, Pictographic),
        (0x27BF, 0x27BF, Pictographic),
        (0x2934, 0x2935, Pictographic),
        (0x2B05, 0x2B07, Pictographic),
        (0x2B1B, 0x2B1C, Pictographic),
        (0x2B50, 0x2B50, Pictographic),
        (0x2B55, 0x2B55, Pictographic),
        (0x2C2F, 0x2C2F, DemotedOther),
        (0x2C5F, 0x2C5F, DemotedOther),
        (0x2E80, 0x2E99, Han),
        (0x2E9B, 0x2EF3, Han),
        (0x2F00, 0x2FD5, Han),
        (0x3005, 0x3005, Word),
        (0x3006, 0x3006, Other),
        (0x3007, 0x3007, Han),
        (0x3021, 0x3029, Han),
        (0x3030, 0x3030, Pictographic),
        (0x3038, 0x303A, Han),
        (0x303B, 0x303B, Word),
        (0x303D, 0x303D, Pictographic),
        (0x3041, 0x3096, Hiragana),
        (0x309B, 0x309C, Word),
        (0x309D, 0x309F, Hiragana),
        (0x30A0, 0x30A0, Word),
        (0x31BB, 0x31BF, DemotedOther),
        (0x3297, 0x3297, Pictographic),
        (0x3299, 0x3299, Pictographic),
        (0x32D0, 0x32FE, Word),
        (0x3300, 0x3357, Word),
        (0x3400, 0x4DB5, Han),
        (0x4DB6, 0x4DBF, Other),
        (0x4E00, 0x9FEF, Han),
        (0x9FF0, 0x9FFF, Other),
        (0xA620, 0xA629, Word),
        (0xA708, 0xA716, DemotedOther),
        (0xA720, 0xA721, Word),
        (0xA789, 0xA78A, Word),
        (0xA7C0, 0xA7C1, DemotedOther),
        (0xA7C7, 0xA7DC, DemotedOther),
        (0xA7F1, 0xA7F6, DemotedOther),
        (0xA82C, 0xA82C, DemotedOther),
        (0xA8D0, 0xA8D9, Word),
        (0xA900, 0xA909, Word),
        (0xA9D0, 0xA9D9, Word),
        (0xA9E0, 0xA9EF, SouthEastAsian),
        (0xA9F0, 0xA9F9, Word),
        (0xA9FA, 0xA9FE, SouthEastAsian),
        (0xAA50, 0xAA59, Word),
        (0xAA60, 0xAAC2, SouthEastAsian),
        (0xAADB, 0xAADF, SouthEastAsian),
        (0xAB5B, 0xAB5B, Word),
        (0xAB68, 0xAB69, DemotedOther),
        (0xABF0, 0xABF9, Word),
        (0xF900, 0xFA6D, Han),
        (0xFA70, 0xFAD9, Han),
        (0xFE33, 0xFE34, ExtendNumLet),
        (0xFE4D, 0xFE4F, ExtendNumLet),
        (0xFF10, 0xFF19, Word),
        (0xFF3F, 0xFF3F, ExtendNumLet),
        (0x104A0, 0x104A9, Word),
        (0x10570, 0x1057A, DemotedOther),
        (0x1057C, 0x1058A, DemotedOther),
        (0x1058C, 0x10592, DemotedOther),
        (0x10594, 0x10595, DemotedOther),
        (0x10597, 0x105A1, DemotedOther),
        (0x105A3, 0x105B1, DemotedOther),
        (0x105B3, 0x105B9, DemotedOther),
        (0x105BB, 0x105BC, DemotedOther),
        (0x105C0, 0x105F3, DemotedOther),
        (0x10780, 0x10785, DemotedOther),
        (0x10787, 0x107B0, DemotedOther),
        (0x107B2, 0x107BA, DemotedOther),
        (0x10940, 0x10959, DemotedOther),
        (0x10D30, 0x10D39, Word),
        (0x10D40, 0x10D65, DemotedOther),
        (0x10D69, 0x10D6D, DemotedOther),
        (0x10D6F, 0x10D85, DemotedOther),
        (0x10E80, 0x10EA9, DemotedOther),
        (0x10EAB, 0x10EAC, DemotedOther),
        (0x10EB0, 0x10EB1, DemotedOther),
        (0x10EC2, 0x10EC7, DemotedOther),
        (0x10EFA, 0x10EFF, DemotedOther),
        (0x10F70, 0x10F85, DemotedOther),
        (0x10FB0, 0x10FC4, DemotedOther),
        (0x11066, 0x1106F, Word),
        (0x11070, 0x11075, DemotedOther),
        (0x110BD, 0x110BD, DemotedFormat),
        (0x110C2, 0x110C2, DemotedOther),
        (0x110CD, 0x110CD, DemotedFormat),
        (0x110F0, 0x110F9, Word),
        (0x11136, 0x1113F, Word),
        (0x11147, 0x11147, DemotedOther),
        (0x111CE, 0x111CF, DemotedOther),
        (0x111D0, 0x111D9, Word),
        (0x1123F, 0x11241, DemotedOther),
        (0x112F0, 0x112F9, Word),
        (0x11380, 0x11389, DemotedOther),
        (0x1138B, 0x1138B, DemotedOther),
        (0x1138E, 0x1138E, DemotedOther),
        (0x11390, 0x113B5, DemotedOther),
        (0x113B7, 0x113C0, DemotedOther),
        (0x113C2, 0x113C2, DemotedOther),
        (0x113C5, 0x113C5, DemotedOther),
        (0x113C7, 0x113CA, DemotedOther),
        (0x113CC, 0x113D3, DemotedOther),
        (0x113E1, 0x113E2, DemotedOther),
        (0x11450, 0x11459, Word),
        (0x11460, 0x11461, DemotedOther),
        (0x114D0, 0x114D9, Word),
        (0x11650, 0x11659, Word),
        (0x116C0, 0x116C9, Word),
        (0x116D0, 0x116E3, DemotedOther),
        (0x11700, 0x1171A, SouthEastAsian),
        (0x1171D, 0x1172B, SouthEastAsian),
        (0x11730, 0x11739, Word),
        (0x1173A, 0x1173B, SouthEastAsian),
        (0x1173F, 0x1173F, SouthEastAsian),
        (0x11740, 0x11746, DemotedOther),
        (0x118E0, 0x118E9, Word),
        (0x11900, 0x11906, DemotedOther),
        (0x11909, 0x11909, DemotedOther),
        (0x1190C, 0x11913, DemotedOther),
        (0x11915, 0x11916, DemotedOther),
        (0x11918, 0x11935, DemotedOther),
        (0x11937, 0x11938, DemotedOther),
        (0x1193B, 0x11943, DemotedOther),
        (0x11950, 0x11959, DemotedOther),
        (0x11AB0, 0x11ABF, DemotedOther),
        (0x11B60, 0x11B67, DemotedOther),
        (0x11BC0, 0x11BE0, DemotedOther),
        (0x11BF0, 0x11BF9, DemotedOther),
        (0x11C50, 0x11C59, Word),
        (0x11D50, 0x11D59, Word),
        (0x11DA0, 0x11DA9, Word),
        (0x11DB0, 0x11DDB, DemotedOther),
        (0x11DE0, 0x11DE9, DemotedOther),
        (0x11F00, 0x11F10, DemotedOther),
        (0x11F12, 0x11F3A, DemotedOther),
        (0x11F3E, 0x11F42, DemotedOther),
        (0x11F50, 0x11F5A, DemotedOther),
        (0x11FB0, 0x11FB0, DemotedOther),
        (0x12F90, 0x12FF0, DemotedOther),
        (0x1342F, 0x1342F, DemotedOther),
        (0x13439, 0x13455, DemotedOther),
        (0x13460, 0x143FA, DemotedOther),
        (0x16100, 0x16139, DemotedOther),
        (0x16A60, 0x16A69, Word),
        (0x16A70, 0x16ABE, DemotedOther),
        (0x16AC0, 0x16AC9, DemotedOther),
        (0x16B50, 0x16B59, Word),
        (0x16D40, 0x16D6C, DemotedOther),
        (0x16D70, 0x16D79, DemotedOther),
        (0x16EA0, 0x16EB8, DemotedOther),
        (0x16EBB, 0x16ED3, DemotedOther),
        (0x16FE2, 0x16FE2, Other),
        (0x16FE3, 0x16FE3, Word),
        (0x16FE4, 0x16FE4, DemotedOther),
        (0x16FF0, 0x16FF6, DemotedOther),
        (0x17000, 0x187F7, Other),
        (0x187F8, 0x187FF, DemotedOther),
        (0x18800, 0x18AF2, Other),
        (0x18AF3, 0x18CD5, DemotedOther),
        (0x18CFF, 0x18D1E, DemotedOther),
        (0x18D80, 0x18DF2, DemotedOther),
        (0x1AFF0, 0x1AFF3, DemotedOther),
        (0x1AFF5, 0x1AFFB, DemotedOther),
        (0x1AFFD, 0x1AFFE, DemotedOther),
        (0x1B001, 0x1B11E, Hiragana),
        (0x1B11F, 0x1B122, DemotedOther),
        (0x1B132, 0x1B132, DemotedOther),
        (0x1B150, 0x1B152, Hiragana),
        (0x1B155, 0x1B155, DemotedOther),
        (0x1B170, 0x1B2FB, Other),
        (0x1CCF0, 0x1CCF9, DemotedOther),
        (0x1CF00, 0x1CF2D, DemotedOther),
        (0x1CF30, 0x1CF46, DemotedOther),
        (0x1D7CE, 0x1D7FF, Word),
        (0x1DF00, 0x1DF1E, DemotedOther),
        (0x1DF25, 0x1DF2A, DemotedOther),
        (0x1E030, 0x1E06D, DemotedOther),
        (0x1E08F, 0x1E08F, DemotedOther),
        (0x1E140, 0x1E149, Word),
        (0x1E290, 0x1E2AE, DemotedOther),
        (0x1E2F0, 0x1E2F9, Word),
        (0x1E4D0, 0x1E4F9, DemotedOther),
        (0x1E5D0, 0x1E5FA, DemotedOther),
        (0x1E6C0, 0x1E6DE, DemotedOther),
        (0x1E6E0, 0x1E6F5, DemotedOther),
        (0x1E6FE, 0x1E6FF, DemotedOther),
        (0x1E7E0, 0x1E7E6, DemotedOther),
        (0x1E7E8, 0x1E7EB, DemotedOther),
        (0x1E7ED, 0x1E7EE, DemotedOther),
        (0x1E7F0, 0x1E7FE, DemotedOther),
        (0x1E950, 0x1E959, Word),
        (0x1F000, 0x1F0FF, Pictographic),
        (0x1F10D, 0x1F10F, Pictographic),
        (0x1F12F, 0x1F12F, Pictographic),
        (0x1F16C, 0x1F16F, Pictographic),
        (0x1F18E, 0x1F18E, Pictographic),
        (0x1F191, 0x1F19A, Pictographic),
        (0x1F1AD, 0x1F1E5, Pictographic),
        (0x1F1E6, 0x1F1FF, RegionalIndicator),
        (0x1F200, 0x1F200, Hiragana),
        (0x1F201, 0x1F20F, Pictographic),
        (0x1F21A, 0x1F21A, Pictographic),
        (0x1F22F, 0x1F22F, Pictographic),
        (0x1F232, 0x1F23A, Pictographic),
        (0x1F23C, 0x1F23F, Pictographic),
        (0x1F249, 0x1F3FA, Pictographic),
        (0x1F3FB, 0x1F3FF, EmojiModifier),
        (0x1F400, 0x1F53D, Pictographic),
        (0x1F546, 0x1F64F, Pictographic),
        (0x1F680, 0x1F6FF, Pictographic),
        (0x1F774, 0x1F77F, Pictographic),
        (0x1F7D5, 0x1F7FF, Pictographic),
        (0x1F80C, 0x1F80F, Pictographic),
        (0x1F848, 0x1F84F, Pictographic),
        (0x1F85A, 0x1F85F, Pictographic),
        (0x1F888, 0x1F88F, Pictographic),
        (0x1F8AE, 0x1F8FF, Pictographic),
        (0x1F90C, 0x1F93A, Pictographic),
        (0x1F93C, 0x1F945, Pictographic),
        (0x1F947, 0x1FFFD, Pictographic),
        (0x20000, 0x2A6D6, Han),
        (0x2A6D7, 0x2A6DF, Other),
        (0x2A700, 0x2B734, Han),
        (0x2B735, 0x2B73F, Other),
        (0x2B740, 0x2B81D, Han),
        (0x2B820, 0x2CEA1, Han),
        (0x2CEA2, 0x2CEAD, Other),
        (0x2CEB0, 0x2EBE0, Han),
        (0x2EBF0, 0x2EE5D, Other),
        (0x2F800, 0x2FA1D, Han),
        (0x30000, 0x3134A, Other),
        (0x31350, 0x33479, Other),
    ]
};

#[cfg(test)]
mod tests {
    use super::{CLASS_TABLE, Class, class_of, is_common_letter, tokenize};

    fn toks(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        tokenize(text, &mut |t| out.push(t));
        out
    }

    fn check(cases: &[(&str, &[&str])]) {
        for &(text, expected) in cases {
            assert_eq!(toks(text), expected, "tokens of {text:?}");
        }
    }

    #[test]
    fn possessives_and_apostrophes() {
        check(&[
            // WB6/WB7: a quote between letters stays; the possessive filter
            // runs later.
            ("John's book", &["John's", "book"]),
            ("O'Neil's dog", &["O'Neil's", "dog"]),
            ("O'Reilly's", &["O'Reilly's"]),
            ("don't", &["don't"]),
            ("you're", &["you're"]),
            // U+2019 is MidNumLet like `.`.
            ("don\u{2019}t", &["don\u{2019}t"]),
            // A trailing or leading quote has no letter on both sides.
            ("James' car", &["James", "car"]),
            ("the students\u{2019} union", &["the", "students", "union"]),
            ("rock 'n' roll", &["rock", "n", "roll"]),
            ("'quoted'", &["quoted"]),
            ("\"QUOTED\" word", &["QUOTED", "word"]),
        ]);
    }

    #[test]
    fn hyphens_and_punctuation_split() {
        check(&[
            // `-`, `/`, `,` between letters and dashes are WB Other: WB999.
            ("state-of-the-art", &["state", "of", "the", "art"]),
            ("e-mail", &["e", "mail"]),
            ("well\u{2014}known", &["well", "known"]),
            ("some-dashed-phrase", &["some", "dashed", "phrase"]),
            ("dogs,chase,cats", &["dogs", "chase", "cats"]),
            ("ac/dc", &["ac", "dc"]),
            ("foo      bar .  FOO <> BAR", &["foo", "bar", "FOO", "BAR"]),
            (
                "C embedded developers wanted",
                &["C", "embedded", "developers", "wanted"],
            ),
        ]);
    }

    #[test]
    fn numbers() {
        check(&[
            // WB11/WB12: `.` `,` between digits; <NUM>.
            ("3.5", &["3.5"]),
            ("1,000", &["1,000"]),
            ("1,000.50", &["1,000.50"]),
            ("21.35", &["21.35"]),
            ("216.239.63.104", &["216.239.63.104"]),
            ("David has 5000 bones", &["David", "has", "5000", "bones"]),
            // Symbols are dropped; `-` and `:` (MidLetter only) split digits.
            ("$100", &["100"]),
            ("50%", &["50"]),
            ("2024-01-15", &["2024", "01", "15"]),
            ("12:30", &["12", "30"]),
            // WB9/WB10: letters and digits join.
            ("1e10", &["1e10"]),
            ("0x1F", &["0x1F"]),
            ("R2D2 C3PO", &["R2D2", "C3PO"]),
            ("B2B", &["B2B"]),
            ("2B", &["2B"]),
            // U+202F is ExtendNumLet in Unicode 12.1 (WB13a/b).
            ("10\u{202F}000", &["10\u{202F}000"]),
            ("bonjour\u{202F}!", &["bonjour\u{202F}"]),
            // Superscripts and fractions are not WB Numeric.
            ("x\u{B2}", &["x"]),
            ("\u{BD}", &[]),
        ]);
    }

    #[test]
    fn abbreviations_urls_and_emails() {
        check(&[
            // WB6/WB7: `.` between letters; a final `.` has no letter after it.
            ("U.S.A.", &["U.S.A"]),
            ("e.g.", &["e.g"]),
            ("Ph.D.", &["Ph.D"]),
            ("i.e., this", &["i.e", "this"]),
            ("www.example.co.uk", &["www.example.co.uk"]),
            // `/`, `?`, `=`, `&`, `#`, `@` split; `:` joins letters only.
            (
                "https://www.example.com/path/to?q=1&r=2#frag",
                &[
                    "https",
                    "www.example.com",
                    "path",
                    "to",
                    "q",
                    "1",
                    "r",
                    "2",
                    "frag",
                ],
            ),
            (
                "http://localhost:8080/api/v1",
                &["http", "localhost", "8080", "api", "v1"],
            ),
            ("user.name@example.com", &["user.name", "example.com"]),
            (
                "first_last@mail-server.org",
                &["first_last", "mail", "server.org"],
            ),
        ]);
    }

    #[test]
    fn underscores() {
        check(&[
            // WB13a/WB13b: ExtendNumLet joins, and may lead or trail.
            ("auth_domain", &["auth_domain"]),
            ("snake_case_name", &["snake_case_name"]),
            ("__init__", &["__init__"]),
            // ...but makes no token without a letter or digit.
            ("_", &[]),
            ("___", &[]),
            ("_ _", &[]),
        ]);
    }

    #[test]
    fn mid_letter_and_mid_num() {
        // Lucene's TestStandardAnalyzer.testMid: two Mid characters in a row
        // split; `:` is MidLetter, `.` MidNumLet, `,` MidNum.
        check(&[
            ("A:B", &["A:B"]),
            ("A::B", &["A", "B"]),
            ("1.2", &["1.2"]),
            ("A.B", &["A.B"]),
            ("1..2", &["1", "2"]),
            ("A..B", &["A", "B"]),
            ("1,2", &["1,2"]),
            ("1,,2", &["1", "2"]),
            ("A.:B", &["A", "B"]),
            ("A:.B", &["A", "B"]),
            ("1,.2", &["1", "2"]),
            ("1.,2", &["1", "2"]),
            ("A:B_A:B", &["A:B_A:B"]),
            ("A:B_A::B", &["A:B_A", "B"]),
            ("1.2_1.2", &["1.2_1.2"]),
            ("A.B_A.B", &["A.B_A.B"]),
            ("1.2_1..2", &["1.2_1", "2"]),
            ("A.B_A..B", &["A.B_A", "B"]),
            ("1,2_1,2", &["1,2_1,2"]),
            ("1,2_1,,2", &["1,2_1", "2"]),
            ("C_A.:B", &["C_A", "B"]),
            ("C_A:.B", &["C_A", "B"]),
            ("3_1,.2", &["3_1", "2"]),
            ("3_1.,2", &["3_1", "2"]),
        ]);
    }

    #[test]
    fn accents() {
        check(&[
            (
                "caf\u{E9} na\u{EF}ve r\u{E9}sum\u{E9}",
                &["caf\u{E9}", "na\u{EF}ve", "r\u{E9}sum\u{E9}"],
            ),
            // WB4: combining marks stay with their letter (LUCENE-1545).
            ("cafe\u{301}", &["cafe\u{301}"]),
            ("mo\u{364}chte", &["mo\u{364}chte"]),
            // A combining mark with nothing before it is dropped.
            ("\u{301}abc", &["abc"]),
        ]);
    }

    #[test]
    fn cjk() {
        check(&[
            // <IDEOGRAPHIC>: one token per Han character; fullwidth digits
            // and letters are WB Numeric / ALetter.
            (
                "我是中国人。 １２３４ Ｔｅｓｔｓ ",
                &["我", "是", "中", "国", "人", "１２３４", "Ｔｅｓｔｓ"],
            ),
            ("𩬅艱鍟䇹愯瀛", &["𩬅", "艱", "鍟", "䇹", "愯", "瀛"]),
            // <HIRAGANA> one per character, <KATAKANA> runs (with `ー`).
            ("仮名遣い カタカナ", &["仮", "名", "遣", "い", "カタカナ"]),
            (
                "東京タワーに行きました",
                &["東", "京", "タワー", "に", "行", "き", "ま", "し", "た"],
            ),
            // <HANGUL>: syllable runs.
            ("안녕하세요 한글입니다", &["안녕하세요", "한글입니다"]),
            ("훈민정음", &["훈민정음"]),
            // Combining voiced sound marks stay attached.
            ("ざ", &["ざ"]),
            ("ザ", &["ザ"]),
            ("壹\u{3099}", &["壹\u{3099}"]),
            ("아\u{3099}", &["아\u{3099}"]),
        ]);
    }

    #[test]
    fn southeast_asian_runs() {
        check(&[
            // <SOUTHEAST_ASIAN>: Line_Break = Complex_Context runs are kept
            // whole; Thai digits are <NUM>.
            (
                "การที่ได้ต้องแสดงว่างานดี. แล้วเธอจะไปไหน? ๑๒๓๔",
                &["การที่ได้ต้องแสดงว่างานดี", "แล้วเธอจะไปไหน", "๑๒๓๔"],
            ),
            (
                "ສາທາລະນະລັດ ປະຊາທິປະໄຕ ປະຊາຊົນລາວ",
                &["ສາທາລະນະລັດ", "ປະຊາທິປະໄຕ", "ປະຊາຊົນລາວ"],
            ),
            ("မြန်မာ ភាសាខ្មែរ", &["မြန်မာ", "ភាសាខ្មែរ"]),
        ]);
    }

    #[test]
    fn other_scripts() {
        // Lucene's TestStandardAnalyzer expectations.
        check(&[
            (
                "Վիքիպեդիայի 13 միլիոն հոդվածները (4,600` հայերեն վիքիպեդիայում) գրվել են կամավորների կողմից ու համարյա բոլոր հոդվածները կարող է խմբագրել ցանկաց մարդ ով կարող է բացել Վիքիպեդիայի կայքը։",
                &[
                    "Վիքիպեդիայի",
                    "13",
                    "միլիոն",
                    "հոդվածները",
                    "4,600",
                    "հայերեն",
                    "վիքիպեդիայում",
                    "գրվել",
                    "են",
                    "կամավորների",
                    "կողմից",
                    "ու",
                    "համարյա",
                    "բոլոր",
                    "հոդվածները",
                    "կարող",
                    "է",
                    "խմբագրել",
                    "ցանկաց",
                    "մարդ",
                    "ով",
                    "կարող",
                    "է",
                    "բացել",
                    "Վիքիպեդիայի",
                    "կայքը",
                ],
            ),
            (
                "ዊኪፔድያ የባለ ብዙ ቋንቋ የተሟላ ትክክለኛና ነጻ መዝገበ ዕውቀት (ኢንሳይክሎፒዲያ) ነው። ማንኛውም",
                &[
                    "ዊኪፔድያ",
                    "የባለ",
                    "ብዙ",
                    "ቋንቋ",
                    "የተሟላ",
                    "ትክክለኛና",
                    "ነጻ",
                    "መዝገበ",
                    "ዕውቀት",
                    "ኢንሳይክሎፒዲያ",
                    "ነው",
                    "ማንኛውም",
                ],
            ),
            (
                "الفيلم الوثائقي الأول عن ويكيبيديا يسمى \"الحقيقة بالأرقام: قصة ويكيبيديا\" (بالإنجليزية: Truth in Numbers: The Wikipedia Story)، سيتم إطلاقه في 2008.",
                &[
                    "الفيلم",
                    "الوثائقي",
                    "الأول",
                    "عن",
                    "ويكيبيديا",
                    "يسمى",
                    "الحقيقة",
                    "بالأرقام",
                    "قصة",
                    "ويكيبيديا",
                    "بالإنجليزية",
                    "Truth",
                    "in",
                    "Numbers",
                    "The",
                    "Wikipedia",
                    "Story",
                    "سيتم",
                    "إطلاقه",
                    "في",
                    "2008",
                ],
            ),
            (
                "ܘܝܩܝܦܕܝܐ (ܐܢܓܠܝܐ: Wikipedia) ܗܘ ܐܝܢܣܩܠܘܦܕܝܐ ܚܐܪܬܐ ܕܐܢܛܪܢܛ ܒܠܫܢ̈ܐ ܣܓܝܐ̈ܐ܂ ܫܡܗ ܐܬܐ ܡܢ ܡ̈ܠܬܐ ܕ\"ܘܝܩܝ\" ܘ\"ܐܝܢܣܩܠܘܦܕܝܐ\"܀",
                &[
                    "ܘܝܩܝܦܕܝܐ",
                    "ܐܢܓܠܝܐ",
                    "Wikipedia",
                    "ܗܘ",
                    "ܐܝܢܣܩܠܘܦܕܝܐ",
                    "ܚܐܪܬܐ",
                    "ܕܐܢܛܪܢܛ",
                    "ܒܠܫܢ̈ܐ",
                    "ܣܓܝܐ̈ܐ",
                    "ܫܡܗ",
                    "ܐܬܐ",
                    "ܡܢ",
                    "ܡ̈ܠܬܐ",
                    "ܕ",
                    "ܘܝܩܝ",
                    "ܘ",
                    "ܐܝܢܣܩܠܘܦܕܝܐ",
                ],
            ),
            (
                "এই বিশ্বকোষ পরিচালনা করে উইকিমিডিয়া ফাউন্ডেশন (একটি অলাভজনক সংস্থা)। উইকিপিডিয়ার শুরু ১৫ জানুয়ারি, ২০০১ সালে। এখন পর্যন্ত ২০০টিরও বেশী ভাষায় উইকিপিডিয়া রয়েছে।",
                &[
                    "এই",
                    "বিশ্বকোষ",
                    "পরিচালনা",
                    "করে",
                    "উইকিমিডিয়া",
                    "ফাউন্ডেশন",
                    "একটি",
                    "অলাভজনক",
                    "সংস্থা",
                    "উইকিপিডিয়ার",
                    "শুরু",
                    "১৫",
                    "জানুয়ারি",
                    "২০০১",
                    "সালে",
                    "এখন",
                    "পর্যন্ত",
                    "২০০টিরও",
                    "বেশী",
                    "ভাষায়",
                    "উইকিপিডিয়া",
                    "রয়েছে",
                ],
            ),
            (
                "ویکی پدیای انگلیسی در تاریخ ۲۵ دی ۱۳۷۹ به صورت مکملی برای دانشنامهٔ تخصصی نوپدیا نوشته شد.",
                &[
                    "ویکی",
                    "پدیای",
                    "انگلیسی",
                    "در",
                    "تاریخ",
                    "۲۵",
                    "دی",
                    "۱۳۷۹",
                    "به",
                    "صورت",
                    "مکملی",
                    "برای",
                    "دانشنامهٔ",
                    "تخصصی",
                    "نوپدیا",
                    "نوشته",
                    "شد",
                ],
            ),
            (
                "Γράφεται σε συνεργασία από εθελοντές με το λογισμικό wiki, κάτι που σημαίνει ότι άρθρα μπορεί να προστεθούν ή να αλλάξουν από τον καθένα.",
                &[
                    "Γράφεται",
                    "σε",
                    "συνεργασία",
                    "από",
                    "εθελοντές",
                    "με",
                    "το",
                    "λογισμικό",
                    "wiki",
                    "κάτι",
                    "που",
                    "σημαίνει",
                    "ότι",
                    "άρθρα",
                    "μπορεί",
                    "να",
                    "προστεθούν",
                    "ή",
                    "να",
                    "αλλάξουν",
                    "από",
                    "τον",
                    "καθένα",
                ],
            ),
            (
                "སྣོན་མཛོད་དང་ལས་འདིས་བོད་ཡིག་མི་ཉམས་གོང་འཕེལ་དུ་གཏོང་བར་ཧ་ཅང་དགེ་མཚན་མཆིས་སོ། །",
                &[
                    "སྣོན",
                    "མཛོད",
                    "དང",
                    "ལས",
                    "འདིས",
                    "བོད",
                    "ཡིག",
                    "མི",
                    "ཉམས",
                    "གོང",
                    "འཕེལ",
                    "དུ",
                    "གཏོང",
                    "བར",
                    "ཧ",
                    "ཅང",
                    "དགེ",
                    "མཚན",
                    "མཆིས",
                    "སོ",
                ],
            ),
        ]);
    }

    #[test]
    fn emoji() {
        check(&[
            // <EMOJI>: single pictographs, also between letters and ideographs.
            ("💩 💩💩", &["💩", "💩", "💩"]),
            ("poo💩poo", &["poo", "💩", "poo"]),
            ("💩中國💩", &["💩", "中", "國", "💩"]),
            ("I ❤\u{FE0F} NY", &["I", "❤\u{FE0F}", "NY"]),
            // U+200D sequences are one token.
            (
                "👩\u{200D}❤\u{FE0F}\u{200D}👩",
                &["👩\u{200D}❤\u{FE0F}\u{200D}👩"],
            ),
            (
                "👨\u{200D}👩\u{200D}👧\u{200D}👦",
                &["👨\u{200D}👩\u{200D}👧\u{200D}👦"],
            ),
            // Skin-tone modifiers stay with their base, even inside a sequence.
            ("👍🏽", &["👍🏽"]),
            ("👋🏻 hi", &["👋🏻", "hi"]),
            ("👨🏼\u{200D}⚕\u{FE0F}", &["👨🏼\u{200D}⚕\u{FE0F}"]),
            // Regional indicators pair up into flags.
            ("🇺🇸🇺🇸", &["🇺🇸", "🇺🇸"]),
            // Tag sequence (flag of England).
            (
                "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
                &["🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}"],
            ),
            // Keycaps: `#` only as a keycap; digit keycaps match <NUM> too.
            ("#\u{FE0F}\u{20E3}", &["#\u{FE0F}\u{20E3}"]),
            ("3\u{FE0F}\u{20E3}", &["3\u{FE0F}\u{20E3}"]),
            ("#\u{FE0E}", &[]),
            ("3\u{FE0E}", &["3\u{FE0E}"]),
            // The text presentation selector ends an emoji and is dropped;
            // a following U+200D starts the next one.
            ("\u{2B55}\u{FE0E}", &["\u{2B55}"]),
            (
                "\u{2B55}\u{FE0E}\u{200D}\u{2B55}\u{FE0E}",
                &["\u{2B55}", "\u{200D}\u{2B55}"],
            ),
            // Extended_Pictographic symbols are emitted too.
            ("\u{A9}2024", &["\u{A9}", "2024"]),
            ("Apple\u{2122}", &["Apple", "\u{2122}"]),
        ]);
    }

    #[test]
    fn grammar_wins_over_current_segmentation() {
        check(&[
            // No WB3c in the grammar: the word keeps U+200D, the emoji is apart.
            ("a\u{200D}👍", &["a\u{200D}", "👍"]),
            // A modifier after a space starts its own <EMOJI>.
            (" 🏽", &["🏽"]),
            // `★` is a pictograph in Unicode 12.1, so the sequence holds.
            ("★\u{200D}★", &["★\u{200D}★"]),
            // Hebrew quotes: WB7a/WB7b/WB7c, and the grammar joins `ו'` with a
            // number.
            ("צה\"ל", &["צה\"ל"]),
            ("ו'1", &["ו'1"]),
            // Letters only since Unicode 12.1 (`꜈`) and Tangut end or drop.
            ("a\u{A708}b", &["a", "b"]),
            ("\u{17000}x", &["x"]),
        ]);
    }

    #[test]
    fn characters_assigned_after_unicode_12_1() {
        check(&[
            // Letters, marks and digits of later versions are not word
            // characters: dropped, and they break words.
            ("a\u{0CDD}b", &["a", "b"]),
            ("\u{0870}\u{0871} x", &["x"]),
            ("x\u{A7C0}\u{A7C1} y", &["x", "y"]),
            ("\u{0EDD}\u{0ECE} ok", &["\u{0EDD}", "ok"]),
            ("\u{1E4D0}", &[]),
            ("中\u{0ECE}", &["中"]),
            // U+1FB00–U+1FBFF were reserved pictographs: emoji tokens, even
            // the segmented digits that later became numbers.
            ("legacy \u{1FB00} block", &["legacy", "\u{1FB00}", "block"]),
            ("1\u{1FBF0}2", &["1", "\u{1FBF0}", "2"]),
            ("_\u{1FBF0}_", &["\u{1FBF0}"]),
            // Emoji of later versions are pictographs in 12.1 already.
            ("I am \u{1FAE0} today", &["I", "am", "\u{1FAE0}", "today"]),
        ]);
    }

    #[test]
    fn word_break_classes_of_unicode_12_1() {
        check(&[
            // U+19DA is a Tai Lue letter (Complex_Context), not a digit.
            (
                "a\u{19DA}b 1\u{19DA}2",
                &["a", "\u{19DA}", "b", "1", "\u{19DA}", "2"],
            ),
            ("ก\u{19DA}ข", &["ก\u{19DA}ข"]),
            // Thai marks still extend words.
            ("a\u{0E4D}b", &["a\u{0E4D}b"]),
            // Number signs are format characters: they ride along.
            ("中\u{0600}", &["中\u{0600}"]),
            ("ก\u{0600}ข", &["ก\u{0600}ข"]),
            ("モ\u{0604}ﾖ", &["モ\u{0604}ﾖ"]),
            ("h'\u{0605}x", &["h'\u{0605}x"]),
            ("x\u{2019}\u{AD}\u{0600}q", &["x\u{2019}\u{AD}\u{0600}q"]),
            ("۰߱؍\u{0601}ڂبح", &["۰߱", "ڂبح"]),
            // The vertical comma and semicolon join digits.
            ("1\u{FE10}2 1\u{FE14}2", &["1\u{FE10}2", "1\u{FE14}2"]),
        ]);
    }

    #[test]
    fn long_tokens_are_split_at_255_utf16_units() {
        let a300 = "a".repeat(300);
        assert_eq!(toks(&a300), [&a300[..255], &a300[255..]]);

        // Lucene's testMaxTokenLengthDefault.
        let b255 = "b".repeat(255);
        let text = format!("x {b255} {b255}b");
        assert_eq!(toks(&text), ["x", &b255, &b255, "b"]);

        // Counted in UTF-16: 127 supplementary digits fill 254 units.
        let digits = "\u{1D7CE}".repeat(200);
        let split = 127 * 4;
        assert_eq!(toks(&digits), [&digits[..split], &digits[split..]]);

        // A surrogate pair never straddles the limit.
        let text = format!("{}\u{1D7CE}b", "a".repeat(254));
        assert_eq!(toks(&text), [&text[..254], &text[254..]]);

        // The first chunk is the longest match inside the window: no
        // trailing `.`, and the rest resumes after it.
        let text = format!("{}.bc", "a".repeat(254));
        assert_eq!(toks(&text), [&text[..254], "bc"]);
        let dotted = "ab.".repeat(100);
        assert_eq!(toks(&dotted), [&dotted[..254], &dotted[255..299]]);

        // Southeast Asian runs are split the same way.
        let thai = "ก".repeat(300);
        assert_eq!(toks(&thai), [&thai[..255 * 3], &thai[255 * 3..]]);

        // Lucene drops `_` until its window reaches the letter.
        let text = format!("{}abc", "_".repeat(300));
        assert_eq!(toks(&text), [&text[46..301], "bc"]);
    }

    #[test]
    fn class_table_is_sorted_and_indexed() {
        for pair in CLASS_TABLE.windows(2) {
            assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:x?}");
        }
        for c in ('\u{80}'..=char::MAX).step_by(7) {
            let cp = c as u32;
            let i = CLASS_TABLE.partition_point(|&(_, hi, _)| hi < cp);
            let expected = match CLASS_TABLE.get(i) {
                Some(&(lo, _, class)) if lo <= cp => class,
                _ if c.is_alphabetic() => Class::Word,
                _ => Class::Other,
            };
            assert_eq!(class_of(c), expected, "U+{cp:04X}");
            if is_common_letter(c) {
                assert_eq!(expected, Class::Word, "U+{cp:04X}");
            }
        }
    }

    #[test]
    fn empty_and_whitespace() {
        check(&[
            ("", &[]),
            (" ", &[]),
            ("\t\n\r ", &[]),
            (".", &[]),
            ("  ...  ", &[]),
            ("\u{A0}\u{3000}", &[]),
        ]);
    }

    /// Deterministic xorshift generator.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    const POOL: &[&str] = &[
        "a",
        "Z",
        "é",
        "e\u{301}",
        "1",
        "٣",
        "_",
        ".",
        ",",
        "'",
        "’",
        ":",
        "\"",
        "-",
        "/",
        "@",
        "#",
        "*",
        " ",
        "  ",
        "\n",
        "\r\n",
        "\t",
        "\u{A0}",
        "\u{202F}",
        "中",
        "𩬅",
        "ひ",
        "カ",
        "ー",
        "한",
        "ก",
        "\u{E31}",
        "ລ",
        "မ",
        "ខ",
        "א",
        "ב",
        "ا",
        "ж",
        "λ",
        "👍",
        "🏽",
        "\u{200D}",
        "\u{FE0F}",
        "\u{FE0E}",
        "\u{20E3}",
        "🇺",
        "🇸",
        "★",
        "©",
        "🅰",
        "Ⓜ",
        "\u{E0067}",
        "\u{E007F}",
        "\u{AD}",
        "\u{200B}",
        "\u{A708}",
        "\u{600}",
        "\u{17000}",
        "²",
        "\u{FFFD}",
    ];

    fn random_text(rng: &mut Rng, pieces: usize) -> String {
        let mut text = String::new();
        for _ in 0..pieces {
            let piece = POOL[rng.below(POOL.len())];
            // Now and then a long run, to cross the 255-unit limit.
            let times = if rng.below(40) == 0 {
                1 + rng.below(400)
            } else {
                1
            };
            for _ in 0..times {
                text.push_str(piece);
            }
            if rng.below(8) == 0 {
                // Any scalar value, assigned or not.
                let c = char::from_u32((rng.next() % 0x11_0000) as u32).unwrap_or('\u{FFFD}');
                text.push(c);
            }
        }
        text
    }

    #[test]
    fn tokens_are_ordered_sub_slices_and_it_never_panics() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for round in 0..400 {
            let pieces = rng.below(60);
            let text = random_text(&mut rng, pieces);
            let base = text.as_ptr() as usize;
            let mut last_end = 0;
            for token in toks(&text) {
                let start = token.as_ptr() as usize - base;
                assert!(!token.is_empty(), "round {round}: empty token in {text:?}");
                assert!(start >= last_end, "round {round}: overlap in {text:?}");
                assert!(start + token.len() <= text.len());
                assert_eq!(&text[start..start + token.len()], token);
                assert!(
                    token.encode_utf16().count() <= 255,
                    "round {round}: {token:?}"
                );
                last_end = start + token.len();
            }
        }
    }

    #[test]
    fn long_texts_match_their_space_separated_pieces() {
        // A space never belongs to a token and restarts the grammar, so a long
        // text must give the tokens of its pieces; this crosses the internal
        // scan bounds at every possible place.
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for _ in 0..40 {
            let mut text = String::new();
            while text.len() < 6000 {
                let pieces = 1 + rng.below(12);
                text.push_str(&random_text(&mut rng, pieces));
                text.push(' ');
            }
            let whole = toks(&text);
            let pieces: Vec<&str> = text.split(' ').flat_map(toks).collect();
            assert_eq!(whole, pieces);
        }
    }
}
