//! Snowball stemmers from `rust-stemmers`, made to agree with the newer
//! Snowball release Lucene 9.9 generated its stemmers from.
//!
//! Checked word for word against Lucene on wordfreq's lists (Danish 29k
//! words, Dutch 311k, Hungarian 47k, Norwegian 319k, Russian 713k, Turkish
//! 63k): the only differences are the two rules applied here. Finnish
//! differed more and has its own module, `finnish`.

use super::codes::Language;

/// Danish vowels (Snowball's `v` grouping).
const DANISH_VOWELS: &str = "aeiouyæåø";
/// Danish consonants (Lucene's Snowball `c` grouping).
const DANISH_CONSONANTS: &str = "bcdfghjklmnpqrstvwxz";

/// A Snowball stemmer for one language.
pub struct Snowball {
    language: Language,
    stemmer: rust_stemmers::Stemmer,
}

impl Snowball {
    /// The Snowball stemmer Lucene's analyzer for `language` uses, if any.
    pub fn of(language: Language) -> Option<Self> {
        use rust_stemmers::Algorithm as A;
        let algorithm = match language {
            Language::Da => A::Danish,
            Language::Hu => A::Hungarian,
            Language::Nl => A::Dutch,
            Language::No => A::Norwegian,
            Language::Ru => A::Russian,
            Language::Tr => A::Turkish,
            _ => return None,
        };
        Some(Snowball {
            language,
            stemmer: rust_stemmers::Stemmer::create(algorithm),
        })
    }

    /// The stem of `term`.
    pub fn stem(&self, term: &str) -> String {
        match self.language {
            // Newer Russian folds `ё` into `е` first.
            Language::Ru if term.contains('ё') => {
                self.stemmer.stem(&term.replace('ё', "е")).into_owned()
            }
            Language::Da => self.danish(term),
            _ => self.stemmer.stem(term).into_owned(),
        }
    }

    /// Newer Danish undoubles only consonants at the end (`a000` stays),
    /// where the older one undoubled any non-vowel. Every other step deletes
    /// suffixes starting with a letter, so a stem `r` ending in such a
    /// character `x` with `r + x` starting the word lost `x` to undoubling.
    fn danish(&self, term: &str) -> String {
        let stem = self.stemmer.stem(term).into_owned();
        match stem.chars().last() {
            Some(x)
                if !DANISH_VOWELS.contains(x)
                    && !DANISH_CONSONANTS.contains(x)
                    && term
                        .strip_prefix(stem.as_str())
                        .is_some_and(|rest| rest.starts_with(x)) =>
            {
                let mut kept = stem;
                kept.push(x);
                kept
            }
            _ => stem,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_snowball_rules() {
        let da = Snowball::of(Language::Da).unwrap();
        assert_eq!(da.stem("a000"), "a000");
        assert_eq!(da.stem("hestene"), "hest");
        assert_eq!(da.stem("blomsterne"), "blomst");
        let ru = Snowball::of(Language::Ru).unwrap();
        assert_eq!(ru.stem("ребёнка"), "ребенк");
        assert!(Snowball::of(Language::De).is_none());
    }
}
