//! Saving an index into a folder, crash-safely: new files first, then
//! `meta.json`, then the files no longer listed.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use super::KINDS;
use super::footer::with_segment_footer;
use super::meta::{
    FileEntry, IndexMeta, SegmentMeta, is_rserini_meta, meta_json, read_meta, sealed,
    segment_number,
};
use super::segment_files::segment_payloads;
use super::write_lock::{WriteLock, lock};
use super::{FORMAT_VERSION, LOCK_FILE, META_FILE};
use crate::error::{Error, Result};
use crate::index::{Index, LiveSegment};
use crate::safe_fs;

/// Writes file `name` of segment number `segment`.
fn write_file(dir: &Path, segment: u64, name: String, payload: Vec<u8>) -> Result<FileEntry> {
    let (bytes, crc32) = with_segment_footer(payload, FORMAT_VERSION, segment);
    safe_fs::write_atomically(dir, &name, &bytes)?;
    Ok(FileEntry {
        name,
        bytes: bytes.len() as u64,
        crc32,
    })
}

/// Saves `index` into `dir` and returns the same index recorded as living
/// there. Segments already saved in `dir` are kept as they are; new ones are
/// written. An existing folder is replaced only if it is an rserini index.
pub fn save(index: &Index, dir: &Path, source: Option<String>) -> Result<Index> {
    check_destination(dir)?;
    let lock = lock(dir)?;
    save_locked(index, dir, source, &lock)
}

/// Refuses a destination folder that is not an rserini index (nor new, nor
/// empty): its files are the user's, and a save would replace or delete them.
fn check_destination(dir: &Path) -> Result<()> {
    let foreign = |why: &str| {
        Err(Error::io(
            dir,
            std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!(
                    "folder exists and is not an rserini index ({why}); choose an empty or new folder"
                ),
            ),
        ))
    };
    match fs::symlink_metadata(dir.join(META_FILE)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let Ok(entries) = fs::read_dir(dir) else {
                return Ok(()); // A new folder (or an error `lock` reports).
            };
            let mut entries = entries.filter_map(|e| e.ok());
            if entries.any(|e| e.file_name() != LOCK_FILE) {
                return foreign("it holds files and no meta.json");
            }
            Ok(())
        }
        Err(e) => Err(Error::io(dir.join(META_FILE), e)),
        Ok(_) => match read_meta(dir) {
            Ok(_) => Ok(()),
            Err(e @ Error::Version { .. }) => Err(e),
            // A damaged index of ours is replaced; anything else is not ours.
            Err(_) if meta_json(dir).is_ok_and(|(_, v)| is_rserini_meta(&v)) => Ok(()),
            Err(_) => foreign("its meta.json is not an rserini index's"),
        },
    }
}

/// [`save`] for a caller holding the folder's [`WriteLock`], `lock`.
pub fn save_locked(
    index: &Index,
    dir: &Path,
    source: Option<String>,
    lock: &WriteLock,
) -> Result<Index> {
    lock.check()?;
    let previous = match read_meta(dir) {
        Ok(meta) => Some(meta),
        Err(Error::Corrupted { .. }) => None,
        Err(e) if dir.join(META_FILE).exists() => return Err(e),
        Err(_) => None,
    };
    // Files of an older format are rewritten, not reused.
    let same_dir = index.dir().is_some_and(|d| same_path(d, dir))
        && previous
            .as_ref()
            .is_some_and(|m| m.format_version == FORMAT_VERSION);
    let generation = previous.as_ref().map_or(1, |m| m.generation + 1);
    let mut next_segment = previous.as_ref().map_or(1, |m| m.next_segment);
    let mut metas = Vec::with_capacity(index.segments().len());
    let mut persisted = Vec::with_capacity(index.segments().len());
    for segment in index.segments() {
        let reuse = same_dir
            .then(|| segment.name())
            .flatten()
            .and_then(|name| previous.as_ref()?.segments.iter().find(|s| s.name == name));
        let (number, name, files) = match reuse {
            Some(meta) => {
                let number = segment_number(&meta.name)
                    .ok_or_else(|| Error::corrupted(dir.join(META_FILE), "bad segment name"))?;
                (number, meta.name.clone(), meta.files.clone())
            }
            None => {
                let number = next_segment;
                let name = format!("seg{number:06}");
                next_segment += 1;
                let mut files = Vec::new();
                for (kind, payload) in KINDS.iter().zip(segment_payloads(segment.data())) {
                    if let Some(payload) = payload {
                        files.push(write_file(dir, number, format!("{name}.{kind}"), payload)?);
                    }
                }
                (number, name, files)
            }
        };
        let reused_deletions = reuse.and_then(|m| {
            let file = m.deletions.as_ref()?;
            (segment.deletions_file.as_deref() == Some(file.name.as_str())).then(|| file.clone())
        });
        let deletions = match (segment.deletions(), reused_deletions) {
            (None, _) => None,
            (Some(_), Some(file)) => Some(file),
            (Some(del), None) => Some(write_file(
                dir,
                number,
                format!("{name}.{generation}.del"),
                del.to_bytes(),
            )?),
        };
        persisted.push(LiveSegment::with_deletions(
            segment.data.clone(),
            segment.deletions.clone(),
            Some(name.clone()),
            deletions.as_ref().map(|f| f.name.clone()),
        ));
        metas.push(SegmentMeta {
            name,
            num_docs: segment.data().len() as u64,
            num_deleted: segment.deletions().map_or(0, |d| d.count() as u64),
            deletions,
            files,
        });
    }
    let meta = IndexMeta {
        format: "rserini-index".into(),
        format_version: FORMAT_VERSION,
        rserini_version: env!("CARGO_PKG_VERSION").into(),
        generation,
        analyzer: index.analyzer().config().clone(),
        source,
        next_segment,
        num_docs: index.len() as u64,
        segments: metas,
    };
    safe_fs::sync_dir(dir)?;
    safe_fs::write_atomically(dir, META_FILE, &sealed(&meta))?;
    safe_fs::sync_dir(dir)?;
    collect_garbage(dir, &meta);
    index.persisted(dir.to_path_buf(), generation, persisted)
}

fn same_path(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Deletes the files of ours that `meta` no longer lists, and the
/// temporaries of ours that a crash left behind; never any other file.
/// Best effort: a file that cannot be removed now is removed by a later save.
fn collect_garbage(dir: &Path, meta: &IndexMeta) {
    let live: HashSet<&str> = meta
        .segments
        .iter()
        .flat_map(|s| s.files.iter().chain(s.deletions.iter()))
        .map(|f| f.name.as_str())
        .collect();
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(|e| e.ok()) {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let stale = match safe_fs::temporary_target(name) {
            Some(target) => target == META_FILE || is_index_file_name(target),
            None => is_index_file_name(name) && !live.contains(name),
        };
        if stale {
            // Removes a link itself, never its target.
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Whether `name` is a name an index file of ours has: `seg<n>.<kind>`,
/// `seg<n>.<generation>.del`, or a file of the format's first layout.
pub(super) fn is_index_file_name(name: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let segment_file = name
        .strip_prefix("seg")
        .and_then(|rest| rest.split_once('.'))
        .is_some_and(|(number, rest)| {
            digits(number)
                && (KINDS.contains(&rest) || rest.strip_suffix(".del").is_some_and(digits))
        });
    // Files of the format's first layout (one unnamed segment).
    let legacy = [
        "docids.bin",
        "lengths.bin",
        "norms.bin",
        "docrank.bin",
        "terms.fst",
        "terminfo.bin",
        "blocks.bin",
        "postings.bin",
    ]
    .contains(&name);
    segment_file || legacy
}
