//! Opening, reading and writing files without surprises: the one way the
//! core touches the files of an index folder and of a corpus folder.
//!
//! - **No links followed inside an index folder.** Index files, `meta.json`
//!   and `write.lock` are opened with `O_NOFOLLOW`: a symbolic link planted
//!   in the folder (a cloned repository can carry one) is refused, never
//!   followed to a file elsewhere, and a dangling `write.lock` link never
//!   creates its target.
//! - **Only regular files.** Every file is opened with `O_NONBLOCK` and
//!   checked with `fstat` before a byte is read: a FIFO or a device fails at
//!   once instead of blocking forever or streaming without end.
//! - **Bounded reads.** A file's size is checked against what the caller
//!   expects before reading, and its buffer is reserved fallibly: an
//!   allocation that fails is [`Error::OutOfMemory`], not an abort.
//! - **Exclusive temporaries.** A file is written under a fresh temporary
//!   name created with `O_CREAT | O_EXCL` (which never follows a link),
//!   `fsync`ed, then renamed into place (a rename replaces a link, never its
//!   target). Temporary names are `.<final name>.<pid>-<n>.tmp`, so a save
//!   only ever removes temporaries of its own files.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Whose file is opened: decides which error a file of the wrong kind is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// A file of an index folder: links are not followed, and a file of the
    /// wrong kind is damage to the index ([`Error::Corrupted`]).
    Index,
    /// An input file found in a corpus folder: links are followed (data sets
    /// are often linked into place), and a file of the wrong kind is a bad
    /// input ([`Error::Document`]).
    Input,
}

impl Owner {
    fn refuse(self, path: &Path, why: String) -> Error {
        match self {
            Owner::Index => Error::corrupted(path, why),
            Owner::Input => Error::Document(format!("{}: {why}", path.display())),
        }
    }
}

/// The flags that make `open` neither follow a final link (for
/// [`Owner::Index`]) nor block on a FIFO.
#[cfg(unix)]
fn flags(owner: Owner) -> i32 {
    let nofollow = if owner == Owner::Index {
        libc::O_NOFOLLOW
    } else {
        0
    };
    nofollow | libc::O_NONBLOCK
}

#[cfg(unix)]
fn with_flags(options: &mut OpenOptions, owner: Owner) -> &mut OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    options.custom_flags(flags(owner))
}

/// Elsewhere there are no FIFOs to block on; links are refused by looking first.
#[cfg(not(unix))]
fn with_flags(options: &mut OpenOptions, owner: Owner) -> &mut OpenOptions {
    let _ = owner;
    options
}

/// Opens `path` with `options` under `owner`'s rules and checks that it is a
/// regular file; returns it with its size.
fn open_checked(path: &Path, options: &mut OpenOptions, owner: Owner) -> Result<(File, u64)> {
    #[cfg(not(unix))]
    if owner == Owner::Index && fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    {
        return Err(owner.refuse(path, link_message()));
    }
    let file = with_flags(options, owner).open(path).map_err(|e| {
        if owner == Owner::Index && is_link_error(&e) {
            owner.refuse(path, link_message())
        } else {
            Error::io(path, e)
        }
    })?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(owner.refuse(
            path,
            format!(
                "is {}, not a regular file; rserini reads only regular files",
                kind_of(&meta.file_type())
            ),
        ));
    }
    Ok((file, meta.len()))
}

fn link_message() -> String {
    "is a symbolic link; rserini does not follow links inside an index folder (index files are regular files)".into()
}

/// Whether `open` failed because the final component is a link (`ELOOP`
/// under `O_NOFOLLOW`).
fn is_link_error(e: &io::Error) -> bool {
    #[cfg(unix)]
    return e.raw_os_error() == Some(libc::ELOOP);
    #[cfg(not(unix))]
    return {
        let _ = e;
        false
    };
}

/// What a non-regular file is, in words.
fn kind_of(t: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if t.is_dir() {
        "a folder"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "a special file"
    }
}

/// Opens the regular file `path` for reading, under `owner`'s rules;
/// returns it with its size.
pub fn open(path: &Path, owner: Owner) -> Result<(File, u64)> {
    open_checked(path, OpenOptions::new().read(true), owner)
}

/// An empty buffer with room for `len` bytes, or [`Error::OutOfMemory`].
pub fn buffer(len: u64, what: &Path) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    usize::try_from(len)
        .ok()
        .and_then(|n| buf.try_reserve_exact(n).ok())
        .ok_or_else(|| Error::OutOfMemory(format!("{len} bytes to read {}", what.display())))?;
    Ok(buf)
}

/// Reads the `len` bytes of `file` (opened by [`open`]) into memory; a file
/// that changed size meanwhile is an error.
pub fn read_all(mut file: File, len: u64, path: &Path) -> Result<Vec<u8>> {
    let mut buf = buffer(len, path)?;
    // One byte more than expected, to notice a file that grew.
    (&mut file)
        .take(len.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(path, e))?;
    if buf.len() as u64 != len {
        return Err(Error::corrupted(
            path,
            format!("changed size while read ({len} bytes, then {})", buf.len()),
        ));
    }
    Ok(buf)
}

/// The whole of the index file `path`, refusing it (as damage) if it is
/// larger than `max` bytes.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>> {
    let (file, len) = open(path, Owner::Index)?;
    if len > max {
        return Err(Error::corrupted(
            path,
            format!("{len} bytes, more than the {max} such a file can hold"),
        ));
    }
    read_all(file, len, path)
}

/// Opens (creating it if needed) the lock file `path` of an index folder:
/// never through a link, never a FIFO.
pub fn open_lock(path: &Path) -> Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o644);
    }
    open_checked(path, &mut options, Owner::Index).map(|(file, _)| file)
}

/// The temporary name `write_atomically` gives `name` (attempt `n`).
fn temporary_name(name: &str, n: u64) -> String {
    format!(".{name}.{}-{n}.tmp", std::process::id())
}

/// The file name a temporary of [`write_atomically`] stands for
/// (`.<name>.<pid>-<n>.tmp`, or `.<name>.tmp` as earlier versions wrote),
/// or `None` if `file_name` is not such a temporary.
pub fn temporary_target(file_name: &str) -> Option<&str> {
    let inner = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let stamped = inner.rsplit_once('.').and_then(|(name, stamp)| {
        let (pid, n) = stamp.split_once('-')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        (digits(pid) && digits(n)).then_some(name)
    });
    Some(stamped.unwrap_or(inner)).filter(|name| !name.is_empty())
}

/// Writes `bytes` as the file `name` of `dir`, crash-safely: into a fresh
/// temporary created exclusively, `fsync`ed, then renamed over `name`.
pub fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let (tmp, mut file) = loop {
        let tmp = dir.join(temporary_name(name, NEXT.fetch_add(1, Ordering::Relaxed)));
        let mut options = OpenOptions::new();
        // `create_new` is O_CREAT | O_EXCL: it fails on any existing entry,
        // a link included, rather than opening it.
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NOFOLLOW).mode(0o644);
        }
        match options.open(&tmp) {
            Ok(file) => break (tmp, file),
            // Someone else's file under our next name: take another.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&tmp, e)),
        }
    };
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io(&tmp, e));
    drop(file);
    let target = dir.join(name);
    let result =
        written.and_then(|()| fs::rename(&tmp, &target).map_err(|e| Error::io(&target, e)));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Flushes the entries of `dir` (new and renamed files) to disk.
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_name_their_target() {
        assert_eq!(temporary_target(".meta.json.123-4.tmp"), Some("meta.json"));
        assert_eq!(temporary_target(".meta.json.tmp"), Some("meta.json"));
        assert_eq!(
            temporary_target(".seg000001.docids.77-0.tmp"),
            Some("seg000001.docids")
        );
        assert_eq!(temporary_target(".notes.tmp"), Some("notes"));
        assert_eq!(temporary_target(".tmp"), None);
        assert_eq!(temporary_target("..tmp"), None);
        assert_eq!(temporary_target("meta.json.tmp"), None);
        assert_eq!(
            temporary_target(&temporary_name("seg000002.3.del", 9)),
            Some("seg000002.3.del")
        );
    }

    #[test]
    fn writes_replace_the_file_and_leave_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        write_atomically(dir.path(), "a", b"one").unwrap();
        write_atomically(dir.path(), "a", b"two").unwrap();
        assert_eq!(fs::read(dir.path().join("a")).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_is_neither_followed_nor_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        fs::write(&victim, b"precious").unwrap();
        // Links under the next names a write takes (the counter is shared by
        // this process's tests, which write a few files), an older version's
        // temporary name, and the final name.
        for n in 0..16 {
            std::os::unix::fs::symlink(&victim, dir.path().join(temporary_name("f", n))).unwrap();
        }
        std::os::unix::fs::symlink(&victim, dir.path().join(".f.tmp")).unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("f")).unwrap();
        assert!(matches!(
            open(&dir.path().join("f"), Owner::Index),
            Err(Error::Corrupted { .. })
        ));
        write_atomically(dir.path(), "f", b"new").unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
        assert!(
            !fs::symlink_metadata(dir.path().join("f"))
                .unwrap()
                .is_symlink()
        );
        assert_eq!(read_bounded(&dir.path().join("f"), 3).unwrap(), b"new");
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_lock_link_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("created");
        std::os::unix::fs::symlink(&target, dir.path().join("write.lock")).unwrap();
        assert!(matches!(
            open_lock(&dir.path().join("write.lock")),
            Err(Error::Corrupted { .. })
        ));
        assert!(!target.exists());
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_devices_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        for owner in [Owner::Index, Owner::Input] {
            let err = open(&fifo, owner).unwrap_err();
            assert!(err.to_string().contains("a FIFO"), "{err}");
        }
        assert!(matches!(open(&fifo, Owner::Input), Err(Error::Document(_))));
        assert!(matches!(open_lock(&fifo), Err(Error::Corrupted { .. })));
        let zero = Path::new("/dev/zero");
        assert!(
            open(zero, Owner::Input)
                .unwrap_err()
                .to_string()
                .contains("character device")
        );
        assert!(matches!(
            open(dir.path(), Owner::Index),
            Err(Error::Corrupted { .. })
        ));
    }

    #[test]
    fn sizes_are_bounded_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        fs::write(&path, vec![7u8; 100]).unwrap();
        assert!(matches!(
            read_bounded(&path, 99),
            Err(Error::Corrupted { .. })
        ));
        assert_eq!(read_bounded(&path, 100).unwrap().len(), 100);
        assert!(matches!(
            buffer(u64::MAX, &path),
            Err(Error::OutOfMemory(_))
        ));
        assert!(matches!(buffer(1 << 62, &path), Err(Error::OutOfMemory(_))));
    }
}
