//! Scoring models: BM25 in five variants, TF-IDF cosine and query likelihood
//! ([`qld`]), each a small pure
//! function of collection statistics chosen at query time.
//!
//! BM25 variants follow Kamphuis, de Vries, Boytsov and Lin, "Which BM25 Do
//! You Mean? A Large-Scale Reproducibility Study of Scoring Variants" (ECIR
//! 2020). With `L` the document length, `avgdl` the mean length and
//! `norm = 1 − b + b·L/avgdl`:
//!
//! | variant | idf | term weight |
//! |---|---|---|
//! | `lucene` | ln(1 + (N − df + 0.5)/(df + 0.5)) | tf / (tf + k1·norm) |
//! | `robertson` | ln((N − df + 0.5)/(df + 0.5)) | tf / (tf + k1·norm) |
//! | `atire` | ln(N/df) | (k1 + 1)·tf / (tf + k1·norm) |
//! | `bm25l` | ln((N + 1)/(df + 0.5)) | (k1 + 1)·(c + δ)/(k1 + c + δ), c = tf/norm |
//! | `bm25+` | ln((N + 1)/df) | (k1 + 1)·tf/(tf + k1·norm) + δ |
//!
//! Each query term's score is multiplied by its query frequency, as
//! Anserini's bag-of-words query boosts a repeated term.
//!
//! Length modes: `lucene` scores with Lucene's one-byte lossy length and its
//! collection statistics (only documents with at least one indexed term are
//! counted in N and avgdl, as in Lucene's `docCount`); the `lucene` variant
//! then runs in float32 in the exact order of Lucene's `BM25Similarity`.
//! `exact` uses exact lengths and counts every document.

pub mod qld;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::fieldnorm;

/// Pyserini's default k1 (Lucene's own `BM25Similarity` uses 1.2).
pub const DEFAULT_K1: f64 = 0.9;

/// Pyserini's default b (Lucene's own `BM25Similarity` uses 0.75).
pub const DEFAULT_B: f64 = 0.4;

/// A BM25 variant (see the module docs for the formulas).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bm25Variant {
    /// Lucene's BM25 (no `k1 + 1` factor, idf never negative). The default.
    #[serde(rename = "lucene")]
    Lucene,
    /// Robertson et al.'s idf, which is negative for terms in over half the documents.
    #[serde(rename = "robertson")]
    Robertson,
    /// ATIRE: idf ln(N/df), with the `k1 + 1` factor.
    #[serde(rename = "atire")]
    Atire,
    /// BM25L (Lv and Zhai 2011), shifting the normalised tf by δ.
    #[serde(rename = "bm25l")]
    Bm25L,
    /// BM25+ (Lv and Zhai 2011), adding δ per matched term.
    #[serde(rename = "bm25+")]
    Bm25Plus,
}

impl Bm25Variant {
    /// All variants with their names.
    pub const ALL: [(&'static str, Bm25Variant); 5] = [
        ("lucene", Bm25Variant::Lucene),
        ("robertson", Bm25Variant::Robertson),
        ("atire", Bm25Variant::Atire),
        ("bm25l", Bm25Variant::Bm25L),
        ("bm25+", Bm25Variant::Bm25Plus),
    ];

    /// Parses a variant name.
    pub fn parse(name: &str) -> Result<Self> {
        Self::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                let names: Vec<_> = Self::ALL.iter().map(|(n, _)| *n).collect();
                Error::Query(format!(
                    "unknown BM25 variant {name:?}; choose one of {}",
                    names.join(", ")
                ))
            })
    }

    /// The variant's name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, v)| *v == self)
            .map(|(n, _)| *n)
            .unwrap_or("lucene")
    }

    /// The default δ of the variants that have one (Lv and Zhai's values).
    pub fn default_delta(self) -> f32 {
        match self {
            Bm25Variant::Bm25L => 0.5,
            Bm25Variant::Bm25Plus => 1.0,
            _ => 0.0,
        }
    }
}

/// Which document length BM25 sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LengthMode {
    /// Lucene's one-byte lossy norm and Lucene's collection statistics.
    #[serde(rename = "lucene")]
    Lucene,
    /// The exact token count; every document counts in N and avgdl.
    #[serde(rename = "exact")]
    Exact,
}

impl LengthMode {
    /// Both modes with their names.
    pub const ALL: [(&'static str, LengthMode); 2] =
        [("lucene", LengthMode::Lucene), ("exact", LengthMode::Exact)];

    /// Parses `lucene` or `exact`.
    pub fn parse(name: &str) -> Result<Self> {
        Self::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, mode)| *mode)
            .ok_or_else(|| Error::Query(format!(
                "unknown length mode {name:?}; choose \"lucene\" (Lucene's one-byte norms, as Pyserini) or \"exact\""
            )))
    }

    /// The mode's name.
    pub fn name(self) -> &'static str {
        match self {
            LengthMode::Lucene => "lucene",
            LengthMode::Exact => "exact",
        }
    }
}

/// BM25 parameters, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bm25Params {
    /// Term-frequency saturation, ≥ 0.
    pub k1: f32,
    /// Length normalisation, in [0, 1].
    pub b: f32,
    /// The variant.
    pub variant: Bm25Variant,
    /// Which length is used.
    pub length: LengthMode,
    /// δ of BM25L and BM25+ (ignored by the others), ≥ 0.
    pub delta: f32,
}

impl Default for Bm25Params {
    /// Pyserini's defaults: Lucene BM25, [`DEFAULT_K1`], [`DEFAULT_B`], Lucene lengths.
    fn default() -> Self {
        Bm25Params {
            k1: DEFAULT_K1 as f32,
            b: DEFAULT_B as f32,
            variant: Bm25Variant::Lucene,
            length: LengthMode::Lucene,
            delta: 0.0,
        }
    }
}

/// The largest `delta`: far above any useful value (published runs use 0.5
/// to 1.5), and small enough that bm25+, which adds `delta` times each
/// term's weight, keeps every score finite in float32.
pub const MAX_DELTA: f64 = 1000.0;

impl Bm25Params {
    /// Validated parameters; `delta = None` takes the variant's default.
    pub fn new(
        k1: f64,
        b: f64,
        variant: Bm25Variant,
        length: LengthMode,
        delta: Option<f64>,
    ) -> Result<Self> {
        // Scores are float32 (as Lucene's): a parameter must be finite there.
        let finite_f32 = |x: f64| (x as f32).is_finite();
        if !(finite_f32(k1) && k1 >= 0.0) {
            return Err(Error::Query(format!(
                "k1 must be a finite number >= 0, at most {} (float32) (got {k1}); Pyserini's default is {DEFAULT_K1}, long documents often want larger values such as 25",
                f32::MAX
            )));
        }
        if !(0.0..=1.0).contains(&b) {
            return Err(Error::Query(format!(
                "b must be between 0 and 1 (got {b}); 0 disables length normalisation, 1 normalises fully"
            )));
        }
        let delta = delta.unwrap_or(f64::from(variant.default_delta()));
        if !(0.0..=MAX_DELTA).contains(&delta) {
            return Err(Error::Query(format!(
                "delta must be between 0 and {MAX_DELTA} (got {delta}); the defaults are 0.5 (bm25l) and 1 (bm25+)"
            )));
        }
        Ok(Bm25Params {
            k1: k1 as f32,
            b: b as f32,
            variant,
            length,
            delta: delta as f32,
        })
    }
}

/// Collection statistics as a model sees them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollectionStats {
    /// Number of documents (N).
    pub num_docs: u64,
    /// Sum of all document lengths.
    pub total_terms: u64,
}

impl CollectionStats {
    /// Mean length; 1 for an empty collection so that no division by zero occurs.
    pub fn avgdl(&self) -> f64 {
        if self.num_docs == 0 || self.total_terms == 0 {
            1.0
        } else {
            self.total_terms as f64 / self.num_docs as f64
        }
    }
}

/// The idf of `variant` for a term in `df` of `n` documents.
pub fn bm25_idf(variant: Bm25Variant, n: u64, df: u64) -> f64 {
    let (n, df) = (n as f64, df as f64);
    match variant {
        Bm25Variant::Lucene => (1.0 + (n - df + 0.5) / (df + 0.5)).ln(),
        Bm25Variant::Robertson => ((n - df + 0.5) / (df + 0.5)).ln(),
        Bm25Variant::Atire => (n / df).ln(),
        Bm25Variant::Bm25L => ((n + 1.0) / (df + 0.5)).ln(),
        Bm25Variant::Bm25Plus => ((n + 1.0) / df).ln(),
    }
}

/// Lucene's BM25Scorer: `weight - weight / (1 + freq * normInverse)`, in float32.
#[inline(always)]
pub fn lucene_score(weight: f32, tf: u32, norm_inverse: f32) -> f32 {
    lucene_from_denominator(weight, lucene_denominator(tf, norm_inverse))
}

/// The denominator of [`lucene_score`], `1 + freq * normInverse`.
#[inline(always)]
pub fn lucene_denominator(tf: u32, norm_inverse: f32) -> f32 {
    1f32 + tf as f32 * norm_inverse
}

/// [`lucene_score`] from its denominator (each float32 operation rounds,
/// so computing the denominator apart changes nothing).
#[inline(always)]
pub fn lucene_from_denominator(weight: f32, denominator: f32) -> f32 {
    weight - weight / denominator
}

/// BM25 bound to collection statistics for one query: turns (weight, tf,
/// length) into a term score.
#[derive(Clone, Debug)]
pub struct Bm25Scorer {
    params: Bm25Params,
    stats: CollectionStats,
    avgdl: f32,
    /// Lucene's per-norm cache `1 / (k1 · ((1 − b) + b · len / avgdl))`.
    norm_cache: [f32; 256],
    length_table: [f32; 256],
}

impl Bm25Scorer {
    /// Binds `params` to `stats` (already the statistics of the length mode).
    ///
    /// Each thread keeps the last scorer it made: the queries of a batch or
    /// a session share their parameters and statistics, and building the
    /// 256-entry tables (256 divisions) cost 1–2 % of a short query.
    pub fn new(params: Bm25Params, stats: CollectionStats) -> Self {
        thread_local! {
            static LAST: std::cell::RefCell<Option<Bm25Scorer>> = const { std::cell::RefCell::new(None) };
        }
        LAST.with(|last| {
            let mut last = last.borrow_mut();
            match last.as_ref() {
                Some(scorer) if scorer.binds(&params, &stats) => scorer.clone(),
                _ => last.insert(Self::build(params, stats)).clone(),
            }
        })
    }

    /// Whether this scorer was built from exactly `params` and `stats`
    /// (bit for bit: −0.0 and 0.0 make different tables).
    fn binds(&self, params: &Bm25Params, stats: &CollectionStats) -> bool {
        let bits = |p: &Bm25Params| {
            (
                p.k1.to_bits(),
                p.b.to_bits(),
                p.delta.to_bits(),
                p.variant,
                p.length,
            )
        };
        bits(&self.params) == bits(params) && self.stats == *stats
    }

    fn build(params: Bm25Params, stats: CollectionStats) -> Self {
        // Lucene: avgdl = (float) (sumTotalTermFreq / (double) docCount).
        let avgdl = stats.avgdl() as f32;
        let length_table = fieldnorm::length_table();
        let (k1, b) = (params.k1, params.b);
        let norm_cache =
            std::array::from_fn(|i| 1f32 / (k1 * ((1f32 - b) + b * length_table[i] / avgdl)));
        Bm25Scorer {
            params,
            stats,
            avgdl,
            norm_cache,
            length_table,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &Bm25Params {
        &self.params
    }

    /// The collection statistics the scorer uses.
    pub fn stats(&self) -> &CollectionStats {
        &self.stats
    }

    /// The query-term weight: query frequency × idf. For the `lucene` variant
    /// this is Lucene's `boost * idf` in float32.
    pub fn term_weight(&self, df: u64, query_tf: u32) -> f32 {
        let idf = bm25_idf(self.params.variant, self.stats.num_docs, df);
        match self.params.variant {
            Bm25Variant::Lucene => query_tf as f32 * idf as f32,
            _ => (f64::from(query_tf) * idf) as f32,
        }
    }

    /// Lucene's per-norm-byte cache, when the scorer is Lucene's own
    /// (`lucene` variant with `lucene` lengths): then a posting scores
    /// [`lucene_score`]`(weight, tf, cache[norm])`, with no other branch.
    pub fn lucene_norm_cache(&self) -> Option<&[f32; 256]> {
        (self.params.variant == Bm25Variant::Lucene && self.params.length == LengthMode::Lucene)
            .then_some(&self.norm_cache)
    }

    /// The score of a term of weight `weight` occurring `tf` times in a
    /// document whose norm byte is `norm` and exact length is `length`.
    #[inline]
    pub fn score(&self, weight: f32, tf: u32, norm: u8, length: u32) -> f32 {
        let p = &self.params;
        if p.variant == Bm25Variant::Lucene {
            let norm_inverse = match p.length {
                LengthMode::Lucene => self.norm_cache[usize::from(norm)],
                LengthMode::Exact => {
                    1f32 / (p.k1 * ((1f32 - p.b) + p.b * length as f32 / self.avgdl))
                }
            };
            return lucene_score(weight, tf, norm_inverse);
        }
        let len = match p.length {
            LengthMode::Lucene => f64::from(self.length_table[usize::from(norm)]),
            LengthMode::Exact => f64::from(length),
        };
        let (k1, b, delta, tf) = (
            f64::from(p.k1),
            f64::from(p.b),
            f64::from(p.delta),
            f64::from(tf),
        );
        let norm = 1.0 - b + b * len / f64::from(self.avgdl);
        let w = f64::from(weight);
        let s = match p.variant {
            Bm25Variant::Lucene | Bm25Variant::Robertson => w * tf / (tf + k1 * norm),
            Bm25Variant::Atire => w * (k1 + 1.0) * tf / (tf + k1 * norm),
            Bm25Variant::Bm25L => {
                let c = tf / norm;
                w * (k1 + 1.0) * (c + delta) / (k1 + c + delta)
            }
            Bm25Variant::Bm25Plus => w * ((k1 + 1.0) * tf / (tf + k1 * norm) + delta),
        };
        s as f32
    }

    /// A one-line formula of the variant, for explanations.
    pub fn formula(&self) -> String {
        let p = &self.params;
        let norm = "(1 - b + b*dl/avgdl)";
        let (idf, tf_part) = match p.variant {
            Bm25Variant::Lucene => (
                "ln(1 + (N - df + 0.5)/(df + 0.5))",
                format!("tf/(tf + k1*{norm})"),
            ),
            Bm25Variant::Robertson => (
                "ln((N - df + 0.5)/(df + 0.5))",
                format!("tf/(tf + k1*{norm})"),
            ),
            Bm25Variant::Atire => ("ln(N/df)", format!("(k1 + 1)*tf/(tf + k1*{norm})")),
            Bm25Variant::Bm25L => (
                "ln((N + 1)/(df + 0.5))",
                format!("(k1 + 1)*(c + delta)/(k1 + c + delta), c = tf/{norm}"),
            ),
            Bm25Variant::Bm25Plus => (
                "ln((N + 1)/df)",
                format!("(k1 + 1)*tf/(tf + k1*{norm}) + delta"),
            ),
        };
        let length = match p.length {
            LengthMode::Lucene => "dl = Lucene's one-byte length",
            LengthMode::Exact => "dl = exact length",
        };
        format!(
            "bm25 {}: qtf * {idf} * {tf_part}; k1={}, b={}, delta={}, N={}, avgdl={}, {length}",
            p.variant.name(),
            p.k1,
            p.b,
            p.delta,
            self.stats.num_docs,
            self.avgdl
        )
    }

    /// The length this scorer sees for a document.
    pub fn seen_length(&self, norm: u8, length: u32) -> f32 {
        match self.params.length {
            LengthMode::Lucene => self.length_table[usize::from(norm)],
            LengthMode::Exact => length as f32,
        }
    }
}

/// TF-IDF cosine: documents weigh `(1 + ln tf) · idf`, idf = ln((N+1)/(df+1)) + 1
/// (scikit-learn's smoothed idf), L2-normalised; the query weighs `1 + ln qtf`
/// without idf, L2-normalised over all its terms, known or not.
pub mod tfidf {
    /// Smoothed idf, always ≥ 1.
    pub fn idf(n: u64, df: u64) -> f64 {
        ((n as f64 + 1.0) / (df as f64 + 1.0)).ln() + 1.0
    }

    /// Sub-linear term frequency.
    pub fn sublinear_tf(tf: u32) -> f64 {
        1.0 + f64::from(tf).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_defaults_are_pyserinis() {
        for (name, v) in Bm25Variant::ALL {
            assert_eq!(Bm25Variant::parse(name).unwrap(), v);
            assert_eq!(v.name(), name);
        }
        for (name, m) in LengthMode::ALL {
            assert_eq!(LengthMode::parse(name).unwrap(), m);
            assert_eq!(m.name(), name);
        }
        assert!(LengthMode::parse("Exact").is_err());
        let d = Bm25Params::default();
        assert_eq!((d.k1, d.b), (0.9f32, 0.4f32));
        assert_eq!(
            Bm25Params::new(DEFAULT_K1, DEFAULT_B, d.variant, d.length, None).unwrap(),
            d
        );
    }

    #[test]
    fn params_are_validated() {
        let ok = |k1, b| Bm25Params::new(k1, b, Bm25Variant::Lucene, LengthMode::Lucene, None);
        assert!(ok(0.9, 0.4).is_ok());
        assert!(ok(25.0, 1.0).is_ok());
        assert!(ok(0.0, 0.0).is_ok());
        assert!(ok(-0.1, 0.4).is_err());
        assert!(ok(f64::NAN, 0.4).is_err());
        assert!(ok(f64::INFINITY, 0.4).is_err());
        assert!(ok(0.9, 1.01).is_err());
        assert!(ok(0.9, -0.01).is_err());
        assert!(Bm25Variant::parse("bm25+").is_ok());
        assert!(Bm25Variant::parse("okapi").is_err());
    }

    #[test]
    fn lucene_variant_matches_textbook_formula_with_exact_lengths() {
        let params =
            Bm25Params::new(1.2, 0.75, Bm25Variant::Lucene, LengthMode::Exact, None).unwrap();
        let stats = CollectionStats {
            num_docs: 10,
            total_terms: 100,
        };
        let scorer = Bm25Scorer::new(params, stats);
        let w = scorer.term_weight(3, 1);
        let got = scorer.score(w, 2, 0, 7);
        let idf = (1.0 + (10.0 - 3.0 + 0.5) / 3.5f64).ln();
        let want = idf * 2.0 / (2.0 + 1.2 * (1.0 - 0.75 + 0.75 * 7.0 / 10.0));
        assert!((f64::from(got) - want).abs() < 1e-6 * want);
    }

    #[test]
    fn k1_zero_gives_the_idf() {
        let params =
            Bm25Params::new(0.0, 0.5, Bm25Variant::Lucene, LengthMode::Lucene, None).unwrap();
        let scorer = Bm25Scorer::new(
            params,
            CollectionStats {
                num_docs: 5,
                total_terms: 20,
            },
        );
        let w = scorer.term_weight(1, 1);
        assert_eq!(scorer.score(w, 3, 4, 4), w);
    }
}
