//! Kuromoji's segmentation in search mode: the Viterbi lattice of Lucene's
//! `JapaneseTokenizer` over MeCab's IPADIC.
//!
//! Positions are UTF-16 units, as in Lucene. At each position reached by a
//! path, every known word starting there is added; unknown words are added
//! where none starts or where the first unit's class says to (`invoke`):
//! one word of the class's length rule (`group`: the run of units of the
//! same class and the same punctuation-ness, at most 1,024), with each of
//! the class's unknown-word entries. A word's path cost is the least of
//! (path cost + connection cost) over the entries at its start (the first
//! such on ties) plus its own cost. Entries are appended, never merged, as
//! Lucene does.
//!
//! Search mode acts while backtracking: a word of the best path that is
//! too long (more than two units of kanji, or more than seven of anything)
//! is given a penalty (3,000 per extra kanji unit, 1,700 per extra other
//! unit); the lattice under it is scored again with every word's penalty,
//! and the best path under it replaces it when it costs no more than the
//! long word plus its penalty. The long word itself is not kept (Lucene's
//! `discardCompoundToken`, the analyzer's default).
//!
//! Lucene commits to a prefix of the best path whenever one entry alone is
//! alive at the furthest position reached, and forces a commit after 1,024
//! units without one (keeping the cheapest partial path); both are done
//! here, with Lucene's re-basing of costs at each commit, since the
//! lattice goes on from what the commit leaves.

use std::borrow::Cow;
use std::ops::Range;

use unicode_general_category::{GeneralCategory as G, get_general_category};

use super::dictionary::{Dictionary, Source, swap_dashes};

/// Units an unknown word spans at most.
const MAX_UNKNOWN_WORD_LENGTH: usize = 1024;
/// Units parsed before a commit is forced.
const MAX_BACKTRACE_GAP: usize = 1024;
/// Search mode: kanji words longer than this pay a penalty per extra unit.
const KANJI_LENGTH: usize = 2;
const KANJI_PENALTY: i64 = 3000;
/// Search mode: other words longer than this pay a penalty per extra unit.
const OTHER_LENGTH: usize = 7;
const OTHER_PENALTY: i64 = 1700;

/// A word of the best path: its surface and its dictionary entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Morpheme {
    /// The byte range of its surface form (widened to whole characters
    /// where a word ends inside a surrogate pair).
    pub bytes: Range<usize>,
    /// The first UTF-16 unit of its surface form.
    pub first_unit: u16,
    /// Its lexicon.
    pub source: Source,
    /// Its token in that lexicon.
    pub token: usize,
}

/// A path arriving at a position: one entry of Lucene's `Position`.
#[derive(Clone, Copy)]
struct Entry {
    cost: i64,
    right: u16,
    /// The position the word starts at and the entry there it extends
    /// (`None`: the start of the text).
    back: Option<(usize, usize)>,
    source: Source,
    token: usize,
}

/// A word from a position, kept while the lattice under a long word is
/// scored again.
#[derive(Clone, Copy)]
struct Forward {
    to: usize,
    source: Source,
    token: usize,
}

#[derive(Clone, Default)]
struct Position {
    entries: Vec<Entry>,
    forward: Vec<Forward>,
}

/// `JapaneseTokenizer.isPunctuation`: the first unit's general category.
pub fn is_punctuation(unit: u16) -> bool {
    let Some(c) = char::from_u32(u32::from(unit)) else {
        // A surrogate is Java's SURROGATE, not punctuation.
        return false;
    };
    matches!(
        get_general_category(c),
        G::SpaceSeparator
            | G::LineSeparator
            | G::ParagraphSeparator
            | G::Control
            | G::Format
            | G::DashPunctuation
            | G::OpenPunctuation
            | G::ClosePunctuation
            | G::ConnectorPunctuation
            | G::OtherPunctuation
            | G::MathSymbol
            | G::CurrencySymbol
            | G::ModifierSymbol
            | G::OtherSymbol
            | G::InitialPunctuation
            | G::FinalPunctuation
    )
}

/// The words of the best segmentation of `text`, in order.
pub fn segment(dictionary: &Dictionary, text: &str, emit: &mut dyn FnMut(Morpheme)) {
    Lattice::new(dictionary, text).run(emit)
}

/// The least of `costs` and its index, the first one on ties.
fn least(costs: impl Iterator<Item = i64>) -> Option<(i64, usize)> {
    let mut best: Option<(i64, usize)> = None;
    for (i, cost) in costs.enumerate() {
        if best.is_none_or(|(b, _)| cost < b) {
            best = Some((cost, i));
        }
    }
    best
}

struct Lattice<'a> {
    dictionary: &'a Dictionary,
    /// The text as its words are looked up (see [`swap_dashes`]).
    key: Cow<'a, str>,
    units: Vec<u16>,
    /// The byte offset of each unit position that starts a character.
    byte_of: Vec<usize>,
    /// The unit position of each byte offset that starts a character.
    unit_of: Vec<usize>,
    positions: Vec<Position>,
    /// The furthest position reached (Lucene's `nextPos - 1`).
    furthest: usize,
    last_backtrace: usize,
}

impl<'a> Lattice<'a> {
    fn new(dictionary: &'a Dictionary, text: &'a str) -> Self {
        let units: Vec<u16> = text.encode_utf16().collect();
        let mut byte_of = vec![usize::MAX; units.len() + 1];
        let mut unit_of = vec![usize::MAX; text.len() + 1];
        let mut unit = 0;
        for (byte, c) in text.char_indices() {
            byte_of[unit] = byte;
            unit_of[byte] = unit;
            unit += c.len_utf16();
        }
        byte_of[units.len()] = text.len();
        unit_of[text.len()] = units.len();
        let mut positions = vec![Position::default(); units.len() + 1];
        positions[0].entries.push(Entry {
            cost: 0,
            right: 0,
            back: None,
            source: Source::Known,
            token: 0,
        });
        Lattice {
            dictionary,
            key: swap_dashes(text),
            units,
            byte_of,
            unit_of,
            positions,
            furthest: 0,
            last_backtrace: 0,
        }
    }

    fn run(mut self, emit: &mut dyn FnMut(Morpheme)) {
        let n = self.units.len();
        let mut pos = 0;
        while pos < n {
            self.furthest = self.furthest.max(pos);
            if self.positions[pos].entries.is_empty() {
                pos += 1;
                continue;
            }
            if pos > self.last_backtrace
                && self.positions[pos].entries.len() == 1
                && self.furthest == pos
            {
                self.backtrace(pos, 0, emit);
                self.positions[pos].entries[0].cost = 0;
            }
            if pos - self.last_backtrace >= MAX_BACKTRACE_GAP {
                pos = self.force_backtrace(pos, emit);
                continue;
            }
            self.extend(pos);
            pos += 1;
        }
        if n == 0 {
            return;
        }
        // The end: the least cost with the connection to the end of text.
        let end = &self.positions[n].entries;
        let costs = end
            .iter()
            .map(|e| e.cost + i64::from(self.dictionary.cost(e.right, 0)));
        if let Some((_, index)) = least(costs) {
            self.backtrace(n, index, emit);
        }
    }

    /// Adds the words starting at `pos`.
    fn extend(&mut self, pos: usize) {
        let mut any = false;
        let start = self.byte_of[pos];
        if start != usize::MAX {
            let mut found = Vec::new();
            self.dictionary
                .known_prefixes(&self.key.as_bytes()[start..], &mut |len, run| {
                    found.push((len, run))
                });
            for (len, run) in found {
                let end = self.unit_of[start + len];
                if end == usize::MAX {
                    continue;
                }
                for token in run {
                    self.add(pos, end, Source::Known, token, false);
                    any = true;
                }
            }
        }
        let first = self.units[pos];
        let class = self.dictionary.class(first);
        if any && !class.invoke {
            return;
        }
        let punct = is_punctuation(first);
        let mut len = 1;
        if class.group {
            while len < MAX_UNKNOWN_WORD_LENGTH && pos + len < self.units.len() {
                let unit = self.units[pos + len];
                if self.dictionary.class(unit).id != class.id || is_punctuation(unit) != punct {
                    break;
                }
                len += 1;
            }
        }
        for token in self.dictionary.unknown_words(class.id) {
            self.add(pos, pos + len, Source::Unknown, token, false);
        }
    }

    /// Lucene's `add`: the word `token` from `from` to `end`, after the
    /// cheapest entry at `from`; with the search-mode penalty when rescoring.
    fn add(&mut self, from: usize, end: usize, source: Source, token: usize, penalty: bool) {
        let word = self.dictionary.word(source, token);
        let costs = self.positions[from]
            .entries
            .iter()
            .map(|e| e.cost + i64::from(self.dictionary.cost(e.right, word.left)));
        let Some((cost, index)) = least(costs) else {
            return;
        };
        let mut cost = cost + i64::from(word.cost);
        if penalty {
            cost += self.penalty(from, end - from);
        }
        self.furthest = self.furthest.max(end);
        self.positions[end].entries.push(Entry {
            cost,
            right: word.right,
            back: Some((from, index)),
            source,
            token,
        });
    }

    /// `computePenalty`: search mode's cost of a long word.
    fn penalty(&self, pos: usize, length: usize) -> i64 {
        if length <= KANJI_LENGTH {
            return 0;
        }
        let kanji = self.units[pos..pos + length]
            .iter()
            .all(|&u| self.dictionary.class(u).kanji);
        if kanji {
            (length - KANJI_LENGTH) as i64 * KANJI_PENALTY
        } else if length > OTHER_LENGTH {
            (length - OTHER_LENGTH) as i64 * OTHER_PENALTY
        } else {
            0
        }
    }

    /// After `MAX_BACKTRACE_GAP` units without a commit: keeps only the
    /// cheapest partial path at or after `pos`, commits it, and returns the
    /// position to go on from.
    fn force_backtrace(&mut self, pos: usize, emit: &mut dyn FnMut(Morpheme)) -> usize {
        let mut cheapest: Option<(i64, usize, usize)> = None;
        for p in pos..=self.furthest {
            for (i, e) in self.positions[p].entries.iter().enumerate() {
                if cheapest.is_none_or(|(c, _, _)| e.cost < c) {
                    cheapest = Some((e.cost, p, i));
                }
            }
        }
        let Some((_, at, index)) = cheapest else {
            return pos + 1;
        };
        for p in pos..=self.furthest {
            if p == at {
                let kept = self.positions[p].entries[index];
                self.positions[p].entries = vec![kept];
            } else {
                self.positions[p].entries.clear();
            }
        }
        self.backtrace(at, 0, emit);
        for entry in &mut self.positions[at].entries {
            entry.cost = 0;
        }
        at
    }

    /// Lucene's `pruneAndRescore`: under a long word from `start` to `end`,
    /// drops the arcs that leave the span, then scores the rest again from
    /// entry `best` at `start`, each word with its search-mode penalty.
    fn rescore(&mut self, start: usize, end: usize, best: usize) {
        for pos in (start + 1..=end).rev() {
            let entries = std::mem::take(&mut self.positions[pos].entries);
            for e in entries {
                if let Some((from, _)) = e.back.filter(|&(from, _)| from >= start) {
                    self.positions[from].forward.push(Forward {
                        to: pos,
                        source: e.source,
                        token: e.token,
                    });
                }
            }
        }
        for pos in start..end {
            let forward = std::mem::take(&mut self.positions[pos].forward);
            if self.positions[pos].entries.is_empty() {
                continue;
            }
            if pos == start {
                // Only the best path's entry, so the words under the long
                // one follow what it followed.
                let from = self.positions[pos].entries[best];
                for f in forward {
                    let word = self.dictionary.word(f.source, f.token);
                    let cost = from.cost
                        + i64::from(word.cost)
                        + i64::from(self.dictionary.cost(from.right, word.left))
                        + self.penalty(pos, f.to - pos);
                    self.positions[f.to].entries.push(Entry {
                        cost,
                        right: word.right,
                        back: Some((pos, best)),
                        source: f.source,
                        token: f.token,
                    });
                }
            } else {
                for f in forward {
                    self.add(pos, f.to, f.source, f.token, true);
                }
            }
        }
    }

    /// Emits the words of the path ending at entry `index` of `end`, back to
    /// the last commit, in text order, replacing each too-long word by the
    /// best path under it where that is cheap enough.
    fn backtrace(&mut self, end: usize, index: usize, emit: &mut dyn FnMut(Morpheme)) {
        let mut words = Vec::new();
        let (mut pos, mut index) = (end, index);
        // The start of the long word being replaced, while under it.
        let mut replaced: Option<usize> = None;
        // The left id of the word after the current one, once there is one.
        let mut next_left: Option<u16> = None;
        while pos > self.last_backtrace {
            let mut entry = self.positions[pos].entries[index];
            let Some((mut from, mut back)) = entry.back else {
                break;
            };
            if replaced.is_none() {
                let penalty = self.penalty(from, pos - from);
                if penalty > 0 {
                    let right_cost = |right: u16| {
                        next_left.map_or(0, |l| i64::from(self.dictionary.cost(right, l)))
                    };
                    let max_cost = entry.cost + penalty + right_cost(entry.right);
                    self.rescore(from, pos, back);
                    let costs = self.positions[pos]
                        .entries
                        .iter()
                        .map(|e| e.cost + right_cost(e.right));
                    if let Some((cost, i)) = least(costs) {
                        let alternative = self.positions[pos].entries[i];
                        let alt_from = alternative.back.map(|(f, _)| f);
                        if cost <= max_cost && alt_from != Some(from) {
                            replaced = Some(from);
                            entry = alternative;
                            (from, back) = alternative.back.expect("a word starts somewhere");
                        }
                    }
                }
            }
            if replaced.is_some_and(|start| start >= from) {
                replaced = None;
            }
            words.push(Morpheme {
                bytes: self.char_start(from)..self.char_end(pos),
                first_unit: self.units[from],
                source: entry.source,
                token: entry.token,
            });
            next_left = Some(self.dictionary.word(entry.source, entry.token).left);
            (pos, index) = (from, back);
        }
        for word in words.into_iter().rev() {
            emit(word);
        }
        self.last_backtrace = end;
    }

    /// The byte offset of the character unit `pos` is in.
    fn char_start(&self, pos: usize) -> usize {
        (0..=pos)
            .rev()
            .map(|p| self.byte_of[p])
            .find(|&b| b != usize::MAX)
            .unwrap_or(0)
    }

    /// The byte offset after the character unit `pos - 1` is in.
    fn char_end(&self, pos: usize) -> usize {
        (pos..self.byte_of.len())
            .map(|p| self.byte_of[p])
            .find(|&b| b != usize::MAX)
            .unwrap_or(self.key.len())
    }
}
