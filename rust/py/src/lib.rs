//! The `rserini._core` extension module: thin PyO3 wrappers over
//! `rserini-core`. Python objects are turned into owned Rust values first;
//! the work then runs without the GIL.

mod analyzer;
mod args;
mod columns;
mod convert;
mod corpus;
mod errors;
mod feedback;
mod fusion;
mod global_stats;
mod index;
mod index_stats;
mod lexical;
mod lucene_info;
mod merge;
mod project;
mod query_limits;
mod results;
mod rules;
mod scoring;
mod snapshot_ids;
mod threads;

use pyo3::prelude::*;

/// mimalloc keeps freed memory for reuse: a fit or a batch allocates lists of
/// many megabytes, which glibc returns to the system on free and then takes
/// back page by page (thousands of page faults a fit, more on worker threads).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// rserini's compiled core.
#[pymodule]
mod _core {
    #[pymodule_export]
    use crate::analyzer::PyAnalyzer;
    #[pymodule_export]
    use crate::corpus::{beir_files, corpus_files, document_fields, read_documents, read_queries};
    #[pymodule_export]
    use crate::feedback::{PyRm3, PyRocchio};
    #[pymodule_export]
    use crate::fusion::{rrf, rrf_full_depth};
    #[pymodule_export]
    use crate::global_stats::PyGlobalStats;
    #[pymodule_export]
    use crate::index::{_index_from_files, PyIndex};
    #[pymodule_export]
    use crate::index_stats::PyIndexStats;
    #[pymodule_export]
    use crate::lexical::{
        _lexical_fit, _lexical_load, _lexical_save, _lexical_search, _lexical_units, PyBm25Arm,
        PyTfidfArm,
    };
    #[pymodule_export]
    use crate::lucene_info::{lucene_info, lucene_stores_contents};
    #[pymodule_export]
    use crate::merge::merge_topk;
    #[pymodule_export]
    use crate::project::{chunk_lines, list_source_files, read_source_files};
    #[pymodule_export]
    use crate::query_limits::{query_limits, set_query_limits};
    #[pymodule_export]
    use crate::results::{PyExplanation, PyHit, PyTermExplanation};
    #[pymodule_export]
    use crate::rules::{check_added_docids, check_query};
    #[pymodule_export]
    use crate::scoring::PyBm25;

    use super::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        crate::threads::install_fork_hook();
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add("INDEX_FORMAT_VERSION", rserini_core::store::FORMAT_VERSION)?;
        m.add("ANALYZER_PRESETS", rserini_core::analysis::PRESETS.to_vec())?;
        m.add(
            "DOCID_FIELDS",
            pyo3::types::PyTuple::new(m.py(), rserini_core::document::ID_FIELDS)?,
        )?;
        crate::scoring::add_constants(m)?;
        crate::rules::add_constants(m)?;
        crate::analyzer::locate_japanese_dictionary(m.py());
        Ok(())
    }
}
