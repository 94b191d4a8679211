//! Term strings numbered in order of first appearance.

use crate::segment::{Interner, term_hash};

/// Term strings and their ids, in order of first appearance.
#[derive(Clone, Debug, Default)]
pub struct Vocab(Interner);

impl Vocab {
    /// The id of `term`, adding it if new.
    pub fn intern(&mut self, term: &str) -> u32 {
        self.intern_new(term).0
    }

    /// The id of `term`, and whether it was added.
    pub(super) fn intern_new(&mut self, term: &str) -> (u32, bool) {
        self.0.intern(term, term_hash(term))
    }

    /// The id of `term`, if known.
    pub fn id(&self, term: &str) -> Option<u32> {
        self.0.find(term, term_hash(term))
    }

    /// The term of `id`.
    pub fn term(&self, id: u32) -> &str {
        self.0.term(id)
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is no term.
    pub fn is_empty(&self) -> bool {
        self.0.len() == 0
    }
}
