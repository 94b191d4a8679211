//! Pseudo-relevance feedback, as Anserini's: a first stage under Lucene's
//! BM25, then a query of boosted terms made from its best documents' term
//! vectors ([`feature_vector`]), by [`rm3`] or [`rocchio`].

pub mod feature_vector;
pub mod rm3;
pub mod rocchio;
