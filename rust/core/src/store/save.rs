//! Saving an index into a folder, crash-safely: new files first, then
//! `meta.json`, then the files no longer listed.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use super::KINDS;
use super::footer::with_segment_footer;
use super::meta::{
    FieldMeta, FileEntry, IndexMeta, SegmentMeta, is_rserini_meta, meta_json, read_meta, sealed,
    segment_number,
};
use super::segment_files::segment_payloads;
use super::write_lock::{WriteLock, lock};
use super::{FIELDS_DIR, FORMAT_VERSION, LOCK_FILE, META_FILE};
use crate::error::{Error, Result};
use crate::index::{Index, LiveSegment, check_field_name};
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
            // A `fields` folder without `meta.json`: a first save interrupted.
            if entries.any(|e| e.file_name() != LOCK_FILE && e.file_name() != FIELDS_DIR) {
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
///
/// A multifield index's other fields are written first, each into its
/// folder `fields/<name>/` ([`FIELDS_DIR`]) as a complete index of its own;
/// the parent's `meta.json`, which lists every field's files, then commits
/// them all at once. Files no longer listed (in the folder and in the field
/// folders) and field folders no longer listed are removed last.
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
    let mut field_metas = Vec::with_capacity(index.extra_fields().len());
    let mut saved_fields = Vec::with_capacity(index.extra_fields().len());
    for (name, field) in index.extra_fields() {
        let (meta, saved) = save_field(name, field, dir, previous.as_ref())?;
        field_metas.push(meta);
        saved_fields.push((name.clone(), saved));
    }
    let (mut meta, persisted) = write_segments(index, dir, previous.as_ref())?;
    meta.source = source;
    meta.fields = field_metas;
    safe_fs::sync_dir(dir)?;
    safe_fs::write_atomically(dir, META_FILE, &sealed(&meta))?;
    safe_fs::sync_dir(dir)?;
    collect_garbage(dir, &meta);
    for field in &meta.fields {
        collect_garbage(&dir.join(FIELDS_DIR).join(&field.name), &field.index);
    }
    collect_stale_fields(dir, &meta);
    let saved = index.persisted(dir.to_path_buf(), meta.generation, persisted)?;
    if saved_fields.is_empty() {
        return Ok(saved);
    }
    saved.with_fields(saved_fields)
}

/// Writes field `name` of an index being saved into `dir`: its new files
/// and its folder's own `meta.json`, removing nothing (the parent's
/// `meta.json` commits it). Its segment and generation numbers continue
/// both its folder's `meta.json` and the parent's listing, so that no file
/// either lists is ever overwritten.
pub(super) fn save_field(
    name: &str,
    field: &Index,
    dir: &Path,
    parent: Option<&IndexMeta>,
) -> Result<(FieldMeta, Index)> {
    check_field_name(name)?;
    if field.is_multifield() {
        return Err(Error::Argument(format!(
            "field {name:?} has fields of its own"
        )));
    }
    let root = dir.join(FIELDS_DIR);
    let folder = root.join(name);
    for path in [&root, &folder] {
        match fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(Error::corrupted(
                    path,
                    "not a folder (a field folder is never a link or a file)",
                ));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                fs::create_dir(path).map_err(|e| Error::io(path, e))?;
            }
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    let listed = parent.and_then(|p| p.fields.iter().find(|f| f.name == name));
    let own = read_meta(&folder).ok();
    // The newer of the two listings (the folder's own may be ahead of the
    // parent's after an interrupted save), numbers past both.
    let mut previous = match (listed, own) {
        (Some(l), Some(o)) if o.generation > l.index.generation => Some(o),
        (Some(l), _) => Some(l.index.clone()),
        (None, o) => o,
    };
    if let (Some(p), Some(l)) = (previous.as_mut(), listed) {
        p.generation = p.generation.max(l.index.generation);
        p.next_segment = p.next_segment.max(l.index.next_segment);
    }
    let (meta, persisted) = write_segments(field, &folder, previous.as_ref())?;
    safe_fs::sync_dir(&folder)?;
    safe_fs::write_atomically(&folder, META_FILE, &sealed(&meta))?;
    safe_fs::sync_dir(&folder)?;
    safe_fs::sync_dir(&root)?;
    let saved = field.persisted(folder, meta.generation, persisted)?;
    let meta = FieldMeta {
        name: name.to_owned(),
        index: meta,
    };
    Ok((meta, saved))
}

/// Writes the segment files of `index` that `dir` does not hold yet (after
/// the `previous` listing of `dir`) and returns the new listing, not yet
/// written, with the segments recorded as saved there.
fn write_segments(
    index: &Index,
    dir: &Path,
    previous: Option<&IndexMeta>,
) -> Result<(IndexMeta, Vec<LiveSegment>)> {
    // Files of an older format are rewritten, not reused.
    let same_dir = index.dir().is_some_and(|d| same_path(d, dir))
        && previous.is_some_and(|m| m.format_version == FORMAT_VERSION);
    let generation = previous.map_or(1, |m| m.generation + 1);
    let mut next_segment = previous.map_or(1, |m| m.next_segment);
    let mut metas = Vec::with_capacity(index.segments().len());
    let mut persisted = Vec::with_capacity(index.segments().len());
    for segment in index.segments() {
        let reuse = same_dir
            .then(|| segment.name())
            .flatten()
            .and_then(|name| previous?.segments.iter().find(|s| s.name == name));
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
        let mut saved = if segment.stats_count_deleted {
            segment.clone()
        } else {
            LiveSegment::with_deletions(segment.data.clone(), segment.deletions.clone(), None, None)
        };
        saved.name = Some(name.clone());
        saved.deletions_file = deletions.as_ref().map(|f| f.name.clone());
        persisted.push(saved);
        metas.push(SegmentMeta {
            name,
            num_docs: segment.data().len() as u64,
            num_deleted: segment.deletions().map_or(0, |d| d.count() as u64),
            deletions,
            files,
            deleted_in_stats: segment.stats_count_deleted,
        });
    }
    let meta = IndexMeta {
        format: "rserini-index".into(),
        format_version: FORMAT_VERSION,
        rserini_version: env!("CARGO_PKG_VERSION").into(),
        generation,
        analyzer: index.analyzer().config().clone(),
        source: None,
        next_segment,
        num_docs: index.len() as u64,
        segments: metas,
        lucene_version: index.lucene_version().map(str::to_owned),
        fields: Vec::new(),
    };
    Ok((meta, persisted))
}

/// Removes the field folders of ours under `fields/` that `meta` no longer
/// lists (those holding an rserini `meta.json`), and `fields/` itself once
/// empty. Best effort, as [`collect_garbage`].
fn collect_stale_fields(dir: &Path, meta: &IndexMeta) {
    let root = dir.join(FIELDS_DIR);
    if !fs::symlink_metadata(&root).is_ok_and(|m| m.is_dir()) {
        return;
    }
    let Ok(entries) = fs::read_dir(&root) else {
        return;
    };
    for entry in entries.filter_map(|e| e.ok()) {
        let listed = entry
            .file_name()
            .to_str()
            .is_some_and(|n| meta.fields.iter().any(|f| f.name == n));
        let ours = entry.file_type().is_ok_and(|t| t.is_dir())
            && meta_json(&entry.path()).is_ok_and(|(_, v)| is_rserini_meta(&v));
        if !listed && ours {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
    if meta.fields.is_empty() {
        let _ = fs::remove_dir(&root); // Fails, as it should, if not empty.
    }
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
