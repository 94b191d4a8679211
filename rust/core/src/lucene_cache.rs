//! The conversion cache: a Lucene index converted once into rserini's own
//! format, kept outside the Lucene folder and opened memory-mapped after.
//!
//! **Key.** An entry is named by a hash of what the conversion reads: the
//! newest commit's generation, and the name, size and codec footer (which
//! ends with the file's CRC32) of `segments_N` and of every file of its
//! segments, with rserini's format and conversion versions. A new commit
//! (added, merged or deleted documents) gets a new entry; a copied folder
//! finds its entry. Reading the key costs a few bytes per file.
//!
//! **Entry.** `<root>/lucene/<key>/` is an rserini index folder (the other
//! fields in `fields/<name>/`, see [`crate::store`]). It is written under a
//! temporary name beside it and published by an atomic rename, while
//! holding an OS lock on `<root>/lucene/<key>.lock` (never in the Lucene
//! folder): a concurrent opener, thread or process, waits for the entry
//! instead of converting too. Readers take no lock. An entry that fails to
//! load (damaged, truncated, foreign) is never used: it is converted again
//! and replaced.
//!
//! **Failure.** A cache that cannot be written (read-only, full, a file in
//! the way) is not an error: the conversion is returned in memory, with a
//! warning for the caller to show.

use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};
use crate::index::Index;
use crate::lucene::convert;
use crate::lucene::directory::Directory;
use crate::lucene::segment_infos::Commit;
use crate::{safe_fs, store};

/// The variable naming rserini's cache folder.
pub const CACHE_ENV: &str = "RSERINI_CACHE";
/// The sub-folder of the cache holding the converted Lucene indexes.
pub const LUCENE_DIR: &str = "lucene";
/// Changed whenever a conversion gives another index from the same folder.
const CONVERSION_VERSION: u32 = 1;
/// Bytes of the codec footer of every Lucene file (magic, algorithm, CRC32).
const FOOTER_BYTES: u64 = 16;

/// How an open used the cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheUse {
    /// Read the entry in this folder.
    Read(PathBuf),
    /// Converted, then wrote and read the entry in this folder.
    Written(PathBuf),
    /// Converted in memory only.
    NotUsed,
}

/// A Lucene index opened through the cache.
#[derive(Debug)]
pub struct Opened {
    /// The converted index (detached from the entry's folder).
    pub index: Index,
    /// How the cache was used.
    pub cache: CacheUse,
    /// Why the cache could not be used, if it could not.
    pub warning: Option<String>,
}

/// rserini's cache folder: `$RSERINI_CACHE`, else `$XDG_CACHE_HOME/rserini`,
/// else `~/.cache/rserini`; `None` without any of them.
pub fn default_root() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var(CACHE_ENV)
        .or_else(|| {
            var("XDG_CACHE_HOME")
                .filter(|p| p.is_absolute())
                .map(|p| p.join("rserini"))
        })
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("rserini")))
}

/// The cache key of the Lucene index in `lucene_dir`: 32 hex digits.
pub fn cache_key(lucene_dir: &Path) -> Result<String> {
    let dir = Directory::open(lucene_dir)?;
    let (commit_name, _) = dir.newest_commit()?;
    let commit = Commit::read(&dir)?;
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"rserini lucene conversion\0");
    hasher.update(&CONVERSION_VERSION.to_le_bytes());
    hasher.update(&store::FORMAT_VERSION.to_le_bytes());
    hasher.update(&commit.generation.to_le_bytes());
    let mut names = vec![commit_name.as_str()];
    for segment in &commit.segments {
        names.extend(dir.names().iter().map(String::as_str).filter(|n| {
            n.strip_prefix(segment.name.as_str())
                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('_'))
        }));
    }
    for name in names {
        let path = lucene_dir.join(name);
        let (mut file, len) = safe_fs::open(&path, safe_fs::Owner::Index)?;
        let tail = len.min(FOOTER_BYTES);
        let mut footer = vec![0u8; tail as usize];
        file.seek(SeekFrom::Start(len - tail))
            .and_then(|_| file.read_exact(&mut footer))
            .map_err(|e| Error::io(&path, e))?;
        hasher.update(&(name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update(&len.to_le_bytes());
        hasher.update(&footer);
    }
    Ok(hasher.finalize().to_hex()[..32].to_owned())
}

/// Opens the Lucene index in `lucene_dir` through the cache in `root`
/// (`None`: converts in memory, writing nothing); `mmap` as for
/// [`store::load`]. Damage in the Lucene folder is an error; a cache that
/// cannot be written is not ([`Opened::warning`]).
pub fn open(lucene_dir: &Path, root: Option<&Path>, mmap: bool) -> Result<Opened> {
    let Some(root) = root else {
        return Ok(Opened {
            index: convert::load(lucene_dir)?,
            cache: CacheUse::NotUsed,
            warning: None,
        });
    };
    let key = cache_key(lucene_dir)?;
    let entries = root.join(LUCENE_DIR);
    let entry = entries.join(&key);
    let read = |entry: &Path| {
        load_entry(entry, mmap).map(|index| Opened {
            index,
            cache: CacheUse::Read(entry.to_path_buf()),
            warning: None,
        })
    };
    if let Ok(opened) = read(&entry) {
        return Ok(opened);
    }
    let lock = match take_lock(&entries, &key) {
        Ok(lock) => lock,
        Err(e) => return in_memory(lucene_dir, &entries, &e),
    };
    // Another opener may have written it while this one waited.
    if let Ok(opened) = read(&entry) {
        return Ok(opened);
    }
    remove_temporaries(&entries, &key);
    let index = convert::load(lucene_dir)?;
    if cache_key(lucene_dir)? != key {
        return Ok(Opened {
            index,
            cache: CacheUse::NotUsed,
            warning: Some(format!(
                "{} changed while it was converted: not cached",
                lucene_dir.display()
            )),
        });
    }
    let written = publish(&index, lucene_dir, &entries, &key)
        .and_then(|entry| Ok((load_entry(&entry, mmap)?, entry)));
    drop(lock);
    Ok(match written {
        Ok((index, entry)) => Opened {
            index,
            cache: CacheUse::Written(entry),
            warning: None,
        },
        Err(e) => Opened {
            index,
            cache: CacheUse::NotUsed,
            warning: Some(warning(&entries, &e)),
        },
    })
}

fn warning(entries: &Path, e: &Error) -> String {
    format!(
        "the Lucene conversion cache {} cannot be used ({e}); the index was converted in memory only",
        entries.display()
    )
}

/// Converts in memory after the cache failed with `e`.
fn in_memory(lucene_dir: &Path, entries: &Path, e: &Error) -> Result<Opened> {
    Ok(Opened {
        index: convert::load(lucene_dir)?,
        cache: CacheUse::NotUsed,
        warning: Some(warning(entries, e)),
    })
}

/// The entry in `entry`, checked as any saved index, detached from its
/// folder (nothing is ever saved into the cache but by [`publish`]).
fn load_entry(entry: &Path, mmap: bool) -> Result<Index> {
    let index = store::load(entry, mmap)?;
    if index.lucene_version().is_none() {
        return Err(Error::corrupted(
            entry,
            "not the conversion of a Lucene index",
        ));
    }
    index.in_memory()
}

/// The lock of entry `key`, waited for.
fn take_lock(entries: &Path, key: &str) -> Result<fs::File> {
    fs::create_dir_all(entries).map_err(|e| Error::io(entries, e))?;
    let path = entries.join(format!("{key}.lock"));
    let file = safe_fs::open_lock(&path)?;
    file.lock().map_err(|e| Error::io(&path, e))?;
    Ok(file)
}

/// Removes what a crashed writer of entry `key` left (only a holder of its
/// lock writes them).
fn remove_temporaries(entries: &Path, key: &str) {
    let prefix = format!(".{key}.");
    let Ok(list) = fs::read_dir(entries) else {
        return;
    };
    for item in list.flatten() {
        if item
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(&prefix))
        {
            let _ = fs::remove_dir_all(item.path());
        }
    }
}

/// A name no other writer uses: `.<key>.<process>.<n>.<what>`.
fn unique_name(key: &str, what: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!(".{key}.{}.{n}.{what}", std::process::id())
}

/// Saves `index` as entry `key`: into a temporary folder, then renamed into
/// place (replacing a damaged entry). Returns the entry's folder.
fn publish(index: &Index, lucene_dir: &Path, entries: &Path, key: &str) -> Result<PathBuf> {
    let entry = entries.join(key);
    let temporary = entries.join(unique_name(key, "tmp"));
    let source = lucene_dir
        .canonicalize()
        .unwrap_or_else(|_| lucene_dir.to_path_buf());
    let result = (|| {
        store::save(
            index,
            &temporary,
            Some(format!("lucene:{}", source.display())),
        )?;
        if fs::symlink_metadata(&entry).is_ok() {
            let old = entries.join(unique_name(key, "old"));
            fs::rename(&entry, &old).map_err(|e| Error::io(&entry, e))?;
            let _ = fs::remove_dir_all(&old).or_else(|_| fs::remove_file(&old));
        }
        fs::rename(&temporary, &entry).map_err(|e| Error::io(&entry, e))?;
        safe_fs::sync_dir(entries)?;
        Ok(entry)
    })();
    if result.is_err() {
        let _ = fs::remove_dir_all(&temporary);
    }
    result
}

#[cfg(test)]
#[path = "lucene_cache_tests.rs"]
mod tests;
