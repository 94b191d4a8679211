//! `rserini.Analyzer`: a named preset, optionally with overridden steps.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rserini_core::Error;
use rserini_core::analysis::{Analyzer, AnalyzerConfig, Choice, Stemmer, Stopwords, Tokenizer};

use crate::errors::CoreResult;

/// Stopword option from Python: a name or a list of words.
#[derive(FromPyObject)]
pub enum StopwordsArg {
    Name(String),
    Words(Vec<String>),
}

/// A text analysis chain: a named preset, optionally with steps overridden.
///
/// Parameters
/// ----------
/// name
///     Preset: ``"lucene-english"`` (Pyserini's default analyzer: UAX#29 words,
///     possessives, lowercase, 33 stopwords, Porter), ``"plain"`` (Python's
///     ``\w+`` on lowercased text), ``"code"`` (``plain`` plus identifier
///     sub-tokens), ``"whitespace"``, or ``"lucene-<code>"``: Lucene's analyzer
///     for a language, as Pyserini's ``get_lucene_analyzer(language=<code>)``
///     (``rserini.ANALYZER_PRESETS`` lists them).
/// tokenizer, lowercase, possessive, code_subtokens, stopwords, stemmer
///     Override one step of the preset. ``stopwords`` is ``"none"``,
///     ``"lucene-english"``, a language's ``"lucene-<code>"`` or a list of words;
///     ``stemmer`` is ``"none"``, ``"porter"``, ``"snowball-english"`` or, for a
///     language preset, ``"lucene"`` (its own).
///
/// Raises
/// ------
/// AnalyzerError
///     For an unknown preset or option, or ``"lucene-ja"`` without its dictionary
///     (``pip install 'rserini[ja]'``).
#[pyclass(name = "Analyzer", module = "rserini._core", frozen)]
pub struct PyAnalyzer {
    pub inner: Arc<Analyzer>,
}

/// Builds an analyzer configuration from a preset name and overrides.
#[allow(clippy::too_many_arguments)]
pub fn build_config(
    name: &str,
    tokenizer: Option<&str>,
    lowercase: Option<bool>,
    possessive: Option<bool>,
    code_subtokens: Option<bool>,
    stopwords: Option<StopwordsArg>,
    stemmer: Option<&str>,
) -> Result<AnalyzerConfig, Error> {
    let mut config = AnalyzerConfig::preset(name)?;
    if let Some(t) = tokenizer {
        config.tokenizer = Tokenizer::parse(t)?;
    }
    if let Some(v) = lowercase {
        config.lowercase = v;
    }
    if let Some(v) = possessive {
        config.possessive = v;
    }
    if let Some(v) = code_subtokens {
        config.code_subtokens = v;
    }
    if let Some(s) = stopwords {
        config.stopwords = match s {
            StopwordsArg::Name(n) => Stopwords::parse(&n)?,
            StopwordsArg::Words(w) => Stopwords::Custom(w),
        };
    }
    if let Some(s) = stemmer {
        config.stemmer = Stemmer::parse(s)?;
    }
    Ok(config)
}

pub fn config_dict<'py>(py: Python<'py>, config: &AnalyzerConfig) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", config.preset_name().unwrap_or("custom"))?;
    d.set_item("tokenizer", config.tokenizer.name())?;
    d.set_item("lowercase", config.lowercase)?;
    d.set_item("possessive", config.possessive)?;
    d.set_item("code_subtokens", config.code_subtokens)?;
    match &config.stopwords {
        Stopwords::Custom(w) => d.set_item("stopwords", w.clone())?,
        named => d.set_item("stopwords", named.name())?,
    }
    d.set_item("stemmer", config.stemmer.name())?;
    d.set_item("language", config.language.map(Choice::name))?;
    Ok(d)
}

#[pymethods]
impl PyAnalyzer {
    #[new]
    #[pyo3(signature = (name = "lucene-english", *, tokenizer = None, lowercase = None, possessive = None, code_subtokens = None, stopwords = None, stemmer = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        name: &str,
        tokenizer: Option<&str>,
        lowercase: Option<bool>,
        possessive: Option<bool>,
        code_subtokens: Option<bool>,
        stopwords: Option<StopwordsArg>,
        stemmer: Option<&str>,
    ) -> CoreResult<Self> {
        let config = build_config(
            name,
            tokenizer,
            lowercase,
            possessive,
            code_subtokens,
            stopwords,
            stemmer,
        )?;
        Ok(PyAnalyzer {
            inner: Arc::new(Analyzer::new(config)?),
        })
    }

    /// The terms of ``text``, in order.
    fn analyze(&self, text: &str) -> Vec<String> {
        self.inner.analyze(text)
    }

    /// The terms of ``text`` with where each comes from: ``(term, start, end)``
    /// with ``text[start:end]`` its source (``str`` indices; Lucene's
    /// ``OffsetAttribute`` counts UTF-16 units instead, the same for text
    /// within the Basic Multilingual Plane). A stemmed or normalized term
    /// spans its whole token, a CJK bigram both characters; the terms are
    /// :meth:`analyze`'s.
    fn analyze_with_offsets(&self, text: &str) -> Vec<(String, usize, usize)> {
        let mut out = Vec::new();
        // Byte offsets to `str` indices: starts never decrease, so one
        // cursor walks the text once (from the start again if one did).
        let (mut byte, mut index) = (0, 0);
        self.inner.analyze_spans_with(text, &mut |term, range| {
            if range.start < byte {
                (byte, index) = (0, 0);
            }
            index += text[byte..range.start].chars().count();
            byte = range.start;
            let end = index + text[range].chars().count();
            out.push((term.to_owned(), index, end));
        });
        out
    }

    /// The terms of each text, computed in parallel without the GIL.
    fn analyze_batch(&self, py: Python<'_>, texts: Vec<String>) -> CoreResult<Vec<Vec<String>>> {
        use rayon::prelude::*;
        let analyzer = self.inner.clone();
        let terms = py.detach(move || {
            crate::threads::with_threads(None, || {
                texts.par_iter().map(|t| analyzer.analyze(t)).collect()
            })
        })?;
        Ok(terms)
    }

    /// The preset name, or ``"custom"``.
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.config().preset_name().unwrap_or("custom")
    }

    /// The full configuration.
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        config_dict(py, self.inner.config())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyAnalyzer>()
            .is_ok_and(|o| o.get().inner.config() == self.inner.config())
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        format!("{:?}", self.inner.config()).hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        match self.inner.config().preset_name() {
            Some(name) => format!("Analyzer({name:?})"),
            None => format!("Analyzer(custom: {:?})", self.inner.config()),
        }
    }
}

/// Tells the core where PyPI's `ipadic` keeps MeCab's IPADIC (`lucene-ja`),
/// if it is installed: found with `importlib.util.find_spec`, which locates
/// the package without importing it.
pub fn locate_japanese_dictionary(py: Python<'_>) {
    let found = || -> PyResult<Option<std::path::PathBuf>> {
        let spec = py
            .import("importlib.util")?
            .call_method1("find_spec", ("ipadic",))?;
        if spec.is_none() {
            return Ok(None);
        }
        let origin: Option<String> = spec.getattr("origin")?.extract()?;
        Ok(origin.and_then(|init| {
            let package = std::path::Path::new(&init).parent()?;
            Some(package.join("dicdir"))
        }))
    };
    // A broken `ipadic` install leaves the dictionary unset; `lucene-ja` then says how to get one.
    if let Ok(Some(dir)) = found() {
        rserini_core::analysis::language::japanese::set_default_directory(dir);
    }
}
