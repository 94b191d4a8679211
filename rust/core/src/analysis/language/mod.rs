//! Lucene's analyzers for languages other than English, by the codes of
//! Pyserini's `get_lucene_analyzer(language=...)`.
//!
//! Each is the chain of the Lucene 9.9 analyzer Pyserini instantiates with
//! its default constructor, after the `StandardTokenizer`:
//!
//! | code | Lucene analyzer | chain |
//! |---|---|---|
//! | `ar` | `ArabicAnalyzer` | lowercase, decimal digits, stopwords, Arabic normalization, Arabic light stemmer |
//! | `bn` | `BengaliAnalyzer` | lowercase, decimal digits, Indic normalization, Bengali normalization, stopwords, Bengali stemmer |
//! | `da` | `DanishAnalyzer` | lowercase, stopwords, Snowball Danish |
//! | `de` | `GermanAnalyzer` | lowercase, stopwords, German normalization, German light stemmer |
//! | `es` | `SpanishAnalyzer` | lowercase, stopwords, Spanish light stemmer |
//! | `fi` | `FinnishAnalyzer` | lowercase, stopwords, Snowball Finnish (Lucene's release, here) |
//! | `fr` | `FrenchAnalyzer` | elision, lowercase, stopwords, French light stemmer |
//! | `hi` | `HindiAnalyzer` | lowercase, decimal digits, Indic normalization, Hindi normalization, stopwords, Hindi light stemmer |
//! | `hu` | `HungarianAnalyzer` | lowercase, stopwords, Snowball Hungarian |
//! | `id` | `IndonesianAnalyzer` | lowercase, stopwords, Indonesian stemmer (derivational) |
//! | `ko` | `CJKAnalyzer` | width folding, lowercase, CJK bigrams, stopwords (English) |
//! | `it` | `ItalianAnalyzer` | elision, lowercase, stopwords, Italian light stemmer |
//! | `ja` | `JapaneseAnalyzer` | width folding of the text, Kuromoji (search mode, IPADIC; see [`japanese`]) instead of the `StandardTokenizer`, base forms, part-of-speech stop tags, stopwords, katakana stemmer, lowercase |
//! | `nl` | `DutchAnalyzer` | lowercase, stopwords, stem overrides, Snowball Dutch |
//! | `no` | `NorwegianAnalyzer` | lowercase, stopwords, Snowball Norwegian |
//! | `pt` | `PortugueseAnalyzer` | lowercase, stopwords, Portuguese light stemmer |
//! | `ru` | `RussianAnalyzer` | lowercase, stopwords, Snowball Russian |
//! | `te` | `TeluguAnalyzer` | decimal digits, Indic normalization, Telugu normalization, stopwords, Telugu stemmer (no lowercasing) |
//! | `tr` | `TurkishAnalyzer` | apostrophe filter, Turkish lowercase, stopwords, Snowball Turkish |
//! | `zh` | `CJKAnalyzer` | width folding, lowercase, CJK bigrams, stopwords (English) |
//!
//! Pyserini's `th` (the JDK's Thai dictionary) has no preset: asking for it
//! raises an error that says why ([`unsupported`]).
//!
//! The Snowball stemmers come from `rust-stemmers`, checked word for word
//! against Lucene's generated ones (see `docs/parity.md`); where Lucene's
//! Snowball release differs, the difference is applied here.

pub mod arabic;
pub mod bengali;
pub mod cjk;
pub mod codes;
pub mod digits;
pub mod elision;
pub mod finnish;
pub mod french;
pub mod german;
pub mod hindi;
pub mod indic;
pub mod indonesian;
pub mod japanese;
pub mod romance;
pub mod snowball;
pub mod stopwords;
pub mod telugu;
pub mod turkish;
pub mod utf16;

use std::borrow::Cow;
use std::ops::Range;

pub use codes::{Language, unsupported};

use super::filters::lucene_lowercase;
use super::standard;
use crate::error::Result;

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
    /// Japanese's tokenizer, with its dictionary.
    japanese: Option<japanese::Japanese>,
}

impl Chain {
    /// The chain of `language`; without `stem`, its stemmer is left out.
    /// Fails only for Japanese without its dictionary.
    pub fn new(language: Language, stem: bool) -> Result<Self> {
        let japanese = match language {
            Language::Ja => Some(japanese::Japanese::new()?),
            _ => None,
        };
        Ok(Chain {
            language,
            stem,
            snowball: snowball::Snowball::of(language),
            japanese,
        })
    }

    /// The language.
    pub fn language(&self) -> Language {
        self.language
    }

    /// Calls `on_token` with each token of `text`: the `StandardTokenizer`'s,
    /// for CJK the bigrams (already width-folded and lowercased), for
    /// Japanese the base forms of the words kept by their part of speech.
    pub fn tokenize(&self, text: &str, on_token: &mut dyn FnMut(&str)) {
        match (self.language, &self.japanese) {
            (Language::Zh | Language::Ko, _) => cjk::tokenize(text, on_token),
            (_, Some(japanese)) => japanese.tokenize_spans(text, &mut |token, _| on_token(token)),
            _ => standard::tokenize(text, on_token),
        }
    }

    /// [`Chain::tokenize`], with the byte range of `text` each token comes
    /// from (a CJK bigram spans both characters).
    pub fn tokenize_spans(&self, text: &str, on_token: &mut dyn FnMut(&str, Range<usize>)) {
        match (self.language, &self.japanese) {
            (Language::Zh | Language::Ko, _) => cjk::tokenize_spans(text, on_token),
            (_, Some(japanese)) => japanese.tokenize_spans(text, on_token),
            _ => {
                let base = text.as_ptr() as usize;
                standard::tokenize(text, &mut |token| {
                    let start = token.as_ptr() as usize - base;
                    on_token(token, start..start + token.len())
                })
            }
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
            // Its width folding is done on the text, before the tokenizer.
            Language::Ja => Cow::Borrowed(token),
            Language::Ar => Cow::Owned(digits::fold(&lucene_lowercase(token)).into_owned()),
            // The Indic analyzers normalize before their stopword filter.
            Language::Hi => {
                Cow::Owned(indic_normalized(&lucene_lowercase(token), hindi::normalize))
            }
            Language::Bn => Cow::Owned(indic_normalized(
                &lucene_lowercase(token),
                bengali::normalize,
            )),
            Language::Te => Cow::Owned(indic_normalized(token, telugu::normalize)),
            _ => lucene_lowercase(token),
        }
    }

    /// The steps after the stopword filter (normalization, then the
    /// stemmer unless it is left out): calls `emit` with the term.
    pub fn finish(&self, term: &str, emit: &mut dyn FnMut(&str)) {
        if self.language == Language::Ja {
            // Katakana stemming, then lowercasing: last in `JapaneseAnalyzer`.
            let term = if self.stem {
                japanese::stem_katakana(term)
            } else {
                term
            };
            return emit(&lucene_lowercase(term));
        }
        let normalized = match self.language {
            Language::De => Cow::Owned(german::normalize(term)),
            Language::Ar => Cow::Owned(arabic::normalize(term)),
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
            Language::Ar => return emit(&arabic::stem(term)),
            Language::Bn => return emit(&bengali::stem(term)),
            Language::Hi => return emit(&hindi::stem(term)),
            Language::Te => return emit(&telugu::stem(term)),
            Language::De => return emit(&german::stem(term)),
            Language::Fi => return emit(&finnish::stem(term)),
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

/// Decimal digits folded, then Lucene's Indic normalization, then the
/// language's own (`normalize` over UTF-16 units).
fn indic_normalized(token: &str, normalize: fn(&mut [u16], usize) -> usize) -> String {
    utf16::with_units(&digits::fold(token), |s, len| {
        let len = indic::normalize(s, len);
        normalize(s, len)
    })
}
