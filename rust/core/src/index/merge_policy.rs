//! The merge policy: which segments a commit rewrites or merges.

use std::collections::HashSet;

use super::LiveSegment;
use super::merger::merge;
use crate::error::Result;

/// More segments than this trigger a merge of the smallest ones.
pub const MAX_SEGMENTS: usize = 8;
/// A segment with more than this share of deleted documents is rewritten.
pub const MAX_DELETED_SHARE: f64 = 0.3;

/// The merge policy: rewrite segments with over [`MAX_DELETED_SHARE`]
/// deleted documents, and merge the smallest segments while there are more
/// than [`MAX_SEGMENTS`].
pub(super) fn merge_policy(segments: Vec<LiveSegment>) -> Result<Vec<LiveSegment>> {
    let mut out = Vec::with_capacity(segments.len());
    for seg in segments {
        let deleted = seg.deletions.as_ref().map_or(0, |d| d.count());
        if deleted as f64 > MAX_DELETED_SHARE * seg.data.len() as f64 {
            out.push(merge(std::slice::from_ref(&seg))?);
        } else {
            out.push(seg);
        }
    }
    if out.len() > MAX_SEGMENTS {
        // Keep the largest MAX_SEGMENTS - 1, merge the rest into one, in index order.
        let mut by_size: Vec<usize> = (0..out.len()).collect();
        by_size.sort_by_key(|&i| std::cmp::Reverse(out[i].live_docs));
        let keep: HashSet<usize> = by_size[..MAX_SEGMENTS - 1].iter().copied().collect();
        let mut kept = Vec::with_capacity(MAX_SEGMENTS);
        let mut small = Vec::new();
        for (i, seg) in out.into_iter().enumerate() {
            if keep.contains(&i) {
                kept.push(seg);
            } else {
                small.push(seg);
            }
        }
        kept.push(merge(&small)?);
        let merged = kept;
        out = merged;
    }
    Ok(out)
}
