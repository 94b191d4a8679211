//! Searching several fields of the same documents with boosts, as
//! Anserini's `searchFields` (Pyserini's `search(q, k, fields={...})`)
//! builds its query: a `BooleanQuery` with one `SHOULD` clause per field,
//! `BoostQuery(bag of words of the field, boost)`. Each field is scored
//! with BM25 under its own statistics (N, average length, df), each term's
//! boost being the field's boost times its query frequency.
//!
//! The sums follow Lucene's arithmetic: a disjunction adds its clauses'
//! float scores in double precision and rounds the total to float, so a
//! field's terms are summed, rounded, then added to the other fields'. A
//! field of boost 1 is no `BoostQuery` after Lucene's rewriting, and its
//! terms join the outer disjunction directly (nested pure disjunctions are
//! flattened), so they are added unrounded. Every matching document is
//! scored (no pruning): this is the reference path.

use super::query::{self, QueryTerm, ScoredDoc};
use super::weight::Weight;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::scoring::Bm25Params;

/// The `k` best documents of `index` for `query` over `fields` (field
/// name, boost), best first under the tie rule, with Lucene's BM25
/// `params` in every field.
pub fn search_fields(
    index: &Index,
    query: &str,
    k: usize,
    params: &Bm25Params,
    fields: &[(String, f32)],
) -> Result<Vec<ScoredDoc>> {
    let mut targets = Vec::with_capacity(fields.len());
    for (name, boost) in fields {
        let field = index.field(name).ok_or_else(|| {
            Error::Query(format!(
                "this index has no field {name:?}: its fields are {}",
                index.field_names().join(", ")
            ))
        })?;
        if !boost.is_finite() || *boost < 0.0 {
            return Err(Error::Query(format!(
                "the boost of field {name:?} must be a finite number ≥ 0 (got {boost})"
            )));
        }
        targets.push((field, *boost));
    }
    // The running total of each document, NaN until it matches.
    let mut totals = vec![f64::NAN; index.id_space() as usize];
    let mut field_sums = vec![f64::NAN; index.id_space() as usize];
    let mut touched: Vec<u32> = Vec::new();
    for (field, boost) in targets {
        let terms = query::query_terms(field, query)?;
        if terms.iter().all(|t| t.df == 0) {
            continue;
        }
        let boosts: Vec<f32> = terms.iter().map(|t| boost * t.query_tf as f32).collect();
        let weight = Weight::boosted(field, &terms, &boosts, params);
        score_field(field, &terms, &weight, &mut field_sums, &mut touched);
        for &d in &touched {
            let sum = std::mem::replace(&mut field_sums[d as usize], f64::NAN);
            // A boost of 1 leaves the field's terms in the outer sum.
            let clause = if boost == 1.0 {
                sum
            } else {
                f64::from(sum as f32)
            };
            let total = &mut totals[d as usize];
            *total = if total.is_nan() {
                clause
            } else {
                *total + clause
            };
        }
        touched.clear();
    }
    let mut hits: Vec<ScoredDoc> = totals
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.is_nan())
        .map(|(d, &t)| ScoredDoc {
            doc: d as u32,
            score: t as f32,
        })
        .collect();
    let order = |a: &ScoredDoc, b: &ScoredDoc| query::rank_order(index, a, b);
    if hits.len() > k {
        hits.select_nth_unstable_by(k, order);
        hits.truncate(k);
    }
    hits.sort_unstable_by(order);
    Ok(hits)
}

/// Adds each live posting's score of `terms` under `weight`, term by term
/// in query order, into `sums` (global ids), listing each document once in
/// `touched`.
fn score_field(
    field: &Index,
    terms: &[QueryTerm],
    weight: &Weight<'_>,
    sums: &mut [f64],
    touched: &mut Vec<u32>,
) {
    for (s, segment) in field.segments().iter().enumerate() {
        let data = segment.data();
        for (t, &w) in terms.iter().zip(&weight.weights) {
            let Some(ord) = data.term_ord(&t.term) else {
                continue;
            };
            data.for_each_posting(ord, |doc, tf| {
                if segment.is_deleted(doc) {
                    return;
                }
                let Some(score) = weight.scorer.score(s, data, 1.0, w, doc, tf) else {
                    return;
                };
                let global = field.global(s, doc);
                let sum = &mut sums[global as usize];
                if sum.is_nan() {
                    touched.push(global);
                    *sum = f64::from(score);
                } else {
                    *sum += f64::from(score);
                }
            });
        }
    }
}
