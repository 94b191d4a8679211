//! Analysis: text in, index terms out.
//!
//! An [`Analyzer`] is a tokenizer followed by a fixed order of optional
//! filters: English possessive removal, lowercasing, identifier sub-tokens,
//! stopwords and a stemmer. It is built from an [`AnalyzerConfig`], which is
//! saved with every index so queries are always analyzed the way the
//! documents were. Named presets cover the common cases:
//!
//! | preset | chain |
//! |---|---|
//! | `lucene-english` (default) | Lucene `StandardTokenizer` (UAX#29), possessive filter, lowercase, Lucene's 33 English stopwords, Lucene's Porter stemmer: Pyserini's default analyzer |
//! | `plain` | Python's `re.findall(r"\w+", text.lower())`: no stopwords, no stemming |
//! | `code` | `plain`, plus camelCase / acronym / snake_case sub-tokens after each whole token |
//! | `whitespace` | split on whitespace only, nothing else (pre-tokenized text) |
//! | `lucene-<code>` | Lucene's analyzer for a language, as Pyserini's `language=<code>` (see [`language`]) |

pub mod choice;
pub mod code;
pub mod filters;
pub mod language;
pub mod offsets;
pub mod porter;
pub mod standard;
pub mod word;

use std::borrow::Cow;

use rustc_hash::FxHashSet;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
pub use choice::Choice;
pub use language::Language;

/// Names of the analyzer presets, in documentation order.
pub const PRESETS: &[&str] = &[
    "lucene-english",
    "plain",
    "code",
    "whitespace",
    "lucene-ar",
    "lucene-bn",
    "lucene-da",
    "lucene-de",
    "lucene-es",
    "lucene-fi",
    "lucene-fr",
    "lucene-hi",
    "lucene-hu",
    "lucene-id",
    "lucene-it",
    "lucene-ja",
    "lucene-ko",
    "lucene-nl",
    "lucene-no",
    "lucene-pt",
    "lucene-ru",
    "lucene-te",
    "lucene-tr",
    "lucene-zh",
];

/// How text is cut into tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tokenizer {
    /// Lucene's `StandardTokenizer`: UAX#29 word boundaries, max 255 chars.
    Standard,
    /// Python's `\w+`: runs of letters, numbers and `_`.
    Word,
    /// Runs of non-whitespace characters.
    Whitespace,
}

/// Which stemmer, if any, ends the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stemmer {
    /// No stemming.
    None,
    /// The original Porter stemmer, as Lucene's `PorterStemFilter`.
    Porter,
    /// Snowball's English stemmer (Porter2), from `rust-stemmers`.
    SnowballEnglish,
    /// The stemmer of the configuration's language (a `lucene-<code>` preset).
    Lucene,
}

/// Which stopwords are removed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stopwords {
    /// Keep every token.
    None,
    /// Lucene's 33 English stopwords.
    LuceneEnglish,
    /// A user-given list, compared after lowercasing.
    Custom(Vec<String>),
    /// The default list of Lucene's analyzer for a language.
    Lucene(Language),
}

impl Choice for Tokenizer {
    const ALL: &'static [(&'static str, Self)] = &[
        ("standard", Tokenizer::Standard),
        ("word", Tokenizer::Word),
        ("whitespace", Tokenizer::Whitespace),
    ];

    fn unknown(name: &str) -> Error {
        Error::Analyzer(format!(
            "unknown tokenizer {name:?}; choose \"standard\" (Lucene UAX#29), \"word\" (Python \\w+) or \"whitespace\""
        ))
    }
}

impl Choice for Stemmer {
    const ALL: &'static [(&'static str, Self)] = &[
        ("none", Stemmer::None),
        ("porter", Stemmer::Porter),
        ("snowball-english", Stemmer::SnowballEnglish),
        ("lucene", Stemmer::Lucene),
    ];

    fn unknown(name: &str) -> Error {
        Error::Analyzer(format!(
            "unknown stemmer {name:?}; choose \"none\", \"porter\" (Lucene's), \"snowball-english\" or \"lucene\" (a language preset's own)"
        ))
    }
}

impl Stopwords {
    /// The names of the built-in lists besides the languages' `lucene-<code>`
    /// (a custom list has no name).
    pub const NAMED: [&'static str; 2] = ["none", "lucene-english"];

    /// The built-in list named `name`.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "none" => Ok(Stopwords::None),
            "lucene-english" => Ok(Stopwords::LuceneEnglish),
            _ => Language::of_preset(name).map(Stopwords::Lucene).ok_or_else(|| {
                Error::Analyzer(format!(
                    "unknown stopword list {name:?}; choose \"none\", \"lucene-english\" or a language's \"lucene-<code>\", or give a list of words"
                ))
            }),
        }
    }

    /// The name of a built-in list; `None` for a custom one.
    pub fn name(&self) -> Option<&'static str> {
        match self {
            Stopwords::None => Some("none"),
            Stopwords::LuceneEnglish => Some("lucene-english"),
            Stopwords::Custom(_) => None,
            Stopwords::Lucene(language) => Some(language.preset()),
        }
    }
}

/// A full description of an analysis chain; serialised into index metadata.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyzerConfig {
    /// How text is cut into tokens.
    pub tokenizer: Tokenizer,
    /// Drop a trailing `'s` (Lucene's `EnglishPossessiveFilter`).
    pub possessive: bool,
    /// Lowercase. With the `standard` tokenizer this is Lucene's per-code-point
    /// `LowerCaseFilter` after tokenizing; with `word`, Python's `str.lower()`
    /// of the whole text before tokenizing (of each token when `code_subtokens`).
    pub lowercase: bool,
    /// After each token, also emit its identifier parts (`getUserById` →
    /// `get user by id`) when it has at least two.
    pub code_subtokens: bool,
    /// Which stopwords are removed.
    pub stopwords: Stopwords,
    /// Which stemmer ends the chain.
    pub stemmer: Stemmer,
    /// Lucene's analyzer for this language: its own steps before and after
    /// the stopword filter (see [`language`]). Absent from the metadata of
    /// analyzers without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
}

impl AnalyzerConfig {
    /// The configuration of a named preset (see the module docs).
    pub fn preset(name: &str) -> Result<Self> {
        let word = |code_subtokens| AnalyzerConfig {
            tokenizer: Tokenizer::Word,
            possessive: false,
            lowercase: true,
            code_subtokens,
            stopwords: Stopwords::None,
            stemmer: Stemmer::None,
            language: None,
        };
        Ok(match name {
            "lucene-english" => AnalyzerConfig {
                tokenizer: Tokenizer::Standard,
                possessive: true,
                lowercase: true,
                code_subtokens: false,
                stopwords: Stopwords::LuceneEnglish,
                stemmer: Stemmer::Porter,
                language: None,
            },
            "plain" => word(false),
            "code" => word(true),
            "whitespace" => AnalyzerConfig {
                tokenizer: Tokenizer::Whitespace,
                possessive: false,
                lowercase: false,
                code_subtokens: false,
                stopwords: Stopwords::None,
                stemmer: Stemmer::None,
                language: None,
            },
            other => {
                if let Some(language) = Language::of_preset(other) {
                    return Ok(AnalyzerConfig {
                        tokenizer: Tokenizer::Standard,
                        possessive: false,
                        lowercase: true,
                        code_subtokens: false,
                        stopwords: Stopwords::Lucene(language),
                        stemmer: Stemmer::Lucene,
                        language: Some(language),
                    });
                }
                if let Some(why) =
                    language::unsupported(other).filter(|_| other.starts_with("lucene-"))
                {
                    return Err(Error::Analyzer(why));
                }
                return Err(Error::Analyzer(format!(
                    "unknown analyzer {other:?}; choose one of {}",
                    PRESETS.join(", ")
                )));
            }
        })
    }

    /// The preset name this configuration equals, if any.
    pub fn preset_name(&self) -> Option<&'static str> {
        PRESETS
            .iter()
            .copied()
            .find(|name| AnalyzerConfig::preset(name).ok().as_ref() == Some(self))
    }
}

impl Default for AnalyzerConfig {
    fn default() -> Self {
        AnalyzerConfig::preset("lucene-english").expect("the default preset exists")
    }
}

/// A ready-to-run analysis chain. Cheap to share between threads.
pub struct Analyzer {
    config: AnalyzerConfig,
    stopwords: FxHashSet<String>,
    snowball: Option<rust_stemmers::Stemmer>,
    chain: Option<language::Chain>,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer")
            .field("config", &self.config)
            .finish()
    }
}

impl Analyzer {
    /// Builds the chain described by `config`.
    pub fn new(config: AnalyzerConfig) -> Result<Self> {
        if config.code_subtokens && config.tokenizer != Tokenizer::Word {
            return Err(Error::Analyzer(
                "code sub-tokens need the `word` tokenizer; use the `code` preset or set tokenizer=\"word\"".into(),
            ));
        }
        if let Some(language) = config.language {
            if config.tokenizer != Tokenizer::Standard
                || config.possessive
                || config.code_subtokens
                || !config.lowercase
            {
                return Err(Error::Analyzer(format!(
                    "the {} analyzer is Lucene's whole chain: keep its tokenizer (\"standard\"), lowercasing, and no possessive or code sub-token step",
                    language.preset()
                )));
            }
            if !matches!(config.stemmer, Stemmer::Lucene | Stemmer::None) {
                return Err(Error::Analyzer(format!(
                    "the {} analyzer stems with its own stemmer: choose stemmer \"lucene\" or \"none\"",
                    language.preset()
                )));
            }
        } else if config.stemmer == Stemmer::Lucene {
            return Err(Error::Analyzer(
                "stemmer \"lucene\" is a language's own: use a `lucene-<code>` preset".into(),
            ));
        }
        let stopwords = match &config.stopwords {
            Stopwords::None => FxHashSet::default(),
            Stopwords::Lucene(language) => language::stopwords::words(*language)
                .into_iter()
                .map(str::to_owned)
                .collect(),
            Stopwords::LuceneEnglish => filters::LUCENE_ENGLISH_STOPWORDS
                .iter()
                .map(|w| w.to_string())
                .collect(),
            Stopwords::Custom(words) => words
                .iter()
                .map(|w| {
                    if config.lowercase {
                        w.to_lowercase()
                    } else {
                        w.clone()
                    }
                })
                .collect(),
        };
        let snowball = (config.stemmer == Stemmer::SnowballEnglish)
            .then(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English));
        let chain = config
            .language
            .map(|language| language::Chain::new(language, config.stemmer == Stemmer::Lucene))
            .transpose()?;
        Ok(Analyzer {
            config,
            stopwords,
            snowball,
            chain,
        })
    }

    /// The analyzer of a named preset.
    pub fn preset(name: &str) -> Result<Self> {
        Analyzer::new(AnalyzerConfig::preset(name)?)
    }

    /// The configuration this analyzer was built from.
    pub fn config(&self) -> &AnalyzerConfig {
        &self.config
    }

    /// Calls `emit` with each term of `text`, in order.
    pub fn analyze_with(&self, text: &str, emit: &mut dyn FnMut(&str)) {
        self.tokenize_with(text, &mut |token| self.filter(token, emit));
    }

    /// Calls `on_token` with each token of `text`, in order, before the
    /// filters; [`Analyzer::filter`] turns each into its terms.
    pub fn tokenize_with(&self, text: &str, on_token: &mut dyn FnMut(&str)) {
        match self.config.tokenizer {
            Tokenizer::Standard => match &self.chain {
                Some(chain) => chain.tokenize(text, on_token),
                None => standard::tokenize(text, on_token),
            },
            Tokenizer::Word => word::tokenize(&self.word_text(text), on_token),
            Tokenizer::Whitespace => word::tokenize_whitespace(text, on_token),
        }
    }

    /// The text the `word` tokenizer cuts: `text` lowercased as a whole when
    /// lowercasing comes first (no code sub-tokens), else `text`. Its
    /// [`word::for_each_span`] ranges are the tokens of
    /// [`Analyzer::tokenize_with`].
    pub fn word_text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.config.lowercase && !self.config.code_subtokens {
            filters::python_lowercase(text)
        } else {
            Cow::Borrowed(text)
        }
    }

    /// Whether this analyzer cuts text with the `word` tokenizer.
    pub fn is_word(&self) -> bool {
        self.config.tokenizer == Tokenizer::Word
    }

    /// The terms of `text`, in order.
    pub fn analyze(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.analyze_with(text, &mut |t| out.push(t.to_owned()));
        out
    }

    /// Calls `emit` with the terms of one token of [`Analyzer::tokenize_with`]
    /// (none, one, or with code sub-tokens several). They depend on the
    /// token alone, so an indexer may analyze each distinct token once.
    pub fn filter(&self, token: &str, emit: &mut dyn FnMut(&str)) {
        if let Some(chain) = &self.chain {
            let term = chain.prepare(token);
            if !term.is_empty() && !self.stopwords.contains(term.as_ref()) {
                // A stemmer may leave nothing (Turkish `leri`): no term, as
                // Anserini's analysis skips empty ones.
                chain.finish(&term, &mut |t| {
                    if !t.is_empty() {
                        emit(t)
                    }
                });
            }
            return;
        }
        let token = if self.config.possessive {
            filters::strip_possessive(token)
        } else {
            token
        };
        if self.config.code_subtokens {
            self.emit_code_token(token, &mut |term, _| emit(term));
        } else if self.config.lowercase && self.config.tokenizer != Tokenizer::Word {
            self.finish(&filters::lucene_lowercase(token), emit);
        } else {
            // `word` lowercased the whole text already.
            self.finish(token, emit);
        }
    }

    /// The terms of a token of the `code` analyzer: the whole token, then
    /// its identifier parts; each with the part of `raw` it comes from.
    fn emit_code_token<'t>(&self, raw: &'t str, emit: &mut dyn FnMut(&str, &'t str)) {
        let lower = |s| {
            if self.config.lowercase {
                filters::python_lowercase(s)
            } else {
                std::borrow::Cow::Borrowed(s)
            }
        };
        let whole = lower(raw);
        self.finish(&whole, &mut |term| emit(term, raw));
        let mut parts = Vec::new();
        if code::split_parts(raw, &mut |p| parts.push(p)) >= 2 {
            for part in parts {
                let lowered = lower(part);
                if lowered != whole {
                    self.finish(&lowered, &mut |term| emit(term, part));
                }
            }
        }
    }

    fn finish(&self, token: &str, emit: &mut dyn FnMut(&str)) {
        if token.is_empty() || self.stopwords.contains(token) {
            return;
        }
        match self.config.stemmer {
            Stemmer::None => emit(token),
            Stemmer::Porter => emit(&porter::stem(token)),
            // Only with a language, whose chain does its own stemming.
            Stemmer::Lucene => emit(token),
            Stemmer::SnowballEnglish => {
                let stemmer = self.snowball.as_ref().expect("built in Analyzer::new");
                emit(&stemmer.stem(token))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(preset: &str, text: &str) -> Vec<String> {
        Analyzer::preset(preset).unwrap().analyze(text)
    }

    #[test]
    fn every_language_is_a_preset() {
        for &(code, language) in Language::ALL {
            assert_eq!(language.preset(), format!("lucene-{code}"));
            assert!(PRESETS.contains(&language.preset()), "{code}");
            let config = AnalyzerConfig::preset(language.preset()).unwrap();
            assert_eq!(config.language, Some(language));
            assert_eq!(
                Stopwords::parse(language.preset()).unwrap(),
                Stopwords::Lucene(language)
            );
        }
    }

    #[test]
    fn language_chains_refuse_foreign_steps() {
        let de = AnalyzerConfig::preset("lucene-de").unwrap();
        for bad in [
            AnalyzerConfig {
                tokenizer: Tokenizer::Word,
                ..de.clone()
            },
            AnalyzerConfig {
                possessive: true,
                ..de.clone()
            },
            AnalyzerConfig {
                lowercase: false,
                ..de.clone()
            },
            AnalyzerConfig {
                stemmer: Stemmer::Porter,
                ..de.clone()
            },
            AnalyzerConfig {
                stemmer: Stemmer::Lucene,
                ..AnalyzerConfig::default()
            },
        ] {
            assert!(matches!(Analyzer::new(bad), Err(Error::Analyzer(_))));
        }
        let unstemmed = AnalyzerConfig {
            stemmer: Stemmer::None,
            ..de.clone()
        };
        assert_eq!(
            Analyzer::new(unstemmed).unwrap().analyze("Die Häuser"),
            ["hauser"]
        );
        let no_stop = AnalyzerConfig {
            stopwords: Stopwords::None,
            ..de
        };
        assert_eq!(
            Analyzer::new(no_stop).unwrap().analyze("Die Häuser"),
            ["die", "haus"]
        );
    }

    #[test]
    fn language_chains() {
        assert_eq!(
            run("lucene-de", "Die Häuser der Straße"),
            ["haus", "strass"]
        );
        assert_eq!(
            run("lucene-fr", "L'avion et les chevaux"),
            ["avion", "cheval"]
        );
        assert_eq!(run("lucene-tr", "Türkiye'de IŞIK"), ["türki", "ışık"]);
        assert_eq!(
            run("lucene-nl", "het kind en de fietsen"),
            ["kinder", "fiets"]
        );
        // `всё` is no stopword (the list has `все`), and stems to `все`.
        assert_eq!(run("lucene-ru", "ещё всё его"), ["ещ", "все"]);
    }

    #[test]
    fn presets_round_trip_through_their_names() {
        for name in PRESETS {
            assert_eq!(
                AnalyzerConfig::preset(name).unwrap().preset_name(),
                Some(*name)
            );
        }
        assert!(matches!(
            AnalyzerConfig::preset("nope"),
            Err(Error::Analyzer(_))
        ));
    }

    #[test]
    fn plain_is_python_w_on_lowercased_text() {
        assert_eq!(
            run("plain", "Don't STOP-me İx"),
            ["don", "t", "stop", "me", "i", "x"]
        );
    }

    #[test]
    fn code_adds_identifier_parts() {
        assert_eq!(
            run("code", "getUserById foo_foo chunk __init__"),
            [
                "getuserbyid",
                "get",
                "user",
                "by",
                "id",
                "foo_foo",
                "foo",
                "foo",
                "chunk",
                "__init__"
            ]
        );
    }

    #[test]
    fn whitespace_keeps_tokens_verbatim() {
        assert_eq!(run("whitespace", " A b-c  D. "), ["A", "b-c", "D."]);
    }

    #[test]
    fn lucene_english_chain() {
        assert_eq!(
            run(
                "lucene-english",
                "The Running foxes' quickly-jumped over the lazy dogs of U.S.A. in 2024 e-mail user@example.com it's"
            ),
            [
                "run",
                "fox",
                "quickli",
                "jump",
                "over",
                "lazi",
                "dog",
                "u.s.a",
                "2024",
                "e",
                "mail",
                "user",
                "example.com"
            ]
        );
    }

    /// Every name of `T` parses to its choice and back; near misses do not.
    fn round_trips<T: Choice + std::fmt::Debug>() {
        for &(name, choice) in T::ALL {
            assert_eq!(T::parse(name).unwrap(), choice);
            assert_eq!(choice.name(), name);
        }
        for bad in ["", "Standard", "snowball", "none "] {
            assert!(T::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn option_names_round_trip() {
        round_trips::<Tokenizer>();
        round_trips::<Stemmer>();
        for name in Stopwords::NAMED {
            assert_eq!(Stopwords::parse(name).unwrap().name(), Some(name));
        }
        assert_eq!(Stopwords::Custom(vec!["a".into()]).name(), None);
        assert!(Stopwords::parse("english").is_err());
    }
}
