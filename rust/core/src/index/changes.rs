//! Changing a snapshot: deletions, then additions as a new segment, then
//! the merge policy, into a new [`Index`].

use std::collections::HashSet;
use std::sync::Arc;

use super::builder::field_docs;
use super::duplicates::check_added_docids;
use super::merge_policy::merge_policy;
use super::{Duplicates, Index, LiveSegment};
use crate::document::Doc;
use crate::error::Result;
use crate::segment::{Deletions, SegmentBuilder, SegmentData};

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
        let names: Vec<String> = self.fields.iter().map(|(n, _)| n.clone()).collect();
        let field_adds = field_docs(&adds, &names)?;
        let deletions: Vec<Option<Arc<Deletions>>> =
            deletions.into_iter().map(|d| d.map(Arc::new)).collect();
        let added = (!adds.is_empty())
            .then(|| {
                let mut builder = SegmentBuilder::new(self.analyzer.clone(), store);
                builder.add(adds)?;
                builder.finish()
            })
            .transpose()?;
        let segments = changed(&self.segments, &deletions, added)?;
        let index = Index::from_segments(self.analyzer.clone(), segments, self.dir.clone())?;
        if names.is_empty() {
            return Ok(index);
        }
        // The same changes to every field: the merge policy, which sees only
        // segment sizes and deletions, then chooses the same merges.
        let mut fields = Vec::with_capacity(names.len());
        for ((name, field), adds) in self.fields.iter().zip(field_adds) {
            let added = (!adds.is_empty())
                .then(|| {
                    let mut builder = SegmentBuilder::new(field.analyzer.clone(), false);
                    builder.add(adds)?;
                    builder.finish()
                })
                .transpose()?;
            let segments = changed(&field.segments, &deletions, added)?;
            let changed =
                Index::from_segments(field.analyzer.clone(), segments, field.dir.clone())?;
            fields.push((name.clone(), changed));
        }
        index.with_fields(fields)
    }
}

/// `segments` with `deletions` applied and the `added` segment appended,
/// emptied segments dropped, then merged by the merge policy.
fn changed(
    segments: &[LiveSegment],
    deletions: &[Option<Arc<Deletions>>],
    added: Option<SegmentData>,
) -> Result<Vec<LiveSegment>> {
    let mut segments: Vec<LiveSegment> = segments
        .iter()
        .zip(deletions)
        .map(|(seg, del)| match del {
            None => seg.clone(),
            Some(del) => LiveSegment::with_deletions(
                seg.data.clone(),
                Some(del.clone()),
                seg.name.clone(),
                None,
            ),
        })
        .collect();
    segments.extend(added.map(LiveSegment::new));
    segments.retain(|s| s.live_docs > 0);
    merge_policy(segments)
}
