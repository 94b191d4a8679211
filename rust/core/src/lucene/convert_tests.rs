use super::*;
use crate::lucene::reader::tests::fixture;
use crate::scoring::Bm25Params;
use crate::search::{Model, Request};

#[test]
fn converts_with_exact_lengths_matching_lucene_norms() {
    let lucene = LuceneIndex::open(&fixture("9.9.1-adi-1seg")).unwrap();
    let (index, report) = convert(&lucene, CONTENTS_FIELD).unwrap();
    assert_eq!(report.norm_mismatches, 0);
    assert_eq!(index.len(), 82);
    let norms = lucene.segments[0].norms(CONTENTS_FIELD).unwrap();
    let segment = index.segments[0].data();
    for doc in 0..82u32 {
        assert_eq!(segment.norms[doc as usize], norms.values[doc as usize]);
    }
    let hits = Request::new(Model::Bm25(Bm25Params::default()), 5)
        .search(&index, "information retrieval")
        .unwrap();
    assert_eq!(hits.len(), 5);
}

#[test]
fn keeps_deletions_and_raw_documents() {
    let lucene = LuceneIndex::open(&fixture("9.9.1-adi-1seg-raw-del5")).unwrap();
    let (index, _) = convert(&lucene, CONTENTS_FIELD).unwrap();
    assert_eq!(index.stats().num_docs, 82);
    assert_eq!(index.stats().num_deleted, 5);
    let store = index.segments[0].data().store.as_ref().unwrap();
    let doc = store.get(10).unwrap();
    assert!(doc.raw.unwrap().contains("\"id\""));
}

#[test]
fn converts_every_segment_of_an_older_index() {
    let (index, report) = convert(
        &LuceneIndex::open(&fixture("9.3.0-adi-3files-2threads-raw-pos-dv")).unwrap(),
        CONTENTS_FIELD,
    )
    .unwrap();
    assert_eq!(report.norm_mismatches, 0);
    assert_eq!(index.stats().num_segments, 2);
    assert_eq!(index.len(), 82);
}
