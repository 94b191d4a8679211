//! Distinct strings numbered in order of first appearance, their text kept
//! end to end: the vocabulary of a segment being built, and of analysis
//! caches.

/// The hash of a term in the builder's tables.
#[inline]
pub(crate) fn term_hash(term: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(term)
}

/// Where the `i`-th of pieces kept end to end lies, `ends[i]` being where
/// it ends.
pub(super) fn span(ends: &[usize], i: usize) -> Option<std::ops::Range<usize>> {
    let end = *ends.get(i)?;
    Some(if i == 0 { 0 } else { ends[i - 1] }..end)
}

/// The `i`-th of strings kept end to end in `text` (see [`span`]).
pub(super) fn piece<'a>(text: &'a str, ends: &[usize], i: usize) -> Option<&'a str> {
    text.get(span(ends, i)?)
}

/// Distinct terms numbered from 0 in order of first appearance, their text
/// kept end to end in one string (no allocation per term).
#[derive(Clone, Debug, Default)]
pub(crate) struct Interner {
    pub(super) text: String,
    /// `ends[t]` is where term `t`'s text ends in `text`.
    ends: Vec<usize>,
    /// `hashes[t]` is term `t`'s hash: the table grows without reading text.
    pub(super) hashes: Vec<u64>,
    table: hashbrown::HashTable<u32>,
}

impl Interner {
    /// An interner with room for `terms` terms before its table grows.
    pub(super) fn with_capacity(terms: usize) -> Self {
        Interner {
            ends: Vec::with_capacity(terms),
            hashes: Vec::with_capacity(terms),
            table: hashbrown::HashTable::with_capacity(terms),
            ..Interner::default()
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The id of `term` (whose hash is `hash`), if interned.
    #[inline]
    pub(crate) fn find(&self, term: &str, hash: u64) -> Option<u32> {
        let (text, ends) = (&self.text, &self.ends);
        self.table
            .find(hash, |&id| Self::get(text, ends, id) == term)
            .copied()
    }

    pub(super) fn get<'a>(text: &'a str, ends: &[usize], id: u32) -> &'a str {
        piece(text, ends, id as usize).expect("an interned id")
    }

    pub(crate) fn term(&self, id: u32) -> &str {
        Self::get(&self.text, &self.ends, id)
    }

    /// The id of `term` (whose hash is `hash`), and whether it is new.
    #[inline]
    pub(crate) fn intern(&mut self, term: &str, hash: u64) -> (u32, bool) {
        let Interner {
            text,
            ends,
            hashes,
            table,
        } = self;
        if let Some(&id) = table.find(hash, |&id| Self::get(text, ends, id) == term) {
            return (id, false);
        }
        let id = ends.len() as u32;
        text.push_str(term);
        ends.push(text.len());
        hashes.push(hash);
        table.insert_unique(hash, id, |&id| hashes[id as usize]);
        (id, true)
    }
}
