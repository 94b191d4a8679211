//! One search request: the scoring [`Model`], the top-k [`Algorithm`], the
//! statistics, the [`Feedback`] and the depth `k`, with the one entry point
//! that runs it, [`Request::search`]. A query is given as text, as analyzed
//! terms, or as boosted terms ([`Query`]).

use std::fmt::Debug;
use std::sync::Arc;

use rayon::prelude::*;

use super::model::{Algorithm, Model};
use super::query::{self, QueryTerm, ScoredDoc, TermOrds};
use super::statistics::Statistics;
use super::weight::Weight;
use super::{search_fields, top_k};
use crate::error::{Error, Result};
use crate::index::Index;
use crate::scoring::{Bm25Params, Bm25Variant, LengthMode};
use crate::shards::global_stats::GlobalStats;

/// Pseudo-relevance feedback: a first stage under Lucene's BM25, then a new
/// query of boosted terms made from its best documents. The feedback models
/// implement it (`rm3`, `rocchio`), so that a request holds them without this
/// module knowing them.
pub trait Feedback: Debug + Send + Sync {
    /// The model's name in messages (`"RM3"`).
    fn name(&self) -> &'static str;

    /// Checks that `index` can serve this feedback.
    ///
    /// # Errors
    /// [`Error::Query`] if it cannot (no document store).
    fn check(&self, index: &Index) -> Result<()>;

    /// The new query of `query`: `(term, boost)` pairs, terms ascending,
    /// from a first stage under `bm25` found by `algorithm` (to depth `k`
    /// where the model reads it).
    ///
    /// # Errors
    /// As [`Feedback::check`].
    fn expand(
        &self,
        index: &Index,
        query: &str,
        k: usize,
        bm25: &Bm25Params,
        algorithm: Algorithm,
    ) -> Result<Vec<(String, f32)>>;
}

/// A query, as given to [`Request::search`].
#[derive(Clone, Copy, Debug)]
pub enum Query<'q> {
    /// Text, analyzed with the index's analyzer.
    Text(&'q str),
    /// Analyzed terms, each weighted by its query frequency.
    Terms(&'q [QueryTerm]),
    /// `(term, boost)` pairs (terms distinct) under Lucene's BM25, as a
    /// `BooleanQuery` of `BoostQuery`s: the second stage of feedback, whose
    /// boosts are not counts.
    Boosted(&'q [(String, f32)]),
}

impl<'q> From<&'q str> for Query<'q> {
    fn from(text: &'q str) -> Self {
        Query::Text(text)
    }
}

/// What a search asks for. Built with [`Request::new`] and the `with_`
/// methods; the options not given are the index's own statistics, no
/// feedback, the main field and [`Algorithm::Auto`].
#[derive(Clone, Debug)]
pub struct Request {
    /// The scoring model.
    pub model: Model,
    /// How the top k is found (every choice gives the same hits).
    pub algorithm: Algorithm,
    /// Statistics to score with instead of the index's own: those of a
    /// collection this index is a shard of, so that its hits score as in one
    /// index of the whole collection. Every query term must be in them, and
    /// the model BM25, or QLD with collection frequencies.
    pub stats: Option<Arc<GlobalStats>>,
    /// Pseudo-relevance feedback, over a Lucene BM25 `model`.
    pub feedback: Option<Arc<dyn Feedback>>,
    /// Fields searched instead of the main one, with their boosts (see
    /// [`search_fields`](super::search_fields)): BM25, the index's own
    /// statistics, no feedback.
    pub fields: Option<Vec<(String, f32)>>,
    /// The number of hits.
    pub k: usize,
}

impl Request {
    /// The `k` best documents under `model`, found by [`Algorithm::Auto`]
    /// with the index's own statistics.
    pub fn new(model: Model, k: usize) -> Self {
        Request {
            model,
            algorithm: Algorithm::Auto,
            stats: None,
            feedback: None,
            fields: None,
            k,
        }
    }

    /// This request found by `algorithm`.
    pub fn with_algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// This request scored with `stats` (`None`: the index's own).
    pub fn with_stats(mut self, stats: Option<Arc<GlobalStats>>) -> Self {
        self.stats = stats;
        self
    }

    /// This request with `feedback` (`None`: none).
    pub fn with_feedback(mut self, feedback: Option<Arc<dyn Feedback>>) -> Self {
        self.feedback = feedback;
        self
    }

    /// This request over `fields` with their boosts (`None`: the main field).
    pub fn with_fields(mut self, fields: Option<Vec<(String, f32)>>) -> Self {
        self.fields = fields;
        self
    }

    /// This request to depth `k`.
    pub fn with_k(mut self, k: usize) -> Self {
        self.k = k;
        self
    }

    /// Checks that the options go together (feedback runs over Lucene's
    /// BM25 with the index's own statistics, as Anserini's; so do fields,
    /// without feedback) and, with an
    /// `index`, that it can serve them (feedback reads a document store).
    ///
    /// # Errors
    /// [`Error::Query`] naming the option that does not fit.
    pub fn check(&self, index: Option<&Index>) -> Result<()> {
        self.fields_bm25()?;
        if let Some(feedback) = &self.feedback {
            self.feedback_bm25(feedback.name())?;
            if let Some(index) = index {
                feedback.check(index)?;
            }
        }
        Ok(())
    }

    /// The BM25 of a search over fields, if the request names fields.
    fn fields_bm25(&self) -> Result<Option<Bm25Params>> {
        if self.fields.is_none() {
            return Ok(None);
        }
        match self.model {
            Model::Bm25(params) if self.stats.is_none() && self.feedback.is_none() => {
                Ok(Some(params))
            }
            _ => Err(Error::Query(
                "fields= searches with BM25 and the index's own statistics, without feedback"
                    .to_owned(),
            )),
        }
    }

    /// The first-stage BM25 of feedback named `name`.
    fn feedback_bm25(&self, name: &str) -> Result<Bm25Params> {
        let anserini = format!("{name} feedback runs over Lucene's BM25, as Anserini's");
        let params = match self.model {
            Model::Bm25(params) => params,
            other => {
                return Err(Error::Query(format!(
                    "{anserini}: not model={:?}",
                    other.name()
                )));
            }
        };
        if params.variant != Bm25Variant::Lucene || params.length != LengthMode::Lucene {
            return Err(Error::Query(format!(
                "{anserini}: scoring needs variant=\"lucene\" and length=\"lucene\" (got variant={:?}, length={:?})",
                params.variant.name(),
                params.length.name()
            )));
        }
        if self.stats.is_some() {
            return Err(Error::Query(format!(
                "{anserini}, with the index's own statistics: not with stats"
            )));
        }
        Ok(params)
    }

    /// The `k` best documents for `query`, best first, under the tie rule.
    ///
    /// A query whose terms are all unknown or removed by the analyzer
    /// matches nothing and returns no hits.
    ///
    /// # Errors
    /// [`Error::Query`] for options that do not go together (see
    /// [`Request::check`]; feedback takes a text, boosted terms BM25 and the
    /// index's own statistics), for `stats` lacking a query term, or from the
    /// feedback (an index without a document store).
    pub fn search<'q>(&self, index: &Index, query: impl Into<Query<'q>>) -> Result<Vec<ScoredDoc>> {
        let query = query.into();
        if let (Some(params), Some(fields)) = (self.fields_bm25()?, &self.fields) {
            let Query::Text(text) = query else {
                return Err(Error::Query("fields= searches a query text".to_owned()));
            };
            return search_fields(index, text, self.k, &params, fields);
        }
        if let Some(feedback) = &self.feedback {
            let bm25 = self.feedback_bm25(feedback.name())?;
            let Query::Text(text) = query else {
                return Err(Error::Query(format!(
                    "{} feedback expands a query text",
                    feedback.name()
                )));
            };
            let expanded = feedback.expand(index, text, self.k, &bm25, self.algorithm)?;
            return self.boosted(index, &expanded);
        }
        match query {
            Query::Text(text) => {
                let (terms, ords) = query::analyze(index, text)?;
                self.ranked(index, &terms, &ords)
            }
            Query::Terms(terms) => self.ranked(index, terms, &TermOrds::lookup(index, terms)),
            Query::Boosted(pairs) => self.boosted(index, pairs),
        }
    }

    /// The query the feedback makes of `text`: `(term, boost)` pairs, terms
    /// ascending (the boosts do not depend on the order).
    ///
    /// # Errors
    /// [`Error::Query`] for a request without feedback, or as
    /// [`Request::search`].
    pub fn expanded_query(&self, index: &Index, text: &str) -> Result<Vec<(String, f32)>> {
        let Some(feedback) = &self.feedback else {
            return Err(Error::Query("the request has no feedback".to_owned()));
        };
        let bm25 = self.feedback_bm25(feedback.name())?;
        feedback.expand(index, text, self.k, &bm25, self.algorithm)
    }

    /// Runs many queries over the current rayon pool; results are in input
    /// order and equal to [`Request::search`] of each query alone.
    ///
    /// # Errors
    /// As [`Request::search`], the first error met.
    pub fn batch(&self, index: &Index, queries: &[String]) -> Result<Vec<Vec<ScoredDoc>>> {
        queries
            .par_iter()
            .map(|q| self.search(index, q.as_str()))
            .collect()
    }

    /// `terms` (with their ordinals `ords`) under the model and statistics.
    fn ranked(
        &self,
        index: &Index,
        terms: &[QueryTerm],
        ords: &TermOrds,
    ) -> Result<Vec<ScoredDoc>> {
        let (model, k, algorithm) = (&self.model, self.k, self.algorithm);
        let Some(stats) = self.stats.as_deref() else {
            return Ok(top_k(index, terms, ords, k, model, algorithm, || {
                Weight::new(index, terms, model, Statistics::Own)
            }));
        };
        let counts = Statistics::global(index, terms, model, stats)?;
        Ok(top_k(index, terms, ords, k, model, algorithm, || {
            Weight::new(index, terms, model, Statistics::Global(stats, &counts))
        }))
    }

    /// Boosted terms under Lucene's BM25.
    fn boosted(&self, index: &Index, query: &[(String, f32)]) -> Result<Vec<ScoredDoc>> {
        let Model::Bm25(params) = self.model else {
            return Err(Error::Query(
                "boosted terms are scored by BM25 only".to_owned(),
            ));
        };
        if self.stats.is_some() {
            return Err(Error::Query(
                "boosted terms are scored with the index's own statistics".to_owned(),
            ));
        }
        let terms: Vec<QueryTerm> = query
            .iter()
            .map(|(term, _)| QueryTerm {
                term: term.clone(),
                query_tf: 1,
                df: index.df(term),
            })
            .collect();
        let boosts: Vec<f32> = query.iter().map(|(_, b)| *b).collect();
        let ords = TermOrds::lookup(index, &terms);
        Ok(top_k(
            index,
            &terms,
            &ords,
            self.k,
            &self.model,
            self.algorithm,
            || Weight::boosted(index, &terms, &boosts, &params),
        ))
    }
}
