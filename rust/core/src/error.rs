//! The one error type of the core. Every fallible public function returns
//! [`Result`]; bad user input is an `Err`, never a panic. The Python binding
//! maps each variant to its own exception class in one exhaustive `match`.

use std::path::PathBuf;

/// Everything that can go wrong in the core.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An analyzer name or analyzer option that does not exist.
    #[error("{0}")]
    Analyzer(String),
    /// A query that cannot be run: empty, wrong `k`, invalid BM25 parameters.
    #[error("{0}")]
    Query(String),
    /// Input documents that cannot be indexed (duplicate or empty docid, empty corpus).
    #[error("{0}")]
    Document(String),
    /// A malformed line in a JSONL or TSV input file.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file being read.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// An argument outside its domain (a malformed glob pattern, a zero size).
    #[error("{0}")]
    Argument(String),
    /// A docid that is not in the index.
    #[error("unknown docid {0:?}: it is not in this index")]
    UnknownDocid(String),
    /// An index file that is damaged, truncated, of another format or version.
    #[error("index file {path} is corrupted: {message}")]
    Corrupted {
        /// The damaged file.
        path: PathBuf,
        /// What check failed.
        message: String,
    },
    /// An index written by a newer (or older, unsupported) format version.
    #[error(
        "index {path} has format version {found}, this build reads version {expected}; rebuild the index with this version of rserini"
    )]
    Version {
        /// The index folder or file.
        path: PathBuf,
        /// Version found on disk.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
    /// A Lucene index, or one of its files, written by a Lucene version or
    /// codec this build does not read.
    #[error("Lucene index file {path} has {found}; rserini reads {supported}")]
    LuceneVersion {
        /// The Lucene file.
        path: PathBuf,
        /// The Lucene version, codec or file format version found.
        found: String,
        /// What this build reads.
        supported: String,
    },
    /// Another writer holds the index folder's lock.
    #[error(
        "another writer holds the lock {0}; wait for it to commit, or remove the file if no rserini process is writing"
    )]
    Locked(PathBuf),
    /// The writer lock belongs to another process: this one inherited the
    /// index object, and its lock, through `fork()`.
    #[error(
        "the writer lock {path} belongs to process {owner}, not to this one (a forked process inherits its parent's pending changes, not the right to commit them); roll back, then load the index in this process to write"
    )]
    ForeignLock {
        /// The lock file.
        path: PathBuf,
        /// The process that took the lock.
        owner: u32,
    },
    /// Memory could not be allocated.
    #[error("out of memory: cannot allocate {0}")]
    OutOfMemory(String),
    /// An operating-system error, with the path involved.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Wraps an `io::Error` with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// A corruption error for `path`.
    pub fn corrupted(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Corrupted {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// The core's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
