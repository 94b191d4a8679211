//! The core's rules and defaults for Python code that applies them itself
//! (a sharded index queues changes and checks queries over many indexes; the
//! command line shows the library's defaults), so that none is restated.

use std::collections::HashSet;

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rserini_core::index::{DEFAULT_MEMORY_BUDGET, Duplicates};
use rserini_core::search::{self, Algorithm};
use rserini_core::{corpus, index};

use crate::errors::CoreResult;

/// A build's default memory budget, in MB (the core's, in bytes).
pub const DEFAULT_MEMORY_MB: f64 = (DEFAULT_MEMORY_BUDGET >> 20) as f64;

/// The docid rule of one commit's additions, as :meth:`Index.add` and
/// :meth:`Index.commit` apply it, for additions queued over several indexes:
/// ``docids`` in the order they were queued, none empty; under
/// ``duplicates="error"``, none twice and none in ``existing`` (the docids live
/// in the index and not deleted by the same commit).
///
/// Raises
/// ------
/// DocumentError
///     For the first docid that breaks the rule, with the message the index gives.
/// QueryError
///     For an unknown ``duplicates`` policy.
#[pyfunction]
pub fn check_added_docids(
    docids: Vec<String>,
    duplicates: &str,
    existing: HashSet<String>,
) -> CoreResult<()> {
    let duplicates = Duplicates::parse(duplicates)?;
    let docids: Vec<&str> = docids.iter().map(String::as_str).collect();
    Ok(index::check_added_docids(&docids, duplicates, |d| {
        existing.contains(d)
    })?)
}

/// Refuses a query with nothing to search for, as the searches do.
///
/// Raises
/// ------
/// QueryError
///     For an empty or blank query.
#[pyfunction]
pub fn check_query(query: &str) -> CoreResult<()> {
    Ok(search::check_query(query)?)
}

/// Adds the defaults and choice lists that are not scoring's to the module,
/// read off the core.
pub fn add_constants(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DEFAULT_MEMORY_MB", DEFAULT_MEMORY_BUDGET >> 20)?;
    m.add("DEFAULT_MAX_LINE_BYTES", corpus::DEFAULT_MAX_LINE_BYTES)?;
    let algorithms = Algorithm::ALL.map(|(name, _)| name);
    m.add("ALGORITHMS", PyTuple::new(m.py(), algorithms)?)?;
    Ok(())
}
