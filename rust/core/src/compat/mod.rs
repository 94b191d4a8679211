//! Engines that reproduce another library's results exactly, beside the
//! engine rather than in it.

pub mod agentic_retrieval;
