//! Where each term comes from: the span of the text Lucene's
//! `OffsetAttribute` gives it. Filters keep a token's span, so a stemmed,
//! normalized, elided or possessive-stripped term spans its whole source
//! token; a CJK bigram spans both characters, a code sub-token its part.
//!
//! Spans are byte ranges of the analyzed text here; the Python binding
//! gives them as `str` indices.

use std::ops::Range;

use super::{Analyzer, Tokenizer, filters, word};

impl Analyzer {
    /// Calls `emit` with each term of `text`, in the order of
    /// [`Analyzer::analyze_with`], and the byte range of `text` it comes
    /// from. Starts never decrease.
    pub fn analyze_spans_with(&self, text: &str, emit: &mut dyn FnMut(&str, Range<usize>)) {
        let base = text.as_ptr() as usize;
        let span = |part: &str| {
            let start = part.as_ptr() as usize - base;
            start..start + part.len()
        };
        match self.config.tokenizer {
            Tokenizer::Standard => match &self.chain {
                Some(chain) => chain.tokenize_spans(text, &mut |token, range| {
                    self.filter(token, &mut |term| emit(term, range.clone()))
                }),
                None => super::standard::tokenize(text, &mut |token| {
                    self.filter_spans(token, &mut |term, part| emit(term, span(part)))
                }),
            },
            Tokenizer::Whitespace => word::tokenize_whitespace(text, &mut |token| {
                self.filter_spans(token, &mut |term, part| emit(term, span(part)))
            }),
            Tokenizer::Word => {
                let cut = self.word_text(text);
                let align = Alignment::new(text, &cut);
                let cut_base = cut.as_ptr() as usize;
                word::tokenize(&cut, &mut |token| {
                    self.filter_spans(token, &mut |term, part| {
                        let start = part.as_ptr() as usize - cut_base;
                        emit(term, align.map(start..start + part.len()))
                    })
                })
            }
        }
    }

    /// [`Analyzer::filter`], with each term the part of `token` it comes
    /// from: `token` itself, or a code sub-token.
    fn filter_spans<'t>(&self, token: &'t str, emit: &mut dyn FnMut(&str, &'t str)) {
        if !self.config.code_subtokens {
            return self.filter(token, &mut |term| emit(term, token));
        }
        let stripped = if self.config.possessive {
            filters::strip_possessive(token)
        } else {
            token
        };
        self.emit_code_token(stripped, &mut |term, part| {
            // The whole token keeps its span, possessive and all.
            let whole = std::ptr::eq(part, stripped);
            emit(term, if whole { token } else { part })
        });
    }
}

/// Byte positions of a lowercased text mapped back to the original: the
/// start of each original character in both.
struct Alignment {
    /// `(lowercased, original)` byte offsets of each original character,
    /// and of the end; empty when the two texts are the same.
    starts: Vec<(usize, usize)>,
}

impl Alignment {
    fn new(text: &str, lowered: &str) -> Self {
        if std::ptr::eq(text, lowered) || text.is_ascii() {
            // Unchanged, or ASCII lowercasing: byte for byte.
            return Alignment { starts: Vec::new() };
        }
        let mut starts = Vec::with_capacity(text.len() + 1);
        let mut at = 0;
        for (i, c) in text.char_indices() {
            starts.push((at, i));
            // `str::to_lowercase` maps each character on its own, but for
            // the final sigma (`ς` or `σ`, both two bytes like `Σ`).
            at += c.to_lowercase().map(char::len_utf8).sum::<usize>();
        }
        debug_assert_eq!(at, lowered.len());
        starts.push((at, text.len()));
        Alignment { starts }
    }

    /// The original range of `range` of the lowercased text: from the
    /// character its start falls in to the end of the one its end does.
    fn map(&self, range: Range<usize>) -> Range<usize> {
        if self.starts.is_empty() {
            return range;
        }
        let before = self.starts.partition_point(|&(l, _)| l <= range.start);
        let start = self.starts[before - 1].1;
        let after = self.starts.partition_point(|&(l, _)| l < range.end);
        start..self.starts[after.min(self.starts.len() - 1)].1
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::Analyzer;

    fn spans(preset: &str, text: &str) -> Vec<(String, String)> {
        let analyzer = Analyzer::preset(preset).unwrap();
        let mut out = Vec::new();
        analyzer.analyze_spans_with(text, &mut |term, range| {
            out.push((term.to_owned(), text[range].to_owned()))
        });
        let terms: Vec<String> = out.iter().map(|(t, _)| t.clone()).collect();
        assert_eq!(terms, analyzer.analyze(text), "{preset}: {text:?}");
        out
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn filters_keep_the_token_span() {
        assert_eq!(
            spans("lucene-english", "The Running dog's"),
            pairs(&[("run", "Running"), ("dog", "dog's")])
        );
        assert_eq!(
            spans("lucene-fr", "L'avion"),
            pairs(&[("avion", "L'avion")])
        );
        assert_eq!(
            spans("lucene-de", "Die Häuser"),
            pairs(&[("haus", "Häuser")])
        );
    }

    #[test]
    fn bigrams_span_both_characters() {
        assert_eq!(
            spans("lucene-zh", "中华人 x"),
            pairs(&[("中华", "中华"), ("华人", "华人"), ("x", "x")])
        );
        // Width folding merges the voiced mark: each character spans the
        // whole token, as in `CJKBigramFilter`.
        assert_eq!(
            spans("lucene-ko", "ｶﾞｷ 国"),
            pairs(&[("ガキ", "ｶﾞｷ"), ("国", "国")])
        );
        assert_eq!(spans("lucene-ko", "ｶｷ"), pairs(&[("カキ", "ｶｷ")]));
    }

    #[test]
    fn word_spans_are_of_the_original_text() {
        assert_eq!(
            spans("plain", "İx ΟΔΟΣ ẞa"),
            pairs(&[("i", "İ"), ("x", "x"), ("οδος", "ΟΔΟΣ"), ("ßa", "ẞa")])
        );
        assert_eq!(
            spans("code", "getUser x"),
            pairs(&[
                ("getuser", "getUser"),
                ("get", "get"),
                ("user", "User"),
                ("x", "x")
            ])
        );
        assert_eq!(
            spans("whitespace", " a  b"),
            pairs(&[("a", "a"), ("b", "b")])
        );
    }
}
