//! Analyzing a corpus once: each document's term counts over a vocabulary
//! numbered in order of first appearance, counted in parallel runs of
//! documents and merged into what one sequential pass gives.

use rayon::prelude::*;

use super::Mode;
use super::lists::Lists;
use super::lowercase::python_lowercase_into;
use super::vocab::Vocab;
use crate::analysis::word;
use crate::token_cache::TokenCache;

/// The term counts of a corpus, or of a run of its documents.
#[derive(Debug, Default)]
pub(super) struct Counted {
    pub(super) vocab: Vocab,
    /// Per document: `(term, count)` in first-occurrence order.
    pub(super) tf: Lists<(u32, u32)>,
    /// Per document: its number of terms.
    pub(super) dl: Vec<u64>,
    /// Per term: the number of documents counting it.
    pub(super) df: Vec<u64>,
}

/// Per term, while counting a run: the last document counting it, its
/// entry's place in that document's list, and the number of documents
/// counting it so far. Kept together, so a term costs one memory read.
#[derive(Clone, Copy)]
struct Seen {
    doc: u32,
    slot: u32,
    df: u32,
}

/// Counts the terms of `texts` (numbered from 0, fewer than `u32::MAX`)
/// with one table lookup per token: each distinct token is analyzed once
/// (its terms kept in a [`TokenCache`]), and a term's entry in the current
/// document is found through [`Seen`].
fn count_run<T: AsRef<str>>(mode: Mode, texts: &[T]) -> Counted {
    let analyzer = mode.analyzer();
    let mut vocab = Vocab::default();
    let mut seen: Vec<Seen> = Vec::new();
    let mut cache = TokenCache::default();
    let mut tf: Lists<(u32, u32)> = Lists::default();
    // About one distinct term per 12 bytes of English: room for all, so the
    // list is not copied as it grows (pages never written cost nothing).
    let bytes: usize = texts.iter().map(|t| t.as_ref().len()).sum();
    tf.items.reserve(bytes / 8);
    let mut dl = Vec::with_capacity(texts.len());
    // A document's tokens, then their terms: looking them up in a loop of
    // their own lets the processor overlap the table reads' cache misses.
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut ids: Vec<u32> = Vec::new();
    let mut lowered = String::new();
    for (doc, text) in texts.iter().enumerate() {
        // What `analyzer.word_text` gives: `plain` lowercases the whole text
        // first, `code` cuts the original.
        let text = match mode {
            Mode::Plain => python_lowercase_into(text.as_ref(), &mut lowered),
            Mode::Code => text.as_ref(),
        };
        debug_assert_eq!(text, analyzer.word_text(texts[doc].as_ref()));
        spans.clear();
        word::for_each_span(text, |start, end| spans.push((start, end)));
        ids.clear();
        for &(start, end) in &spans {
            let analyze = |token: &str, terms: &mut Vec<u32>| {
                analyzer.filter(token, &mut |term| {
                    let (id, new) = vocab.intern_new(term);
                    if new {
                        let unseen = Seen {
                            doc: u32::MAX,
                            slot: 0,
                            df: 0,
                        };
                        seen.push(unseen);
                    }
                    terms.push(id);
                });
            };
            cache.push_terms(text, start, end, analyze, &mut ids);
        }
        let doc = doc as u32;
        let row = tf.items.len();
        for &t in &ids {
            let s = &mut seen[t as usize];
            if s.doc == doc {
                tf.items[row + s.slot as usize].1 += 1;
            } else {
                *s = Seen {
                    doc,
                    slot: (tf.items.len() - row) as u32,
                    df: s.df + 1,
                };
                tf.items.push((t, 1));
            }
        }
        tf.starts.push(tf.items.len());
        dl.push(ids.len() as u64);
    }
    let df = seen.iter().map(|s| u64::from(s.df)).collect();
    Counted { vocab, tf, dl, df }
}

/// The number of runs to count `n` documents in: one per thread, of at
/// least 256 documents.
pub(super) fn runs(n: usize) -> usize {
    rayon::current_num_threads().clamp(1, 1 + n / 256)
}

/// [`count_run`] over `texts` cut into `runs` runs (counted in parallel),
/// merged so that term ids follow first appearance in the whole corpus:
/// the same output for any number of runs.
pub(super) fn count_in_runs<T: AsRef<str> + Sync>(mode: Mode, texts: &[T], runs: usize) -> Counted {
    let run_len = texts.len().div_ceil(runs.max(1)).max(1);
    let mut parts: Vec<Counted> = texts
        .par_chunks(run_len)
        .map(|run| count_run(mode, run))
        .collect();
    if parts.is_empty() {
        return Counted::default();
    }
    let mut out = parts.remove(0);
    let more: usize = parts.iter().map(|p| p.tf.items.len()).sum();
    out.tf.items.reserve(more);
    for part in parts {
        let ids: Vec<u32> = (0..part.vocab.len() as u32)
            .map(|t| out.vocab.intern(part.vocab.term(t)))
            .collect();
        out.df.resize(out.vocab.len(), 0);
        for (&id, &d) in ids.iter().zip(&part.df) {
            out.df[id as usize] += d;
        }
        for list in part.tf.iter() {
            out.tf.push(list.iter().map(|&(t, c)| (ids[t as usize], c)));
        }
        out.dl.extend(part.dl);
    }
    out
}
