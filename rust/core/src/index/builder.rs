//! [`IndexBuilder`]: streams documents into a one-segment index in bounded
//! memory.

use std::sync::Arc;

use super::duplicates::{DocidSet, check_nonempty_docids};
use super::{Duplicates, Index, LiveSegment};
use crate::analysis::{Analyzer, AnalyzerConfig};
use rayon::prelude::*;

use super::check_field_name;
use crate::document::{Doc, field_texts};
use crate::error::{Error, Result};
use crate::segment::{SegmentBuilder, SortedRun};

/// Default memory budget of an [`IndexBuilder`], in bytes.
pub const DEFAULT_MEMORY_BUDGET: usize = 256 << 20;

/// Documents analyzed between two checks of the memory budget, at most.
const BUDGET_CHECK_DOCS: usize = 8192;

/// Documents analyzed between two checks of a `budget`: about one per KB of
/// budget, between 64 and [`BUDGET_CHECK_DOCS`], so a small budget is not
/// overshot by a whole batch.
fn budget_check_docs(budget: usize) -> usize {
    (budget >> 10).clamp(64, BUDGET_CHECK_DOCS)
}

/// Streams documents into a one-segment [`Index`], in bounded memory.
///
/// Documents are analyzed in parallel into an in-memory segment. Once that
/// segment's estimated size passes the memory budget, its postings are
/// compressed and kept as a sorted run, and a new one is started; `finish`
/// merges the runs into one segment, term by term, and builds its term
/// dictionary once. The result is the segment a single pass would build
/// (same document order, terms, postings and statistics), except that the
/// document store's compressed blocks are also cut where runs end.
pub struct IndexBuilder {
    analyzer: Arc<Analyzer>,
    store: bool,
    budget: usize,
    segment: SegmentBuilder,
    /// Compressed runs of the documents before `segment`'s.
    pub(super) done: Vec<SortedRun>,
    done_docs: usize,
    seen: DocidSet,
    duplicates: Duplicates,
    /// A builder per other field (no store, docids checked here).
    fields: Vec<(String, IndexBuilder)>,
}

impl IndexBuilder {
    /// A builder whose documents (and later queries) go through `config`;
    /// keeps a document store if `store`. Uses [`DEFAULT_MEMORY_BUDGET`].
    pub fn new(config: AnalyzerConfig, store: bool) -> Result<Self> {
        let analyzer = Arc::new(Analyzer::new(config)?);
        Ok(IndexBuilder {
            segment: SegmentBuilder::new(analyzer.clone(), store),
            analyzer,
            store,
            budget: DEFAULT_MEMORY_BUDGET,
            done: Vec::new(),
            done_docs: 0,
            seen: DocidSet::default(),
            duplicates: Duplicates::Error,
            fields: Vec::new(),
        })
    }

    /// Also indexes the fields `names` of each document, each as an index
    /// of its own attached with [`Index::with_fields`] (Anserini's
    /// `-fields`): a field's text is the member of that name of the
    /// document's JSON ([`crate::document::field_texts`]), analyzed as the
    /// main text is. Each field's builder has the memory budget too.
    pub fn with_fields(mut self, names: &[String]) -> Result<Self> {
        for (i, name) in names.iter().enumerate() {
            check_field_name(name)?;
            if names[..i].contains(name) {
                return Err(Error::Argument(format!("field {name:?} is named twice")));
            }
            let config = self.analyzer.config().clone();
            let field = IndexBuilder::new(config, false)?
                .with_duplicates(Duplicates::Keep)
                .with_memory_budget(self.budget);
            self.fields.push((name.clone(), field));
        }
        Ok(self)
    }

    /// Sets what to do with a docid added twice (default: an error).
    pub fn with_duplicates(mut self, duplicates: Duplicates) -> Self {
        self.duplicates = duplicates;
        self
    }

    /// Sets the memory budget: the estimated bytes of uncompressed postings,
    /// terms and docids held before they are compressed into a sorted run
    /// of their own (the runs are merged into one segment at `finish`). Smaller budgets use less
    /// memory and build a little slower; 0 compresses after every batch.
    pub fn with_memory_budget(mut self, bytes: usize) -> Self {
        self.budget = bytes;
        for (_, field) in &mut self.fields {
            field.budget = bytes;
        }
        self
    }

    /// The memory budget in bytes.
    pub fn memory_budget(&self) -> usize {
        self.budget
    }

    /// Number of documents added.
    pub fn len(&self) -> usize {
        self.done_docs + self.segment.len()
    }

    /// Whether no document was added.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The docid of the `position`-th document added.
    fn docid_at(&self, position: usize) -> Option<&str> {
        if position >= self.done_docs {
            return self.segment.docid(position - self.done_docs);
        }
        let mut local = position;
        for run in &self.done {
            let n = run.len();
            if local < n {
                return run.docid(local);
            }
            local -= n;
        }
        None
    }

    /// Analyzes and adds a batch, in parallel. Fails, adding nothing, on an
    /// empty or duplicate docid, or a field that is not text.
    pub fn add_batch(&mut self, docs: Vec<Doc>) -> Result<()> {
        if self.len() + docs.len() > u32::MAX as usize {
            return Err(Error::Document(
                "an index holds at most 4,294,967,295 documents".into(),
            ));
        }
        let names: Vec<String> = self.fields.iter().map(|(n, _)| n.clone()).collect();
        let field_docs = field_docs(&docs, &names)?;
        if self.duplicates == Duplicates::Keep {
            check_nonempty_docids(&docs, self.len())?;
        } else {
            let mut seen = std::mem::take(&mut self.seen);
            let recorded = seen.insert_batch(&docs, self.len(), |p| self.docid_at(p));
            self.seen = seen;
            recorded?;
        }
        let mut docs = docs;
        while !docs.is_empty() {
            let rest = docs.split_off(docs.len().min(budget_check_docs(self.budget)));
            let part = std::mem::replace(&mut docs, rest);
            self.segment.add(part)?;
            if self.segment.memory_bytes() >= self.budget {
                self.flush()?;
            }
        }
        for ((_, field), docs) in self.fields.iter_mut().zip(field_docs) {
            field.add_batch(docs)?;
        }
        Ok(())
    }

    /// Compresses the in-memory segment and keeps it as a sorted run.
    fn flush(&mut self) -> Result<()> {
        if self.segment.is_empty() {
            return Ok(());
        }
        let full = std::mem::replace(
            &mut self.segment,
            SegmentBuilder::new(self.analyzer.clone(), self.store),
        );
        let run = full.finish_run()?;
        self.done_docs += run.len();
        self.done.push(run);
        Ok(())
    }

    /// Compresses what was added into an index of one segment (and one
    /// per field).
    pub fn finish(mut self) -> Result<Index> {
        let fields = std::mem::take(&mut self.fields);
        let segments = if self.done.is_empty() {
            let data = self.segment.finish()?;
            if data.is_empty() {
                Vec::new()
            } else {
                vec![LiveSegment::new(data)]
            }
        } else {
            self.flush()?;
            let mut done = std::mem::take(&mut self.done);
            let run = if done.len() == 1 {
                done.pop().expect("one run")
            } else {
                SortedRun::merge(done)?
            };
            vec![LiveSegment::new(run.into_segment()?)]
        };
        let index = Index::from_segments(self.analyzer, segments, None)?;
        if fields.is_empty() {
            return Ok(index);
        }
        let fields = fields
            .into_iter()
            .map(|(name, field)| Ok((name, field.finish()?)))
            .collect::<Result<Vec<_>>>()?;
        index.with_fields(fields)
    }
}

/// For each of the fields `names`, the documents `docs` with that field's
/// text ([`field_texts`]), in parallel; an error names the document.
pub(super) fn field_docs(docs: &[Doc], names: &[String]) -> Result<Vec<Vec<Doc>>> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let texts = docs
        .par_iter()
        .map(|doc| {
            field_texts(doc, names)
                .map_err(|e| Error::Document(format!("document {:?}: {e}", doc.docid)))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut out: Vec<Vec<Doc>> = names
        .iter()
        .map(|_| Vec::with_capacity(docs.len()))
        .collect();
    for (doc, texts) in docs.iter().zip(texts) {
        for (field, text) in out.iter_mut().zip(texts) {
            field.push(Doc::new(doc.docid.clone(), text));
        }
    }
    Ok(out)
}
