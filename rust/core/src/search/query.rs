//! A query as the engine sees it: its distinct analyzed terms, each with
//! its query frequency and document frequency; a scored document; and the
//! tie rule that orders hits (score descending, then docid ascending).

use rustc_hash::FxHashMap;
use std::cmp::Ordering;

use super::limits;
use crate::error::Result;
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
///
/// [`Error::Query`](crate::error::Error::Query) for a query over the
/// [`limits`](super::limits).
pub fn query_terms(index: &Index, query: &str) -> Result<Vec<QueryTerm>> {
    Ok(analyze(index, query)?.0)
}

/// The distinct terms of `query` in first-occurrence order with their
/// counts, in time linear in its length (a hash map from term to
/// position), or an error past the limits.
fn distinct_terms(index: &Index, query: &str) -> Result<Vec<QueryTerm>> {
    limits::check_bytes(query)?;
    let max = limits::max_terms();
    let mut terms: Vec<QueryTerm> = Vec::new();
    let mut at: FxHashMap<String, usize> = FxHashMap::default();
    index.analyzer().analyze_with(query, &mut |t| {
        if let Some(&i) = at.get(t) {
            terms[i].query_tf = terms[i].query_tf.saturating_add(1);
        } else if terms.len() <= max {
            at.insert(t.to_owned(), terms.len());
            terms.push(QueryTerm {
                term: t.to_owned(),
                query_tf: 1,
                df: 0,
            });
        }
    });
    if terms.len() > max {
        return Err(limits::too_many_terms(max));
    }
    Ok(terms)
}

/// [`query_terms`], with the ordinals their document frequencies were read
/// from, so that a search looks each term up in each segment once.
pub(super) fn analyze(index: &Index, query: &str) -> Result<(Vec<QueryTerm>, TermOrds)> {
    let mut terms = distinct_terms(index, query)?;
    let ords = TermOrds::lookup(index, &terms);
    for (s, segment) in index.segments().iter().enumerate() {
        for (t, ord) in terms.iter_mut().zip(ords.segment(s)) {
            // As `Index::df` sums it.
            t.df += ord.map_or(0, |o| u64::from(segment.live_df(o)));
        }
    }
    Ok((terms, ords))
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::analysis::AnalyzerConfig;

    fn index() -> Index {
        Index::build(
            AnalyzerConfig::default(),
            vec![("d".into(), "w1 w2".into())],
        )
        .unwrap()
    }

    proptest! {
        #[test]
        fn distinct_terms_match_a_quadratic_reference(words in proptest::collection::vec(0u32..40, 0..200)) {
            let index = index();
            let query: Vec<String> = words.iter().map(|w| format!("w{w}")).collect();
            let mut expected: Vec<(String, u32)> = Vec::new();
            for w in &query {
                match expected.iter_mut().find(|(t, _)| t == w) {
                    Some((_, n)) => *n += 1,
                    None => expected.push((w.clone(), 1)),
                }
            }
            let got: Vec<(String, u32)> = query_terms(&index, &query.join(" "))
                .unwrap()
                .into_iter()
                .map(|t| (t.term, t.query_tf))
                .collect();
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn queries_past_the_limits_are_refused() {
        let index = index();
        let (max_bytes, max_terms) = limits::query_limits();
        let many: Vec<String> = (0..=max_terms).map(|i| format!("t{i}")).collect();
        let err = query_terms(&index, &many.join(" ")).unwrap_err();
        assert!(err.to_string().contains("distinct terms"), "{err}");
        assert_eq!(
            query_terms(&index, &many[..max_terms].join(" "))
                .unwrap()
                .len(),
            max_terms
        );
        let long = "w1 ".repeat(max_bytes / 3 + 1);
        let err = query_terms(&index, &long).unwrap_err();
        assert!(err.to_string().contains("bytes long"), "{err}");
    }
}
