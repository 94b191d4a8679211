//! The writer lock: one writer at a time per index folder.

use std::fs;
use std::path::{Path, PathBuf};

use super::LOCK_FILE;
use crate::error::{Error, Result};
use crate::safe_fs;

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
