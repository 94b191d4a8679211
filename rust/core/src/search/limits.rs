//! The bound on a query's size: its length in bytes and its number of
//! distinct analyzed terms. Analysis and term lookup cost time linear in
//! both, so the bound caps the work one query can ask for (a server's
//! client included); a larger query is an [`Error::Query`], never a
//! truncated one. Both limits are process-wide and can be changed.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, Result};

/// The default longest query, in UTF-8 bytes: 1 MiB.
pub const DEFAULT_MAX_QUERY_BYTES: usize = 1 << 20;
/// The default largest number of distinct analyzed terms in a query.
pub const DEFAULT_MAX_QUERY_TERMS: usize = 1 << 16;

static MAX_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_QUERY_BYTES);
static MAX_TERMS: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_QUERY_TERMS);

/// The limits in force: `(max_bytes, max_terms)`.
pub fn query_limits() -> (usize, usize) {
    (
        MAX_BYTES.load(Ordering::Relaxed),
        MAX_TERMS.load(Ordering::Relaxed),
    )
}

/// Sets the limits given (each at least 1); returns the previous ones.
pub fn set_query_limits(
    max_bytes: Option<usize>,
    max_terms: Option<usize>,
) -> Result<(usize, usize)> {
    if max_bytes == Some(0) || max_terms == Some(0) {
        return Err(Error::Query(
            "query limits must be at least 1 (byte, term)".into(),
        ));
    }
    let before = query_limits();
    if let Some(n) = max_bytes {
        MAX_BYTES.store(n, Ordering::Relaxed);
    }
    if let Some(n) = max_terms {
        MAX_TERMS.store(n, Ordering::Relaxed);
    }
    Ok(before)
}

/// [`Error::Query`] if `query` is longer than the limit.
pub fn check_bytes(query: &str) -> Result<()> {
    let max = MAX_BYTES.load(Ordering::Relaxed);
    if query.len() > max {
        return Err(Error::Query(format!(
            "the query is {} bytes long, over the limit of {max} (rserini.set_query_limits)",
            query.len()
        )));
    }
    Ok(())
}

/// The largest number of distinct terms allowed now.
pub(super) fn max_terms() -> usize {
    MAX_TERMS.load(Ordering::Relaxed)
}

/// The error for a query with more than `max` distinct terms.
pub(super) fn too_many_terms(max: usize) -> Error {
    Error::Query(format!(
        "the query has more than {max} distinct terms, the limit (rserini.set_query_limits)"
    ))
}
