//! A segment's files: what each holds, and reading them back, checked,
//! into a [`LiveSegment`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::footer::read_segment_footer;
use super::format1;
use super::meta::{FileEntry, SegmentMeta, segment_number};
use super::{CRC_ON_LOAD_MAX, META_FILE};
use crate::bits;
use crate::data::Data;
use crate::docstore::DocStore;
use crate::error::{Error, Result};
use crate::index::LiveSegment;
use crate::postings::{self, TermTable};
use crate::safe_fs;
use crate::segment::{Deletions, DocIds, SegmentData};

/// The payload of each per-segment file, in `KINDS` order.
pub(super) fn segment_payloads(data: &SegmentData) -> Vec<Option<Vec<u8>>> {
    vec![
        Some(data.docids.bytes().to_vec()),
        Some(bits::pack_u32s(&data.lengths)),
        Some(data.norms.clone()),
        Some(bits::pack_u32s(&data.docid_rank)),
        Some(data.terms.as_fst().as_bytes().to_vec()),
        Some(data.term_infos.bytes().to_vec()),
        Some(postings::encode_blocks(&data.blocks)),
        Some(data.postings.to_vec()),
        data.store.as_ref().map(|s| s.bytes().to_vec()),
    ]
}

/// Reads one file's payload, checking its footer (format `version`, and
/// from format 4 on that it is a file of segment number `segment`) and (if
/// `check_crc`) its CRC.
fn payload(
    dir: &Path,
    entry: &FileEntry,
    segment: u64,
    version: u32,
    mmap: bool,
    check_crc: bool,
) -> Result<Data> {
    // `check_listing` made the name a plain file name of this folder.
    let path = dir.join(&entry.name);
    let (file, len) = safe_fs::open(&path, safe_fs::Owner::Index).map_err(|e| match e {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            Error::corrupted(&path, "missing")
        }
        other => other,
    })?;
    // Sizes first: nothing is read or mapped that meta.json does not expect.
    if len != entry.bytes {
        return Err(Error::corrupted(
            &path,
            format!(
                "truncated or extended: {len} bytes, expected {}",
                entry.bytes
            ),
        ));
    }
    let data = Data::from_file(file, len, &path, mmap)?;
    let (payload_len, crc) = read_segment_footer(&path, &data, version, segment)?;
    if crc != entry.crc32 {
        return Err(Error::corrupted(
            &path,
            "checksum in the footer differs from meta.json",
        ));
    }
    let payload = data.slice(0..payload_len);
    if (check_crc || entry.bytes <= CRC_ON_LOAD_MAX) && crc32fast::hash(&payload) != crc {
        return Err(Error::corrupted(
            &path,
            "checksum mismatch: the file was modified or damaged",
        ));
    }
    Ok(payload)
}

/// A per-document u32 array of `n` entries: bit-packed (v2) or plain (v1).
fn doc_u32s(path: &Path, data: &[u8], n: usize, version: u32) -> Result<Vec<u32>> {
    let values = if version == 1 {
        format1::u32s(data, n)
    } else {
        bits::unpack_u32s(data, n)
    };
    values.ok_or_else(|| {
        Error::corrupted(
            path,
            format!("expected {n} entries, found {} bytes", data.len()),
        )
    })
}

pub(super) fn open_segment(
    dir: &Path,
    meta: &SegmentMeta,
    version: u32,
    mmap: bool,
    check_crc: bool,
) -> Result<LiveSegment> {
    let n = usize::try_from(meta.num_docs)
        .map_err(|_| Error::corrupted(dir.join(META_FILE), "num_docs too large"))?;
    let number = segment_number(&meta.name).ok_or_else(|| {
        Error::corrupted(
            dir.join(META_FILE),
            format!("bad segment name {:?}", meta.name),
        )
    })?;
    let file = |kind: &str| -> Result<Option<(PathBuf, Data)>> {
        let name = format!("{}.{kind}", meta.name);
        match meta.files.iter().find(|f| f.name == name) {
            Some(entry) => Ok(Some((
                dir.join(&name),
                payload(dir, entry, number, version, mmap, check_crc)?,
            ))),
            None if kind == "store" => Ok(None),
            None => Err(Error::corrupted(
                dir.join(META_FILE),
                format!("does not list {name}"),
            )),
        }
    };
    let required = |kind: &str| -> Result<(PathBuf, Data)> {
        Ok(file(kind)?.expect("required kinds are listed or an error"))
    };

    let (path, docid_data) = required("docids")?;
    let docids = if version == 1 {
        format1::docids(&docid_data, n)
    } else {
        DocIds::open(docid_data, n)
    }
    .ok_or_else(|| Error::corrupted(&path, "inconsistent docid table"))?;
    let (path, data) = required("lengths")?;
    let lengths = doc_u32s(&path, &data, n, version)?;
    let (path, norms) = required("norms")?;
    if norms.len() != n {
        return Err(Error::corrupted(
            &path,
            format!("expected {n} norms, found {}", norms.len()),
        ));
    }
    let (path, data) = required("docrank")?;
    let docid_rank = doc_u32s(&path, &data, n, version)?;
    if docid_rank.iter().any(|&x| x as usize >= n) {
        return Err(Error::corrupted(&path, "rank out of range"));
    }
    let (path, fst_data) = required("terms")?;
    let terms = fst::Map::new(fst_data)
        .map_err(|e| Error::corrupted(&path, format!("bad term dictionary: {e}")))?;
    // fst's own checksum, as its readers assume well-formed nodes (and a
    // file rewritten with a fresh footer CRC must still not make them panic).
    terms
        .as_fst()
        .verify()
        .map_err(|e| Error::corrupted(&path, format!("bad term dictionary: {e}")))?;
    let num_terms = terms.len();
    let (path, info) = required("terminfo")?;
    let term_infos = if version == 1 {
        format1::term_table(&info, num_terms)
    } else {
        TermTable::open(info, num_terms)
    }
    .ok_or_else(|| {
        Error::corrupted(
            &path,
            format!("inconsistent term table (expected {num_terms} terms)"),
        )
    })?;
    let (path, block_data) = required("blocks")?;
    let blocks = if version == 1 {
        format1::blocks(&block_data)
    } else {
        postings::decode_blocks(&block_data, &term_infos)
    }
    .ok_or_else(|| Error::corrupted(&path, "inconsistent block table"))?;
    let (postings_path, postings_data) = required("postings")?;
    // One pass over the terms and one over the blocks (every block belongs
    // to a term with a block table: `decode_blocks` reads exactly theirs).
    let mut last_offset = 0u64;
    let mut bad_term = None;
    term_infos.scan(|ord, df, offset| {
        let bad = df == 0
            || df as usize > n
            || offset < last_offset
            || offset > postings_data.len() as u64;
        last_offset = offset;
        if bad {
            bad_term = Some(ord);
        }
        !bad
    });
    if let Some(ord) = bad_term {
        return Err(Error::corrupted(
            &postings_path,
            format!("term #{ord} points outside the postings"),
        ));
    }
    if blocks.len() != term_infos.num_blocks() || blocks.iter().any(|b| b.last_doc as usize >= n) {
        return Err(Error::corrupted(
            &postings_path,
            "the block table does not match the terms, or points past the last document",
        ));
    }
    let store = match file("store")? {
        Some((path, data)) => Some(
            DocStore::open(data, n as u32)
                .ok_or_else(|| Error::corrupted(&path, "inconsistent document store"))?,
        ),
        None => None,
    };
    let deletions = match &meta.deletions {
        Some(entry) => {
            let data = payload(dir, entry, number, version, false, true)?;
            let del = Deletions::from_bytes(&data, n)
                .ok_or_else(|| Error::corrupted(dir.join(&entry.name), "wrong size"))?;
            if del.count() as u64 != meta.num_deleted {
                return Err(Error::corrupted(
                    dir.join(&entry.name),
                    "deleted count differs from meta.json",
                ));
            }
            Some(Arc::new(del))
        }
        None => None,
    };
    let data = SegmentData {
        docids,
        docid_rank,
        lengths,
        norms: norms.to_vec(),
        terms,
        term_infos,
        blocks,
        postings: postings_data,
        store,
        lexicon: Default::default(),
    };
    let mut segment = if meta.deleted_in_stats {
        LiveSegment::counting_deleted(Arc::new(data), deletions)
    } else {
        LiveSegment::with_deletions(Arc::new(data), deletions, None, None)
    };
    segment.name = Some(meta.name.clone());
    segment.deletions_file = meta.deletions.as_ref().map(|f| f.name.clone());
    Ok(segment)
}
