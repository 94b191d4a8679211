//! Docid uniqueness: the [`Duplicates`] policy and the checks that keep
//! docids non-empty and unique in a build or a commit.

use std::collections::HashMap;

use crate::document::Doc;
use crate::error::{Error, Result};

/// What to do with a document whose docid is already in the index or batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Duplicates {
    /// Refuse it: docids are unique (the default).
    #[default]
    Error,
    /// Index every copy, as Lucene does: each is searched and ranked on its
    /// own (copies with equal scores in the order they were added), lookups
    /// by docid find the first copy, and deleting a docid deletes them all.
    Keep,
}

impl Duplicates {
    /// Parses `"error"` or `"keep"`.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "error" => Ok(Duplicates::Error),
            "keep" => Ok(Duplicates::Keep),
            other => Err(Error::Query(format!(
                "unknown duplicates policy {other:?}; choose \"error\" or \"keep\""
            ))),
        }
    }
    /// The policy's name, as [`Duplicates::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Duplicates::Error => "error",
            Duplicates::Keep => "keep",
        }
    }
}

/// The docids added to an [`IndexBuilder`], by a 64-bit hash and the
/// position of the document: the docids themselves are read back from the
/// builder, so the set costs a few bytes per document.
#[derive(Default)]
pub(super) struct DocidSet {
    /// (hash, position of the first docid with that hash).
    pub(super) first: hashbrown::HashTable<(u64, u32)>,
    /// Docids whose hash an earlier, different docid has, by position.
    pub(super) clashes: HashMap<String, usize>,
}

impl DocidSet {
    pub(super) fn hash(docid: &str) -> u64 {
        use std::hash::BuildHasher;
        rustc_hash::FxBuildHasher.hash_one(docid)
    }

    /// Records `docid`, whose hash is `hash`, at `position`; or, if it was
    /// recorded before, returns that position. `docid_at` reads the docid
    /// recorded at a position.
    pub(super) fn insert<'a>(
        &mut self,
        docid: &str,
        hash: u64,
        position: usize,
        docid_at: impl Fn(usize) -> Option<&'a str>,
    ) -> std::result::Result<(), usize> {
        let first = match self.first.entry(hash, |&(h, _)| h == hash, |&(h, _)| h) {
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert((hash, position as u32));
                return Ok(());
            }
            hashbrown::hash_table::Entry::Occupied(entry) => entry.get().1 as usize,
        };
        if docid_at(first) == Some(docid) {
            return Err(first);
        }
        match self.clashes.entry(docid.to_owned()) {
            std::collections::hash_map::Entry::Occupied(entry) => Err(*entry.get()),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(position);
                Ok(())
            }
        }
    }

    /// Undoes [`DocidSet::insert`] of `docid` (hash `hash`) at `position`.
    pub(super) fn remove(&mut self, docid: &str, hash: u64, position: usize) {
        let recorded = |&(h, p): &(u64, u32)| h == hash && p as usize == position;
        if let Ok(entry) = self.first.find_entry(hash, recorded) {
            entry.remove();
        } else if self.clashes.get(docid) == Some(&position) {
            self.clashes.remove(docid);
        }
    }

    /// Records the docids of `docs`, at positions from `base`; `docid_at`
    /// reads the docids of earlier positions. Fails, recording none, on an
    /// empty docid or one recorded before. One hash and one table probe per
    /// docid: the table outgrows the caches on a large corpus.
    pub(super) fn insert_batch<'a>(
        &mut self,
        docs: &'a [Doc],
        base: usize,
        docid_at: impl Fn(usize) -> Option<&'a str>,
    ) -> Result<()> {
        let at = |p: usize| match p.checked_sub(base) {
            Some(i) => docs.get(i).map(|doc| doc.docid.as_str()),
            None => docid_at(p),
        };
        for (i, doc) in docs.iter().enumerate() {
            let position = base + i;
            let error = if doc.docid.is_empty() {
                empty_docid(position)
            } else {
                match self.insert(&doc.docid, Self::hash(&doc.docid), position, at) {
                    Ok(()) => continue,
                    Err(first) => duplicate_docid(&doc.docid, first, position),
                }
            };
            for (j, doc) in docs[..i].iter().enumerate() {
                self.remove(&doc.docid, Self::hash(&doc.docid), base + j);
            }
            return Err(error);
        }
        Ok(())
    }
}

fn empty_docid(position: usize) -> Error {
    Error::Document(format!(
        "document #{position} has an empty docid; every document needs a unique, non-empty id"
    ))
}

fn duplicate_docid(docid: &str, first: usize, position: usize) -> Error {
    Error::Document(format!(
        "duplicate docid {docid:?} (documents #{first} and #{position}); docids must be unique, or give duplicates=\"keep\" to index every copy as Lucene does"
    ))
}

/// Checks that new documents, numbered from `base`, have non-empty docids.
pub(super) fn check_nonempty_docids(docs: &[Doc], base: usize) -> Result<()> {
    match docs.iter().position(|doc| doc.docid.is_empty()) {
        Some(i) => Err(empty_docid(base + i)),
        None => Ok(()),
    }
}

/// The docid rule of one commit's additions, given as their `docids` in
/// order: none empty; under [`Duplicates::Error`], none already in the index
/// (`exists`: live, and not deleted by the same commit) and none twice. What
/// [`Index::with_changes_as`](super::Index::with_changes_as) checks, for
/// callers that queue changes over several indexes (a sharded index).
///
/// # Errors
/// [`Error::Document`] for the first docid that breaks the rule.
pub fn check_added_docids(
    docids: &[&str],
    duplicates: Duplicates,
    exists: impl Fn(&str) -> bool,
) -> Result<()> {
    let unique = duplicates == Duplicates::Error;
    if let Some(docid) = docids.iter().find(|d| unique && exists(d)) {
        return Err(Error::Document(format!(
            "docid {docid:?} is already in the index; delete it first to replace it, or add it with duplicates=\"keep\""
        )));
    }
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(docids.len());
    for (position, &docid) in docids.iter().enumerate() {
        if docid.is_empty() {
            return Err(empty_docid(position));
        }
        if unique && let Some(&first) = seen.get(docid) {
            return Err(duplicate_docid(docid, first, position));
        }
        seen.entry(docid).or_insert(position);
    }
    Ok(())
}
