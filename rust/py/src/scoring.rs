//! `rserini.Bm25`, BM25's parameters as one frozen value, and the one place
//! where a search's scoring arguments become a core [`Model`]: either
//! `scoring=Bm25(...)` or the loose keywords (`k1=`, `b=`, `variant=` ...),
//! which are sugar for it. The defaults and option names Python reads
//! (`rserini.DEFAULT_K1`, `BM25_VARIANTS` ...) are exported from here, read
//! off the core.

use std::hash::{Hash, Hasher};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple, PyType};
use rserini_core::Error;
use rserini_core::analysis::{Choice, Stemmer, Stopwords, Tokenizer};
use rserini_core::scoring::qld::QldParams;
use rserini_core::scoring::{Bm25Params, Bm25Variant, DEFAULT_B, DEFAULT_K1, LengthMode};
use rserini_core::search::Model;
use rserini_core::search::passages::PassageParams;

use crate::errors::{CoreError, CoreResult};

/// The scoring models a search takes by name (`model=`).
const MODELS: [&str; 3] = ["bm25", "tfidf", "qld"];

/// BM25's parameters as one value: ``scoring=Bm25(...)`` in every search,
/// ``explain``, the feedback searches, ``LuceneSearcher`` and ``tune``.
///
/// Frozen, comparable, hashable and picklable; every parameter is checked here,
/// once.
///
/// Parameters
/// ----------
/// k1
///     Term-frequency saturation, ``>= 0`` and finite in float32
///     (:data:`DEFAULT_K1`, Pyserini's 0.9).
/// b
///     Length normalisation, in [0, 1] (:data:`DEFAULT_B`, Pyserini's 0.4).
/// variant
///     One of :data:`BM25_VARIANTS`: ``"lucene"`` (Pyserini's), ``"robertson"``,
///     ``"atire"``, ``"bm25l"`` or ``"bm25+"``.
/// length
///     One of :data:`LENGTH_MODES`: ``"lucene"`` (Lucene's one-byte
///     document-length norm and statistics, as Pyserini) or ``"exact"``.
/// delta
///     The delta of ``bm25l`` and ``bm25+``, in [0, 1000]; ``None`` takes the
///     variant's default (0.5 and 1.0).
///
/// Raises
/// ------
/// QueryError
///     For ``k1`` negative or not finite in float32, ``delta`` outside [0, 1000],
///     ``b`` outside [0, 1], or an unknown variant or length mode.
#[pyclass(name = "Bm25", module = "rserini._core", frozen, eq, hash)]
#[derive(Clone, Debug, PartialEq)]
pub struct PyBm25 {
    // As given (the core keeps float32 and the resolved delta), so the value
    // reads back, compares and pickles as written.
    k1: f64,
    b: f64,
    delta: Option<f64>,
    params: Bm25Params,
}

impl Hash for PyBm25 {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // `+ 0.0` turns -0.0 into 0.0, which compare equal; NaN is refused.
        let bits = |x: f64| (x + 0.0).to_bits();
        bits(self.k1).hash(state);
        bits(self.b).hash(state);
        self.delta.map(bits).hash(state);
        self.params.variant.name().hash(state);
        self.params.length.name().hash(state);
    }
}

impl PyBm25 {
    /// Checks the parameters, in the core, and keeps them.
    fn checked(
        k1: f64,
        b: f64,
        variant: &str,
        length: &str,
        delta: Option<f64>,
    ) -> Result<Self, Error> {
        let variant = Bm25Variant::parse(variant)?;
        let length = LengthMode::parse(length)?;
        Ok(PyBm25 {
            k1,
            b,
            delta,
            params: Bm25Params::new(k1, b, variant, length, delta)?,
        })
    }
}

impl PyBm25 {
    /// The parameters passages are scored with: k1 and b as given, the variant's idf.
    pub fn passage_params(&self) -> PassageParams {
        PassageParams {
            k1: self.k1,
            b: self.b,
            variant: self.params.variant,
        }
    }
}

/// The constructor's arguments, in its order: what `__reduce__` gives pickle.
type Arguments = (f64, f64, &'static str, &'static str, Option<f64>);

#[pymethods]
impl PyBm25 {
    #[new]
    #[pyo3(signature = (k1 = DEFAULT_K1, b = DEFAULT_B, variant = "lucene", length = "lucene", delta = None))]
    #[pyo3(text_signature = "(k1=0.9, b=0.4, variant='lucene', length='lucene', delta=None)")]
    fn new(k1: f64, b: f64, variant: &str, length: &str, delta: Option<f64>) -> CoreResult<Self> {
        Ok(PyBm25::checked(k1, b, variant, length, delta)?)
    }

    /// Term-frequency saturation.
    #[getter]
    fn k1(&self) -> f64 {
        self.k1
    }

    /// Length normalisation.
    #[getter]
    fn b(&self) -> f64 {
        self.b
    }

    /// The variant's name.
    #[getter]
    fn variant(&self) -> &'static str {
        self.params.variant.name()
    }

    /// The length mode's name.
    #[getter]
    fn length(&self) -> &'static str {
        self.params.length.name()
    }

    /// The delta as given (``None``: the variant's default).
    #[getter]
    fn delta(&self) -> Option<f64> {
        self.delta
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        // Python's own reprs, so that the text evaluates back to this value.
        let repr = |value: Bound<'_, PyAny>| -> PyResult<String> { Ok(value.repr()?.to_string()) };
        Ok(format!(
            "Bm25(k1={}, b={}, variant={}, length={}, delta={})",
            repr(self.k1.into_pyobject(py)?.into_any())?,
            repr(self.b.into_pyobject(py)?.into_any())?,
            repr(self.variant().into_pyobject(py)?.into_any())?,
            repr(self.length().into_pyobject(py)?.into_any())?,
            repr(self.delta.into_pyobject(py)?)?,
        ))
    }

    /// Pickle rebuilds the value from its constructor's arguments.
    fn __reduce__<'py>(&self, py: Python<'py>) -> (Bound<'py, PyType>, Arguments) {
        let arguments = (self.k1, self.b, self.variant(), self.length(), self.delta);
        (py.get_type::<Self>(), arguments)
    }
}

/// Which loose keywords a method takes besides `scoring=`.
#[derive(Clone, Copy, PartialEq)]
pub enum Keywords {
    /// The searches and `explain`: `model`, `variant`, `k1`, `b`, `length`,
    /// `delta`, `mu`.
    Model,
    /// The feedback methods, over Lucene's BM25: `k1` and `b`.
    LuceneBm25,
}

impl Keywords {
    fn names(self) -> &'static [&'static str] {
        match self {
            Keywords::Model => &["model", "variant", "k1", "b", "length", "delta", "mu"],
            Keywords::LuceneBm25 => &["k1", "b"],
        }
    }
}

/// The loose keywords of one call, each `None` when not given.
#[derive(Default)]
struct Loose {
    model: Option<String>,
    variant: Option<String>,
    k1: Option<f64>,
    b: Option<f64>,
    length: Option<String>,
    delta: Option<f64>,
    mu: Option<f64>,
    given: Vec<String>,
}

impl Loose {
    /// Reads `options` (a method's `**options`), refusing a keyword the method
    /// does not take as Python does.
    fn read(
        method: &str,
        keywords: Keywords,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let mut loose = Loose::default();
        for (key, value) in options.into_iter().flatten() {
            let name: String = key.extract()?;
            if !keywords.names().contains(&name.as_str()) {
                return Err(PyTypeError::new_err(format!(
                    "{method}() got an unexpected keyword argument '{name}'"
                )));
            }
            if name == "delta" && value.is_none() {
                continue; // The default, said out loud.
            }
            let typed = |e: PyErr| {
                PyTypeError::new_err(format!(
                    "{method}() argument '{name}': {}",
                    e.value(value.py())
                ))
            };
            match name.as_str() {
                "model" => loose.model = Some(value.extract().map_err(typed)?),
                "variant" => loose.variant = Some(value.extract().map_err(typed)?),
                "k1" => loose.k1 = Some(value.extract().map_err(typed)?),
                "b" => loose.b = Some(value.extract().map_err(typed)?),
                "length" => loose.length = Some(value.extract().map_err(typed)?),
                "delta" => loose.delta = value.extract().map_err(typed)?,
                _ => loose.mu = Some(value.extract().map_err(typed)?),
            }
            loose.given.push(name);
        }
        Ok(loose)
    }

    /// BM25 from the keywords, the core's defaults for those not given.
    fn bm25(&self) -> Result<PyBm25, Error> {
        PyBm25::checked(
            self.k1.unwrap_or(DEFAULT_K1),
            self.b.unwrap_or(DEFAULT_B),
            self.variant
                .as_deref()
                .unwrap_or(Bm25Variant::Lucene.name()),
            self.length.as_deref().unwrap_or(LengthMode::Lucene.name()),
            self.delta,
        )
    }
}

/// What a call gave: `scoring=`, or else the loose keywords (never both).
enum Given {
    Scoring(PyBm25),
    Loose(Loose),
}

impl Given {
    fn read(
        method: &str,
        keywords: Keywords,
        scoring: Option<&Bound<'_, PyBm25>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let loose = Loose::read(method, keywords, options)?;
        match scoring {
            None => Ok(Given::Loose(loose)),
            Some(_) if !loose.given.is_empty() => Err(both(method, keywords, &loose.given)),
            Some(bm25) => Ok(Given::Scoring(bm25.get().clone())),
        }
    }
}

/// The error for `scoring=` given with loose keywords.
fn both(method: &str, keywords: Keywords, given: &[String]) -> PyErr {
    PyTypeError::new_err(format!(
        "{method}() takes scoring= or the keywords {}, not both (got scoring= and {})",
        keywords.names().join(", "),
        given
            .iter()
            .map(|n| format!("{n}="))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// The model of a search or `explain` from `scoring=` or the loose
/// `keywords` (those of a feedback method name BM25's `k1` and `b` only).
pub fn model(
    method: &str,
    keywords: Keywords,
    scoring: Option<&Bound<'_, PyBm25>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Model> {
    let loose = match Given::read(method, keywords, scoring, options)? {
        Given::Scoring(bm25) => return Ok(Model::Bm25(bm25.params)),
        Given::Loose(loose) => loose,
    };
    let model = match loose.model.as_deref().unwrap_or(MODELS[0]) {
        "bm25" => Model::Bm25(loose.bm25().map_err(CoreError)?.params),
        "tfidf" => Model::TfIdf,
        "qld" => {
            let mu = loose.mu.unwrap_or(f64::from(QldParams::default().mu));
            Model::Qld(QldParams::new(mu).map_err(CoreError)?)
        }
        other => {
            return Err(CoreError(Error::Query(format!(
                "unknown model {other:?}; choose \"bm25\", \"tfidf\" or \"qld\""
            )))
            .into());
        }
    };
    Ok(model)
}

/// Adds the defaults and option names to the module, read off the core.
pub fn add_constants(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let names = |names: Vec<&'static str>| PyTuple::new(py, names);
    m.add("DEFAULT_K1", DEFAULT_K1)?;
    m.add("DEFAULT_B", DEFAULT_B)?;
    m.add("DEFAULT_MU", f64::from(QldParams::default().mu))?;
    m.add("MODELS", names(MODELS.to_vec())?)?;
    m.add(
        "BM25_VARIANTS",
        names(Bm25Variant::ALL.map(|(n, _)| n).to_vec())?,
    )?;
    m.add(
        "LENGTH_MODES",
        names(LengthMode::ALL.map(|(n, _)| n).to_vec())?,
    )?;
    m.add(
        "TOKENIZERS",
        names(Tokenizer::ALL.iter().map(|(n, _)| *n).collect())?,
    )?;
    m.add(
        "STEMMERS",
        names(Stemmer::ALL.iter().map(|(n, _)| *n).collect())?,
    )?;
    m.add("STOPWORD_LISTS", names(Stopwords::NAMED.to_vec())?)?;
    Ok(())
}
