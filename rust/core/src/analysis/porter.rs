//! The original Porter (1980) stemmer, reproducing Apache Lucene's
//! `org.apache.lucene.analysis.en.PorterStemmer` as driven by `PorterStemFilter`.
//!
//! Pyserini's default English analyzer stems with that filter, so an index that
//! must match Pyserini token for token needs this exact algorithm, not
//! Snowball's "Porter2"/English stemmer, which stems many words differently
//! (`generously` -> `gener` here, `generous` in Porter2; `dying` -> `dy`,
//! not `die`).
//!
//! Lucene's class is Martin Porter's reference implementation (release 3), so
//! it keeps that implementation's departures from the 1980 paper: step 2 maps
//! `bli` -> `ble` (the paper has `abli` -> `able`) and adds `logi` -> `log`.
//!
//! Behaviour worth knowing, all inherited from Lucene:
//! * The word is measured and indexed in UTF-16 code units, as Java `char`s.
//!   Words shorter than 3 units are returned untouched.
//! * Only ASCII `a e i o u` are vowels and `y` is a vowel after a consonant.
//!   Everything else (digits, uppercase, accented letters, surrogate halves)
//!   is a consonant. Input is expected to be lowercased already: uppercase
//!   suffixes are never matched.
//! * All suffix rules are ASCII. The only non-ASCII edit is dropping one of
//!   two identical trailing consonant units after `-ed`/`-ing` removal, which
//!   cannot split a surrogate pair, so the result is always valid text.

use std::borrow::Cow;

/// Words up to this many UTF-8 bytes are stemmed in a stack buffer.
const INLINE_CAPACITY: usize = 64;

const A: u16 = b'a' as u16;
const C: u16 = b'c' as u16;
const E: u16 = b'e' as u16;
const G: u16 = b'g' as u16;
const I: u16 = b'i' as u16;
const L: u16 = b'l' as u16;
const N: u16 = b'n' as u16;
const O: u16 = b'o' as u16;
const S: u16 = b's' as u16;
const T: u16 = b't' as u16;
const U: u16 = b'u' as u16;
const V: u16 = b'v' as u16;
const W: u16 = b'w' as u16;
const X: u16 = b'x' as u16;
const Y: u16 = b'y' as u16;
const Z: u16 = b'z' as u16;

/// Stems one lowercase token as Lucene's PorterStemFilter does.
///
/// Returns `Cow::Borrowed` whenever the stem is the word itself or a prefix
/// of it (the common case: `cats` -> `cat`), so only stems that rewrite a
/// suffix allocate.
pub fn stem(word: &str) -> Cow<'_, str> {
    // A UTF-16 encoding is never longer than the UTF-8 one, so this is a
    // cheap lower bound for Lucene's "fewer than 3 chars" rule.
    if word.len() < 3 {
        return Cow::Borrowed(word);
    }
    if word.len() <= INLINE_CAPACITY {
        let mut buf = [0u16; INLINE_CAPACITY];
        let mut n = 0;
        for (slot, unit) in buf.iter_mut().zip(word.encode_utf16()) {
            *slot = unit;
            n += 1;
        }
        stem_units(word, &mut buf[..n])
    } else {
        let mut buf: Vec<u16> = word.encode_utf16().collect();
        stem_units(word, &mut buf)
    }
}

fn stem_units<'a>(word: &'a str, units: &mut [u16]) -> Cow<'a, str> {
    if units.len() < 3 {
        return Cow::Borrowed(word);
    }
    let len = Stemmer::new(units).run();
    finish(word, &units[..len])
}

/// Turns the stemmed UTF-16 units back into text, borrowing from `word` when
/// the stem is one of its prefixes.
fn finish<'a>(word: &'a str, stemmed: &[u16]) -> Cow<'a, str> {
    let mut pos = 0;
    for (byte_idx, ch) in word.char_indices() {
        if pos == stemmed.len() {
            return Cow::Borrowed(&word[..byte_idx]);
        }
        // Unit by unit: a slice comparison here would cost a call per char.
        let mut buf = [0u16; 2];
        let encoded = ch.encode_utf16(&mut buf);
        for &unit in encoded.iter() {
            if stemmed.get(pos) != Some(&unit) {
                return Cow::Owned(String::from_utf16_lossy(stemmed));
            }
            pos += 1;
        }
    }
    if pos == stemmed.len() {
        Cow::Borrowed(word)
    } else {
        Cow::Owned(String::from_utf16_lossy(stemmed))
    }
}

/// Working state over a word's UTF-16 units.
///
/// Lengths replace Lucene's inclusive indices: `end` is its `k + 1` and
/// `stem` its `j + 1`, which lets both be unsigned (`j` can be -1 there).
struct Stemmer<'a> {
    b: &'a mut [u16],
    /// Length of the word as stemmed so far.
    end: usize,
    /// Length of the part before the suffix most recently matched by `ends`.
    stem: usize,
}

impl<'a> Stemmer<'a> {
    fn new(b: &'a mut [u16]) -> Self {
        let end = b.len();
        Stemmer { b, end, stem: end }
    }

    /// Runs every step and returns the length of the stem. Step names follow
    /// the paper (Lucene numbers them step1..step6). Callers guarantee at
    /// least 3 units, which every index below relies on: no step shortens
    /// the word to nothing, and no rewrite makes it longer than on entry, so
    /// writes stay inside the original buffer.
    fn run(mut self) -> usize {
        self.step1ab();
        self.step1c();
        self.step2();
        self.step3();
        self.step4();
        self.step5();
        self.end
    }

    fn last(&self) -> u16 {
        self.b[self.end - 1]
    }

    /// Consonant test at `i`. A `y` is a consonant at the start of the word
    /// or after a vowel; the walk back is iterative so runs of `y` cannot
    /// overflow the stack.
    fn is_consonant(&self, mut i: usize) -> bool {
        let mut flipped = false;
        loop {
            match self.b[i] {
                A | E | I | O | U => return flipped,
                Y if i > 0 => {
                    flipped = !flipped;
                    i -= 1;
                }
                _ => return !flipped,
            }
        }
    }

    /// Consonant flags of `b[..len]` in one forward pass, so measuring stays
    /// linear however many `y`s the word holds.
    fn consonants(&self, len: usize) -> impl Iterator<Item = bool> + '_ {
        // Starting from "vowel" makes a leading `y` a consonant.
        let mut prev = false;
        self.b[..len].iter().map(move |&c| {
            let cons = match c {
                A | E | I | O | U => false,
                Y => !prev,
                _ => true,
            };
            prev = cons;
            cons
        })
    }

    /// Porter's m: the number of vowel-consonant sequences in the stem,
    /// i.e. `[C](VC){m}[V]`.
    fn measure(&self) -> usize {
        let mut m = 0;
        let mut after_vowel = false;
        for cons in self.consonants(self.stem) {
            if cons && after_vowel {
                m += 1;
            }
            after_vowel = !cons;
        }
        m
    }

    fn vowel_in_stem(&self) -> bool {
        self.consonants(self.stem).any(|cons| !cons)
    }

    /// True if units `i - 1` and `i` are the same consonant.
    fn double_consonant_at(&self, i: usize) -> bool {
        i >= 1 && self.b[i] == self.b[i - 1] && self.is_consonant(i)
    }

    /// True if `b[..end]` ends consonant-vowel-consonant with the last
    /// consonant not `w`, `x` or `y` (`hop`, but not `snow` or `box`).
    fn ends_cvc(&self, end: usize) -> bool {
        end >= 3
            && !matches!(self.b[end - 1], W | X | Y)
            && self.is_consonant(end - 1)
            && !self.is_consonant(end - 2)
            && self.is_consonant(end - 3)
    }

    /// Checks for `suffix` and, on a match, records where the stem ends.
    fn ends(&mut self, suffix: &[u8]) -> bool {
        let Some(start) = self.end.checked_sub(suffix.len()) else {
            return false;
        };
        let matched = self.b[start..self.end]
            .iter()
            .zip(suffix)
            .all(|(&unit, &byte)| unit == u16::from(byte));
        if matched {
            self.stem = start;
        }
        matched
    }

    /// Replaces the matched suffix with `replacement`.
    fn set_to(&mut self, replacement: &[u8]) {
        let start = self.stem;
        for (slot, &byte) in self.b[start..start + replacement.len()]
            .iter_mut()
            .zip(replacement)
        {
            *slot = u16::from(byte);
        }
        self.end = start + replacement.len();
    }

    /// Applies the first rule whose suffix matches, if the stem has m > 0.
    /// Later rules are not tried once a suffix matched, even if m is 0.
    fn apply_first(&mut self, rules: &[(&[u8], &[u8])]) {
        for &(suffix, replacement) in rules {
            if self.ends(suffix) {
                if self.measure() > 0 {
                    self.set_to(replacement);
                }
                return;
            }
        }
    }

    /// Step 1a/1b: plurals, then `-eed`, `-ed`, `-ing`.
    fn step1ab(&mut self) {
        if self.last() == S {
            if self.ends(b"sses") {
                self.end -= 2;
            } else if self.ends(b"ies") {
                self.set_to(b"i");
            } else if self.b[self.end - 2] != S {
                self.end -= 1;
            }
        }
        if self.ends(b"eed") {
            if self.measure() > 0 {
                self.end -= 1;
            }
        } else if (self.ends(b"ed") || self.ends(b"ing")) && self.vowel_in_stem() {
            self.end = self.stem;
            if self.ends(b"at") {
                self.set_to(b"ate");
            } else if self.ends(b"bl") {
                self.set_to(b"ble");
            } else if self.ends(b"iz") {
                self.set_to(b"ize");
            } else if self.double_consonant_at(self.end - 1) {
                if !matches!(self.last(), L | S | Z) {
                    self.end -= 1;
                }
            } else if self.measure() == 1 && self.ends_cvc(self.end) {
                self.set_to(b"e");
            }
        }
    }

    /// Step 1c: terminal `y` becomes `i` when the stem has a vowel.
    fn step1c(&mut self) {
        if self.ends(b"y") && self.vowel_in_stem() {
            let last = self.end - 1;
            self.b[last] = I;
        }
    }

    /// Step 2: double suffixes to single ones, dispatched on the
    /// penultimate letter as the reference implementation does.
    fn step2(&mut self) {
        if self.end < 2 {
            return;
        }
        let rules: &[(&[u8], &[u8])] = match self.b[self.end - 2] {
            A => &[(b"ational", b"ate"), (b"tional", b"tion")],
            C => &[(b"enci", b"ence"), (b"anci", b"ance")],
            E => &[(b"izer", b"ize")],
            L => &[
                (b"bli", b"ble"),
                (b"alli", b"al"),
                (b"entli", b"ent"),
                (b"eli", b"e"),
                (b"ousli", b"ous"),
            ],
            O => &[(b"ization", b"ize"), (b"ation", b"ate"), (b"ator", b"ate")],
            S => &[
                (b"alism", b"al"),
                (b"iveness", b"ive"),
                (b"fulness", b"ful"),
                (b"ousness", b"ous"),
            ],
            T => &[(b"aliti", b"al"), (b"iviti", b"ive"), (b"biliti", b"ble")],
            G => &[(b"logi", b"log")],
            _ => return,
        };
        self.apply_first(rules);
    }

    /// Step 3: `-ic-`, `-full`, `-ness` and the like, dispatched on the last
    /// letter.
    fn step3(&mut self) {
        let rules: &[(&[u8], &[u8])] = match self.last() {
            E => &[(b"icate", b"ic"), (b"ative", b""), (b"alize", b"al")],
            I => &[(b"iciti", b"ic")],
            L => &[(b"ical", b"ic"), (b"ful", b"")],
            S => &[(b"ness", b"")],
            _ => return,
        };
        self.apply_first(rules);
    }

    /// Step 4: drops `-ant`, `-ence` and the like when the stem has m > 1.
    fn step4(&mut self) {
        if self.end < 2 {
            return;
        }
        let matched = match self.b[self.end - 2] {
            A => self.ends(b"al"),
            C => self.ends(b"ance") || self.ends(b"ence"),
            E => self.ends(b"er"),
            I => self.ends(b"ic"),
            L => self.ends(b"able") || self.ends(b"ible"),
            // `ement` before `ment` before `ent`: the first match decides,
            // so `element`-like words are not tried again with a shorter
            // suffix.
            N => {
                self.ends(b"ant") || self.ends(b"ement") || self.ends(b"ment") || self.ends(b"ent")
            }
            O => {
                (self.ends(b"ion") && self.stem > 0 && matches!(self.b[self.stem - 1], S | T))
                    || self.ends(b"ou")
            }
            S => self.ends(b"ism"),
            T => self.ends(b"ate") || self.ends(b"iti"),
            U => self.ends(b"ous"),
            V => self.ends(b"ive"),
            Z => self.ends(b"ize"),
            _ => false,
        };
        if matched && self.measure() > 1 {
            self.end = self.stem;
        }
    }

    /// Step 5: drops a final `e` (unless m is 1 and a short-syllable `cvc`
    /// remains), then `ll` -> `l` when m > 1. Both measure the whole word as
    /// it stood on entry, as Lucene does.
    fn step5(&mut self) {
        self.stem = self.end;
        if self.last() == E {
            let m = self.measure();
            if m > 1 || (m == 1 && !self.ends_cvc(self.end - 1)) {
                self.end -= 1;
            }
        }
        if self.last() == L && self.double_consonant_at(self.end - 1) && self.measure() > 1 {
            self.end -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::stem;
    use std::borrow::Cow;

    /// Expected outputs are Lucene's `PorterStemFilter` results.
    const CASES: &[(&str, &str)] = &[
        // Step 1a: plurals.
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("ties", "ti"),
        ("caress", "caress"),
        ("cats", "cat"),
        ("gas", "ga"),
        ("sss", "sss"),
        // Step 1b: -eed, -ed, -ing and the at/bl/iz, double consonant and
        // cvc repairs.
        ("feed", "feed"),
        ("agreed", "agre"),
        ("plastered", "plaster"),
        ("bled", "bled"),
        ("motoring", "motor"),
        ("sing", "sing"),
        ("conflated", "conflat"),
        ("troubled", "troubl"),
        ("sized", "size"),
        ("hopping", "hop"),
        ("tanned", "tan"),
        ("falling", "fall"),
        ("hissing", "hiss"),
        ("fizzed", "fizz"),
        ("failing", "fail"),
        ("filing", "file"),
        ("matting", "mat"),
        ("mating", "mate"),
        ("meeting", "meet"),
        ("milling", "mill"),
        ("messing", "mess"),
        ("meetings", "meet"),
        ("running", "run"),
        ("dying", "dy"),
        // A leading `y` is a consonant, so `ying` has no vowel before `ing`.
        ("ying", "ying"),
        // Step 1c: y -> i.
        ("happy", "happi"),
        ("sky", "sky"),
        ("lazy", "lazi"),
        ("quickly", "quickli"),
        ("yyy", "yyi"),
        ("yyyyyes", "yyyyy"),
        // Step 2, including the reference implementation's bli and logi.
        ("relational", "relat"),
        ("conditional", "condit"),
        ("rational", "ration"),
        ("valenci", "valenc"),
        ("hesitanci", "hesit"),
        ("digitizer", "digit"),
        ("conformabli", "conform"),
        ("possibly", "possibl"),
        ("radicalli", "radic"),
        ("differentli", "differ"),
        ("vileli", "vile"),
        ("analogousli", "analog"),
        ("vietnamization", "vietnam"),
        ("predication", "predic"),
        ("operator", "oper"),
        ("feudalism", "feudal"),
        ("decisiveness", "decis"),
        ("hopefulness", "hope"),
        ("callousness", "callous"),
        ("formaliti", "formal"),
        ("sensitiviti", "sensit"),
        ("sensibiliti", "sensibl"),
        ("archaeology", "archaeolog"),
        ("generalization", "gener"),
        ("generously", "gener"),
        ("abilities", "abil"),
        // Step 3.
        ("triplicate", "triplic"),
        ("formative", "form"),
        ("formalize", "formal"),
        ("electriciti", "electr"),
        ("electrical", "electr"),
        ("hopeful", "hope"),
        ("goodness", "good"),
        // Step 4.
        ("revival", "reviv"),
        ("allowance", "allow"),
        ("inference", "infer"),
        ("airliner", "airlin"),
        ("gyroscopic", "gyroscop"),
        ("adjustable", "adjust"),
        ("defensible", "defens"),
        ("irritant", "irrit"),
        ("replacement", "replac"),
        ("adjustment", "adjust"),
        ("dependent", "depend"),
        ("element", "element"),
        ("adoption", "adopt"),
        ("homologou", "homolog"),
        ("communism", "commun"),
        ("activate", "activ"),
        ("angulariti", "angular"),
        ("homologous", "homolog"),
        ("effective", "effect"),
        ("bowdlerize", "bowdler"),
        // Step 5: final e and ll.
        ("probate", "probat"),
        ("rate", "rate"),
        ("cease", "ceas"),
        ("controll", "control"),
        ("roll", "roll"),
        // Short words and the reference implementation's bounds fixes.
        ("", ""),
        ("a", "a"),
        ("is", "is"),
        ("as", "as"),
        ("ies", "i"),
        ("aed", "a"),
        ("eed", "eed"),
        ("ion", "ion"),
        // Digits are consonants.
        ("1990s", "1990"),
        ("3ds", "3d"),
        // Uppercase is never matched: input must be lowercased first.
        ("RUNNING", "RUNNING"),
        ("Cats", "Cat"),
        // Non-ASCII letters are consonants.
        ("cafés", "café"),
        ("résumés", "résumé"),
        ("naïveness", "naïv"),
        ("baßed", "baße"),
        ("aßßed", "aß"),
        ("日本", "日本"),
        ("日本s", "日本"),
        // Lengths and positions are in UTF-16 units: an emoji is two
        // consonant units. NLTK's Porter counts code points and gives
        // `😀s` and `be😀e` unchanged here.
        ("😀s", "😀"),
        ("😀ed", "😀ed"),
        ("be😀e", "be😀"),
    ];

    #[test]
    fn matches_lucene_table() {
        let mut failures = Vec::new();
        for &(word, expected) in CASES {
            let got = stem(word);
            if got != expected {
                failures.push(format!("{word:?}: got {got:?}, want {expected:?}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn borrows_when_the_stem_is_a_prefix() {
        assert!(matches!(stem("caress"), Cow::Borrowed("caress")));
        assert!(matches!(stem("cats"), Cow::Borrowed("cat")));
        assert!(matches!(stem("日本s"), Cow::Borrowed("日本")));
        assert!(matches!(stem("happy"), Cow::Owned(ref s) if s == "happi"));
        assert!(matches!(stem("relational"), Cow::Borrowed("relat")));
        assert!(matches!(stem("filing"), Cow::Owned(ref s) if s == "file"));
    }

    #[test]
    fn long_words_use_the_heap_path_identically() {
        let base = "ab".repeat(40);
        assert_eq!(stem(&format!("{base}fulness")), base);
        let accents = "é".repeat(40);
        assert_eq!(
            stem(&format!("{accents}ational")),
            format!("{accents}ation")
        );
    }

    #[test]
    fn long_runs_of_y_stay_linear() {
        let word = "y".repeat(100_000);
        let want = format!("{}i", "y".repeat(99_999));
        assert_eq!(stem(&word), want);
        assert_eq!(
            stem(&format!("{}ing", "y".repeat(201))),
            format!("{}i", "y".repeat(199))
        );
    }

    /// Deterministic xorshift so the fuzz loop needs no extra crates.
    struct XorShift(u64);

    impl XorShift {
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

    #[test]
    fn never_panics_on_arbitrary_strings() {
        const PIECES: &[&str] = &[
            "a",
            "e",
            "i",
            "o",
            "u",
            "y",
            "s",
            "l",
            "z",
            "b",
            "t",
            "c",
            "g",
            "w",
            "x",
            "n",
            "ed",
            "ing",
            "ies",
            "sses",
            "eed",
            "ational",
            "logi",
            "bli",
            "ion",
            "ement",
            "ll",
            "e",
            "Y",
            "S",
            "1",
            " ",
            "é",
            "ß",
            "日",
            "😀",
            "\u{0}",
            "\u{FFFF}",
            "\u{10FFFF}",
        ];
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        for round in 0..600 {
            let pieces = if round % 100 == 99 {
                200
            } else {
                rng.below(12)
            };
            let mut word = String::new();
            for _ in 0..pieces {
                word.push_str(PIECES[rng.below(PIECES.len())]);
            }
            let stemmed = stem(&word);
            // Stemming only ever shortens or rewrites within the word.
            assert!(stemmed.encode_utf16().count() <= word.encode_utf16().count());
            // Idempotence is not a Porter property, but a second pass must
            // not panic either.
            let _ = stem(&stemmed);
        }
    }
}
