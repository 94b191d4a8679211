//! Changing a snapshot: deletions, then additions as a new segment, then
//! the merge policy, into a new [`Index`].

use std::collections::HashSet;
use std::sync::Arc;

use super::duplicates::check_added_docids;
use super::merge_policy::merge_policy;
use super::{Duplicates, Index, LiveSegment};
use crate::document::Doc;
use crate::error::Result;
use crate::segment::{Deletions, SegmentBuilder};

impl Index {
    /// A new index with `deletes` removed and `adds` added as a new segment,
    /// then merged by the merge policy. Fails, changing nothing, on an unknown
    /// docid to delete or an added docid that would not be unique.
    pub fn with_changes(&self, adds: Vec<Doc>, deletes: &[String], store: bool) -> Result<Index> {
        self.with_changes_as(adds, deletes, store, Duplicates::Error)
    }

    /// [`Index::with_changes`] under a [`Duplicates`] policy: with `Keep`,
    /// added docids need not be unique, and deleting a docid deletes every
    /// copy.
    pub fn with_changes_as(
        &self,
        adds: Vec<Doc>,
        deletes: &[String],
        store: bool,
        duplicates: Duplicates,
    ) -> Result<Index> {
        let mut deletions: Vec<Option<Deletions>> = vec![None; self.segments.len()];
        let mut deleted: HashSet<&str> = HashSet::new();
        for docid in deletes {
            if !deleted.insert(docid.as_str()) {
                continue;
            }
            for id in self.copies(docid)? {
                let (s, d) = self.locate(id).expect("lookup ids are valid");
                let seg = &self.segments[s];
                deletions[s]
                    .get_or_insert_with(|| {
                        seg.deletions
                            .as_deref()
                            .cloned()
                            .unwrap_or_else(|| Deletions::new(seg.data.len()))
                    })
                    .insert(d);
            }
        }
        let docids: Vec<&str> = adds.iter().map(|doc| doc.docid.as_str()).collect();
        check_added_docids(&docids, duplicates, |docid| {
            !deleted.contains(docid) && self.doc(docid).is_ok()
        })?;
        let mut segments: Vec<LiveSegment> = self
            .segments
            .iter()
            .zip(deletions)
            .map(|(seg, del)| match del {
                None => seg.clone(),
                Some(del) => LiveSegment::with_deletions(
                    seg.data.clone(),
                    Some(Arc::new(del)),
                    seg.name.clone(),
                    None,
                ),
            })
            .collect();
        if !adds.is_empty() {
            let mut builder = SegmentBuilder::new(self.analyzer.clone(), store);
            builder.add(adds)?;
            segments.push(LiveSegment::new(builder.finish()?));
        }
        segments.retain(|s| s.live_docs > 0);
        let segments = merge_policy(segments)?;
        Index::from_segments(self.analyzer.clone(), segments, self.dir.clone())
    }
}
