//! `rserini.Analyzer`: a named preset, optionally with overridden steps.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rserini_core::Error;
use rserini_core::analysis::{Analyzer, AnalyzerConfig, Stemmer, Stopwords, Tokenizer};

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
///     sub-tokens) or ``"whitespace"``.
/// tokenizer, lowercase, possessive, code_subtokens, stopwords, stemmer
///     Override one step of the preset. ``stopwords`` is ``"none"``,
///     ``"lucene-english"`` or a list of words; ``stemmer`` is ``"none"``,
///     ``"porter"`` or ``"snowball-english"``.
///
/// Raises
/// ------
/// AnalyzerError
///     For an unknown preset or option.
#[pyclass(name = "Analyzer", module = "rserini._core", frozen)]
pub struct PyAnalyzer {
    pub inner: Arc<Analyzer>,
}

fn parse_tokenizer(name: &str) -> Result<Tokenizer, Error> {
    match name {
        "standard" => Ok(Tokenizer::Standard),
        "word" => Ok(Tokenizer::Word),
        "whitespace" => Ok(Tokenizer::Whitespace),
        other => Err(Error::Analyzer(format!(
            "unknown tokenizer {other:?}; choose \"standard\" (Lucene UAX#29), \"word\" (Python \\w+) or \"whitespace\""
        ))),
    }
}

fn parse_stemmer(name: &str) -> Result<Stemmer, Error> {
    match name {
        "none" => Ok(Stemmer::None),
        "porter" => Ok(Stemmer::Porter),
        "snowball-english" => Ok(Stemmer::SnowballEnglish),
        other => Err(Error::Analyzer(format!(
            "unknown stemmer {other:?}; choose \"none\", \"porter\" (Lucene's) or \"snowball-english\""
        ))),
    }
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
        config.tokenizer = parse_tokenizer(t)?;
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
            StopwordsArg::Name(n) if n == "none" => Stopwords::None,
            StopwordsArg::Name(n) if n == "lucene-english" => Stopwords::LuceneEnglish,
            StopwordsArg::Name(n) => {
                return Err(Error::Analyzer(format!(
                    "unknown stopword list {n:?}; choose \"none\" or \"lucene-english\", or give a list of words"
                )));
            }
            StopwordsArg::Words(w) => Stopwords::Custom(w),
        };
    }
    if let Some(s) = stemmer {
        config.stemmer = parse_stemmer(s)?;
    }
    Ok(config)
}

pub fn config_dict<'py>(py: Python<'py>, config: &AnalyzerConfig) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let tokenizer = match config.tokenizer {
        Tokenizer::Standard => "standard",
        Tokenizer::Word => "word",
        Tokenizer::Whitespace => "whitespace",
    };
    d.set_item("name", config.preset_name().unwrap_or("custom"))?;
    d.set_item("tokenizer", tokenizer)?;
    d.set_item("lowercase", config.lowercase)?;
    d.set_item("possessive", config.possessive)?;
    d.set_item("code_subtokens", config.code_subtokens)?;
    match &config.stopwords {
        Stopwords::None => d.set_item("stopwords", "none")?,
        Stopwords::LuceneEnglish => d.set_item("stopwords", "lucene-english")?,
        Stopwords::Custom(w) => d.set_item("stopwords", w.clone())?,
    }
    let stemmer = match config.stemmer {
        Stemmer::None => "none",
        Stemmer::Porter => "porter",
        Stemmer::SnowballEnglish => "snowball-english",
    };
    d.set_item("stemmer", stemmer)?;
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
