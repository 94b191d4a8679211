//! Lucene's analyzers for languages other than English, by the codes of
//! Pyserini's `get_lucene_analyzer(language=...)`.
//!
//! Each is the chain of the Lucene 9.9 analyzer Pyserini instantiates with
//! its default constructor, after the `StandardTokenizer`:
//!
//! | code | Lucene analyzer | chain |
//! |---|---|---|
//! | `da` | `DanishAnalyzer` | lowercase, stopwords, Snowball Danish |
//! | `de` | `GermanAnalyzer` | lowercase, stopwords, German normalization, German light stemmer |
//! | `es` | `SpanishAnalyzer` | lowercase, stopwords, Spanish light stemmer |
//! | `fr` | `FrenchAnalyzer` | elision, lowercase, stopwords, French light stemmer |
//! | `hu` | `HungarianAnalyzer` | lowercase, stopwords, Snowball Hungarian |
//! | `id` | `IndonesianAnalyzer` | lowercase, stopwords, Indonesian stemmer (derivational) |
//! | `ko` | `CJKAnalyzer` | width folding, lowercase, CJK bigrams, stopwords (English) |
//! | `it` | `ItalianAnalyzer` | elision, lowercase, stopwords, Italian light stemmer |
//! | `nl` | `DutchAnalyzer` | lowercase, stopwords, stem overrides, Snowball Dutch |
//! | `no` | `NorwegianAnalyzer` | lowercase, stopwords, Snowball Norwegian |
//! | `pt` | `PortugueseAnalyzer` | lowercase, stopwords, Portuguese light stemmer |
//! | `ru` | `RussianAnalyzer` | lowercase, stopwords, Snowball Russian |
//! | `tr` | `TurkishAnalyzer` | apostrophe filter, Turkish lowercase, stopwords, Snowball Turkish |
//! | `zh` | `CJKAnalyzer` | width folding, lowercase, CJK bigrams, stopwords (English) |
//!
//! The Snowball stemmers come from `rust-stemmers`, checked word for word
//! against Lucene's generated ones (see `docs/parity.md`); where Lucene's
//! Snowball release differs, the difference is applied here.

pub mod cjk;
pub mod elision;
pub mod french;
pub mod german;
pub mod indonesian;
pub mod romance;
pub mod snowball;
pub mod stopwords;
pub mod turkish;
pub mod utf16;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::Choice;
use super::filters::lucene_lowercase;
use super::standard;
use crate::error::Error;

/// A language with a Lucene analyzer, named by its Pyserini code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Danish.
    Da,
    /// German.
    De,
    /// Spanish.
    Es,
    /// French.
    Fr,
    /// Hungarian.
    Hu,
    /// Indonesian.
    Id,
    /// Italian.
    It,
    /// Korean (CJK bigrams).
    Ko,
    /// Dutch.
    Nl,
    /// Norwegian (Bokmål).
    No,
    /// Portuguese.
    Pt,
    /// Russian.
    Ru,
    /// Turkish.
    Tr,
    /// Chinese (CJK bigrams).
    Zh,
}

impl Choice for Language {
    const ALL: &'static [(&'static str, Self)] = &[
        ("da", Language::Da),
        ("de", Language::De),
        ("es", Language::Es),
        ("fr", Language::Fr),
        ("hu", Language::Hu),
        ("id", Language::Id),
        ("it", Language::It),
        ("ko", Language::Ko),
        ("nl", Language::Nl),
        ("no", Language::No),
        ("pt", Language::Pt),
        ("ru", Language::Ru),
        ("tr", Language::Tr),
        ("zh", Language::Zh),
    ];

    fn unknown(name: &str) -> Error {
        let codes: Vec<&str> = Self::ALL.iter().map(|(n, _)| *n).collect();
        Error::Analyzer(format!(
            "unknown language {name:?}; choose one of {}",
            codes.join(", ")
        ))
    }
}

impl Language {
    /// The name of its analyzer preset and stopword list, `lucene-<code>`.
    pub fn preset(self) -> &'static str {
        match self {
            Language::Da => "lucene-da",
            Language::De => "lucene-de",
            Language::Es => "lucene-es",
            Language::Fr => "lucene-fr",
            Language::Hu => "lucene-hu",
            Language::Id => "lucene-id",
            Language::It => "lucene-it",
            Language::Ko => "lucene-ko",
            Language::Nl => "lucene-nl",
            Language::No => "lucene-no",
            Language::Pt => "lucene-pt",
            Language::Ru => "lucene-ru",
            Language::Tr => "lucene-tr",
            Language::Zh => "lucene-zh",
        }
    }

    /// The language of a `lucene-<code>` name.
    pub fn of_preset(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .map(|(_, l)| *l)
            .find(|l| l.preset() == name)
    }
}

/// `DutchAnalyzer`'s default stem overrides: these words are not stemmed
/// by Snowball but replaced.
const DUTCH_OVERRIDES: [(&str, &str); 4] = [
    ("fiets", "fiets"),
    ("bromfiets", "bromfiets"),
    ("ei", "eier"),
    ("kind", "kinder"),
];

/// The language-specific steps of one Lucene analyzer, around its stopword
/// filter: [`Chain::prepare`] before it, [`Chain::finish`] after it.
pub struct Chain {
    language: Language,
    stem: bool,
    snowball: Option<snowball::Snowball>,
}

impl Chain {
    /// The chain of `language`; without `stem`, its stemmer is left out.
    pub fn new(language: Language, stem: bool) -> Self {
        Chain {
            language,
            stem,
            snowball: snowball::Snowball::of(language),
        }
    }

    /// The language.
    pub fn language(&self) -> Language {
        self.language
    }

    /// Calls `on_token` with each token of `text`: the `StandardTokenizer`'s,
    /// or for CJK the bigrams (already width-folded and lowercased).
    pub fn tokenize(&self, text: &str, on_token: &mut dyn FnMut(&str)) {
        match self.language {
            Language::Zh | Language::Ko => cjk::tokenize(text, on_token),
            _ => standard::tokenize(text, on_token),
        }
    }

    /// The steps between the tokenizer and the stopword filter: the term
    /// the stopwords are looked up with.
    pub fn prepare<'a>(&self, token: &'a str) -> Cow<'a, str> {
        match self.language {
            Language::Tr => Cow::Owned(turkish::lowercase(turkish::strip_apostrophe(token))),
            Language::Fr => lucene_lowercase(elision::strip(token, elision::FRENCH)),
            Language::It => lucene_lowercase(elision::strip(token, elision::ITALIAN)),
            Language::Zh | Language::Ko => Cow::Borrowed(token),
            _ => lucene_lowercase(token),
        }
    }

    /// The steps after the stopword filter (normalization, then the
    /// stemmer unless it is left out): calls `emit` with the term.
    pub fn finish(&self, term: &str, emit: &mut dyn FnMut(&str)) {
        let normalized = match self.language {
            Language::De => Cow::Owned(german::normalize(term)),
            _ => Cow::Borrowed(term),
        };
        if self.stem {
            self.stem(&normalized, emit)
        } else {
            emit(&normalized)
        }
    }

    fn stem(&self, term: &str, emit: &mut dyn FnMut(&str)) {
        if self.language == Language::Nl
            && let Some((_, stem)) = DUTCH_OVERRIDES.iter().find(|(w, _)| *w == term)
        {
            return emit(stem);
        }
        match self.language {
            Language::De => return emit(&german::stem(term)),
            Language::Es => return emit(&romance::spanish(term)),
            Language::Fr => return emit(&french::stem(term)),
            Language::Id => return emit(&indonesian::stem(term)),
            Language::It => return emit(&romance::italian(term)),
            Language::Pt => return emit(&romance::portuguese(term)),
            _ => {}
        }
        match &self.snowball {
            Some(snowball) => emit(&snowball.stem(term)),
            None => emit(term),
        }
    }
}
