//! Query likelihood with Dirichlet smoothing, as Lucene's
//! `LMDirichletSimilarity` with its default collection model (and so as
//! Pyserini's `set_qld(mu)`).
//!
//! A query term of query frequency `qtf`, collection frequency `cf`, found
//! `tf` times in a document of length `dl`, scores
//!
//! `max(0, qtf · (ln(1 + tf / (mu · p)) + ln(mu / (dl + mu))))`,
//! `p = (cf + 1) / (T + 1)`
//!
//! with `T` the number of tokens in the collection, computed in double and
//! rounded to float32 per term, as Lucene's `SimilarityBase` does; `dl` is
//! Lucene's one-byte lossy length and `mu` a float32. Like any Lucene
//! similarity it only scores the terms a document holds: a query term
//! missing from the document adds nothing (no smoothing mass), and a term
//! scoring below zero is clamped to 0 while the document still matches.

use crate::error::{Error, Result};
use crate::fieldnorm;

/// Dirichlet smoothing parameters, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QldParams {
    /// The Dirichlet prior μ (a float32, as in Lucene), finite and ≥ 0.
    pub mu: f32,
}

impl Default for QldParams {
    /// Pyserini's `set_qld()` default, μ = 1000.
    fn default() -> Self {
        QldParams { mu: 1000.0 }
    }
}

impl QldParams {
    /// Validated parameters: μ a finite, normal float32 above zero.
    pub fn new(mu: f64) -> Result<Self> {
        let narrowed = mu as f32;
        // Zero (or a float32 subnormal) would score every match 0: the
        // ranking would be docid order.
        if !(narrowed.is_normal() && narrowed > 0.0) {
            return Err(Error::Query(format!(
                "mu must be a finite number > 0, at least {} (float32) (got {mu}); Pyserini's default is 1000, Lucene's 2000",
                f32::MIN_POSITIVE
            )));
        }
        Ok(QldParams { mu: narrowed })
    }
}

/// QLD bound to the collection's token count for one query.
#[derive(Clone, Debug)]
pub struct QldScorer {
    params: QldParams,
    total_terms: u64,
    /// `ln(mu / (dl + mu))` per norm byte, in double.
    length_term: [f64; 256],
    length_table: [f32; 256],
}

impl QldScorer {
    /// Binds `params` to a collection of `total_terms` tokens.
    pub fn new(params: QldParams, total_terms: u64) -> Self {
        let length_table = fieldnorm::length_table();
        let mu = f64::from(params.mu);
        let length_term = std::array::from_fn(|i| (mu / (f64::from(length_table[i]) + mu)).ln());
        QldScorer {
            params,
            total_terms,
            length_term,
            length_table,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &QldParams {
        &self.params
    }

    /// Lucene's collection probability `(cf + 1) / (T + 1)`.
    pub fn collection_probability(&self, cf: u64) -> f64 {
        (cf as f64 + 1.0) / (self.total_terms as f64 + 1.0)
    }

    /// The per-term constant `mu · p` (Lucene multiplies the float μ by the
    /// double probability).
    pub fn term_weight(&self, cf: u64) -> f64 {
        f64::from(self.params.mu) * self.collection_probability(cf)
    }

    /// The score of a term of query frequency `boost` and weight `mu_p`
    /// ([`QldScorer::term_weight`]) occurring `tf` times in a document of
    /// norm byte `norm`.
    #[inline]
    pub fn score(&self, boost: f64, mu_p: f64, tf: u32, norm: u8) -> f32 {
        let s = boost * ((1.0 + f64::from(tf) / mu_p).ln() + self.length_term[usize::from(norm)]);
        if s > 0.0 { s as f32 } else { 0.0 }
    }

    /// The length Lucene sees for a norm byte.
    pub fn seen_length(&self, norm: u8) -> f32 {
        self.length_table[usize::from(norm)]
    }

    /// A one-line formula with the parameters, for explanations.
    pub fn formula(&self) -> String {
        format!(
            "qld: qtf * max(0, ln(1 + tf/(mu*p)) + ln(mu/(dl + mu))), p = (cf + 1)/(T + 1); mu={}, T={}, dl = Lucene's one-byte length",
            self.params.mu, self.total_terms
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mu_is_validated() {
        assert!(QldParams::new(1000.0).is_ok());
        assert!(QldParams::new(0.0).is_err()); // would rank in docid order
        assert!(QldParams::new(1e-45).is_err()); // subnormal
        assert!(QldParams::new(f64::from(f32::MIN_POSITIVE)).is_ok());
        assert!(QldParams::new(-1.0).is_err());
        assert!(QldParams::new(f64::NAN).is_err());
        assert!(QldParams::new(f64::INFINITY).is_err());
        assert!(QldParams::new(1e300).is_err());
    }

    #[test]
    fn matches_the_formula_and_clamps_at_zero() {
        let scorer = QldScorer::new(QldParams::default(), 999);
        let mu_p = scorer.term_weight(9);
        assert_eq!(mu_p, 1000.0 * 10.0 / 1000.0);
        let norm = fieldnorm::length_to_norm(5);
        let want = ((1.0 + 3.0 / 10.0f64).ln() + (1000.0 / 1005.0f64).ln()) as f32;
        assert_eq!(scorer.score(1.0, mu_p, 3, norm), want);
        assert_eq!(
            scorer.score(2.0, mu_p, 3, norm),
            (2.0 * f64::from(want)) as f32
        );
        // A frequent term in a long document scores below zero: clamped.
        let long = fieldnorm::length_to_norm(100_000);
        assert_eq!(scorer.score(1.0, scorer.term_weight(500), 1, long), 0.0);
    }
}
