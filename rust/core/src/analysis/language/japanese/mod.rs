//! Lucene's `JapaneseAnalyzer`, as Pyserini's `language="ja"` builds it:
//! width folding of the text (`CJKWidthCharFilter`), then Kuromoji in
//! search mode over IPADIC (mecab-ipadic 2.7.0-20070801), punctuation
//! discarded, base forms, part-of-speech stop tags, stopwords, katakana
//! stemming and lowercasing.
//!
//! The dictionary is MeCab's compiled IPADIC, which PyPI's `ipadic` ships
//! (`pip install 'rserini[ja]'`); the Python package tells the core where
//! it is ([`set_default_directory`]), and `RSERINI_IPADIC` overrides it.
//! It is opened once per process, when the first Japanese analyzer is made.
//!
//! The tokenizer here yields each kept word's base form (the surface form
//! where IPADIC has none) with its surface's byte range, so the steps after
//! it depend on the term alone, as every other chain's do.

pub mod dictionary;
pub mod lattice;

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashSet;

use super::{cjk, stopwords};
use crate::error::{Error, Result};
pub use dictionary::Dictionary;
use dictionary::Source;

/// `JapaneseKatakanaStemFilter`'s minimum length, in UTF-16 units.
const KATAKANA_STEM_MIN: usize = 4;
/// The prolonged sound mark `ー` the katakana stemmer removes.
const PROLONGED_SOUND_MARK: char = '\u{30FC}';
/// The environment variable naming a dictionary directory.
pub const DIRECTORY_VARIABLE: &str = "RSERINI_IPADIC";

static DEFAULT_DIRECTORY: OnceLock<PathBuf> = OnceLock::new();
static OPENED: Mutex<Option<Arc<Dictionary>>> = Mutex::new(None);

/// Sets where the dictionary is when `RSERINI_IPADIC` is not set (the
/// Python package's `ipadic`); the first call wins.
pub fn set_default_directory(dir: PathBuf) {
    let _ = DEFAULT_DIRECTORY.set(dir);
}

/// The dictionary, opened on first use.
pub fn dictionary() -> Result<Arc<Dictionary>> {
    let mut opened = OPENED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(dictionary) = opened.as_ref() {
        return Ok(Arc::clone(dictionary));
    }
    let dir = match std::env::var_os(DIRECTORY_VARIABLE) {
        Some(dir) => PathBuf::from(dir),
        None => DEFAULT_DIRECTORY.get().cloned().ok_or_else(|| {
            Error::Analyzer(format!(
                "Japanese (\"ja\") needs MeCab's IPADIC dictionary, which Lucene's Kuromoji uses: \
                 pip install 'rserini[ja]' (the `ipadic` package), or set {DIRECTORY_VARIABLE} to \
                 a directory with {} compiled for UTF-8",
                dictionary::FILES.join(", ")
            ))
        })?,
    };
    let dictionary = Arc::new(open_checked(&dir)?);
    *opened = Some(Arc::clone(&dictionary));
    Ok(dictionary)
}

fn open_checked(dir: &Path) -> Result<Dictionary> {
    if !dir.is_dir() {
        return Err(Error::Analyzer(format!(
            "the Japanese dictionary directory {} does not exist",
            dir.display()
        )));
    }
    Dictionary::open(dir)
}

/// Lucene's default part-of-speech stop tags of `JapaneseAnalyzer`.
fn stop_tags() -> FxHashSet<&'static str> {
    stopwords::word_lines(include_str!("stoptags.txt")).collect()
}

/// The tokenizer and the steps that need the dictionary's features.
pub struct Japanese {
    dictionary: Arc<Dictionary>,
    stop_tags: FxHashSet<&'static str>,
}

impl Japanese {
    /// The analyzer's tokenizer, with the process's dictionary.
    pub fn new() -> Result<Self> {
        Ok(Japanese {
            dictionary: dictionary()?,
            stop_tags: stop_tags(),
        })
    }

    /// Calls `on_token` with each kept word of `text` and its surface's byte
    /// range: Kuromoji's search-mode segmentation without punctuation
    /// (`JapaneseTokenizer`), each word as its base form
    /// (`JapaneseBaseFormFilter`), words of a stop tag left out
    /// (`JapanesePartOfSpeechStopFilter`).
    pub fn tokenize_spans(&self, text: &str, on_token: &mut dyn FnMut(&str, Range<usize>)) {
        let (folded, sources) = cjk::fold_width_spans(text);
        let starts: Vec<usize> = folded.char_indices().map(|(at, _)| at).collect();
        // The source of the folded characters from byte `start` to `end`.
        let source = |bytes: &Range<usize>| {
            let first = starts.partition_point(|&at| at < bytes.start);
            let last = starts
                .partition_point(|&at| at < bytes.end)
                .saturating_sub(1);
            match (sources.get(first), sources.get(last)) {
                (Some(first), Some(last)) => first.start..last.end.max(first.end),
                _ => text.len()..text.len(),
            }
        };
        let text = folded.as_str();
        lattice::segment(&self.dictionary, text, &mut |word| {
            if lattice::is_punctuation(word.first_unit) {
                return;
            }
            let features = self.dictionary.feature(word.source, word.token);
            let fields: Vec<&str> = features.split(',').collect();
            let tag = part_of_speech(&fields);
            if self.stop_tags.contains(tag.as_str()) {
                return;
            }
            let surface = &text[word.bytes.clone()];
            match (word.source, fields.get(6)) {
                (Source::Known, Some(&base)) if base != "*" && !base.is_empty() => {
                    on_token(&dictionary::swap_dashes(base), source(&word.bytes))
                }
                _ => on_token(surface, source(&word.bytes)),
            }
        })
    }
}

/// The part-of-speech tag Lucene keeps for a word: the first four feature
/// fields without the `*` ones, joined by `-` (`名詞-固有名詞-地域-一般`).
fn part_of_speech(fields: &[&str]) -> String {
    let parts: Vec<&str> = fields
        .iter()
        .take(4)
        .copied()
        .filter(|f| *f != "*")
        .collect();
    parts.join("-")
}

/// `JapaneseKatakanaStemFilter`: a final `ー` off a katakana term of at
/// least four units.
pub fn stem_katakana(term: &str) -> &str {
    let units = term.encode_utf16().count();
    let katakana = term.encode_utf16().all(|u| (0x30A0..=0x30FF).contains(&u));
    if units >= KATAKANA_STEM_MIN && katakana && term.ends_with(PROLONGED_SOUND_MARK) {
        &term[..term.len() - PROLONGED_SOUND_MARK.len_utf8()]
    } else {
        term
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn katakana_stemming() {
        assert_eq!(stem_katakana("コンピューター"), "コンピュータ");
        assert_eq!(stem_katakana("サーバー"), "サーバ");
        assert_eq!(stem_katakana("バー"), "バー", "under four units");
        assert_eq!(stem_katakana("ひらがなー"), "ひらがなー", "not katakana");
    }

    #[test]
    fn tags() {
        assert_eq!(
            part_of_speech(&["名詞", "一般", "*", "*", "*"]),
            "名詞-一般"
        );
        assert_eq!(
            part_of_speech(&["助詞", "格助詞", "一般", "*"]),
            "助詞-格助詞-一般"
        );
        let tags = stop_tags();
        assert!(tags.contains("助詞-格助詞-一般") && tags.contains("記号"));
        assert!(!tags.contains("名詞-一般"));
    }

    #[test]
    fn missing_dictionary_is_an_error() {
        let err = open_checked(Path::new("/nonexistent/ipadic"))
            .err()
            .unwrap();
        assert!(err.to_string().contains("does not exist"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let err = Dictionary::open(dir.path()).err().unwrap();
        assert!(err.to_string().contains("matrix.bin"), "{err}");
        std::fs::write(
            dir.path().join("matrix.bin"),
            [2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        )
        .unwrap();
        std::fs::write(dir.path().join("sys.dic"), [7u8; 100]).unwrap();
        let err = Dictionary::open(dir.path()).err().unwrap();
        assert!(err.to_string().contains("sys.dic"), "{err}");
        assert!(err.to_string().contains("magic number"), "{err}");
        std::fs::write(dir.path().join("sys.dic"), [7u8; 10]).unwrap();
        let err = Dictionary::open(dir.path()).err().unwrap();
        assert!(err.to_string().contains("shorter than"), "{err}");
    }
}
