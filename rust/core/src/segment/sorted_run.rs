//! Sorted runs: a segment's compressed postings in term order, before its
//! term dictionary is built; a budgeted build merges several into one.

use super::docids::DocIds;
use super::interner::{Interner, piece};
use super::reader::SegmentData;
use super::serializer::{ListBatch, PostingsWriter, assemble, open_store};
use crate::data::Data;
use crate::docstore::DocStore;
use crate::error::{Error, Result};
use crate::postings::{self, PostingList};

/// A segment's documents and compressed posting lists, its terms in byte
/// order but without a term dictionary: a budgeted build keeps one per
/// part and merges them ([`SortedRun::merge`]), so that the dictionary, the
/// costliest structure to build, is built once.
pub(crate) struct SortedRun {
    /// Term texts in byte order, end to end; `term_ends[t]` is where the
    /// term of ordinal `t` ends.
    pub(super) term_text: String,
    pub(super) term_ends: Vec<usize>,
    /// The posting lists, in byte order of their terms.
    pub(super) postings: PostingsWriter,
    /// Every docid, end to end; `docid_ends[i]` is where docid `i` ends.
    pub(super) docid_text: String,
    pub(super) docid_ends: Vec<usize>,
    pub(super) lengths: Vec<u32>,
    pub(super) store: Option<DocStore>,
}

impl SortedRun {
    /// Number of documents.
    pub(crate) fn len(&self) -> usize {
        self.docid_ends.len()
    }

    /// The docid of `doc`.
    pub(crate) fn docid(&self, doc: usize) -> Option<&str> {
        piece(&self.docid_text, &self.docid_ends, doc)
    }

    /// Number of terms.
    fn num_terms(&self) -> usize {
        self.term_ends.len()
    }

    /// The term of ordinal `ord` (its rank in byte order).
    fn term(&self, ord: usize) -> &str {
        Interner::get(&self.term_text, &self.term_ends, ord as u32)
    }

    /// The posting list of ordinal `ord`.
    fn postings(&self, ord: usize) -> PostingList<'_> {
        let infos = &self.postings.infos;
        let end = infos
            .get(ord + 1)
            .map_or(self.postings.bytes.len() as u64, |next| next.offset);
        PostingList::within(infos[ord], end, &self.postings.bytes, &self.postings.blocks)
    }

    /// One run of the documents of `runs`, in order: a k-way merge of their
    /// sorted vocabularies, each term's lists concatenated (doc ids shifted
    /// by the documents of the runs before) and compressed again.
    pub(crate) fn merge(runs: Vec<SortedRun>) -> Result<SortedRun> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;

        let mut bases = Vec::with_capacity(runs.len());
        let (mut docid_text, mut docid_ends, mut lengths) = (String::new(), Vec::new(), Vec::new());
        for run in &runs {
            bases.push(lengths.len() as u32);
            let shift = docid_text.len();
            docid_text.push_str(&run.docid_text);
            docid_ends.extend(run.docid_ends.iter().map(|&e| e + shift));
            lengths.extend_from_slice(&run.lengths);
        }
        if lengths.len() > u32::MAX as usize {
            return Err(Error::Document(
                "a segment holds at most 4,294,967,295 documents".into(),
            ));
        }
        let stores: Option<Vec<DocStore>> = runs.iter().map(|r| r.store.clone()).collect();
        let store = stores
            .map(|stores| open_store(DocStore::concat(&stores), lengths.len() as u32))
            .transpose()?;
        // The next term of each run, smallest first; equal terms come out
        // in run order, so each list is concatenated in document order.
        let mut next: BinaryHeap<Reverse<(&str, usize, usize)>> = runs
            .iter()
            .enumerate()
            .filter(|(_, run)| run.num_terms() > 0)
            .map(|(r, run)| Reverse((run.term(0), r, 0)))
            .collect();
        let (mut term_text, mut term_ends) = (String::new(), Vec::new());
        let mut written = PostingsWriter::default();
        let mut batch = ListBatch::default();
        let mut decoder = postings::BlockDecoder::default();
        while let Some(Reverse((term, _, _))) = next.peek().copied() {
            while let Some(Reverse((t, r, ord))) = next.peek().copied()
                && t == term
            {
                next.pop();
                let list = runs[r].postings(ord);
                for b in 0..list.num_blocks() {
                    let Some(len) = decoder.decode(&list, b) else {
                        break;
                    };
                    let shifted = decoder.docs[..len].iter().map(|&d| d + bases[r]);
                    batch.docs.extend(shifted);
                    batch.tfs.extend_from_slice(&decoder.tfs[..len]);
                }
                if ord + 1 < runs[r].num_terms() {
                    next.push(Reverse((runs[r].term(ord + 1), r, ord + 1)));
                }
            }
            term_text.push_str(term);
            term_ends.push(term_text.len());
            batch.end_list(&mut written, &lengths);
        }
        batch.flush(&mut written, &lengths);
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

    /// The segment: builds the term dictionary.
    pub(crate) fn into_segment(self) -> Result<SegmentData> {
        let mut term_builder = fst::MapBuilder::memory();
        for ord in 0..self.num_terms() {
            term_builder
                .insert(self.term(ord).as_bytes(), ord as u64)
                .map_err(|e| Error::Document(format!("cannot build the term dictionary: {e}")))?;
        }
        let terms = Data::owned(
            term_builder
                .into_inner()
                .map_err(|e| Error::Document(format!("cannot build the term dictionary: {e}")))?,
        );
        let SortedRun {
            postings,
            docid_text,
            docid_ends,
            lengths,
            store,
            ..
        } = self;
        let docids: Vec<&str> = (0..docid_ends.len())
            .map(|d| piece(&docid_text, &docid_ends, d).unwrap_or_default())
            .collect();
        let docid_bytes = DocIds::encode(docids.iter().copied());
        assemble(docid_bytes, &docids, lengths, terms, postings, store)
    }
}
