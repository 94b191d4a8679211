//! Loading a saved index, checked; the latest saved state; verification.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use super::meta::{IndexMeta, read_meta};
use super::segment_files::open_segment;
use super::{FIELDS_DIR, META_FILE};
use crate::analysis::Analyzer;
use crate::error::{Error, Result};
use crate::index::Index;

/// Loads the index saved in `dir`; `mmap` maps the large files instead of
/// reading them. A Lucene index folder (a `segments_N` file, no
/// `meta.json`) is read without writing to it and converted in memory
/// ([`crate::lucene::load`]).
pub fn load(dir: &Path, mmap: bool) -> Result<Index> {
    if crate::lucene::is_lucene_folder(dir) {
        return crate::lucene::load(dir);
    }
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
    if let Some(version) = &meta.lucene_version {
        index = index.from_lucene(version.clone());
    }
    if meta.fields.is_empty() {
        return Ok(index);
    }
    let mut fields = Vec::with_capacity(meta.fields.len());
    for field in &meta.fields {
        let root = dir.join(FIELDS_DIR);
        let folder = root.join(&field.name);
        // Neither folder may be a link (links in an index folder are never followed).
        let real = |p: &Path| fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
        if !real(&root) || !real(&folder) {
            return Err(Error::corrupted(
                &folder,
                format!(
                    "missing: the folder of field {:?} listed in meta.json",
                    field.name
                ),
            ));
        }
        fields.push((
            field.name.clone(),
            open(&folder, &field.index, mmap, check_crc)?,
        ));
    }
    index.with_fields(fields).map_err(|e| {
        Error::corrupted(
            dir.join(META_FILE),
            format!("fields differ from the index: {e}"),
        )
    })
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
