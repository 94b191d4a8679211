//! Rewrites a segment with its documents in a new order: postings,
//! lengths, docids and the document store follow the new numbers; the term
//! dictionary is unchanged (terms keep their ordinals).

use rayon::prelude::*;

use crate::data::Data;
use crate::docstore::{DocStore, DocStoreWriter};
use crate::error::{Error, Result};
use crate::segment::{self, DocIds, PostingsWriter, SegmentData};

/// Postings renumbered per parallel batch: bounds the lists held at once.
const BATCH_POSTINGS: u64 = 1 << 21;

/// Documents copied per parallel task into a store of their own; the stores
/// are then concatenated, so blocks are cut where tasks end.
const STORE_TASK_DOCS: usize = 8192;

/// `data` with document `order[i]` as document `i`.
pub(crate) fn renumbered(data: &SegmentData, order: &[u32]) -> Result<SegmentData> {
    let n = data.len();
    debug_assert_eq!(order.len(), n);
    let mut new_of_old = vec![u32::MAX; n];
    for (new, &old) in order.iter().enumerate() {
        new_of_old[old as usize] = new as u32;
    }
    if new_of_old.contains(&u32::MAX) {
        return Err(Error::Document(
            "a document order must be a permutation of the documents".into(),
        ));
    }
    let lengths: Vec<u32> = order.iter().map(|&old| data.length(old)).collect();
    let postings = renumbered_postings(data, &new_of_old, &lengths);
    let docids: Vec<&str> = order
        .iter()
        .map(|&old| data.docid(old).unwrap_or_default())
        .collect();
    let docid_bytes = DocIds::encode(docids.iter().copied());
    let store = data
        .store
        .as_ref()
        .map(|store| renumbered_store(store, order))
        .transpose()?;
    let terms = Data::owned(data.terms.as_fst().as_bytes().to_vec());
    segment::assemble(docid_bytes, &docids, lengths, terms, postings, store)
}

/// Every posting list of `data` with documents renumbered by `new_of_old`,
/// compressed in term order.
fn renumbered_postings(data: &SegmentData, new_of_old: &[u32], lengths: &[u32]) -> PostingsWriter {
    let mut written = PostingsWriter::default();
    let num_terms = data.num_terms() as u32;
    let mut first = 0u32;
    while first < num_terms {
        let mut end = first;
        let mut postings = 0u64;
        while end < num_terms && (end == first || postings < BATCH_POSTINGS) {
            postings += u64::from(data.term_info(end).df);
            end += 1;
        }
        let lists: Vec<(Vec<u32>, Vec<u32>)> = (first..end)
            .into_par_iter()
            .map(|ord| {
                let mut pairs = Vec::with_capacity(data.term_info(ord).df as usize);
                data.for_each_posting(ord, |doc, tf| pairs.push((new_of_old[doc as usize], tf)));
                pairs.sort_unstable_by_key(|&(doc, _)| doc);
                pairs.into_iter().unzip()
            })
            .collect();
        written.extend(&lists, lengths);
        first = end;
    }
    written
}

/// The store of `store` with document `order[i]` as document `i`.
fn renumbered_store(store: &DocStore, order: &[u32]) -> Result<DocStore> {
    let parts: Vec<DocStore> = order
        .par_chunks(STORE_TASK_DOCS)
        .map(|chunk| {
            let mut writer = DocStoreWriter::default();
            for &old in chunk {
                let doc = store.get(old).ok_or_else(|| {
                    Error::Document(format!("stored document #{old} cannot be read"))
                })?;
                writer.add(&doc.contents, doc.raw.as_deref(), doc.derived);
            }
            segment::open_store(writer.finish(), chunk.len() as u32)
        })
        .collect::<Result<_>>()?;
    segment::open_store(DocStore::concat(&parts), order.len() as u32)
}
