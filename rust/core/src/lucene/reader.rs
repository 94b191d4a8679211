//! A whole Lucene index opened for reading: the newest commit and, per
//! segment, its info, files, fields, norms, deletions and stored documents.

use std::path::Path;

use super::directory::{Directory, SegmentFiles};
use super::field_infos::FieldInfos;
use super::norms::{self, FieldNorms};
use super::segment_infos::{Commit, SegmentCommit, SegmentInfo};
use super::stored_fields::{self, StoredValue};
use super::{live_docs, segment_infos};
use crate::error::Result;

/// The field Anserini stores each document's external id in.
pub const ID_FIELD: &str = "id";
/// The field Anserini stores the original document in (`-storeRaw`).
pub const RAW_FIELD: &str = "raw";
/// The field Anserini indexes the text in (stored with `-storeContents`).
pub const CONTENTS_FIELD: &str = "contents";

/// A document's stored fields that rserini keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredDocument {
    /// The external docid (`id`).
    pub docid: String,
    /// The stored text (`contents`), if stored.
    pub contents: Option<String>,
    /// The original document (`raw`), if stored.
    pub raw: Option<String>,
}

/// One segment of a Lucene index.
#[derive(Debug)]
pub struct LuceneSegment {
    /// What the commit says of it.
    pub commit: SegmentCommit,
    /// Its `.si`.
    pub info: SegmentInfo,
    /// Its fields.
    pub fields: FieldInfos,
    /// Its files (compound or plain).
    pub files: SegmentFiles,
    /// Norms per field number.
    pub norms: Vec<(u32, FieldNorms)>,
    /// Deleted documents, ascending.
    pub deleted: Vec<u32>,
}

impl LuceneSegment {
    /// Number of documents, deleted ones included.
    pub fn max_doc(&self) -> u32 {
        self.info.max_doc
    }

    /// The folder the segment lives in.
    pub fn dir_path(&self) -> &Path {
        self.files.dir()
    }

    /// [`crate::Error::Corrupted`] naming the segment's norms data.
    pub(crate) fn nvd_error(&self, message: String) -> crate::Error {
        crate::Error::corrupted(
            self.dir_path().join(format!("{}.nvd", self.commit.name)),
            message,
        )
    }

    /// [`crate::Error::Corrupted`] naming the segment's terms dictionary.
    pub(crate) fn tim_error(&self, message: String) -> crate::Error {
        crate::Error::corrupted(
            self.dir_path().join(format!("{}_*.tim", self.commit.name)),
            message,
        )
    }

    /// The norms of the field `name`, if it has norms.
    pub fn norms(&self, name: &str) -> Option<&FieldNorms> {
        let number = self.fields.by_name(name)?.number;
        self.norms
            .iter()
            .find(|(n, _)| *n == number)
            .map(|(_, v)| v)
    }

    /// Every document's stored id, contents and raw text, in order. A
    /// document without a stored `id` is damage: Anserini always stores it.
    pub fn documents(&self) -> Result<Vec<StoredDocument>> {
        let number = |name: &str| self.fields.by_name(name).map(|f| f.number);
        let (id, contents, raw) = (number(ID_FIELD), number(CONTENTS_FIELD), number(RAW_FIELD));
        let mut docs = vec![StoredDocument::default(); self.max_doc() as usize];
        let mut has_id = vec![false; docs.len()];
        let text = |v: StoredValue| match v {
            StoredValue::Text(s) => s,
            StoredValue::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
        };
        stored_fields::read_all(
            &self.files,
            &self.commit.name,
            &self.commit.id,
            self.info.attribute("Lucene90StoredFieldsFormat.mode"),
            self.max_doc(),
            &mut |doc, field, value| {
                let d = &mut docs[doc as usize];
                if Some(field) == id {
                    d.docid = text(value);
                    has_id[doc as usize] = true;
                } else if Some(field) == contents {
                    d.contents = Some(text(value));
                } else if Some(field) == raw {
                    d.raw = Some(text(value));
                }
                Ok(())
            },
        )?;
        if let Some(doc) = has_id.iter().position(|&h| !h) {
            let file = self.files.file(&format!("{}.fdt", self.commit.name))?;
            return Err(crate::error::Error::corrupted(
                &file.path,
                format!(
                    "document {doc} has no stored \"{ID_FIELD}\" field: not an index built by Anserini or Pyserini"
                ),
            ));
        }
        Ok(docs)
    }
}

/// A Lucene index folder, opened read-only.
#[derive(Debug)]
pub struct LuceneIndex {
    /// The folder.
    pub dir: Directory,
    /// Its newest commit.
    pub commit: Commit,
    /// Its segments, in commit order.
    pub segments: Vec<LuceneSegment>,
}

impl LuceneIndex {
    /// Opens the Lucene index in `path`: reads and checks the newest
    /// commit, and each segment's info, fields, norms and deletions.
    pub fn open(path: &Path) -> Result<LuceneIndex> {
        let dir = Directory::open(path)?;
        let commit = Commit::read(&dir)?;
        let mut segments = Vec::with_capacity(commit.segments.len());
        for sc in &commit.segments {
            let info = SegmentInfo::read(&dir, sc)?;
            let files = dir.segment_files(&sc.name, &sc.id, info.compound)?;
            files.check_all()?;
            let fnm_name = FieldInfos::file_name(sc);
            // Updated field infos live outside the compound file.
            let fnm = if sc.field_infos_gen > 0 {
                dir.file(&fnm_name)?
            } else {
                files.file(&fnm_name)?.clone()
            };
            fnm.check_footer()?;
            let suffix = if sc.field_infos_gen > 0 {
                super::directory::base36(sc.field_infos_gen as u64)
            } else {
                String::new()
            };
            let fields = FieldInfos::read(&mut fnm.input(), &sc.id, &suffix)?;
            let norms = norms::read(&files, &sc.name, &sc.id, &fields, info.max_doc)?;
            let deleted = live_docs::read_deleted(&dir, sc, info.max_doc)?;
            segments.push(LuceneSegment {
                commit: sc.clone(),
                info,
                fields,
                files,
                norms,
                deleted,
            });
        }
        Ok(LuceneIndex {
            dir,
            commit,
            segments,
        })
    }

    /// Documents over all segments, deleted ones included.
    pub fn max_doc(&self) -> u64 {
        self.segments.iter().map(|s| u64::from(s.max_doc())).sum()
    }

    /// Live documents.
    pub fn num_docs(&self) -> u64 {
        self.segments
            .iter()
            .map(|s| u64::from(s.max_doc()) - s.deleted.len() as u64)
            .sum()
    }
}

/// What this build reads, in words.
pub const SUPPORTED: &str = segment_infos::SUPPORTED;

#[cfg(test)]
#[path = "reader_tests.rs"]
pub(crate) mod tests;
