//! Splitting a text into runs of whole lines, so a search can point at
//! `path:first-last` instead of a whole file.
//!
//! A line ends at `\n` (a `\r` before it stays in the line), which is how
//! editors number lines. Every chunk holds `lines` consecutive lines except
//! the last one of a text, which may hold fewer: the chunks' spans tile the
//! text and their texts, joined, give it back byte for byte. A text with no
//! visible character (empty or only whitespace) has no chunk, since there is
//! nothing in it to find.

use std::num::NonZeroUsize;

/// A run of consecutive whole lines of a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineChunk<'a> {
    /// First line, 1-based.
    pub start_line: usize,
    /// Last line, 1-based and inclusive.
    pub end_line: usize,
    /// The lines, each with its line end.
    pub text: &'a str,
}

/// Cuts `text` into chunks of `lines` lines each (the last may be shorter).
pub fn chunk_lines(text: &str, lines: NonZeroUsize) -> Vec<LineChunk<'_>> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    let per_chunk = lines.get();
    let mut chunks = Vec::with_capacity(text.len() / (per_chunk * 32) + 1);
    let (mut start, mut first_line, mut ended) = (0usize, 1usize, 0usize);
    for (at, _) in text.match_indices('\n') {
        ended += 1;
        if ended == per_chunk {
            chunks.push(LineChunk {
                start_line: first_line,
                end_line: first_line + per_chunk - 1,
                text: &text[start..=at],
            });
            start = at + 1;
            first_line += per_chunk;
            ended = 0;
        }
    }
    if start < text.len() {
        // The rest: `ended` full lines, plus one without a line end if the
        // text does not finish with `\n`.
        let count = ended + usize::from(!text.ends_with('\n'));
        chunks.push(LineChunk {
            start_line: first_line,
            end_line: first_line + count - 1,
            text: &text[start..],
        });
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn n(lines: usize) -> NonZeroUsize {
        NonZeroUsize::new(lines).unwrap()
    }

    fn spans(text: &str, lines: usize) -> Vec<(usize, usize, &str)> {
        chunk_lines(text, n(lines))
            .into_iter()
            .map(|c| (c.start_line, c.end_line, c.text))
            .collect()
    }

    #[test]
    fn cuts_every_n_lines() {
        assert_eq!(
            spans("a\nb\nc\nd\ne\n", 2),
            [(1, 2, "a\nb\n"), (3, 4, "c\nd\n"), (5, 5, "e\n")]
        );
        assert_eq!(spans("a\nb\nc", 2), [(1, 2, "a\nb\n"), (3, 3, "c")]);
        assert_eq!(spans("a\nb\n", 2), [(1, 2, "a\nb\n")]);
        assert_eq!(spans("one line", 12), [(1, 1, "one line")]);
    }

    #[test]
    fn carriage_returns_stay_in_their_line() {
        assert_eq!(
            spans("a\r\nb\r\nc", 1),
            [(1, 1, "a\r\n"), (2, 2, "b\r\n"), (3, 3, "c")]
        );
    }

    #[test]
    fn blank_texts_have_no_chunk_but_blank_lines_are_kept() {
        assert!(spans("", 3).is_empty());
        assert!(spans(" \n\t\n\n", 3).is_empty());
        assert_eq!(spans("\n\nx\n", 2), [(1, 2, "\n\n"), (3, 3, "x\n")]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn chunks_tile_the_text(text in "[a\n\r é]{0,80}", lines in 1usize..6) {
            let chunks = chunk_lines(&text, n(lines));
            if text.trim().is_empty() {
                prop_assert!(chunks.is_empty());
                return Ok(());
            }
            let joined: String = chunks.iter().map(|c| c.text).collect();
            prop_assert_eq!(&joined, &text);
            let mut next = 1;
            for (i, c) in chunks.iter().enumerate() {
                prop_assert_eq!(c.start_line, next);
                let own = c.text.split_inclusive('\n').count();
                prop_assert_eq!(c.end_line - c.start_line + 1, own);
                prop_assert!(own == lines || i == chunks.len() - 1);
                next = c.end_line + 1;
            }
            prop_assert_eq!(next - 1, text.split_inclusive('\n').count());
        }
    }
}
