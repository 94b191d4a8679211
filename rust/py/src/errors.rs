//! Core errors as Python exceptions, in one exhaustive `match`.
//!
//! The exception classes live in `rserini.exceptions` (Python), where each
//! can also subclass the matching builtin (`ValueError`, `KeyError`), so
//! callers may catch either. I/O errors become the builtin `OSError`
//! subclasses (`FileNotFoundError`, `PermissionError`, ...).

use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyIsADirectoryError, PyMemoryError, PyOSError,
    PyPermissionError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::PyType;
use rserini_core::Error;

/// Wraps a core error so `?` converts it into a Python exception.
pub struct CoreError(pub Error);

impl From<Error> for CoreError {
    fn from(e: Error) -> Self {
        CoreError(e)
    }
}

fn exception_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyType>> {
    Ok(py
        .import("rserini.exceptions")?
        .getattr(name)?
        .cast_into::<PyType>()?)
}

/// An attribute set on a raised exception (`path`, `line`).
enum Attr {
    Str(String),
    Int(usize),
}

fn raise(name: &str, message: String, attrs: &[(&str, Attr)]) -> PyErr {
    Python::attach(|py| {
        let cls = match exception_class(py, name) {
            Ok(cls) => cls,
            Err(e) => return e,
        };
        let err = PyErr::from_type(cls, message);
        let value = err.value(py);
        for (key, attr) in attrs {
            let set = match attr {
                Attr::Str(s) => value.setattr(*key, s),
                Attr::Int(i) => value.setattr(*key, i),
            };
            if let Err(e) = set {
                return e;
            }
        }
        err
    })
}

impl From<CoreError> for PyErr {
    fn from(CoreError(e): CoreError) -> PyErr {
        let message = e.to_string();
        let path_of = |p: &std::path::Path| Attr::Str(p.display().to_string());
        match e {
            Error::Analyzer(_) => raise("AnalyzerError", message, &[]),
            Error::Query(_) => raise("QueryError", message, &[]),
            Error::Document(_) => raise("DocumentError", message, &[]),
            Error::Parse { path, line, .. } => raise(
                "ParseError",
                message,
                &[("path", path_of(&path)), ("line", Attr::Int(line))],
            ),
            Error::Argument(_) => PyValueError::new_err(message),
            Error::UnknownDocid(_) => raise("UnknownDocidError", message, &[]),
            Error::Locked(path) | Error::ForeignLock { path, .. } => {
                raise("IndexLockedError", message, &[("path", path_of(&path))])
            }
            Error::OutOfMemory(_) => PyMemoryError::new_err(message),
            Error::Corrupted { path, .. } => {
                raise("IndexCorruptedError", message, &[("path", path_of(&path))])
            }
            Error::Version { path, .. } | Error::LuceneVersion { path, .. } => {
                raise("IndexVersionError", message, &[("path", path_of(&path))])
            }
            Error::Io { path, source } => {
                // OSError(errno, strerror, filename) sets .errno and .filename.
                let errno = source.raw_os_error().unwrap_or(match source.kind() {
                    std::io::ErrorKind::NotFound => 2,          // ENOENT
                    std::io::ErrorKind::PermissionDenied => 13, // EACCES
                    std::io::ErrorKind::AlreadyExists => 17,    // EEXIST
                    std::io::ErrorKind::IsADirectory => 21,     // EISDIR
                    _ => 5,                                     // EIO
                });
                let args = (errno, source.to_string(), path.display().to_string());
                match source.kind() {
                    std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(args),
                    std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(args),
                    std::io::ErrorKind::AlreadyExists => PyFileExistsError::new_err(args),
                    std::io::ErrorKind::IsADirectory => PyIsADirectoryError::new_err(args),
                    _ => PyOSError::new_err(args),
                }
            }
        }
    }
}

/// The core's result, convertible with `?` inside `PyResult` functions.
pub type CoreResult<T> = Result<T, CoreError>;
