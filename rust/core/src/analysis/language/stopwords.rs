//! Lucene's default stopword lists, compiled into the binary.
//!
//! Two file formats, as Lucene's `WordlistLoader` reads them: Snowball's
//! (`|` starts a comment, several words per line) and one word per line
//! (lines starting with `#` are comments).

use super::codes::Language;

/// How a list file is written.
enum Format {
    Snowball,
    Lines,
}

/// The stopword file of `language` and its format.
fn source(language: Language) -> (&'static str, Format) {
    use Format::{Lines, Snowball};
    use Language::*;
    match language {
        Ar => (include_str!("stopwords/ar.txt"), Lines),
        Bn => (include_str!("stopwords/bn.txt"), Lines),
        Da => (include_str!("stopwords/danish.txt"), Snowball),
        De => (include_str!("stopwords/german.txt"), Snowball),
        Es => (include_str!("stopwords/spanish.txt"), Snowball),
        Fi => (include_str!("stopwords/finnish.txt"), Snowball),
        Fr => (include_str!("stopwords/french.txt"), Snowball),
        Hi => (include_str!("stopwords/hi.txt"), Lines),
        Id => (include_str!("stopwords/id.txt"), Lines),
        It => (include_str!("stopwords/italian.txt"), Snowball),
        Ja => (include_str!("stopwords/ja.txt"), Lines),
        Pt => (include_str!("stopwords/portuguese.txt"), Snowball),
        Hu => (include_str!("stopwords/hungarian.txt"), Snowball),
        Nl => (include_str!("stopwords/dutch.txt"), Snowball),
        No => (include_str!("stopwords/norwegian.txt"), Snowball),
        Ru => (include_str!("stopwords/russian.txt"), Snowball),
        Te => (include_str!("stopwords/te.txt"), Lines),
        Tr => (include_str!("stopwords/tr.txt"), Lines),
        Zh | Ko => (include_str!("stopwords/cjk.txt"), Lines),
    }
}

/// The default stopwords of Lucene's analyzer for `language`.
pub fn words(language: Language) -> Vec<&'static str> {
    let (text, format) = source(language);
    match format {
        Format::Snowball => text
            .lines()
            .flat_map(|line| line.split('|').next().unwrap_or("").split_whitespace())
            .collect(),
        Format::Lines => word_lines(text).collect(),
    }
}

/// `WordlistLoader.getWordSet`: every line not starting with the comment
/// mark `#`, trimmed (Lucene's one-word-a-line lists and stop tags).
pub fn word_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .map(str::trim)
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::choice::Choice;

    #[test]
    fn every_list_parses_to_words() {
        for &(_, language) in Language::ALL {
            let words = words(language);
            assert!(words.len() > 20, "{language:?}");
            assert!(words.iter().all(|w| !w.is_empty()), "{language:?}");
            // Lucene's Telugu list has two two-word entries, which no token matches.
            let spaced = words.iter().filter(|w| w.contains(' ')).count();
            assert_eq!(
                spaced,
                if language == Language::Te { 2 } else { 0 },
                "{language:?}"
            );
        }
        let da = words(Language::Da);
        assert!(da.contains(&"og") && da.contains(&"være"));
        assert!(!da.contains(&"and"), "comments are not words");
        assert!(words(Language::Tr).contains(&"acaba"));
    }
}
