//! A Lucene folder, read-only: its newest commit (`segments_N`), and the
//! files of each segment, plain or packed in a compound file (`.cfs` with
//! its table of entries `.cfe`).
//!
//! Files are memory-mapped read-only and never locked: nothing is written,
//! created or modified in the folder.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::input::{self, ID_LENGTH, Input};
use crate::data::Data;
use crate::error::{Error, Result};
use crate::safe_fs::{self, Owner};

/// One file's bytes and the path errors name it by.
#[derive(Clone, Debug)]
pub struct LuceneFile {
    /// The file, or `<folder>/_0.cfs[_0.tim]` for a compound sub-file.
    pub path: PathBuf,
    /// Its bytes, mapped.
    pub data: Data,
}

impl LuceneFile {
    /// A cursor at the start of the file.
    pub fn input(&self) -> Input<'_> {
        Input::new(&self.path, &self.data)
    }

    /// Checks the codec footer and checksum of the whole file.
    pub fn check_footer(&self) -> Result<u32> {
        input::check_footer(&self.path, &self.data)
    }
}

/// A Lucene index folder.
#[derive(Debug)]
pub struct Directory {
    path: PathBuf,
    names: Vec<String>,
}

/// Whether `path` looks like a Lucene index folder: a `segments_N` file
/// and no rserini `meta.json`.
pub fn is_lucene_folder(path: &Path) -> bool {
    if path.join("meta.json").exists() {
        return false;
    }
    std::fs::read_dir(path).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| commit_generation(n).is_some())
        })
    })
}

/// The generation of a `segments_N` file name (N in base 36).
pub fn commit_generation(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("segments_")?;
    u64::from_str_radix(digits, 36).ok()
}

/// `n` in base 36, as Lucene writes generations in file names.
pub fn base36(mut n: u64) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

impl Directory {
    /// Lists the folder `path`.
    pub fn open(path: &Path) -> Result<Self> {
        let entries = std::fs::read_dir(path).map_err(|e| Error::io(path, e))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(path, e))?;
            if let Some(name) = entry.file_name().to_str() {
                names.push(name.to_string());
            }
        }
        names.sort();
        Ok(Directory {
            path: path.to_path_buf(),
            names,
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The names of the folder's entries, sorted.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The name and generation of the newest commit (`segments_N` with the
    /// largest N).
    pub fn newest_commit(&self) -> Result<(String, u64)> {
        self.names
            .iter()
            .filter_map(|n| commit_generation(n).map(|g| (n.clone(), g)))
            .max_by_key(|(_, g)| *g)
            .ok_or_else(|| {
                Error::corrupted(
                    &self.path,
                    "no segments_N file: not a Lucene index folder (or an empty one)",
                )
            })
    }

    /// [`Error::Corrupted`] naming the file `name` of the folder.
    pub fn file_error(&self, name: &str, message: &str) -> Error {
        Error::corrupted(self.path.join(name), message)
    }

    /// Maps the file `name` of the folder.
    pub fn file(&self, name: &str) -> Result<LuceneFile> {
        let path = self.path.join(name);
        let (file, len) = safe_fs::open(&path, Owner::Index).map_err(|e| match e {
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                Error::corrupted(&path, "missing: the Lucene index is incomplete")
            }
            other => other,
        })?;
        let data = Data::from_file(file, len, &path, true)?;
        Ok(LuceneFile { path, data })
    }

    /// The files of segment `segment` (id `id`): those of its compound file
    /// if `compound`, else the plain files of the folder whose names start
    /// with the segment's name.
    pub fn segment_files(
        &self,
        segment: &str,
        id: &[u8; ID_LENGTH],
        compound: bool,
    ) -> Result<SegmentFiles> {
        let mut files = HashMap::new();
        if compound {
            let cfe = self.file(&format!("{segment}.cfe"))?;
            let cfs = self.file(&format!("{segment}.cfs"))?;
            for (stripped, offset, len) in compound_entries(&cfe, &cfs, id)? {
                let name = format!("{segment}{stripped}");
                let path = PathBuf::from(format!("{}[{name}]", cfs.path.display()));
                let data = cfs.data.slice(offset as usize..(offset + len) as usize);
                files.insert(name, LuceneFile { path, data });
            }
        } else {
            for name in &self.names {
                let rest = name.strip_prefix(segment);
                if rest.is_some_and(|r| r.starts_with('.') || r.starts_with('_')) {
                    files.insert(name.clone(), self.file(name)?);
                }
            }
        }
        Ok(SegmentFiles {
            dir: self.path.clone(),
            files,
        })
    }
}

/// Reads the `.cfe` table of a compound file: (name without the segment
/// prefix, offset, length) of each sub-file, checked against the `.cfs`.
fn compound_entries(
    cfe: &LuceneFile,
    cfs: &LuceneFile,
    id: &[u8; ID_LENGTH],
) -> Result<Vec<(String, u64, u64)>> {
    cfe.check_footer()?;
    let mut input = cfe.input();
    let version = input.check_index_header("Lucene90CompoundEntries", 0, 0, id, "")?;
    let count = input.read_vint_at_most(input.remaining() / 17, "compound entry count")?;
    let mut entries = Vec::with_capacity(count);
    let mut end = 0u64;
    for _ in 0..count {
        let name = input.read_string()?;
        let offset = input.read_long()?;
        let len = input.read_long()?;
        let stop = offset
            .checked_add(len)
            .filter(|&s| s <= cfs.data.len() as u64);
        match stop {
            Some(s) => end = end.max(s),
            None => {
                return Err(input.corrupt(format!(
                    "entry {name} ({offset}+{len}) lies outside {} ({} bytes)",
                    cfs.path.display(),
                    cfs.data.len()
                )));
            }
        }
        if entries.iter().any(|(n, _, _)| *n == name) {
            return Err(input.corrupt(format!("duplicate compound entry {name}")));
        }
        entries.push((name, offset, len));
    }
    // The data file: same header version, a valid footer right after the
    // last entry (Lucene checks the structure, not the checksum, on open).
    let mut data = cfs.input();
    data.check_index_header("Lucene90CompoundData", version, version, id, "")?;
    if entries.is_empty() {
        end = data.pos() as u64;
    }
    if cfs.data.len() as u64 != end + input::FOOTER_LENGTH as u64 {
        return Err(Error::corrupted(
            &cfs.path,
            format!(
                "length should be {} bytes, but is {}",
                end + input::FOOTER_LENGTH as u64,
                cfs.data.len()
            ),
        ));
    }
    cfs.check_footer()?;
    Ok(entries)
}

/// The files of one segment, by full name (`_0.si`, `_0_Lucene99_0.doc`).
#[derive(Debug)]
pub struct SegmentFiles {
    dir: PathBuf,
    files: HashMap<String, LuceneFile>,
}

impl SegmentFiles {
    /// Checks the footer and checksum of every file of the segment, in name
    /// order, those no reader decodes (doc values, term vectors) included:
    /// damage anywhere in a segment is found when it opens.
    pub fn check_all(&self) -> Result<()> {
        let mut names: Vec<&String> = self.files.keys().collect();
        names.sort();
        for name in names {
            self.files[name].check_footer()?;
        }
        Ok(())
    }

    /// The file `name`.
    pub fn file(&self, name: &str) -> Result<&LuceneFile> {
        self.files.get(name).ok_or_else(|| {
            Error::corrupted(
                self.dir.join(name),
                "missing: the Lucene index is incomplete",
            )
        })
    }

    /// The folder the segment lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A cursor over the file `name`.
    pub fn input(&self, name: &str) -> Result<Input<'_>> {
        Ok(self.file(name)?.input())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_are_base_36() {
        assert_eq!(commit_generation("segments_1"), Some(1));
        assert_eq!(commit_generation("segments_a"), Some(10));
        assert_eq!(commit_generation("segments_10"), Some(36));
        assert_eq!(commit_generation("segments.gen"), None);
        assert_eq!(commit_generation("pending_segments_2"), None);
        for n in [0u64, 1, 35, 36, 1295, u64::MAX] {
            assert_eq!(
                commit_generation(&format!("segments_{}", base36(n))),
                Some(n)
            );
        }
    }
}
