//! Document reordering at build time: renumbers an index's documents so
//! that documents sharing terms get close numbers. Posting gaps shrink, so
//! postings compress better, and each block of postings holds more similar
//! documents, so block-max bounds get tighter and pruning skips more.
//!
//! The order comes from recursive graph bisection ([`bisection`]) over the
//! document–term graph read back from the built index's postings; the index
//! is then rewritten once in that order ([`renumber`]). Search results do
//! not change: scores do not depend on document numbers, and ties are broken
//! by docid strings, not numbers.

pub mod bisection;
mod renumber;

use crate::error::{Error, Result};
use crate::index::{Index, LiveSegment};

pub use bisection::BisectionConfig;

/// How a build numbers its documents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reorder {
    /// In the order they were given (the default).
    #[default]
    None,
    /// By recursive graph bisection with [`BisectionConfig::default`].
    Bp,
}

impl Reorder {
    /// Parses `"none"` or `"bp"`.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "none" => Ok(Reorder::None),
            "bp" => Ok(Reorder::Bp),
            other => Err(Error::Argument(format!(
                "unknown reorder {other:?}; choose \"bp\" (recursive graph bisection) or \"none\""
            ))),
        }
    }

    /// `index` with its documents numbered this way.
    pub fn apply(self, index: Index) -> Result<Index> {
        match self {
            Reorder::None => Ok(index),
            Reorder::Bp => reordered(&index, &BisectionConfig::default()),
        }
    }
}

/// A new index holding the live documents of `index` in one segment,
/// numbered by recursive graph bisection under `config`. Copies of a docid
/// indexed more than once keep their relative order, so ties between them
/// still go to the first copy added.
pub fn reordered(index: &Index, config: &BisectionConfig) -> Result<Index> {
    let merged = index.merged()?;
    let (segments, order) = match merged.segments() {
        [] => (Vec::new(), Vec::new()),
        [one] => {
            let data = one.data();
            let forward = bisection::ForwardIndex::from_segment(data, config);
            let mut order = bisection::bisect(&forward, config);
            keep_copies_in_order(data, &mut order);
            let segment = LiveSegment::new(renumber::renumbered(data, &order)?);
            (vec![segment], order)
        }
        _ => {
            return Err(Error::Document(
                "reordering needs the index merged into one segment".into(),
            ));
        }
    };
    let index = Index::from_segments(merged.analyzer.clone(), segments, None)?;
    if !merged.is_multifield() {
        return Ok(index);
    }
    // The other fields' documents take the same numbers.
    let mut fields = Vec::new();
    for (name, field) in merged.extra_fields() {
        let segments = match field.segments() {
            [one] => vec![LiveSegment::new(renumber::renumbered(one.data(), &order)?)],
            _ => Vec::new(),
        };
        let analyzer = field.analyzer.clone();
        fields.push((
            name.clone(),
            Index::from_segments(analyzer, segments, None)?,
        ));
    }
    index.with_fields(fields)
}

/// Gives the copies of each docid held more than once the positions of
/// `order` (new number → old number) they hold together, in their old order.
fn keep_copies_in_order(data: &crate::segment::SegmentData, order: &mut [u32]) {
    let n = order.len();
    let mut by_rank = vec![0u32; n];
    for doc in 0..n as u32 {
        by_rank[data.docid_rank(doc) as usize] = doc;
    }
    let mut new_of_old = vec![0u32; n];
    for (new, &old) in order.iter().enumerate() {
        new_of_old[old as usize] = new as u32;
    }
    let mut start = 0;
    while start < n {
        let docid = data.docids.get_bytes(by_rank[start]);
        let mut end = start + 1;
        while end < n && data.docids.get_bytes(by_rank[end]) == docid {
            end += 1;
        }
        if end - start > 1 {
            // Equal docids rank in old order.
            let copies = &by_rank[start..end];
            let mut slots: Vec<u32> = copies.iter().map(|&c| new_of_old[c as usize]).collect();
            slots.sort_unstable();
            for (&slot, &old) in slots.iter().zip(copies) {
                order[slot as usize] = old;
            }
        }
        start = end;
    }
}

#[cfg(test)]
mod tests;
