//! Saving and loading an [`Index`] as a folder of files, safely.
//!
//! The folder holds one file per segment structure, named
//! `<segment>.<kind>` (`seg000001.postings`, ...), per-segment deletion files
//! `<segment>.<generation>.del`, a `write.lock` and `meta.json`, which lists
//! the live files with their sizes and CRC32s and ends with a checksum of
//! its own. Every binary file ends with a
//! 20-byte footer: payload length (u64), CRC32 of the payload (u32), format
//! version (u32) and the magic `RSRN`, all little-endian. The exact layout of
//! each file is documented in `docs/index-format.md`.
//!
//! **Crash safety.** A save never modifies a file that `meta.json` lists: it
//! writes new files (each through a temporary name, `fsync`ed, by
//! [`safe_fs::write_atomically`]), then
//! publishes them by atomically renaming a new `meta.json` into place, and
//! only then deletes the files no longer listed. A crash at any point leaves
//! either the old or the new index readable.
//!
//! **Concurrency.** One writer at a time holds an OS lock on `write.lock`;
//! readers take no lock. The lock records the process that took it: a
//! child forked by a writer inherits the open lock but may not commit under
//! it ([`Error::ForeignLock`]). An [`Index`] is a snapshot: it keeps its files
//! (mapped, or read) whatever a writer does afterwards.
//!
//! **Checks.** Loading verifies every footer, the CRC32 of every file up to
//! [`CRC_ON_LOAD_MAX`] bytes (larger files are checked by [`verify`]), and
//! the consistency of the arrays, and reports a damaged file as
//! [`Error::Corrupted`] naming it. Every file is opened through
//! [`safe_fs`]: links inside the folder are not followed, FIFOs and devices
//! are refused, and sizes are checked before reading.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::analysis::{Analyzer, AnalyzerConfig};
use crate::bits;
use crate::data::Data;
use crate::docstore::DocStore;
use crate::error::{Error, Result};
use crate::index::{Index, LiveSegment};
use crate::legacy;
use crate::postings::{self, TermTable};
use crate::safe_fs;
use crate::segment::{Deletions, DocIds, SegmentData};

/// The format version this build writes.
pub const FORMAT_VERSION: u32 = 3;
/// The first format version whose `meta.json` carries its own checksum.
const SEALED_META_VERSION: u32 = 3;
/// The largest `meta.json` read (about 1 KB per segment, so ample).
const META_MAX_BYTES: u64 = 16 << 20;
/// The oldest format version this build reads (converting it in memory).
pub const OLDEST_FORMAT_VERSION: u32 = 1;
/// Files up to this size have their CRC32 checked on every load.
pub const CRC_ON_LOAD_MAX: u64 = 64 << 20;
const MAGIC: &[u8; 4] = b"RSRN";
const FOOTER_LEN: usize = 20;
const META_FILE: &str = "meta.json";
const LOCK_FILE: &str = "write.lock";
/// The per-segment files, in write order.
const KINDS: [&str; 9] = [
    "docids", "lengths", "norms", "docrank", "terms", "terminfo", "blocks", "postings", "store",
];

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
}

/// The exclusive right to write an index folder; released on drop.
///
/// The OS lock belongs to the open file, which `fork()` shares with the
/// child: the lock therefore also records the process that took it, and only
/// that process may write under it ([`WriteLock::check`]) or release it.
#[derive(Debug)]
pub struct WriteLock {
    file: fs::File,
    path: PathBuf,
    owner: u32,
}

impl WriteLock {
    /// The locked file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether this process took the lock (it did not if it inherited it
    /// through `fork()`): [`Error::ForeignLock`] if not.
    pub fn check(&self) -> Result<()> {
        if self.owner == std::process::id() {
            Ok(())
        } else {
            Err(Error::ForeignLock {
                path: self.path.clone(),
                owner: self.owner,
            })
        }
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        // Closing is not enough: a forked child's copy of the file would keep
        // the lock held. A child's copy closes without unlocking its parent.
        if self.owner == std::process::id() {
            let _ = self.file.unlock();
        }
    }
}

/// Takes the writer lock of the index folder `dir` (created if needed).
pub fn lock(dir: &Path) -> Result<WriteLock> {
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let path = dir.join(LOCK_FILE);
    let file = safe_fs::open_lock(&path)?;
    match file.try_lock() {
        Ok(()) => Ok(WriteLock {
            file,
            path,
            owner: std::process::id(),
        }),
        Err(fs::TryLockError::WouldBlock) => Err(Error::Locked(path)),
        Err(fs::TryLockError::Error(e)) => Err(Error::io(&path, e)),
    }
}

/// Appends the footer (length, CRC32, format `version`, magic) to `payload`;
/// returns the file's bytes and the CRC32.
pub(crate) fn with_footer(mut payload: Vec<u8>, version: u32) -> (Vec<u8>, u32) {
    let crc = crc32fast::hash(&payload);
    let len = payload.len() as u64;
    payload.extend_from_slice(&len.to_le_bytes());
    payload.extend_from_slice(&crc.to_le_bytes());
    payload.extend_from_slice(&version.to_le_bytes());
    payload.extend_from_slice(MAGIC);
    (payload, crc)
}

/// Checks the footer of the file `path` (its magic, format `version` and
/// recorded length); returns the payload's length and recorded CRC32.
pub(crate) fn read_footer(path: &Path, data: &[u8], version: u32) -> Result<(usize, u32)> {
    if data.len() < FOOTER_LEN {
        return Err(Error::corrupted(
            path,
            format!("truncated: {} bytes, shorter than its footer", data.len()),
        ));
    }
    let footer = &data[data.len() - FOOTER_LEN..];
    if &footer[16..20] != MAGIC {
        return Err(Error::corrupted(
            path,
            "bad magic number: not an rserini index file",
        ));
    }
    let found = u32::from_le_bytes(footer[12..16].try_into().expect("4 bytes"));
    if found != version {
        return Err(Error::Version {
            path: path.to_path_buf(),
            found,
            expected: version,
        });
    }
    let len = u64::from_le_bytes(footer[0..8].try_into().expect("8 bytes"));
    let payload_len = data.len() - FOOTER_LEN;
    if len != payload_len as u64 {
        return Err(Error::corrupted(
            path,
            format!("the footer gives a payload of {len} bytes, the file holds {payload_len}"),
        ));
    }
    let crc = u32::from_le_bytes(footer[8..12].try_into().expect("4 bytes"));
    Ok((payload_len, crc))
}

fn write_file(dir: &Path, name: String, payload: Vec<u8>) -> Result<FileEntry> {
    let (bytes, crc32) = with_footer(payload, FORMAT_VERSION);
    safe_fs::write_atomically(dir, &name, &bytes)?;
    Ok(FileEntry {
        name,
        bytes: bytes.len() as u64,
        crc32,
    })
}

/// The payload of each per-segment file, in [`KINDS`] order.
fn segment_payloads(data: &SegmentData) -> Vec<Option<Vec<u8>>> {
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

/// The bytes of `meta.json` in `dir` and their JSON value, checked for
/// nothing more than being JSON.
fn meta_json(dir: &Path) -> Result<(Vec<u8>, serde_json::Value)> {
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
fn is_rserini_meta(value: &serde_json::Value) -> bool {
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
fn sealed(meta: &IndexMeta) -> Vec<u8> {
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
fn check_seal(path: &Path, bytes: &[u8]) -> Result<()> {
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

/// Checks that `meta` names only files this index could have written, each
/// once: segments `seg<n>` with `n` below `next_segment` (a new segment can
/// then never take the name of a listed one), their data files
/// `<segment>.<kind>` and deletion files `<segment>.<generation>.del`.
fn check_listing(path: &Path, meta: &IndexMeta) -> Result<()> {
    let bad = |message: String| Err(Error::corrupted(path, message));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mut names = HashSet::new();
    for segment in &meta.segments {
        let name = segment.name.as_str();
        let number = name
            .strip_prefix("seg")
            .filter(|n| digits(n))
            .and_then(|n| n.parse::<u64>().ok());
        if number.is_none_or(|n| n >= meta.next_segment) {
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
        let (name, files) = match reuse {
            Some(meta) => (meta.name.clone(), meta.files.clone()),
            None => {
                let name = format!("seg{next_segment:06}");
                next_segment += 1;
                let mut files = Vec::new();
                for (kind, payload) in KINDS.iter().zip(segment_payloads(segment.data())) {
                    if let Some(payload) = payload {
                        files.push(write_file(dir, format!("{name}.{kind}"), payload)?);
                    }
                }
                (name, files)
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
fn is_index_file_name(name: &str) -> bool {
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

/// Reads one file's payload, checking its footer (format `version`) and (if
/// `check_crc`) its CRC.
fn payload(
    dir: &Path,
    entry: &FileEntry,
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
    let (payload_len, crc) = read_footer(&path, &data, version)?;
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
        legacy::u32s(data, n)
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

fn open_segment(
    dir: &Path,
    meta: &SegmentMeta,
    version: u32,
    mmap: bool,
    check_crc: bool,
) -> Result<LiveSegment> {
    let n = usize::try_from(meta.num_docs)
        .map_err(|_| Error::corrupted(dir.join(META_FILE), "num_docs too large"))?;
    let file = |kind: &str| -> Result<Option<(PathBuf, Data)>> {
        let name = format!("{}.{kind}", meta.name);
        match meta.files.iter().find(|f| f.name == name) {
            Some(entry) => Ok(Some((
                dir.join(&name),
                payload(dir, entry, version, mmap, check_crc)?,
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
        legacy::docids(&docid_data, n)
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
        legacy::term_table(&info, num_terms)
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
        legacy::blocks(&block_data)
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
            let data = payload(dir, entry, version, false, true)?;
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
    };
    Ok(LiveSegment::with_deletions(
        Arc::new(data),
        deletions,
        Some(meta.name.clone()),
        meta.deletions.as_ref().map(|f| f.name.clone()),
    ))
}

/// Loads the index saved in `dir`; `mmap` maps the large files instead of
/// reading them.
pub fn load(dir: &Path, mmap: bool) -> Result<Index> {
    // A writer may delete old files between our reading meta.json and
    // opening them: read the newer meta.json and try again.
    let mut attempts = 0;
    loop {
        let meta = read_meta(dir)?;
        match open(dir, &meta, mmap, false) {
            Err(Error::Corrupted { .. })
                if attempts < 3
                    && read_meta(dir).is_ok_and(|m| m.generation != meta.generation) =>
            {
                attempts += 1;
            }
            other => return other,
        }
    }
}

fn open(dir: &Path, meta: &IndexMeta, mmap: bool, check_crc: bool) -> Result<Index> {
    let analyzer = Analyzer::new(meta.analyzer.clone()).map_err(|e| {
        Error::corrupted(
            dir.join(META_FILE),
            format!("impossible analyzer configuration: {e}"),
        )
    })?;
    let analyzer = Arc::new(analyzer);
    let segments = meta
        .segments
        .iter()
        .map(|s| open_segment(dir, s, meta.format_version, mmap, check_crc))
        .collect::<Result<Vec<_>>>()?;
    let mut index = Index::from_segments(analyzer, segments, Some(dir.to_path_buf()))?;
    index.generation = meta.generation;
    if index.len() as u64 != meta.num_docs {
        return Err(Error::corrupted(
            dir.join(META_FILE),
            "document count differs from the segments",
        ));
    }
    Ok(index)
}

/// The latest saved state of `index`'s folder: `index` itself if no other
/// writer has saved since it was loaded or saved, else a fresh load.
pub fn latest(index: &Index, mmap: bool) -> Result<Option<Index>> {
    let Some(dir) = index.dir() else {
        return Ok(None);
    };
    if read_meta(dir)?.generation == index.generation() {
        return Ok(None);
    }
    load(dir, mmap).map(Some)
}

/// Checks every file of the index in `dir`, including the CRC32 of the large
/// ones that loading skips.
pub fn verify(dir: &Path) -> Result<()> {
    let meta = read_meta(dir)?;
    open(dir, &meta, true, true).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

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
                })
                .collect(),
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
}
