//! A score broken down by term, computed as the search computes it.

use super::model::Model;
use super::query::{QueryTerm, query_terms};
use super::statistics::Statistics;
use super::weight::{PostingScorer, Weight};
use crate::error::Result;
use crate::index::Index;
use crate::scoring::tfidf;
use crate::shards::global_stats::GlobalStats;

/// How one query term contributes to one document's score.
#[derive(Clone, Debug, PartialEq)]
pub struct TermExplanation {
    /// The analyzed term.
    pub term: String,
    /// Its query frequency.
    pub query_tf: u32,
    /// Live documents holding it (0 if unknown), in the statistics scored with.
    pub df: u64,
    /// Its frequency in the document.
    pub tf: u32,
    /// idf (BM25), smoothed idf (TF-IDF) or collection probability (QLD).
    pub idf: f64,
    /// The contribution to the score.
    pub score: f32,
}

/// A score broken down by term.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// The document.
    pub docid: String,
    /// Its total score (equal to what [`search`] returns for it).
    pub score: f32,
    /// The formula with the parameters and statistics used.
    pub formula: String,
    /// Exact length of the document.
    pub length: u32,
    /// The length the model sees (Lucene's lossy length in `lucene` mode).
    pub seen_length: f32,
    /// One entry per distinct query term, in query order.
    pub terms: Vec<TermExplanation>,
}

/// A per-term statistic shown in an explanation (idf, or QLD's collection probability).
/// Called with the term's position, the term and its df as scored.
type TermStatistic<'a> = Box<dyn Fn(usize, &QueryTerm, u64) -> f64 + 'a>;

/// Explains the score of `docid` for `query`, under `stats` instead of the
/// index's own statistics when given (as [`super::search_with_stats`]).
pub fn explain(
    index: &Index,
    query: &str,
    docid: &str,
    model: &Model,
    stats: Option<&GlobalStats>,
) -> Result<Explanation> {
    let (s, doc) = index
        .locate(index.doc(docid)?)
        .expect("lookup ids are valid");
    let data = index.segments()[s].data();
    let terms = query_terms(index, query)?;
    let counts = stats
        .map(|stats| Statistics::global(index, &terms, model, stats))
        .transpose()?;
    let statistics = stats
        .zip(counts.as_ref())
        .map_or(Statistics::Own, |(stats, counts)| {
            Statistics::Global(stats, counts)
        });
    let bound = Weight::new(index, &terms, model, statistics);
    let tf_of = |term: &str| -> u32 {
        let Some(ord) = data.term_ord(term) else {
            return 0;
        };
        let mut tf = 0;
        data.for_each_posting(ord, |d, t| {
            if d == doc {
                tf = t;
            }
        });
        tf
    };
    let scorer = &bound.scorer;
    let (formula, seen_length, idf_of): (String, f32, TermStatistic) = match scorer {
        PostingScorer::Bm25(bm25) => {
            let n = bm25.stats().num_docs;
            let variant = bm25.params().variant;
            (
                bm25.formula(),
                bm25.seen_length(data.norm(doc), data.length(doc)),
                Box::new(move |_, _, df| crate::scoring::bm25_idf(variant, n, df)),
            )
        }
        PostingScorer::Qld(qld) => (
            qld.formula(),
            qld.seen_length(data.norm(doc)),
            Box::new(move |i, qt, _| qld.collection_probability(statistics.cf(index, i, qt))),
        ),
        PostingScorer::TfIdf(norms) => {
            let n = index.stats().num_docs;
            let doc_norm = norms[s].get(doc as usize).copied().unwrap_or(0.0);
            (
                format!(
                    "tfidf cosine: sum over terms of [(1 + ln qtf)/|q|] * [(1 + ln tf) * (ln((N + 1)/(df + 1)) + 1)/|d|]; N={n}, |d|={doc_norm}"
                ),
                data.length(doc) as f32,
                Box::new(move |_, _, df| tfidf::idf(n, df)),
            )
        }
    };
    let mut out = Vec::with_capacity(terms.len());
    let mut total = 0f64;
    for (i, (qt, &weight)) in terms.iter().zip(&bound.weights).enumerate() {
        let df = statistics.df(i, qt);
        let tf = tf_of(&qt.term);
        let score = match tf {
            0 => 0.0,
            _ => scorer
                .score(s, data, f64::from(qt.query_tf), weight, doc, tf)
                .unwrap_or(0.0),
        };
        total += f64::from(score);
        out.push(TermExplanation {
            term: qt.term.clone(),
            query_tf: qt.query_tf,
            df,
            tf,
            idf: if df > 0 { idf_of(i, qt, df) } else { 0.0 },
            score,
        });
    }
    Ok(Explanation {
        docid: docid.to_owned(),
        score: total as f32,
        formula,
        length: data.length(doc),
        seen_length,
        terms: out,
    })
}
