//! Merging segments: their live documents into one new segment, straight
//! from their postings.

use super::live_segment::term_union;
use super::{Index, LiveSegment};
use crate::docstore::{DocStoreWriter, StoredDoc};
use crate::error::{Error, Result};

impl Index {
    /// A new index whose live documents are all in one segment; so are
    /// those of each of its other fields.
    pub fn merged(&self) -> Result<Index> {
        let segments =
            if self.segments.len() <= 1 && !self.segments.iter().any(LiveSegment::has_deletions) {
                self.segments.clone()
            } else {
                vec![merge(&self.segments)?]
            };
        let index = Index::from_segments(self.analyzer.clone(), segments, self.dir.clone())?;
        if !self.is_multifield() {
            return Ok(index);
        }
        let fields = self
            .fields
            .iter()
            .map(|(name, field)| Ok((name.clone(), field.merged()?)))
            .collect::<Result<Vec<_>>>()?;
        index.with_fields(fields)
    }
}

/// Merges the live documents of `segments`, in order, into one new segment,
/// straight from their postings.
pub(crate) fn merge(segments: &[LiveSegment]) -> Result<LiveSegment> {
    // New local id of each live document, per segment.
    let mut remap: Vec<Vec<u32>> = Vec::with_capacity(segments.len());
    let mut docids: Vec<&str> = Vec::new();
    let mut lengths: Vec<u32> = Vec::new();
    let store = segments.iter().all(|s| s.data.store.is_some());
    let mut store_writer = store.then(DocStoreWriter::default);
    for seg in segments {
        let mut map = vec![u32::MAX; seg.data.len()];
        for d in 0..seg.data.len() as u32 {
            if seg.is_deleted(d) {
                continue;
            }
            map[d as usize] = docids.len() as u32;
            docids.push(seg.data.docid(d).unwrap_or(""));
            lengths.push(seg.data.length(d));
            if let Some(w) = &mut store_writer {
                let doc = seg.data.stored(d).unwrap_or(StoredDoc {
                    contents: String::new(),
                    raw: None,
                    derived: false,
                });
                w.add(&doc.contents, doc.raw.as_deref(), doc.derived);
            }
        }
        remap.push(map);
    }
    let mut stream = term_union(segments);
    let mut term_builder = fst::MapBuilder::memory();
    let mut written = crate::segment::PostingsWriter::default();
    let mut batch = crate::segment::ListBatch::default();
    let mut hits = Vec::new();
    let mut num_terms = 0u64;
    while let Some((term, found)) = fst::Streamer::next(&mut stream) {
        hits.clear();
        hits.extend_from_slice(found);
        hits.sort_unstable_by_key(|h: &fst::map::IndexedValue| h.index);
        let before = batch.docs.len();
        for h in &hits {
            let map = &remap[h.index];
            segments[h.index]
                .data
                .for_each_posting(h.value as u32, |d, tf| {
                    if let Some(&new) = map.get(d as usize)
                        && new != u32::MAX
                    {
                        batch.docs.push(new);
                        batch.tfs.push(tf);
                    }
                });
        }
        if batch.docs.len() == before {
            continue;
        }
        term_builder
            .insert(term, num_terms)
            .map_err(|e| Error::Document(format!("cannot build the term dictionary: {e}")))?;
        num_terms += 1;
        batch.end_list(&mut written, &lengths);
    }
    batch.flush(&mut written, &lengths);
    let terms = crate::data::Data::owned(
        term_builder
            .into_inner()
            .map_err(|e| Error::Document(format!("cannot build the term dictionary: {e}")))?,
    );
    let docid_bytes = crate::segment::DocIds::encode(docids.iter().copied());
    let data = crate::segment::assemble(
        docid_bytes,
        &docids,
        lengths,
        terms,
        written,
        store_writer
            .map(|w| crate::segment::open_store(w.finish(), docids.len() as u32))
            .transpose()?,
    )?;
    Ok(LiveSegment::new(data))
}
