//! A query as the engine sees it: its distinct analyzed terms, each with
//! its query frequency and document frequency; a scored document; and the
//! tie rule that orders hits (score descending, then docid ascending).

use std::cmp::Ordering;

use crate::index::Index;

/// One query term, with its frequency in the query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryTerm {
    /// The analyzed term.
    pub term: String,
    /// How often it occurs in the query.
    pub query_tf: u32,
    /// Live documents holding it, over all segments.
    pub df: u64,
}

/// A scored document (global id).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoredDoc {
    /// Global document id.
    pub doc: u32,
    /// Its score.
    pub score: f32,
}

/// Analyzes `query` into distinct terms in first-occurrence order.
pub fn query_terms(index: &Index, query: &str) -> Vec<QueryTerm> {
    let mut terms: Vec<QueryTerm> = Vec::new();
    index.analyzer().analyze_with(
        query,
        &mut |t| match terms.iter_mut().find(|q| q.term == t) {
            Some(q) => q.query_tf += 1,
            None => terms.push(QueryTerm {
                term: t.to_owned(),
                query_tf: 1,
                df: 0,
            }),
        },
    );
    for t in &mut terms {
        t.df = index.df(&t.term);
    }
    terms
}

/// The tie rule: higher score first, then smaller docid.
#[inline]
pub fn rank_order(index: &Index, a: &ScoredDoc, b: &ScoredDoc) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| index.compare_docids(a.doc, b.doc))
}
