//! A segment built from posting lists already inverted elsewhere (a Lucene
//! index being converted): terms arrive in byte order with their lists,
//! and are compressed a batch at a time.

use super::reader::SegmentData;
use super::serializer::{ListBatch, PostingsWriter, open_store};
use super::sorted_run::SortedRun;
use crate::error::{Error, Result};

/// A segment being imported term by term.
pub(crate) struct SegmentImport {
    lengths: Vec<u32>,
    term_text: String,
    term_ends: Vec<usize>,
    written: PostingsWriter,
    batch: ListBatch,
}

impl SegmentImport {
    /// An import over documents of lengths `lengths` (which the postings'
    /// block maxima are computed from).
    pub(crate) fn new(lengths: Vec<u32>) -> Self {
        SegmentImport {
            lengths,
            term_text: String::new(),
            term_ends: Vec::new(),
            written: PostingsWriter::default(),
            batch: ListBatch::default(),
        }
    }

    /// Adds the next term, greater than every term before, with its
    /// documents (ascending, below the number of documents) and frequencies.
    pub(crate) fn push_term(&mut self, term: &str, docs: &[u32], tfs: &[u32]) -> Result<()> {
        let start = self
            .term_ends
            .len()
            .checked_sub(2)
            .map_or(0, |i| self.term_ends[i]);
        if !self.term_ends.is_empty() && self.term_text[start..] >= *term {
            return Err(Error::Argument(format!("term {term:?} out of order")));
        }
        let n = self.lengths.len() as u64;
        if docs.len() != tfs.len()
            || docs.is_empty()
            || docs.windows(2).any(|w| w[0] >= w[1])
            || docs.last().is_some_and(|&d| u64::from(d) >= n)
            || tfs.contains(&0)
        {
            return Err(Error::Argument(format!(
                "invalid posting list of term {term:?}"
            )));
        }
        self.term_text.push_str(term);
        self.term_ends.push(self.term_text.len());
        self.batch.docs.extend_from_slice(docs);
        self.batch.tfs.extend_from_slice(tfs);
        self.batch.end_list(&mut self.written, &self.lengths);
        Ok(())
    }

    /// The segment: `docids` name the documents in order; `store` is a
    /// document store payload written for them, if any.
    pub(crate) fn finish(mut self, docids: &[&str], store: Option<Vec<u8>>) -> Result<SegmentData> {
        if docids.len() != self.lengths.len() {
            return Err(Error::Argument("one docid per document is needed".into()));
        }
        self.batch.flush(&mut self.written, &self.lengths);
        let mut docid_text = String::new();
        let mut docid_ends = Vec::with_capacity(docids.len());
        for d in docids {
            docid_text.push_str(d);
            docid_ends.push(docid_text.len());
        }
        let store = store
            .map(|bytes| open_store(bytes, docids.len() as u32))
            .transpose()?;
        SortedRun {
            term_text: self.term_text,
            term_ends: self.term_ends,
            postings: self.written,
            docid_text,
            docid_ends,
            lengths: self.lengths,
            store,
        }
        .into_segment()
    }
}
