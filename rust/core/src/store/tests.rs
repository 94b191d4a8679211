use std::path::Path;

use super::meta::{check_listing, check_seal, sealed};
use super::save::is_index_file_name;
use super::*;
use crate::analysis::AnalyzerConfig;
use crate::error::Error;

fn meta(segments: &[&str]) -> IndexMeta {
    IndexMeta {
        format: "rserini-index".into(),
        format_version: FORMAT_VERSION,
        rserini_version: "0".into(),
        generation: 1,
        analyzer: AnalyzerConfig::default(),
        source: Some("a \"checksum\": \"crc32:00000000\"\n} in a string".into()),
        next_segment: 3,
        num_docs: 0,
        segments: segments
            .iter()
            .map(|name| SegmentMeta {
                name: (*name).into(),
                num_docs: 0,
                num_deleted: 0,
                deletions: None,
                files: vec![FileEntry {
                    name: format!("{name}.docids"),
                    bytes: 20,
                    crc32: 0,
                }],
                deleted_in_stats: false,
            })
            .collect(),
        lucene_version: None,
        fields: Vec::new(),
    }
}

#[test]
fn a_sealed_meta_passes_and_any_changed_byte_fails() {
    let path = Path::new("meta.json");
    let bytes = sealed(&meta(&["seg000001"]));
    check_seal(path, &bytes).unwrap();
    let parsed: IndexMeta = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(parsed, meta(&["seg000001"]));
    for at in (0..bytes.len()).step_by(7) {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x01;
        assert!(check_seal(path, &damaged).is_err(), "byte {at}");
    }
    let cut = &bytes[..bytes.len() - 40];
    assert!(check_seal(path, cut).is_err());
}

#[test]
fn listings_name_each_segment_and_file_once() {
    let path = Path::new("meta.json");
    check_listing(path, &meta(&["seg000001", "seg000002"])).unwrap();
    for bad in [
        meta(&["seg000001", "seg000001"]),
        meta(&["seg000003"]),
        meta(&["../seg000001"]),
        meta(&["segment1"]),
    ] {
        assert!(matches!(
            check_listing(path, &bad),
            Err(Error::Corrupted { .. })
        ));
    }
    let mut foreign_file = meta(&["seg000001"]);
    foreign_file.segments[0].files[0].name = "write.lock".into();
    assert!(check_listing(path, &foreign_file).is_err());
}

#[test]
fn garbage_is_only_ever_our_own_names() {
    for ours in ["seg000001.postings", "seg1234567.store", "seg000002.17.del"] {
        assert!(is_index_file_name(ours), "{ours}");
    }
    for theirs in [
        "meta.json",
        "write.lock",
        "notes.txt",
        "seg000001.postings.bak",
        "seg.postings",
        "segA.postings",
        "seg000001.x.del",
    ] {
        assert!(!is_index_file_name(theirs), "{theirs}");
    }
}

#[test]
fn a_segment_file_is_read_only_as_a_file_of_its_own_segment() {
    use super::footer::{read_segment_footer, with_segment_footer};
    let path = Path::new("seg000003.docids");
    let (bytes, crc) = with_segment_footer(b"payload".to_vec(), FORMAT_VERSION, 3);
    assert_eq!(bytes.len(), 7 + 28);
    assert_eq!(
        read_segment_footer(path, &bytes, FORMAT_VERSION, 3).unwrap(),
        (7, crc)
    );
    let err = read_segment_footer(path, &bytes, FORMAT_VERSION, 4).unwrap_err();
    assert!(
        err.to_string().contains("seg000003, not seg000004"),
        "{err}"
    );
    // Version 3 files have no segment number: any listing segment reads them.
    let (old, _) = with_segment_footer(b"payload".to_vec(), 3, 3);
    assert_eq!(old.len(), 7 + 20);
    assert_eq!(read_segment_footer(path, &old, 3, 9).unwrap(), (7, crc));
}
