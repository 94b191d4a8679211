//! A query as the engine sees it: its distinct analyzed terms, each with
//! its query frequency and document frequency; a scored document; and the
//! tie rule that orders hits (score descending, then docid ascending).

use std::cmp::Ordering;

use crate::index::Index;
use crate::segment::TermOrd;

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
    analyze(index, query).0
}

/// [`query_terms`], with the ordinals their document frequencies were read
/// from, so that a search looks each term up in each segment once.
pub(super) fn analyze(index: &Index, query: &str) -> (Vec<QueryTerm>, TermOrds) {
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
    let ords = TermOrds::lookup(index, &terms);
    for (s, segment) in index.segments().iter().enumerate() {
        for (t, ord) in terms.iter_mut().zip(ords.segment(s)) {
            // As `Index::df` sums it.
            t.df += ord.map_or(0, |o| u64::from(segment.live_df(o)));
        }
    }
    (terms, ords)
}

/// Each query term's ordinal in each segment (`None` where the segment
/// lacks the term): a dictionary lookup costs about as much as scoring a
/// few hundred postings, so a query makes each one once.
pub(super) struct TermOrds {
    /// Segment by segment, one entry per term.
    ords: Vec<Option<TermOrd>>,
    terms: usize,
}

impl TermOrds {
    /// Looks `terms` up in every segment of `index`.
    pub(super) fn lookup(index: &Index, terms: &[QueryTerm]) -> Self {
        let ords = index
            .segments()
            .iter()
            .flat_map(|s| terms.iter().map(|t| s.data().term_ord(&t.term)))
            .collect();
        TermOrds {
            ords,
            terms: terms.len(),
        }
    }

    /// The ordinals in segment `s`, in query-term order.
    pub(super) fn segment(&self, s: usize) -> &[Option<TermOrd>] {
        &self.ords[s * self.terms..(s + 1) * self.terms]
    }
}

/// The tie rule: higher score first, then smaller docid.
#[inline]
pub fn rank_order(index: &Index, a: &ScoredDoc, b: &ScoredDoc) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| index.compare_docids(a.doc, b.doc))
}
