//! Pickling an `Index`: a saved one pickles as its path; an in-memory one's
//! saved files travel as bytes and are loaded back from a private scratch
//! folder.

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use rserini_core::index::Index;
use rserini_core::{Error, store};

use super::PyIndex;
use crate::threads::detached;

#[pymethods]
impl PyIndex {
    /// A saved index pickles as its path; an in-memory one as its files' bytes.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let this = slf.get();
        match this.path() {
            Some(path) => Ok((
                slf.get_type().getattr("load")?,
                PyTuple::new(slf.py(), [path])?,
            )),
            None => in_memory(slf.py(), &this.snapshot(), this.source.clone()),
        }
    }
}

/// `__reduce__` of an in-memory index: `_index_from_files(files, source)`.
fn in_memory<'py>(
    py: Python<'py>,
    index: &Arc<Index>,
    source: Option<String>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
    let files = detached(py, None, || {
        let scratch = scratch_dir()?;
        let saved = store::save(index, scratch.path(), source.clone());
        saved.and_then(|_| read_folder(scratch.path()))
    })?;
    let dict = PyDict::new(py);
    for (name, bytes) in files {
        dict.set_item(name, PyBytes::new(py, &bytes))?;
    }
    let from_files = py.import("rserini._core")?.getattr("_index_from_files")?;
    let args = [dict.into_any(), source.into_pyobject(py)?.into_any()];
    Ok((from_files, PyTuple::new(py, args)?))
}

/// A fresh scratch folder under the system's temporary folder, created
/// exclusively and private to this user (a predictable name there could be
/// planted by another user), removed on drop.
fn scratch_dir() -> Result<tempfile::TempDir, Error> {
    tempfile::Builder::new()
        .prefix("rserini-pickle-")
        .tempdir()
        .map_err(|e| Error::io(std::env::temp_dir(), e))
}

/// Every file of a folder, by name.
/// The files of a saved index by relative name, those of its field folders
/// as `fields/<name>/<file>`.
fn read_folder(dir: &std::path::Path) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            for (inner, bytes) in read_folder(&entry.path())? {
                out.push((format!("{name}/{inner}"), bytes));
            }
            continue;
        }
        let bytes = std::fs::read(entry.path()).map_err(|e| Error::io(entry.path(), e))?;
        out.push((name, bytes));
    }
    Ok(out)
}

/// Whether `name` is a file name [`read_folder`] gives: `<file>` or
/// `fields/<field>/<file>`, no part empty or hidden.
fn pickled_name(name: &str) -> bool {
    let plain = |part: &str| !part.is_empty() && !part.starts_with('.') && !part.contains('\\');
    match name.split('/').collect::<Vec<_>>()[..] {
        [file] => plain(file),
        [root, field, file] => {
            root == store::FIELDS_DIR
                && rserini_core::index::check_field_name(field).is_ok()
                && plain(file)
        }
        _ => false,
    }
}

/// Rebuilds an in-memory index from its pickled files.
#[pyfunction]
#[pyo3(signature = (files, source = None))]
pub fn _index_from_files(
    py: Python<'_>,
    files: HashMap<String, Vec<u8>>,
    source: Option<String>,
) -> PyResult<PyIndex> {
    let index = detached(py, None, || {
        // The folder is removed when `scratch` drops.
        let scratch = scratch_dir()?;
        let dir = scratch.path();
        for (name, bytes) in &files {
            if !pickled_name(name) {
                return Err(Error::corrupted(
                    dir,
                    format!("bad file name {name:?} in a pickle"),
                ));
            }
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
            }
            std::fs::write(&path, bytes).map_err(|e| Error::io(&path, e))?;
        }
        store::load(dir, false)?.in_memory()
    })?;
    Ok(PyIndex::new(index, source))
}
