//! A commit (`segments_N`) and the segment infos (`.si`) it lists.
//!
//! `segments_N` keeps big-endian fixed-width integers in every Lucene
//! version, so a Lucene 8 commit is read far enough to name the version and
//! codec that wrote it before refusing it.

use super::directory::{Directory, base36};
use super::input::{ID_LENGTH, Input};
use crate::error::{Error, Result};

/// The codecs whose segments this build reads (Lucene 9.0 to 9.11).
pub const SUPPORTED_CODECS: [&str; 6] = [
    "Lucene90", "Lucene91", "Lucene92", "Lucene94", "Lucene95", "Lucene99",
];

/// What this build reads, in words, for version errors.
pub const SUPPORTED: &str = "indexes written by Lucene 9.0 to 9.11 (codecs Lucene90 to Lucene99, as Anserini and Pyserini write them)";

/// A Lucene version (major, minor, bugfix).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32, pub u32, pub u32);

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// A segment as the commit lists it.
#[derive(Clone, Debug)]
pub struct SegmentCommit {
    /// The segment's name, the prefix of its files (`_0`).
    pub name: String,
    /// The segment's id.
    pub id: [u8; ID_LENGTH],
    /// The codec that wrote it (`Lucene99`).
    pub codec: String,
    /// Generation of its live-docs file, -1 without deletions.
    pub del_gen: i64,
    /// Number of deleted documents.
    pub del_count: u32,
    /// Generation of its field infos, -1 if never updated.
    pub field_infos_gen: i64,
    /// Generation of its doc-values updates, -1 if none.
    pub doc_values_gen: i64,
}

/// The newest commit of a Lucene folder.
#[derive(Clone, Debug)]
pub struct Commit {
    /// N of `segments_N`.
    pub generation: u64,
    /// The Lucene version that wrote the commit.
    pub lucene_version: Version,
    /// The major version the index was created with.
    pub created_major: u32,
    /// The segments, in order.
    pub segments: Vec<SegmentCommit>,
}

impl Commit {
    /// Reads the newest commit of `dir`; refuses segments of codecs this
    /// build does not read with [`Error::LuceneVersion`].
    pub fn read(dir: &Directory) -> Result<Commit> {
        let (name, generation) = dir.newest_commit()?;
        let file = dir.file(&name)?;
        // The checksum first, so that damage is never taken for a version.
        file.check_footer()?;
        let mut input = file.input();
        // Version 9 is Lucene 7.4 to 8.5, 10 is 8.6 to 9.x.
        let magic = input.read_be_int()?;
        if magic != super::input::CODEC_MAGIC {
            return Err(input.corrupt(format!(
                "not a Lucene commit: header magic {magic:#010x} (Lucene before 5.0, or another kind of file)"
            )));
        }
        let mut input = file.input();
        let format = input.check_header("segments", 9, 10)?;
        input.read_id()?;
        input.check_suffix(&base36(generation))?;
        let lucene_version = read_version(&mut input)?;
        let created_major = input.read_vint()?;
        input.read_be_long()?; // version: changes since creation
        input.read_vlong()?; // counter for new segment names
        let count = input.read_be_int()?;
        if count > i32::MAX as u32 || count as usize > input.remaining() / 30 {
            return Err(input.corrupt(format!("invalid segment count {count}")));
        }
        if count > 0 {
            read_version(&mut input)?; // the oldest segment's version
        }
        let mut segments = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let name = input.read_string()?;
            let id = input.read_id()?;
            let codec = input.read_string()?;
            let del_gen = input.read_be_long()? as i64;
            let del_count = input.read_be_int()?;
            let field_infos_gen = input.read_be_long()? as i64;
            let doc_values_gen = input.read_be_long()? as i64;
            let soft_del_count = input.read_be_int()?;
            if format > 9 {
                match input.read_byte()? {
                    0 => {}
                    1 => {
                        input.read_id()?;
                    }
                    m => return Err(input.corrupt(format!("invalid commit id marker {m}"))),
                }
            }
            input.read_string_set()?; // field-infos update files
            let updates = input.read_be_int()?;
            for _ in 0..updates {
                input.read_be_int()?;
                input.read_string_set()?;
            }
            if !SUPPORTED_CODECS.contains(&codec.as_str()) {
                return Err(Error::LuceneVersion {
                    path: file.path.clone(),
                    found: format!(
                        "segment {name} of codec {codec} (commit written by Lucene {lucene_version})"
                    ),
                    supported: SUPPORTED.into(),
                });
            }
            if del_count > i32::MAX as u32 || soft_del_count != 0 {
                return Err(Error::LuceneVersion {
                    path: file.path.clone(),
                    found: format!("segment {name} with {soft_del_count} soft-deleted documents"),
                    supported: format!("{SUPPORTED}, without soft deletes"),
                });
            }
            segments.push(SegmentCommit {
                name,
                id,
                codec,
                del_gen,
                del_count,
                field_infos_gen,
                doc_values_gen,
            });
        }
        input.read_string_map()?; // user data
        if input.remaining() != super::input::FOOTER_LENGTH {
            return Err(input.corrupt(format!(
                "{} unexpected bytes before the footer",
                input
                    .remaining()
                    .saturating_sub(super::input::FOOTER_LENGTH)
            )));
        }
        Ok(Commit {
            generation,
            lucene_version,
            created_major,
            segments,
        })
    }
}

fn read_version(input: &mut Input<'_>) -> Result<Version> {
    Ok(Version(
        input.read_vint()?,
        input.read_vint()?,
        input.read_vint()?,
    ))
}

/// A segment's `.si`: what the segment is and how it is stored.
#[derive(Clone, Debug)]
pub struct SegmentInfo {
    /// The Lucene version that wrote the segment.
    pub version: Version,
    /// Number of documents, deleted ones included.
    pub max_doc: u32,
    /// Whether its files are packed in a compound file.
    pub compound: bool,
    /// Codec attributes (such as the stored-fields mode).
    pub attributes: Vec<(String, String)>,
}

impl SegmentInfo {
    /// Reads the `.si` of `segment` from the folder.
    pub fn read(dir: &Directory, segment: &SegmentCommit) -> Result<SegmentInfo> {
        let file = dir.file(&format!("{}.si", segment.name))?;
        file.check_footer()?;
        let mut input = file.input();
        input.check_index_header("Lucene90SegmentInfo", 0, 0, &segment.id, "")?;
        let version = Version(input.read_int()?, input.read_int()?, input.read_int()?);
        match input.read_byte()? {
            0 => {}
            1 => {
                input.read_int()?;
                input.read_int()?;
                input.read_int()?;
            }
            b => return Err(input.corrupt(format!("invalid min-version flag {b}"))),
        }
        let max_doc = input.read_int()?;
        if max_doc > i32::MAX as u32 {
            return Err(input.corrupt(format!("invalid document count {max_doc}")));
        }
        let compound = input.read_byte()? == 1;
        // Lucene 9.9's Lucene99 codec added a byte: whether documents were
        // added in blocks.
        if segment.codec == "Lucene99" {
            input.read_byte()?;
        }
        input.read_string_map()?; // diagnostics
        input.read_string_set()?; // files
        let attributes = input.read_string_map()?;
        let sort_fields = input.read_vint()?;
        if sort_fields != 0 {
            return Err(Error::LuceneVersion {
                path: file.path.clone(),
                found: "a sorted index (index sort)".into(),
                supported: format!("{SUPPORTED}, unsorted"),
            });
        }
        if input.remaining() != super::input::FOOTER_LENGTH {
            return Err(input.corrupt("unexpected bytes before the footer"));
        }
        if version.0 != 9 {
            return Err(Error::LuceneVersion {
                path: file.path.clone(),
                found: format!("a segment written by Lucene {version}"),
                supported: SUPPORTED.into(),
            });
        }
        Ok(SegmentInfo {
            version,
            max_doc,
            compound,
            attributes,
        })
    }

    /// The attribute `key`.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}
