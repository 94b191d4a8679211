//! MeCab's compiled IPADIC, read as Kuromoji uses the same dictionary.
//!
//! A MeCab dictionary directory holds four binary files, written by
//! `mecab-dict-index` in the machine's byte order (little-endian here):
//!
//! - `sys.dic`: the known words. A header (magic, version 102, sizes, the
//!   charset), a double array (Darts) from each surface form's bytes to a
//!   value `first << 8 | count` naming its run of tokens, the tokens
//!   (`u16` left and right context ids, `u16` part-of-speech id, `i16` word
//!   cost, `u32` offset of the feature string, `u32` unused), then the
//!   NUL-terminated feature strings (`名詞,一般,*,*,*,*,東京,トウキョウ,…`).
//! - `unk.dic`: the same format, keyed by character class name
//!   (`KANJI`, `KATAKANA`, …): the unknown-word entries of each class.
//! - `matrix.bin`: `u16` sizes, then the `i16` connection costs, indexed
//!   by the right id of the word before plus the size times the left id
//!   of the word after.
//! - `char.bin`: the character classes (`u32` count, 32-byte names) and,
//!   for each UTF-16 unit below U+FFFF, a `u32` of bit fields: the classes
//!   (18 bits), the default class (8), a length (4), `group` and `invoke`.
//!
//! Every offset read from the files is checked when the dictionary is
//! opened, so a damaged or foreign directory is an error, never a panic.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// `mecab-dict-index`'s magic number: the header's first word is it XOR
/// the file size.
const MAGIC: u32 = 0xef71_8f77;
/// The dictionary format version this reader knows.
const VERSION: u32 = 102;
/// Header bytes: ten `u32` then a 32-byte charset name.
const HEADER: usize = 40 + 32;
/// Bytes of one token record.
const TOKEN: usize = 16;

/// A word of a lexicon: its context ids, cost and feature string offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word {
    /// The context id the connection cost from the word before is looked up with.
    pub left: u16,
    /// The context id the connection cost to the word after is looked up with.
    pub right: u16,
    /// The word's own cost.
    pub cost: i16,
    feature: u32,
}

/// One `sys.dic` or `unk.dic`: a double array over its keys, its tokens and
/// their feature strings.
struct Lexicon {
    bytes: Vec<u8>,
    /// Byte ranges of the three sections.
    units: Range<usize>,
    tokens: Range<usize>,
    features: Range<usize>,
}

impl Lexicon {
    fn open(path: &Path, contexts: (usize, usize)) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| damaged(path, &e.to_string()))?;
        let word = |i: usize| u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap());
        if bytes.len() < HEADER {
            return Err(damaged(path, "shorter than a MeCab dictionary header"));
        }
        if word(0) ^ MAGIC != bytes.len() as u32 {
            return Err(damaged(path, "not a MeCab dictionary (magic number)"));
        }
        if word(1) != VERSION {
            return Err(damaged(
                path,
                &format!("MeCab format version {}, not {VERSION}", word(1)),
            ));
        }
        let charset = String::from_utf8_lossy(&bytes[40..72]);
        let charset = charset.trim_end_matches('\0').to_ascii_lowercase();
        if charset != "utf8" && charset != "utf-8" {
            return Err(damaged(
                path,
                &format!("compiled for charset {charset:?}; Japanese needs a UTF-8 IPADIC"),
            ));
        }
        let (left, right) = (word(4) as usize, word(5) as usize);
        if (left, right) != contexts {
            return Err(damaged(path, "its context ids do not fit matrix.bin"));
        }
        let (da, tokens, features) = (word(6) as usize, word(7) as usize, word(8) as usize);
        let units = HEADER..HEADER + da;
        let tokens = units.end..units.end + tokens;
        let features = tokens.end..tokens.end + features;
        if features.end != bytes.len() || da % 8 != 0 || tokens.len() % TOKEN != 0 {
            return Err(damaged(
                path,
                "section sizes do not add up to the file size",
            ));
        }
        let lexicon = Lexicon {
            bytes,
            units,
            tokens,
            features,
        };
        for i in 0..lexicon.len() {
            let w = lexicon.word(i);
            if usize::from(w.left) >= right
                || usize::from(w.right) >= left
                || w.feature as usize >= lexicon.features.len()
            {
                return Err(damaged(
                    path,
                    &format!("token {i} points outside the dictionary"),
                ));
            }
        }
        Ok(lexicon)
    }

    /// Number of tokens.
    fn len(&self) -> usize {
        self.tokens.len() / TOKEN
    }

    fn word(&self, i: usize) -> Word {
        let at = self.tokens.start + i * TOKEN;
        let b = &self.bytes[at..at + TOKEN];
        Word {
            left: u16::from_le_bytes([b[0], b[1]]),
            right: u16::from_le_bytes([b[2], b[3]]),
            cost: i16::from_le_bytes([b[6], b[7]]),
            feature: u32::from_le_bytes([b[8], b[9], b[10], b[11]]),
        }
    }

    /// The feature string of token `i` (up to its NUL).
    fn feature(&self, i: usize) -> &str {
        let features = &self.bytes[self.features.clone()];
        let rest = &features[self.word(i).feature as usize..];
        let end = memchr::memchr(0, rest).unwrap_or(rest.len());
        std::str::from_utf8(&rest[..end]).unwrap_or("")
    }

    /// Unit `i` of the double array: `(base, check)`; out of range is no unit.
    fn unit(&self, i: usize) -> Option<(i32, u32)> {
        let at = self.units.start.checked_add(i.checked_mul(8)?)?;
        if at + 8 > self.units.end {
            return None;
        }
        let b = &self.bytes[at..at + 8];
        Some((
            i32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        ))
    }

    /// The token run a node ends a key at, if it does: a terminal child
    /// (`base + 0`) whose check is the node and whose base is negative.
    fn value_at(&self, base: i32) -> Option<Range<usize>> {
        let (value, check) = self.unit(usize::try_from(base).ok()?)?;
        if check != base as u32 || value >= 0 {
            return None;
        }
        let value = (-(i64::from(value)) - 1) as usize;
        let run = (value >> 8)..(value >> 8) + (value & 0xff);
        (run.end <= self.len()).then_some(run)
    }

    /// The node after byte `c` from the node with base `base`.
    fn step(&self, base: i32, c: u8) -> Option<i32> {
        let p = usize::try_from(base).ok()? + usize::from(c) + 1;
        let (next, check) = self.unit(p)?;
        (check == base as u32).then_some(next)
    }

    /// Calls `found(len, tokens)` for every key that is a prefix of `key`:
    /// its length in bytes and its run of tokens.
    fn prefixes(&self, key: impl Iterator<Item = u8>, found: &mut dyn FnMut(usize, Range<usize>)) {
        let Some((mut base, _)) = self.unit(0) else {
            return;
        };
        let mut len = 0;
        for c in key {
            match self.step(base, c) {
                Some(next) => base = next,
                None => return,
            }
            len += 1;
            if let Some(run) = self.value_at(base) {
                found(len, run);
            }
        }
    }

    /// The token run of exactly `key`.
    fn exact(&self, key: &[u8]) -> Option<Range<usize>> {
        let (mut base, _) = self.unit(0)?;
        for &c in key {
            base = self.step(base, c)?;
        }
        self.value_at(base)
    }
}

/// The class of a UTF-16 unit (`char.bin`), as Kuromoji uses it: only the
/// default (first) class, whether unknown words start at it even after a
/// known word (`invoke`), and whether they run over the class (`group`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CharClass {
    /// The class id (an index into the class names).
    pub id: u8,
    /// Unknown words are proposed here even where a known word starts.
    pub invoke: bool,
    /// Unknown words run over following units of the same class.
    pub group: bool,
    /// The class is `KANJI` or `KANJINUMERIC` (search-mode penalties).
    pub kanji: bool,
}

/// A MeCab IPADIC dictionary, opened.
pub struct Dictionary {
    system: Lexicon,
    unknown: Lexicon,
    /// Connection costs, `costs[right_before + rights * left_after]`.
    costs: Vec<i16>,
    rights: usize,
    /// The class of each UTF-16 unit.
    classes: Vec<CharClass>,
    /// Each class's run of unknown-word tokens.
    unknown_words: Vec<Range<usize>>,
}

/// Which lexicon a word comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `sys.dic`.
    Known,
    /// `unk.dic`.
    Unknown,
}

/// The two dashes MeCab's and Kuromoji's IPADIC differ in: its EUC-JP
/// sources' 0xA1BD is U+2015 (`―`) once MeCab compiles them and U+2014
/// (`—`) in Kuromoji's (Java's decoder), so each stands for the other.
const DASHES: (char, char) = ('\u{2014}', '\u{2015}');

/// `text` with the two [`DASHES`] swapped: what to look words up with,
/// and what a word's features read as in Kuromoji's dictionary. The same
/// length in bytes.
pub fn swap_dashes(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains([DASHES.0, DASHES.1]) {
        return std::borrow::Cow::Borrowed(text);
    }
    let swapped = text.chars().map(|c| match c {
        c if c == DASHES.0 => DASHES.1,
        c if c == DASHES.1 => DASHES.0,
        c => c,
    });
    std::borrow::Cow::Owned(swapped.collect())
}

/// The files a dictionary directory must hold.
pub const FILES: [&str; 4] = ["sys.dic", "unk.dic", "matrix.bin", "char.bin"];

impl Dictionary {
    /// Opens the MeCab dictionary in `dir` (compiled for UTF-8).
    pub fn open(dir: &Path) -> Result<Self> {
        let matrix_path = dir.join("matrix.bin");
        let matrix =
            std::fs::read(&matrix_path).map_err(|e| damaged(&matrix_path, &e.to_string()))?;
        if matrix.len() < 4 {
            return Err(damaged(&matrix_path, "shorter than its header"));
        }
        let rights = usize::from(u16::from_le_bytes([matrix[0], matrix[1]]));
        let lefts = usize::from(u16::from_le_bytes([matrix[2], matrix[3]]));
        if matrix.len() != 4 + 2 * rights * lefts {
            return Err(damaged(
                &matrix_path,
                "its size does not match its dimensions",
            ));
        }
        let costs = matrix[4..]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        let system = Lexicon::open(&dir.join("sys.dic"), (rights, lefts))?;
        let unknown = Lexicon::open(&dir.join("unk.dic"), (rights, lefts))?;
        let (names, classes) = read_classes(&dir.join("char.bin"))?;
        let unknown_words = names
            .iter()
            .map(|name| unknown.exact(name.as_bytes()).unwrap_or(0..0))
            .collect();
        Ok(Dictionary {
            system,
            unknown,
            costs,
            rights,
            classes,
            unknown_words,
        })
    }

    /// The connection cost from a word with right id `right` to one with
    /// left id `left` (ids checked when the dictionary was opened).
    pub fn cost(&self, right: u16, left: u16) -> i32 {
        i32::from(self.costs[usize::from(right) + self.rights * usize::from(left)])
    }

    /// The class of a UTF-16 unit.
    pub fn class(&self, unit: u16) -> CharClass {
        self.classes[usize::from(unit)]
    }

    /// Calls `found(end, tokens)` for every known word that starts `text`
    /// (as UTF-8 bytes): the byte length of its surface and its tokens.
    pub fn known_prefixes(&self, text: &[u8], found: &mut dyn FnMut(usize, Range<usize>)) {
        self.system.prefixes(text.iter().copied(), found)
    }

    /// The unknown-word tokens of a class.
    pub fn unknown_words(&self, class: u8) -> Range<usize> {
        self.unknown_words
            .get(usize::from(class))
            .cloned()
            .unwrap_or(0..0)
    }

    /// Token `i` of a lexicon.
    pub fn word(&self, source: Source, i: usize) -> Word {
        self.lexicon(source).word(i)
    }

    /// The comma-separated features of token `i` of a lexicon.
    pub fn feature(&self, source: Source, i: usize) -> &str {
        self.lexicon(source).feature(i)
    }

    fn lexicon(&self, source: Source) -> &Lexicon {
        match source {
            Source::Known => &self.system,
            Source::Unknown => &self.unknown,
        }
    }
}

/// The class names and the class of every UTF-16 unit, from `char.bin`.
fn read_classes(path: &Path) -> Result<(Vec<String>, Vec<CharClass>)> {
    let bytes = std::fs::read(path).map_err(|e| damaged(path, &e.to_string()))?;
    let count = bytes
        .get(..4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
        .unwrap_or(0);
    let map = 4 + 32 * count;
    if count == 0 || count > 255 || bytes.len() != map + 4 * 0xffff {
        return Err(damaged(path, "not a MeCab char.bin"));
    }
    let names: Vec<String> = (0..count)
        .map(|i| {
            let name = &bytes[4 + 32 * i..4 + 32 * (i + 1)];
            let end = memchr::memchr(0, name).unwrap_or(32);
            String::from_utf8_lossy(&name[..end]).into_owned()
        })
        .collect();
    let kanji: Vec<bool> = names
        .iter()
        .map(|n| n == "KANJI" || n == "KANJINUMERIC")
        .collect();
    let mut classes = Vec::with_capacity(0x10000);
    for unit in bytes[map..].chunks_exact(4) {
        let bits = u32::from_le_bytes(unit.try_into().unwrap());
        let id = ((bits >> 18) & 0xff) as u8;
        if usize::from(id) >= count {
            return Err(damaged(
                path,
                "a character's class is not one of its classes",
            ));
        }
        classes.push(CharClass {
            id,
            invoke: bits >> 31 == 1,
            group: (bits >> 30) & 1 == 1,
            kanji: kanji[usize::from(id)],
        });
    }
    // The settings of a class, as any unit of it has them.
    let of_class = |classes: &[CharClass], name: &str| {
        let id = names.iter().position(|n| n == name)?;
        classes.iter().copied().find(|c| usize::from(c.id) == id)
    };
    // MeCab's table stops before U+FFFF, a noncharacter: the default class.
    let default = of_class(&classes, "DEFAULT").unwrap_or(classes[0]);
    classes.push(default);
    // Kuromoji's dictionary builder moves the katakana middle dot `・` from
    // IPADIC's KATAKANA to SYMBOL.
    if let Some(symbol) = of_class(&classes, "SYMBOL") {
        classes[0x30FB] = symbol;
    }
    Ok((names, classes))
}

fn damaged(path: &Path, why: &str) -> Error {
    Error::Analyzer(format!(
        "{}: not a usable MeCab IPADIC dictionary file: {why}",
        PathBuf::from(path).display()
    ))
}
