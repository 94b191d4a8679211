//! `meta.json`: the listing of an index's live files with their sizes and
//! CRC32s, sealed by a checksum of its own.

use std::collections::HashSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{FORMAT_VERSION, KINDS, META_FILE, OLDEST_FORMAT_VERSION};
use crate::analysis::AnalyzerConfig;
use crate::error::{Error, Result};
use crate::index::check_field_name;
use crate::safe_fs;

/// The first format version whose `meta.json` carries its own checksum.
const SEALED_META_VERSION: u32 = 3;
/// The largest `meta.json` read (about 1 KB per segment, so ample).
const META_MAX_BYTES: u64 = 16 << 20;

/// Size and checksum of one file, as recorded in `meta.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// File name inside the index folder.
    pub name: String,
    /// Total bytes, footer included.
    pub bytes: u64,
    /// CRC32 of the payload.
    pub crc32: u32,
}

/// One segment in `meta.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentMeta {
    /// The segment's file name stem.
    pub name: String,
    /// Documents, deleted ones included.
    pub num_docs: u64,
    /// Deleted documents.
    pub num_deleted: u64,
    /// The deletions file, if any document is deleted.
    pub deletions: Option<FileEntry>,
    /// The segment's data files.
    pub files: Vec<FileEntry>,
    /// Whether its deleted documents still count in the collection
    /// statistics (a segment converted from Lucene, as Lucene counts them).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted_in_stats: bool,
}

/// The content of `meta.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexMeta {
    /// Always `"rserini-index"`.
    pub format: String,
    /// [`FORMAT_VERSION`] at write time.
    pub format_version: u32,
    /// Version of rserini that wrote the index.
    pub rserini_version: String,
    /// Incremented by every save.
    pub generation: u64,
    /// The analysis chain of documents and queries.
    pub analyzer: AnalyzerConfig,
    /// Free-form origin information (for example the fingerprint of a source tree).
    #[serde(default)]
    pub source: Option<String>,
    /// Number of the next segment name.
    pub next_segment: u64,
    /// Live documents.
    pub num_docs: u64,
    /// The segments, in global-id order.
    pub segments: Vec<SegmentMeta>,
    /// The Lucene version that wrote the commit this index was converted
    /// from, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lucene_version: Option<String>,
    /// The other fields of a multifield index, each saved in its folder
    /// `fields/<name>/` (absent from the JSON when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldMeta>,
}

/// One other field of a multifield index in `meta.json`: its name (its
/// folder `fields/<name>/`) and the listing of that folder's files. This
/// copy, not the folder's own `meta.json`, is the one loading follows, so
/// the parent's `meta.json` commits the fields with the rest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldMeta {
    /// The field's name.
    pub name: String,
    /// The field's index, as its folder's `meta.json` lists it.
    pub index: IndexMeta,
}

/// The bytes of `meta.json` in `dir` and their JSON value, checked for
/// nothing more than being JSON.
pub(super) fn meta_json(dir: &Path) -> Result<(Vec<u8>, serde_json::Value)> {
    if !dir.is_dir() {
        return Err(Error::io(
            dir,
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such index folder"),
        ));
    }
    let path = dir.join(META_FILE);
    let bytes = safe_fs::read_bounded(&path, META_MAX_BYTES).map_err(|e| match e {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            Error::corrupted(
                &path,
                "missing: this folder is not a (complete) rserini index",
            )
        }
        other => other,
    })?;
    let value = serde_json::from_slice(&bytes)
        .map_err(|e| Error::corrupted(&path, format!("not valid JSON: {e}")))?;
    Ok((bytes, value))
}

/// Whether a `meta.json` value is an rserini index's.
pub(super) fn is_rserini_meta(value: &serde_json::Value) -> bool {
    value.get("format").and_then(|f| f.as_str()) == Some("rserini-index")
}

/// Reads and checks `meta.json` of the index in `dir`.
pub fn read_meta(dir: &Path) -> Result<IndexMeta> {
    let (bytes, value) = meta_json(dir)?;
    let path = dir.join(META_FILE);
    if !is_rserini_meta(&value) {
        return Err(Error::corrupted(&path, "not an rserini index meta file"));
    }
    let version = value
        .get("format_version")
        .and_then(|v| v.as_u64())
        .unwrap_or(0) as u32;
    if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(Error::Version {
            path: dir.to_path_buf(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    if version >= SEALED_META_VERSION {
        check_seal(&path, &bytes)?;
    }
    let meta: IndexMeta = serde_json::from_value(value)
        .map_err(|e| Error::corrupted(&path, format!("unexpected content: {e}")))?;
    check_listing(&path, &meta)?;
    Ok(meta)
}

/// The key of the checksum member, the last of `meta.json`.
const SEAL_KEY: &[u8] = b"\"checksum\"";

/// `meta` as the bytes of `meta.json`: pretty JSON whose last member is
/// `"checksum": "crc32:<8 hex digits>"`, the CRC32 of every byte before
/// that member's key.
pub(super) fn sealed(meta: &IndexMeta) -> Vec<u8> {
    let mut json = serde_json::to_vec_pretty(meta).expect("IndexMeta serialises");
    // Reopen the object: `to_vec_pretty` ends it with "\n}".
    debug_assert!(json.ends_with(b"\n}"));
    json.truncate(json.len() - 2);
    json.extend_from_slice(b",\n  ");
    let crc = crc32fast::hash(&json);
    json.extend_from_slice(SEAL_KEY);
    json.extend_from_slice(format!(": \"crc32:{crc:08x}\"\n}}\n").as_bytes());
    json
}

/// Checks the checksum that [`sealed`] gave the bytes of `meta.json`.
pub(super) fn check_seal(path: &Path, bytes: &[u8]) -> Result<()> {
    let at = bytes
        .windows(SEAL_KEY.len())
        .rposition(|w| w == SEAL_KEY)
        .ok_or_else(|| Error::corrupted(path, "no checksum: meta.json was edited or damaged"))?;
    let tail = std::str::from_utf8(&bytes[at + SEAL_KEY.len()..]).unwrap_or("");
    let recorded = tail
        .trim_end()
        .strip_prefix(": \"crc32:")
        .and_then(|t| t.strip_suffix("\"\n}"))
        .filter(|hex| hex.len() == 8)
        .and_then(|hex| u32::from_str_radix(hex, 16).ok())
        .ok_or_else(|| {
            Error::corrupted(
                path,
                "malformed checksum: it must end the file as \"checksum\": \"crc32:<8 hex digits>\"",
            )
        })?;
    if crc32fast::hash(&bytes[..at]) != recorded {
        return Err(Error::corrupted(
            path,
            "checksum mismatch: meta.json was edited or damaged",
        ));
    }
    Ok(())
}

/// The number `n` of the segment named `seg<n>`.
pub(super) fn segment_number(name: &str) -> Option<u64> {
    name.strip_prefix("seg")
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse().ok())
}

/// Checks that `meta` names only files this index could have written, each
/// once: segments `seg<n>` with `n` below `next_segment` (a new segment can
/// then never take the name of a listed one), their data files
/// `<segment>.<kind>` and deletion files `<segment>.<generation>.del`.
pub(super) fn check_listing(path: &Path, meta: &IndexMeta) -> Result<()> {
    let bad = |message: String| Err(Error::corrupted(path, message));
    let mut field_names = HashSet::new();
    for field in &meta.fields {
        let name = field.name.as_str();
        if let Err(e) = check_field_name(name) {
            return bad(format!("field {name:?}: {e}"));
        }
        if !field_names.insert(name) {
            return bad(format!("field {name} is listed twice"));
        }
        if !field.index.fields.is_empty() {
            return bad(format!("field {name} lists fields of its own"));
        }
        if field.index.num_docs != meta.num_docs {
            return bad(format!("field {name} has another number of documents"));
        }
        check_listing(path, &field.index)?;
    }
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mut names = HashSet::new();
    for segment in &meta.segments {
        let name = segment.name.as_str();
        if segment_number(name).is_none_or(|n| n >= meta.next_segment) {
            return bad(format!(
                "segment name {name:?} is not one this index gave out (the next is number {})",
                meta.next_segment
            ));
        }
        if !names.insert(name) {
            return bad(format!("segment {name} is listed twice"));
        }
        for file in &segment.files {
            let kind = file
                .name
                .strip_prefix(name)
                .and_then(|k| k.strip_prefix('.'));
            if !kind.is_some_and(|k| KINDS.contains(&k)) {
                return bad(format!(
                    "file {:?} is not a data file of segment {name}",
                    file.name
                ));
            }
            if !names.insert(&file.name) {
                return bad(format!("file {} is listed twice", file.name));
            }
        }
        if let Some(file) = &segment.deletions {
            let generation = file
                .name
                .strip_prefix(name)
                .and_then(|g| g.strip_prefix('.'))
                .and_then(|g| g.strip_suffix(".del"));
            if !generation.is_some_and(digits) {
                return bad(format!(
                    "file {:?} is not a deletions file of segment {name}",
                    file.name
                ));
            }
            if !names.insert(&file.name) {
                return bad(format!("file {} is listed twice", file.name));
            }
        }
    }
    Ok(())
}
