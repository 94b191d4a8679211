//! `rserini.Rm3` and `rserini.Rocchio`: the feedback models' parameters as
//! frozen values, which every search takes as `feedback=`. Their defaults
//! are the core's (`Rm3Params::default()`, `RocchioParams::default()`); the
//! feedback methods' keywords (`fb_terms=` ...) are sugar for them, read here.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use pyo3::PyTypeInfo;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};
use rserini_core::feedback::rm3::Rm3Params;
use rserini_core::feedback::rocchio::RocchioParams;
use rserini_core::search::Feedback;

use crate::errors::CoreResult;

/// A float's hash that agrees with `==` (-0.0 is 0.0; NaN is refused).
fn float_bits(x: f64) -> u64 {
    (x + 0.0).to_bits()
}

/// A value's repr from its name and its fields' Python reprs, so that the
/// text evaluates back to the value.
fn repr(name: &str, fields: &[(&str, Bound<'_, PyAny>)]) -> PyResult<String> {
    let parts = fields
        .iter()
        .map(|(field, value)| Ok(format!("{field}={}", value.repr()?)))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(format!("{name}({})", parts.join(", ")))
}

/// RM3 pseudo-relevance feedback, as Anserini's reranker (Pyserini's
/// ``set_rm3``): ``feedback=Rm3(...)`` in the searches, over a Lucene BM25 first
/// stage. The defaults are Pyserini's (``Rm3()`` shows them).
///
/// Frozen, comparable, hashable and picklable; every parameter is checked here,
/// once.
///
/// Parameters
/// ----------
/// fb_terms
///     Expansion terms, >= 1.
/// fb_docs
///     Feedback documents, >= 1 (at most 50 are used, as in Anserini).
/// original_query_weight
///     Weight of the original query, in [0, 1] (float32, as Anserini's).
/// filter_terms
///     Keep only ``[a-z0-9]+`` feedback terms.
///
/// Raises
/// ------
/// QueryError
///     For values outside those ranges.
#[pyclass(name = "Rm3", module = "rserini._core", frozen, eq, hash)]
#[derive(Clone, Debug, PartialEq)]
pub struct PyRm3 {
    // As given (the core keeps float32), so the value reads back as written.
    original_query_weight: f64,
    params: Rm3Params,
}

impl Hash for PyRm3 {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.params.fb_terms.hash(state);
        self.params.fb_docs.hash(state);
        float_bits(self.original_query_weight).hash(state);
        self.params.filter_terms.hash(state);
    }
}

#[pymethods]
impl PyRm3 {
    #[new]
    #[pyo3(signature = (
        fb_terms = Rm3Params::default().fb_terms as i64,
        fb_docs = Rm3Params::default().fb_docs as i64,
        original_query_weight = f64::from(Rm3Params::default().original_query_weight),
        filter_terms = Rm3Params::default().filter_terms,
    ))]
    fn new(
        fb_terms: i64,
        fb_docs: i64,
        original_query_weight: f64,
        filter_terms: bool,
    ) -> CoreResult<Self> {
        let params = Rm3Params::new(fb_terms, fb_docs, original_query_weight, filter_terms)?;
        Ok(PyRm3 {
            original_query_weight,
            params,
        })
    }

    /// Expansion terms.
    #[getter]
    fn fb_terms(&self) -> usize {
        self.params.fb_terms
    }

    /// Feedback documents.
    #[getter]
    fn fb_docs(&self) -> usize {
        self.params.fb_docs
    }

    /// Weight of the original query, as given.
    #[getter]
    fn original_query_weight(&self) -> f64 {
        self.original_query_weight
    }

    /// Whether only ``[a-z0-9]+`` feedback terms are kept.
    #[getter]
    fn filter_terms(&self) -> bool {
        self.params.filter_terms
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let p = &self.params;
        repr(
            "Rm3",
            &[
                ("fb_terms", p.fb_terms.into_pyobject(py)?.into_any()),
                ("fb_docs", p.fb_docs.into_pyobject(py)?.into_any()),
                (
                    "original_query_weight",
                    self.original_query_weight.into_pyobject(py)?.into_any(),
                ),
                (
                    "filter_terms",
                    p.filter_terms.into_pyobject(py)?.to_owned().into_any(),
                ),
            ],
        )
    }

    /// Pickle rebuilds the value from its constructor's arguments.
    fn __reduce__<'py>(&self, py: Python<'py>) -> (Bound<'py, PyType>, (usize, usize, f64, bool)) {
        let p = &self.params;
        let arguments = (
            p.fb_terms,
            p.fb_docs,
            self.original_query_weight,
            p.filter_terms,
        );
        (py.get_type::<Self>(), arguments)
    }
}

/// Rocchio pseudo-relevance feedback, as Anserini's reranker (Pyserini's
/// ``set_rocchio``): ``feedback=Rocchio(...)`` in the searches, over a Lucene
/// BM25 first stage searched to the depth asked. The defaults are Pyserini's
/// (``Rocchio()`` shows them).
///
/// Frozen, comparable, hashable and picklable; every parameter is checked here,
/// once.
///
/// Parameters
/// ----------
/// top_fb_terms, top_fb_docs
///     Terms and documents from the top of the first stage, >= 1.
/// bottom_fb_terms, bottom_fb_docs
///     The same from its bottom, used with ``use_negative``.
/// alpha, beta, gamma
///     Weights of the query, the top and the bottom documents, in [0, 1]
///     (float32, as Anserini's).
/// use_negative
///     Subtract the bottom documents' mean vector.
///
/// Raises
/// ------
/// QueryError
///     For values outside those ranges.
#[pyclass(name = "Rocchio", module = "rserini._core", frozen, eq, hash)]
#[derive(Clone, Debug, PartialEq)]
pub struct PyRocchio {
    // As given (the core keeps float32), so the value reads back as written.
    weights: [f64; 3],
    params: RocchioParams,
}

impl Hash for PyRocchio {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.counts().hash(state);
        self.weights.map(float_bits).hash(state);
        self.params.use_negative.hash(state);
    }
}

impl PyRocchio {
    /// `[top_fb_terms, top_fb_docs, bottom_fb_terms, bottom_fb_docs]`.
    fn counts(&self) -> [usize; 4] {
        let p = &self.params;
        [
            p.top_fb_terms,
            p.top_fb_docs,
            p.bottom_fb_terms,
            p.bottom_fb_docs,
        ]
    }
}

/// Rocchio's constructor arguments, in its order: what `__reduce__` gives pickle.
type RocchioArguments = (usize, usize, usize, usize, f64, f64, f64, bool);

#[pymethods]
impl PyRocchio {
    #[new]
    #[pyo3(signature = (
        top_fb_terms = RocchioParams::default().top_fb_terms as i64,
        top_fb_docs = RocchioParams::default().top_fb_docs as i64,
        bottom_fb_terms = RocchioParams::default().bottom_fb_terms as i64,
        bottom_fb_docs = RocchioParams::default().bottom_fb_docs as i64,
        alpha = f64::from(RocchioParams::default().alpha),
        beta = f64::from(RocchioParams::default().beta),
        gamma = f64::from(RocchioParams::default().gamma),
        use_negative = RocchioParams::default().use_negative,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        top_fb_terms: i64,
        top_fb_docs: i64,
        bottom_fb_terms: i64,
        bottom_fb_docs: i64,
        alpha: f64,
        beta: f64,
        gamma: f64,
        use_negative: bool,
    ) -> CoreResult<Self> {
        let counts = [top_fb_terms, top_fb_docs, bottom_fb_terms, bottom_fb_docs];
        let weights = [alpha, beta, gamma];
        let params = RocchioParams::new(counts, weights, use_negative)?;
        Ok(PyRocchio { weights, params })
    }

    /// Terms kept from the top documents.
    #[getter]
    fn top_fb_terms(&self) -> usize {
        self.params.top_fb_terms
    }

    /// Top documents.
    #[getter]
    fn top_fb_docs(&self) -> usize {
        self.params.top_fb_docs
    }

    /// Terms kept from the bottom documents.
    #[getter]
    fn bottom_fb_terms(&self) -> usize {
        self.params.bottom_fb_terms
    }

    /// Bottom documents.
    #[getter]
    fn bottom_fb_docs(&self) -> usize {
        self.params.bottom_fb_docs
    }

    /// Weight of the original query, as given.
    #[getter]
    fn alpha(&self) -> f64 {
        self.weights[0]
    }

    /// Weight of the top documents, as given.
    #[getter]
    fn beta(&self) -> f64 {
        self.weights[1]
    }

    /// Weight of the bottom documents, as given.
    #[getter]
    fn gamma(&self) -> f64 {
        self.weights[2]
    }

    /// Whether the bottom documents count (negative feedback).
    #[getter]
    fn use_negative(&self) -> bool {
        self.params.use_negative
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let names = [
            "top_fb_terms",
            "top_fb_docs",
            "bottom_fb_terms",
            "bottom_fb_docs",
        ];
        let mut fields = Vec::new();
        for (name, count) in names.into_iter().zip(self.counts()) {
            fields.push((name, count.into_pyobject(py)?.into_any()));
        }
        for (name, weight) in ["alpha", "beta", "gamma"].into_iter().zip(self.weights) {
            fields.push((name, weight.into_pyobject(py)?.into_any()));
        }
        let negative = self.params.use_negative.into_pyobject(py)?.to_owned();
        fields.push(("use_negative", negative.into_any()));
        repr("Rocchio", &fields)
    }

    /// Pickle rebuilds the value from its constructor's arguments.
    fn __reduce__<'py>(&self, py: Python<'py>) -> (Bound<'py, PyType>, RocchioArguments) {
        let [top_terms, top_docs, bottom_terms, bottom_docs] = self.counts();
        let [alpha, beta, gamma] = self.weights;
        let arguments = (
            top_terms,
            top_docs,
            bottom_terms,
            bottom_docs,
            alpha,
            beta,
            gamma,
            self.params.use_negative,
        );
        (py.get_type::<Self>(), arguments)
    }
}

/// The core feedback of a `feedback=` argument: an `Rm3`, a `Rocchio` or
/// `None`.
pub fn from_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Arc<dyn Feedback>>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if let Ok(rm3) = value.cast::<PyRm3>() {
        return Ok(Some(Arc::new(rm3.get().params)));
    }
    if let Ok(rocchio) = value.cast::<PyRocchio>() {
        return Ok(Some(Arc::new(rocchio.get().params)));
    }
    Err(PyTypeError::new_err(format!(
        "feedback must be an Rm3, a Rocchio or None, not {}",
        value.get_type().name()?
    )))
}

/// The keywords of the feedback methods' values, by model.
pub const RM3_KEYWORDS: &[&str] = &[
    "fb_terms",
    "fb_docs",
    "original_query_weight",
    "filter_terms",
];
/// Rocchio's keywords.
pub const ROCCHIO_KEYWORDS: &[&str] = &[
    "top_fb_terms",
    "top_fb_docs",
    "bottom_fb_terms",
    "bottom_fb_docs",
    "alpha",
    "beta",
    "gamma",
    "use_negative",
];

/// The sugar of the feedback methods: the value of type `T` their keywords
/// `names` make (its constructor's defaults for those not given, its
/// errors), and the rest of `options`, for the first stage.
pub fn from_keywords<'py, T: PyTypeInfo>(
    py: Python<'py>,
    names: &[&str],
    options: Option<Bound<'py, PyDict>>,
) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyDict>>)> {
    let given = PyDict::new(py);
    let rest = PyDict::new(py);
    for (key, value) in options.iter().flatten() {
        let target = match names.contains(&key.extract::<String>()?.as_str()) {
            true => &given,
            false => &rest,
        };
        target.set_item(key, value)?;
    }
    let value = py.get_type::<T>().call((), Some(&given))?;
    Ok((value, (!rest.is_empty()).then_some(rest)))
}
