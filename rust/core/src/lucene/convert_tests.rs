use super::*;
use crate::lucene::reader::tests::{copy_fixture, damage, fixture};
use crate::scoring::Bm25Params;
use crate::search::{Model, Request};

#[test]
fn converts_with_exact_lengths_matching_lucene_norms() {
    let lucene = LuceneIndex::open(&fixture("9.9.1/adi-1seg-raw")).unwrap();
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
    let lucene = LuceneIndex::open(&fixture("9.3.0/adi-3files-2threads-raw-del5")).unwrap();
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
        &LuceneIndex::open(&fixture("9.3.0/adi-3files-2threads-raw-pos-dv")).unwrap(),
        CONTENTS_FIELD,
    )
    .unwrap();
    assert_eq!(report.norm_mismatches, 0);
    assert_eq!(index.stats().num_segments, 2);
    assert_eq!(index.len(), 82);
}

/// A copy of a committed fixture in a temporary folder, with the names of
/// its files (the empty `write.lock` aside).
fn copy_of(name: &str) -> (tempfile::TempDir, Vec<String>) {
    copy_fixture(name, |n| n != "write.lock")
}

/// Whether `result` is the precise error of damage to `name`: a
/// corruption naming it, or a version error (a flipped version number).
fn names_the_damage(result: &Result<Index>, name: &str) -> bool {
    match result {
        Err(Error::Corrupted { path, .. }) | Err(Error::LuceneVersion { path, .. }) => {
            path.file_name().is_some_and(|f| f == name)
                // Damage to a compound file may surface through the files inside it.
                || (name.ends_with(".cfs") || name.ends_with(".cfe"))
                    && path.to_string_lossy().contains(".cf")
        }
        _ => false,
    }
}

const DAMAGED: [&str; 3] = [
    "9.9.1/adi-3files-2threads-fields-title-raw",
    "9.3.0/adi-3files-2threads-raw-del5",
    "9.9.1/adi-3files-2threads-cfs-drop3",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
    /// Any file of any version's index, a bit flipped or cut short, makes
    /// the whole load (terms, postings, norms, stored fields, every field)
    /// fail with an error naming that file; never a panic, never an index.
    #[test]
    fn a_damaged_file_fails_the_load_naming_it(
        fixture_at in 0usize..DAMAGED.len(),
        file in proptest::prelude::any::<usize>(),
        at in proptest::prelude::any::<usize>(),
        truncate in proptest::prelude::any::<bool>(),
    ) {
        let (tmp, names) = copy_of(DAMAGED[fixture_at]);
        let name = &names[file % names.len()];
        let path = tmp.path().join(name);
        damage(&path, at, truncate);
        let result = load(tmp.path());
        proptest::prop_assert!(
            names_the_damage(&result, name),
            "{} {name}: {:?}", DAMAGED[fixture_at], result.map(|_| ())
        );
    }
}

#[test]
fn foreign_files_are_ignored_unless_they_pose_as_the_newest_commit() {
    let (tmp, _) = copy_of("9.9.1/adi-1seg-raw");
    let dir = tmp.path();
    std::fs::write(dir.join("notes.txt"), b"not Lucene").unwrap();
    std::fs::write(dir.join("_7.fdt"), b"a stray segment file").unwrap();
    assert_eq!(load(dir).unwrap().len(), 82);
    std::fs::write(dir.join("segments_9"), b"a foreign file posing as a commit").unwrap();
    let result = load(dir);
    assert!(
        names_the_damage(&result, "segments_9"),
        "{:?}",
        result.map(|_| ())
    );
}
