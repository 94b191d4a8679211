//! The inverted index: documents in, an immutable searchable [`Index`] out.
//!
//! [`IndexBuilder`] analyzes batches of documents in parallel (rayon) and
//! gathers per-term posting lists in memory; [`IndexBuilder::finish`] sorts the
//! vocabulary, builds the term dictionary (an `fst` map from term to term
//! ordinal) and compresses the postings ([`crate::postings`]).
//!
//! Internal document ids are `u32`s in insertion order. External docids are
//! strings; the tie rule (score descending, then docid ascending) uses each
//! document's rank in docid order, computed once at build time.

use std::collections::HashMap;
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::analysis::{Analyzer, AnalyzerConfig};
use crate::error::{Error, Result};
use crate::fieldnorm;
use crate::postings::{self, BlockMeta, TermInfo};
use crate::scoring::CollectionStats;

/// Documents per parallel analysis task.
const ANALYSIS_CHUNK: usize = 512;

/// Size figures of an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexStats {
    /// Documents, empty ones included.
    pub num_docs: u64,
    /// Documents with at least one indexed term (Lucene's `docCount`).
    pub num_nonempty_docs: u64,
    /// Distinct terms.
    pub num_terms: u64,
    /// (term, document) pairs.
    pub num_postings: u64,
    /// Sum of all document lengths (terms indexed, counting repeats).
    pub total_terms: u64,
    /// Bytes of compressed postings.
    pub postings_bytes: u64,
}

/// An immutable, searchable inverted index. `Send + Sync`: share it freely.
pub struct Index {
    pub(crate) analyzer: Analyzer,
    pub(crate) docids: Vec<String>,
    pub(crate) docid_rank: Vec<u32>,
    pub(crate) lengths: Vec<u32>,
    pub(crate) norms: Vec<u8>,
    pub(crate) terms: fst::Map<Vec<u8>>,
    pub(crate) term_infos: Vec<TermInfo>,
    pub(crate) blocks: Vec<BlockMeta>,
    pub(crate) postings: Vec<u8>,
    pub(crate) stats: IndexStats,
    docid_lookup: OnceLock<HashMap<String, u32>>,
    tfidf_norms: OnceLock<Vec<f64>>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// A term's ordinal in the term dictionary.
pub type TermOrd = u32;

impl Index {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_parts(
        analyzer: Analyzer,
        docids: Vec<String>,
        docid_rank: Vec<u32>,
        lengths: Vec<u32>,
        norms: Vec<u8>,
        terms: fst::Map<Vec<u8>>,
        term_infos: Vec<TermInfo>,
        blocks: Vec<BlockMeta>,
        postings: Vec<u8>,
    ) -> Self {
        let stats = IndexStats {
            num_docs: docids.len() as u64,
            num_nonempty_docs: lengths.iter().filter(|&&l| l > 0).count() as u64,
            num_terms: term_infos.len() as u64,
            num_postings: term_infos.iter().map(|t| u64::from(t.df)).sum(),
            total_terms: lengths.iter().map(|&l| u64::from(l)).sum(),
            postings_bytes: postings.len() as u64,
        };
        Index {
            analyzer,
            docids,
            docid_rank,
            lengths,
            norms,
            terms,
            term_infos,
            blocks,
            postings,
            stats,
            docid_lookup: OnceLock::new(),
            tfidf_norms: OnceLock::new(),
        }
    }

    /// Builds an index from `(docid, text)` pairs with a single batch.
    pub fn build(config: AnalyzerConfig, docs: Vec<(String, String)>) -> Result<Index> {
        let mut builder = IndexBuilder::new(config)?;
        builder.add_batch(docs)?;
        builder.finish()
    }

    /// The analyzer queries are run through (the one documents were indexed with).
    pub fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// Size figures.
    pub fn stats(&self) -> IndexStats {
        self.stats
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.docids.len()
    }

    /// Whether the index holds no document.
    pub fn is_empty(&self) -> bool {
        self.docids.is_empty()
    }

    /// The external docid of internal id `doc`.
    pub fn docid(&self, doc: u32) -> Option<&str> {
        self.docids.get(doc as usize).map(String::as_str)
    }

    /// All docids in internal-id order.
    pub fn docids(&self) -> &[String] {
        &self.docids
    }

    /// The internal id of `docid`.
    pub fn doc(&self, docid: &str) -> Result<u32> {
        let lookup = self.docid_lookup.get_or_init(|| {
            self.docids
                .iter()
                .enumerate()
                .map(|(i, d)| (d.clone(), i as u32))
                .collect()
        });
        lookup
            .get(docid)
            .copied()
            .ok_or_else(|| Error::UnknownDocid(docid.to_owned()))
    }

    /// Rank of `doc`'s docid in ascending docid order (the tie-break key).
    #[inline]
    pub fn docid_rank(&self, doc: u32) -> u32 {
        self.docid_rank[doc as usize]
    }

    /// Exact length (indexed terms) of `doc`.
    #[inline]
    pub fn length(&self, doc: u32) -> u32 {
        self.lengths[doc as usize]
    }

    /// Lucene's one-byte norm of `doc`.
    #[inline]
    pub fn norm(&self, doc: u32) -> u8 {
        self.norms[doc as usize]
    }

    /// The ordinal of `term`, if indexed.
    pub fn term_ord(&self, term: &str) -> Option<TermOrd> {
        self.terms.get(term).map(|o| o as TermOrd)
    }

    /// Where `ord`'s postings are.
    pub fn term_info(&self, ord: TermOrd) -> &TermInfo {
        &self.term_infos[ord as usize]
    }

    /// `ord`'s block table and postings bytes.
    pub fn term_postings(&self, ord: TermOrd) -> (&[BlockMeta], &[u8]) {
        let info = &self.term_infos[ord as usize];
        let first = info.first_block as usize;
        let blocks = &self.blocks[first..first + postings::num_blocks(info.df)];
        let end = self
            .term_infos
            .get(ord as usize + 1)
            .map_or(self.postings.len() as u64, |next| next.offset);
        (blocks, &self.postings[info.offset as usize..end as usize])
    }

    /// Collection statistics for BM25 in `length` mode: Lucene counts only
    /// documents with at least one indexed term.
    pub fn collection_stats(&self, length: crate::scoring::LengthMode) -> CollectionStats {
        let num_docs = match length {
            crate::scoring::LengthMode::Lucene => self.stats.num_nonempty_docs,
            crate::scoring::LengthMode::Exact => self.stats.num_docs,
        };
        CollectionStats {
            num_docs,
            total_terms: self.stats.total_terms,
        }
    }

    /// Per-document TF-IDF vector norms, computed on first use.
    pub(crate) fn tfidf_norms(&self) -> &[f64] {
        self.tfidf_norms.get_or_init(|| {
            let n = self.stats.num_docs;
            let mut squares = vec![0f64; self.len()];
            let mut decoder = postings::BlockDecoder::default();
            for ord in 0..self.term_infos.len() as TermOrd {
                let info = self.term_infos[ord as usize];
                let idf = crate::scoring::tfidf::idf(n, u64::from(info.df));
                let (blocks, bytes) = self.term_postings(ord);
                for b in 0..blocks.len() {
                    let Some(len) = decoder.decode(bytes, blocks, b, info.df) else {
                        continue;
                    };
                    for i in 0..len {
                        let w = crate::scoring::tfidf::sublinear_tf(decoder.tfs[i]) * idf;
                        if let Some(s) = squares.get_mut(decoder.docs[i] as usize) {
                            *s += w * w;
                        }
                    }
                }
            }
            squares.into_iter().map(f64::sqrt).collect()
        })
    }
}

/// Postings of one term while building: parallel arrays.
#[derive(Default)]
struct TermPostings {
    docs: Vec<u32>,
    tfs: Vec<u32>,
}

/// Analyzed documents of one chunk, with chunk-local term grouping.
struct AnalyzedChunk {
    lengths: Vec<u32>,
    postings: HashMap<String, TermPostings>,
}

/// Accumulates documents, then compresses them into an [`Index`].
pub struct IndexBuilder {
    analyzer: Analyzer,
    docids: Vec<String>,
    seen: HashMap<String, u32>,
    lengths: Vec<u32>,
    term_ids: HashMap<String, u32>,
    postings: Vec<TermPostings>,
}

impl IndexBuilder {
    /// A builder whose documents (and later queries) go through `config`.
    pub fn new(config: AnalyzerConfig) -> Result<Self> {
        Ok(IndexBuilder {
            analyzer: Analyzer::new(config)?,
            docids: Vec::new(),
            seen: HashMap::new(),
            lengths: Vec::new(),
            term_ids: HashMap::new(),
            postings: Vec::new(),
        })
    }

    /// Number of documents added so far.
    pub fn len(&self) -> usize {
        self.docids.len()
    }

    /// Whether no document has been added.
    pub fn is_empty(&self) -> bool {
        self.docids.is_empty()
    }

    /// Analyzes and adds a batch of `(docid, text)` documents, in parallel.
    /// Fails, adding nothing, on an empty or duplicate docid.
    pub fn add_batch(&mut self, docs: Vec<(String, String)>) -> Result<()> {
        let base = self.docids.len();
        if base + docs.len() > u32::MAX as usize {
            return Err(Error::Document(
                "an index holds at most 4,294,967,295 documents".into(),
            ));
        }
        let mut batch_seen: HashMap<&str, usize> = HashMap::new();
        for (i, (docid, _)) in docs.iter().enumerate() {
            if docid.is_empty() {
                return Err(Error::Document(format!(
                    "document #{} has an empty docid; every document needs a unique, non-empty id",
                    base + i
                )));
            }
            let earlier = self
                .seen
                .get(docid.as_str())
                .map(|&d| d as usize)
                .or_else(|| batch_seen.get(docid.as_str()).copied());
            if let Some(first) = earlier {
                return Err(Error::Document(format!(
                    "duplicate docid {docid:?} (documents #{first} and #{}); docids must be unique",
                    base + i
                )));
            }
            batch_seen.insert(docid, base + i);
        }
        drop(batch_seen);

        let analyzer = &self.analyzer;
        let chunks: Vec<AnalyzedChunk> = docs
            .par_chunks(ANALYSIS_CHUNK)
            .map(|chunk| analyze_chunk(analyzer, chunk))
            .collect();

        for (chunk_index, chunk) in chunks.into_iter().enumerate() {
            let offset = (base + chunk_index * ANALYSIS_CHUNK) as u32;
            self.lengths.extend_from_slice(&chunk.lengths);
            for (term, local) in chunk.postings {
                let next_id = self.postings.len() as u32;
                let id = *self.term_ids.entry(term).or_insert(next_id);
                if id == next_id {
                    self.postings.push(TermPostings::default());
                }
                let global = &mut self.postings[id as usize];
                global.docs.extend(local.docs.iter().map(|d| d + offset));
                global.tfs.extend_from_slice(&local.tfs);
            }
        }
        for (i, (docid, _)) in docs.into_iter().enumerate() {
            self.seen.insert(docid.clone(), (base + i) as u32);
            self.docids.push(docid);
        }
        Ok(())
    }

    /// Sorts the vocabulary, compresses the postings and returns the index.
    pub fn finish(self) -> Result<Index> {
        let IndexBuilder {
            analyzer,
            docids,
            lengths,
            term_ids,
            mut postings,
            ..
        } = self;
        let mut terms: Vec<(String, u32)> = term_ids.into_iter().collect();
        terms.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));

        let norms: Vec<u8> = lengths
            .iter()
            .map(|&l| fieldnorm::length_to_norm(l))
            .collect();
        let docid_rank = docid_ranks(&docids);

        // Compress each term's list in parallel, then concatenate in term order.
        let encoded: Vec<(Vec<u8>, Vec<BlockMeta>, u32, u64)> = terms
            .par_iter()
            .map(|(_, id)| {
                let list = &postings[*id as usize];
                let mut bytes = Vec::new();
                let mut blocks = Vec::new();
                postings::encode(
                    &list.docs,
                    &list.tfs,
                    |d| lengths[d as usize],
                    &mut bytes,
                    &mut blocks,
                );
                let total_tf = list.tfs.iter().map(|&t| u64::from(t)).sum();
                (bytes, blocks, list.docs.len() as u32, total_tf)
            })
            .collect();
        postings.clear();

        let mut all_bytes = Vec::with_capacity(encoded.iter().map(|e| e.0.len()).sum());
        let mut all_blocks = Vec::with_capacity(encoded.iter().map(|e| e.1.len()).sum());
        let mut term_infos = Vec::with_capacity(encoded.len());
        for (bytes, blocks, df, total_tf) in encoded {
            term_infos.push(TermInfo {
                df,
                first_block: all_blocks.len() as u32,
                offset: all_bytes.len() as u64,
                total_tf,
            });
            all_bytes.extend_from_slice(&bytes);
            all_blocks.extend_from_slice(&blocks);
        }
        let term_map = fst::Map::from_iter(
            terms
                .iter()
                .enumerate()
                .map(|(ord, (t, _))| (t.as_bytes(), ord as u64)),
        )
        .map_err(|e| Error::Document(format!("cannot build the term dictionary: {e}")))?;
        Ok(Index::from_parts(
            analyzer, docids, docid_rank, lengths, norms, term_map, term_infos, all_blocks,
            all_bytes,
        ))
    }
}

/// Each document's rank in ascending (byte-wise) docid order.
pub(crate) fn docid_ranks(docids: &[String]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..docids.len() as u32).collect();
    order.par_sort_unstable_by(|&a, &b| docids[a as usize].cmp(&docids[b as usize]));
    let mut rank = vec![0u32; docids.len()];
    for (r, &doc) in order.iter().enumerate() {
        rank[doc as usize] = r as u32;
    }
    rank
}

fn analyze_chunk(analyzer: &Analyzer, chunk: &[(String, String)]) -> AnalyzedChunk {
    let mut postings: HashMap<String, TermPostings> = HashMap::new();
    let mut lengths = Vec::with_capacity(chunk.len());
    let mut counts: HashMap<String, u32> = HashMap::new();
    for (local_doc, (_, text)) in chunk.iter().enumerate() {
        let mut length = 0u32;
        analyzer.analyze_with(text, &mut |term| {
            length = length.saturating_add(1);
            match counts.get_mut(term) {
                Some(c) => *c += 1,
                None => {
                    counts.insert(term.to_owned(), 1);
                }
            }
        });
        lengths.push(length);
        for (term, tf) in counts.drain() {
            let list = postings.entry(term).or_default();
            list.docs.push(local_doc as u32);
            list.tfs.push(tf);
        }
    }
    AnalyzedChunk { lengths, postings }
}
