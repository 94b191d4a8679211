//! Builds a segment in memory: documents analyzed in parallel chunks, each
//! with a vocabulary of its own, merged into one vocabulary and posting
//! pool; `finish` sorts the vocabulary and compresses the postings.

use std::sync::Arc;

use rayon::prelude::*;

use super::interner::{Interner, piece, span, term_hash};
use super::pool::{PoolList, PostingPool};
use super::reader::SegmentData;
use super::serializer::{ListBatch, PostingsWriter, open_store};
use super::sorted_run::SortedRun;
use crate::analysis::Analyzer;
use crate::docstore::DocStoreWriter;
use crate::document::Doc;
use crate::error::{Error, Result};

/// Documents per parallel analysis task.
const ANALYSIS_CHUNK: usize = 1024;

/// Distinct tokens (and terms) a chunk's interners hold before their tables
/// first grow: 16 per document, at most 2^14 (a chunk of the Linux corpus
/// holds about 9,400 distinct terms, one of SciFact's abstracts about
/// 12,000), so most chunks never rehash.
fn chunk_capacity(docs: usize) -> usize {
    (docs * 16).min(1 << 14)
}

/// The first 8 bytes of `term`, zero-padded, as a number that orders as
/// the bytes do: terms whose keys differ compare as their keys.
fn prefix_key(term: &str) -> u64 {
    let mut head = [0u8; 8];
    let n = term.len().min(8);
    head[..n].copy_from_slice(&term.as_bytes()[..n]);
    u64::from_be_bytes(head)
}

/// Analyzed documents of one chunk: a chunk-local vocabulary and, grouped
/// by local term id, the (doc, tf) postings in doc order.
struct AnalyzedChunk {
    lengths: Vec<u32>,
    terms: Interner,
    /// `starts[t]..starts[t + 1]` are local term `t`'s postings.
    starts: Vec<u32>,
    docs: Vec<u32>,
    tfs: Vec<u32>,
}

/// Bytes a builder is charged per distinct term, besides the term's text
/// and postings: the vocabulary entry (text end, hash), the list head and
/// hash table slack.
const TERM_OVERHEAD: usize = 48;
/// Bytes charged per document besides its docid text: length, docid offset.
const DOC_OVERHEAD: usize = 16;

/// Accumulates documents, then compresses them into a [`SegmentData`].
pub struct SegmentBuilder {
    analyzer: Arc<Analyzer>,
    /// Every docid, concatenated; `docid_ends[i]` is where docid `i` ends.
    docid_text: String,
    docid_ends: Vec<usize>,
    lengths: Vec<u32>,
    terms: Interner,
    postings: PostingPool,
    /// Analyzed chunks not yet merged, and the id of their first document.
    pending: Option<(usize, Vec<AnalyzedChunk>)>,
    store: Option<DocStoreWriter>,
}

impl SegmentBuilder {
    /// A builder analyzing with `analyzer`; keeps a document store if `store`.
    pub fn new(analyzer: Arc<Analyzer>, store: bool) -> Self {
        SegmentBuilder {
            analyzer,
            docid_text: String::new(),
            docid_ends: Vec::new(),
            lengths: Vec::new(),
            terms: Interner::default(),
            postings: PostingPool::default(),
            pending: None,
            store: store.then(DocStoreWriter::default),
        }
    }

    /// Number of documents added.
    pub fn len(&self) -> usize {
        self.docid_ends.len()
    }

    /// Whether no document was added.
    pub fn is_empty(&self) -> bool {
        self.docid_ends.is_empty()
    }

    /// The docid of document `doc` added so far.
    pub fn docid(&self, doc: usize) -> Option<&str> {
        piece(&self.docid_text, &self.docid_ends, doc)
    }

    /// An estimate of the memory the builder holds, in bytes: what a memory
    /// budget is compared with.
    pub fn memory_bytes(&self) -> usize {
        self.postings.pool.len() * 4
            + self.terms.len() * TERM_OVERHEAD
            + self.terms.text.len()
            + self.docid_ends.len() * DOC_OVERHEAD
            + self.docid_text.len()
            + self.store.as_ref().map_or(0, DocStoreWriter::memory_bytes)
    }

    /// Analyzes and adds `docs` in parallel. Docids must already be checked.
    pub fn add(&mut self, docs: Vec<Doc>) -> Result<()> {
        let base = self.len();
        if base + docs.len() > u32::MAX as usize {
            return Err(Error::Document(
                "a segment holds at most 4,294,967,295 documents".into(),
            ));
        }
        // The previous batch's chunks are merged while this batch is
        // analyzed, so with two threads or more the serial merge overlaps
        // the parallel analysis.
        let analyzer = self.analyzer.clone();
        let pending = self.pending.take();
        let (merged, chunks) = rayon::join(
            || -> Result<()> {
                if let Some((pending_base, chunks)) = pending {
                    self.merge_chunks(pending_base, chunks)?;
                }
                for doc in &docs {
                    if let Some(store) = &mut self.store {
                        store.add(&doc.contents, doc.raw.as_deref(), doc.derived);
                    }
                    self.docid_text.push_str(&doc.docid);
                    self.docid_ends.push(self.docid_text.len());
                }
                Ok(())
            },
            || -> Vec<AnalyzedChunk> {
                docs.par_chunks(ANALYSIS_CHUNK)
                    .map(|chunk| analyze_chunk(&analyzer, chunk))
                    .collect()
            },
        );
        merged?;
        self.pending = Some((base, chunks));
        Ok(())
    }

    /// Adds analyzed chunks whose first document is `base` to the postings.
    fn merge_chunks(&mut self, base: usize, chunks: Vec<AnalyzedChunk>) -> Result<()> {
        for (chunk_index, chunk) in chunks.into_iter().enumerate() {
            let room = PostingPool::room_needed(chunk.docs.len(), chunk.terms.len());
            if self.postings.pool.len() + room > u32::MAX as usize {
                return Err(Error::Document(
                    "too many postings for one segment; build with a smaller memory budget".into(),
                ));
            }
            let offset = (base + chunk_index * ANALYSIS_CHUNK) as u32;
            self.lengths.extend_from_slice(&chunk.lengths);
            for (t, &hash) in chunk.terms.hashes.iter().enumerate() {
                let (id, new) = self.terms.intern(chunk.terms.term(t as u32), hash);
                if new {
                    self.postings.lists.push(PoolList::default());
                }
                let range = chunk.starts[t] as usize..chunk.starts[t + 1] as usize;
                for (&doc, &tf) in chunk.docs[range.clone()].iter().zip(&chunk.tfs[range]) {
                    self.postings.push(id, doc + offset, tf);
                }
            }
        }
        Ok(())
    }

    /// Sorts the vocabulary, compresses the postings and returns the segment.
    pub fn finish(self) -> Result<SegmentData> {
        self.finish_run()?.into_segment()
    }

    /// Sorts the vocabulary and compresses the postings, without building
    /// the term dictionary yet.
    pub(crate) fn finish_run(mut self) -> Result<SortedRun> {
        if let Some((base, chunks)) = self.pending.take() {
            self.merge_chunks(base, chunks)?;
        }
        let SegmentBuilder {
            docid_text,
            docid_ends,
            lengths,
            terms: vocabulary,
            postings,
            store,
            ..
        } = self;
        // Sorted on an 8-byte prefix first, so most comparisons read no
        // text; the sorted terms are then written out end to end, so the
        // run merge and the dictionary read them in sequence.
        let mut sorted: Vec<(u64, &str, u32)> = (0..vocabulary.len() as u32)
            .map(|id| {
                let term = vocabulary.term(id);
                (prefix_key(term), term, id)
            })
            .collect();
        sorted.par_sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
        let mut term_text = String::with_capacity(vocabulary.text.len());
        let mut term_ends = Vec::with_capacity(sorted.len());
        let mut written = PostingsWriter::default();
        let mut batch = ListBatch::default();
        for &(_, term, id) in &sorted {
            term_text.push_str(term);
            term_ends.push(term_text.len());
            postings.read(id, &mut batch.docs, &mut batch.tfs);
            batch.end_list(&mut written, &lengths);
        }
        batch.flush(&mut written, &lengths);
        let num_docs = docid_ends.len() as u32;
        let store = store
            .map(|writer| open_store(writer.finish(), num_docs))
            .transpose()?;
        Ok(SortedRun {
            term_text,
            term_ends,
            postings: written,
            docid_text,
            docid_ends,
            lengths,
            store,
        })
    }
}

fn analyze_chunk(analyzer: &Analyzer, chunk: &[Doc]) -> AnalyzedChunk {
    let mut terms = Interner::with_capacity(chunk_capacity(chunk.len()));
    let mut lengths = Vec::with_capacity(chunk.len());
    // Per local term: its count in the current document.
    let mut counts: Vec<u32> = Vec::new();
    let mut touched: Vec<u32> = Vec::new();
    // (local term, local doc, tf), in doc order.
    let mut triples: Vec<(u32, u32, u32)> = Vec::new();
    // Each distinct token is filtered (lowercased, stemmed…) once per chunk:
    // the local terms of token `k` of `tokens` are `token_terms[span(&token_ends, k)]`.
    let mut tokens = Interner::with_capacity(chunk_capacity(chunk.len()));
    let mut token_ends: Vec<usize> = Vec::new();
    let mut token_terms: Vec<u32> = Vec::new();
    for (local_doc, doc) in chunk.iter().enumerate() {
        let mut length = 0u32;
        analyzer.tokenize_with(&doc.contents, &mut |token| {
            let (k, new) = tokens.intern(token, term_hash(token));
            if new {
                analyzer.filter(token, &mut |term| {
                    let hash = term_hash(term);
                    let (id, new) = terms.intern(term, hash);
                    if new {
                        counts.push(0);
                    }
                    token_terms.push(id);
                });
                token_ends.push(token_terms.len());
            }
            let terms_of_token = span(&token_ends, k as usize).expect("a filtered token");
            for &id in &token_terms[terms_of_token] {
                length = length.saturating_add(1);
                let count = &mut counts[id as usize];
                if *count == 0 {
                    touched.push(id);
                }
                *count += 1;
            }
        });
        lengths.push(length);
        for id in touched.drain(..) {
            let count = std::mem::take(&mut counts[id as usize]);
            triples.push((id, local_doc as u32, count));
        }
    }
    // Group by term, keeping doc order (a counting sort).
    let mut starts = vec![0u32; terms.len() + 1];
    for &(id, _, _) in &triples {
        starts[id as usize + 1] += 1;
    }
    for t in 0..terms.len() {
        starts[t + 1] += starts[t];
    }
    let mut fill = starts.clone();
    let mut docs = vec![0u32; triples.len()];
    let mut tfs = vec![0u32; triples.len()];
    for (id, doc, tf) in triples {
        let slot = &mut fill[id as usize];
        docs[*slot as usize] = doc;
        tfs[*slot as usize] = tf;
        *slot += 1;
    }
    AnalyzedChunk {
        lengths,
        terms,
        starts,
        docs,
        tfs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn prefix_keys_order_terms_as_bytes(terms in proptest::collection::vec("[a\\x00b\\u{e9}]{0,10}", 2..40)) {
            let mut by_key: Vec<&str> = terms.iter().map(String::as_str).collect();
            by_key.sort_by(|a, b| prefix_key(a).cmp(&prefix_key(b)).then_with(|| a.cmp(b)));
            let mut by_bytes = by_key.clone();
            by_bytes.sort();
            proptest::prop_assert_eq!(by_key, by_bytes);
        }
    }

    #[test]
    fn built_postings_equal_each_documents_analysis() {
        // Tokens repeat across documents and chunks, so most are filtered
        // once per chunk and their terms reused.
        let words = [
            "The",
            "the",
            "getUserById",
            "user_id",
            "Running",
            "runs",
            "John's",
            "JOHN'S",
            "a",
            "HTTPServer",
            "x2",
            "of",
            "naïve",
            "İx",
            "ΟΔΟΣ",
            "__init__",
            "e-mail",
            "U.S.A.",
        ];
        let docs: Vec<Doc> = (0..2 * ANALYSIS_CHUNK + 37)
            .map(|i| {
                let text: Vec<&str> = (0..i % 23)
                    .map(|j| words[(i * 7 + j * j * 3) % words.len()])
                    .collect();
                Doc::new(format!("d{i}"), text.join(" "))
            })
            .collect();
        for preset in crate::analysis::PRESETS {
            // Japanese needs IPADIC, which the Python suite installs (PyPI's `ipadic`)
            // and indexes with; here only where `RSERINI_IPADIC` names it.
            if *preset == "lucene-ja" && crate::analysis::language::japanese::dictionary().is_err()
            {
                continue;
            }
            let analyzer = Arc::new(Analyzer::preset(preset).unwrap());
            let mut builder = SegmentBuilder::new(analyzer.clone(), false);
            builder.add(docs.clone()).unwrap();
            let segment = builder.finish().unwrap();
            let mut expected: std::collections::BTreeMap<String, Vec<(u32, u32)>> =
                Default::default();
            for (d, doc) in docs.iter().enumerate() {
                let terms = analyzer.analyze(&doc.contents);
                assert_eq!(segment.length(d as u32) as usize, terms.len(), "{preset}");
                let mut counts: std::collections::BTreeMap<String, u32> = Default::default();
                for term in terms {
                    *counts.entry(term).or_default() += 1;
                }
                for (term, tf) in counts {
                    expected.entry(term).or_default().push((d as u32, tf));
                }
            }
            assert_eq!(segment.num_terms(), expected.len(), "{preset}");
            for (term, list) in expected {
                let ord = segment.term_ord(&term).expect("an indexed term");
                let mut got = Vec::new();
                segment.for_each_posting(ord, |doc, tf| got.push((doc, tf)));
                assert_eq!(got, list, "{preset} {term}");
            }
        }
    }
}
