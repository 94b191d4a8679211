use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;
use crate::error::Error;

/// A fixture folder built by Anserini (see tests/data/lucene/).
pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/lucene")
        .join(name)
}

fn open_all(path: &Path) -> Result<(LuceneIndex, Vec<Vec<StoredDocument>>)> {
    let index = LuceneIndex::open(path)?;
    let docs = index
        .segments
        .iter()
        .map(LuceneSegment::documents)
        .collect::<Result<Vec<_>>>()?;
    Ok((index, docs))
}

#[test]
fn opens_a_lucene_9_9_index() {
    let (index, docs) = open_all(&fixture("9.9.1/adi-1seg-raw")).unwrap();
    assert_eq!(index.commit.lucene_version, segment_infos::Version(9, 9, 1));
    assert_eq!(index.segments.len(), 1);
    assert_eq!((index.max_doc(), index.num_docs()), (82, 82));
    let segment = &index.segments[0];
    assert_eq!(segment.commit.codec, "Lucene99");
    let ids: Vec<&str> = docs[0].iter().map(|d| d.docid.as_str()).collect();
    assert_eq!(ids[0], "1");
    assert_eq!(ids.len(), 82);
    // -storeRaw without -storeContents: Anserini's JSON, no contents field.
    for d in &docs[0] {
        assert!(d.contents.is_none());
        let json: serde_json::Value = serde_json::from_str(d.raw.as_deref().unwrap()).unwrap();
        assert_eq!(json["id"].as_str(), Some(d.docid.as_str()));
    }
    let norms = segment.norms(CONTENTS_FIELD).unwrap();
    assert!(norms.present.iter().all(|&p| p));
    assert!(norms.values.iter().all(|&n| n > 0));
    assert!(segment.norms(ID_FIELD).is_none());
}

#[test]
fn reads_nothing_stored_from_a_compound_segment() {
    let (index, docs) = open_all(&fixture("9.9.1/adi-3files-2threads-cfs-drop3")).unwrap();
    assert_eq!(index.segments.len(), 1);
    assert_eq!((index.max_doc(), index.num_docs()), (82, 79));
    assert!(
        docs[0]
            .iter()
            .all(|d| d.raw.is_none() && d.contents.is_none())
    );
}

#[test]
fn reads_deletions_and_raw_documents() {
    let (index, docs) = open_all(&fixture("9.3.0/adi-3files-2threads-raw-del5")).unwrap();
    assert_eq!((index.max_doc(), index.num_docs()), (87, 82));
    // The first copies of documents 1 to 5 were replaced under -uniqueDocid:
    // they are the deleted ones, and their live copies are the cut texts.
    let mut deleted = std::collections::BTreeMap::new();
    let mut live = std::collections::BTreeMap::new();
    for (segment, docs) in index.segments.iter().zip(&docs) {
        for (n, d) in docs.iter().enumerate() {
            let raw = d.raw.as_deref().unwrap();
            let json: serde_json::Value = serde_json::from_str(raw).unwrap();
            assert_eq!(json["id"].as_str(), Some(d.docid.as_str()));
            let contents = json["contents"].as_str().unwrap().to_string();
            if segment.deleted.contains(&(n as u32)) {
                deleted.insert(d.docid.clone(), contents);
            } else {
                live.insert(d.docid.clone(), contents);
            }
        }
    }
    assert_eq!(
        deleted.keys().collect::<Vec<_>>(),
        ["1", "2", "3", "4", "5"]
    );
    assert_eq!(live.len(), 82);
    for (docid, original) in &deleted {
        let words: Vec<&str> = original.split_whitespace().collect();
        let cut: Vec<&str> = words[..(words.len() / 2).max(1)]
            .iter()
            .rev()
            .copied()
            .collect();
        assert_eq!(live[docid], cut.join(" "));
    }
}

#[test]
fn opens_a_lucene_9_3_index_of_two_segments() {
    let (index, docs) = open_all(&fixture("9.3.0/adi-3files-2threads-raw-pos-dv")).unwrap();
    assert_eq!(index.segments.len(), 2);
    assert!(index.segments.iter().all(|s| s.commit.codec == "Lucene92"));
    assert_eq!(index.num_docs(), 82);
    let mut ids: Vec<String> = docs.iter().flatten().map(|d| d.docid.clone()).collect();
    ids.sort_by_key(|id| id.parse::<u32>().unwrap());
    let expected: Vec<String> = (1..=82).map(|i| i.to_string()).collect();
    assert_eq!(ids, expected);
}

#[test]
fn a_folder_without_a_commit_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        LuceneIndex::open(dir.path()),
        Err(Error::Corrupted { .. })
    ));
}

/// Files this reader decodes (the terms and postings are read elsewhere).
fn is_read_here(name: &str) -> bool {
    name.starts_with("segments_")
        || [
            ".si", ".fnm", ".nvm", ".nvd", ".fdt", ".fdm", ".fdx", ".liv",
        ]
        .iter()
        .any(|ext| name.ends_with(ext))
}

pub(crate) fn copy_fixture(
    name: &str,
    keep: impl Fn(&str) -> bool,
) -> (tempfile::TempDir, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for entry in std::fs::read_dir(fixture(name)).unwrap() {
        let entry = entry.unwrap();
        let n = entry.file_name().into_string().unwrap();
        std::fs::copy(entry.path(), tmp.path().join(&n)).unwrap();
        if keep(&n) {
            names.push(n);
        }
    }
    names.sort();
    (tmp, names)
}

/// Damages the file at `path`: truncated to `at` (modulo its length), or its
/// bit `at` (modulo its bits) flipped.
pub(crate) fn damage(path: &Path, at: usize, truncate: bool) {
    let mut bytes = std::fs::read(path).unwrap();
    if truncate {
        bytes.truncate(at % bytes.len());
    } else {
        let bit = at % (8 * bytes.len());
        bytes[bit / 8] ^= 1 << (bit % 8);
    }
    std::fs::write(path, &bytes).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn a_flipped_bit_or_a_truncation_is_an_error(file in any::<usize>(), at in any::<usize>(), truncate in any::<bool>()) {
        let (tmp, names) = copy_fixture("9.3.0/adi-3files-2threads-raw-del5", is_read_here);
        let name = &names[file % names.len()];
        let path = tmp.path().join(name);
        damage(&path, at, truncate);
        let result = open_all(tmp.path());
        prop_assert!(
            matches!(result, Err(Error::Corrupted { .. } | Error::LuceneVersion { .. })),
            "{name}: {:?}", result.map(|_| ())
        );
    }
}
