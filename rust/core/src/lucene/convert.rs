//! Converting a Lucene index into an [`Index`]: one rserini segment per
//! Lucene segment, in commit order, with Lucene's deletions, so documents
//! keep their order and every search path (BM25 at any k1/b, QLD, RM3,
//! Rocchio, pruning) runs on it.
//!
//! Per segment, the postings of the searched field are read twice: once to
//! sum each document's term frequencies into its exact length, once to
//! compress the lists. Each exact length is checked against the norm Lucene
//! stored; where they disagree (a document analyzed with overlapping
//! tokens), the length becomes the one the norm stands for, so scores use
//! Lucene's norms. The field statistics in `.tmd` (sum of frequencies,
//! documents with the field) are checked against the lists.
//!
//! Segments and fields convert in parallel (rayon's pool), and a segment's
//! stored documents are read while its lengths are summed. The error
//! reported is the one a conversion step by step would report first, except
//! between the other fields (whichever fails first).

use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use super::field_infos::{FieldInfo, IndexOptions};
use super::reader::{CONTENTS_FIELD, LuceneIndex, LuceneSegment};
use super::term_meta::FieldLayout;
use super::terms::{FieldSpec, SegmentTerms};
use crate::analysis::Analyzer;
use crate::docstore::DocStoreWriter;
use crate::error::{Error, Result};
use crate::fieldnorm;
use crate::index::{Index, LiveSegment};
use crate::segment::{Deletions, SegmentImport};

/// What a conversion found, besides the index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConversionReport {
    /// Documents whose exact length disagrees with Lucene's norm (their
    /// length was set from the norm).
    pub norm_mismatches: u64,
}

/// Opens the Lucene index in `path` and converts it, searching the field
/// `contents` with Lucene's English analyzer (Anserini's default), and
/// every other text field (Anserini's `-fields`) by name.
pub fn load(path: &Path) -> Result<Index> {
    let lucene = LuceneIndex::open(path)?;
    // The fields in parallel; the main field's error first.
    let (index, others) = rayon::join(
        || convert(&lucene, CONTENTS_FIELD),
        || {
            text_fields(&lucene)
                .into_par_iter()
                .filter(|name| name != CONTENTS_FIELD)
                .map(|name| Ok((name.clone(), convert_field(&lucene, &name, false)?.0)))
                .collect::<Result<Vec<_>>>()
        },
    );
    let (index, _) = index?;
    let others = others?;
    let version = lucene.commit.lucene_version.to_string();
    Ok(index.with_fields(others)?.from_lucene(version))
}

/// The fields indexed with frequencies and norms in some segment: those
/// BM25 can search, in name order.
pub fn text_fields(lucene: &LuceneIndex) -> Vec<String> {
    let mut names: Vec<String> = lucene
        .segments
        .iter()
        .flat_map(|s| &s.fields.fields)
        .filter(|f| f.index_options >= IndexOptions::DocsAndFreqs && f.has_norms())
        .map(|f| f.name.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Converts `lucene`, searching `field`, with its stored documents.
pub fn convert(lucene: &LuceneIndex, field: &str) -> Result<(Index, ConversionReport)> {
    convert_field(lucene, field, true)
}

/// Converts `lucene`, searching `field`, with the stored documents if
/// `store`.
fn convert_field(
    lucene: &LuceneIndex,
    field: &str,
    store: bool,
) -> Result<(Index, ConversionReport)> {
    let analyzer = Arc::new(Analyzer::preset("lucene-english")?);
    let mut report = ConversionReport::default();
    // Segments in parallel; the first error in commit order, as one by one.
    let converted: Vec<Result<(LiveSegment, ConversionReport)>> = lucene
        .segments
        .par_iter()
        .map(|segment| {
            let mut report = ConversionReport::default();
            convert_segment(segment, field, store, &mut report).map(|s| (s, report))
        })
        .collect();
    let mut segments = Vec::with_capacity(converted.len());
    for result in converted {
        let (segment, found) = result?;
        report.norm_mismatches += found.norm_mismatches;
        segments.push(segment);
    }
    Ok((Index::from_segments(analyzer, segments, None)?, report))
}

fn layout(f: &FieldInfo) -> FieldLayout {
    FieldLayout {
        freqs: f.index_options >= IndexOptions::DocsAndFreqs,
        positions: f.index_options >= IndexOptions::DocsAndFreqsAndPositions,
        offsets_or_payloads: f.index_options >= IndexOptions::DocsAndFreqsAndPositionsAndOffsets
            || f.has_payloads,
    }
}

/// The postings format and suffix of an indexed field.
fn format_of<'f>(segment: &LuceneSegment, f: &'f FieldInfo) -> Result<(&'f str, &'f str)> {
    match (
        f.attribute("PerFieldPostingsFormat.format"),
        f.attribute("PerFieldPostingsFormat.suffix"),
    ) {
        (Some(format), Some(suffix)) => Ok((format, suffix)),
        _ => Err(Error::corrupted(
            segment
                .dir_path()
                .join(format!("{}.fnm", segment.commit.name)),
            format!("indexed field {} names no postings format", f.name),
        )),
    }
}

fn convert_segment(
    segment: &LuceneSegment,
    field: &str,
    store: bool,
    report: &mut ConversionReport,
) -> Result<LiveSegment> {
    let max_doc = segment.max_doc();
    let info = segment
        .fields
        .by_name(field)
        .filter(|f| f.index_options != IndexOptions::None);
    // The stored documents are read while pass 1 runs (the stored fields'
    // errors first, as read one after the other).
    let (docs, terms) = rayon::join(
        || segment.documents(),
        || -> Result<_> {
            let Some(info) = info else {
                return Ok((None, vec![0u32; max_doc as usize]));
            };
            let (terms, i) = open_terms(segment, info)?;
            let lengths = exact_lengths(segment, &terms, i, max_doc)?;
            Ok((Some((terms, i)), lengths))
        },
    );
    let docs = docs?;
    let (terms, mut lengths) = terms?;
    let (mut list_docs, mut list_freqs) = (Vec::new(), Vec::new());
    if let Some(norms) = segment.norms(field) {
        for (doc, length) in lengths.iter_mut().enumerate() {
            if !norms.present[doc] {
                if *length > 0 {
                    return Err(segment.nvd_error(format!(
                        "document {doc} has terms in field {field} but no norm"
                    )));
                }
                continue;
            }
            let norm = norms.values[doc];
            if fieldnorm::length_to_norm(*length) != norm {
                report.norm_mismatches += 1;
                *length = fieldnorm::norm_to_length(norm);
            }
        }
    }
    // Pass 2: the lists.
    let mut import = SegmentImport::new(lengths);
    if let Some((terms, i)) = &terms {
        let mut walk = terms.terms(*i);
        while let Some(stats) = walk.next()? {
            let term = std::str::from_utf8(stats.term)
                .map_err(|_| segment.tim_error(format!("a term of field {field} is not UTF-8")))?
                .to_string();
            walk.postings(&mut list_docs, &mut list_freqs)?;
            import
                .push_term(&term, &list_docs, &list_freqs)
                .map_err(|e| segment.tim_error(e.to_string()))?;
        }
    }
    let stored = store && docs.iter().any(|d| d.raw.is_some() || d.contents.is_some());
    let store = stored.then(|| {
        let mut writer = DocStoreWriter::default();
        for d in &docs {
            writer.add(d.contents.as_deref().unwrap_or(""), d.raw.as_deref(), false);
        }
        writer.finish()
    });
    let docids: Vec<&str> = docs.iter().map(|d| d.docid.as_str()).collect();
    let data = import.finish(&docids, store)?;
    let deletions = (!segment.deleted.is_empty()).then(|| {
        let mut set = Deletions::new(max_doc as usize);
        for &d in &segment.deleted {
            set.insert(d);
        }
        Arc::new(set)
    });
    Ok(LiveSegment::counting_deleted(Arc::new(data), deletions))
}

/// Pass 1: each document's exact length, the sum of its term frequencies,
/// checked against the field statistics.
fn exact_lengths(
    segment: &LuceneSegment,
    terms: &SegmentTerms<'_>,
    i: usize,
    max_doc: u32,
) -> Result<Vec<u32>> {
    let mut lengths = vec![0u32; max_doc as usize];
    let (mut list_docs, mut list_freqs) = (Vec::new(), Vec::new());
    let mut walk = terms.terms(i);
    while walk.next()?.is_some() {
        walk.postings(&mut list_docs, &mut list_freqs)?;
        for (&d, &f) in list_docs.iter().zip(&list_freqs) {
            lengths[d as usize] = lengths[d as usize].saturating_add(f);
        }
    }
    check_stats(segment, terms, i, &lengths)?;
    Ok(lengths)
}

/// The `contents` of a raw document that Anserini stored as JSON (its
/// `JsonCollection`): when `contents` itself was not stored, the text the
/// feedback models re-analyze, as Anserini reads the same terms from its
/// document vectors.
pub(crate) fn raw_contents(raw: &str) -> Option<String> {
    match serde_json::from_str::<serde_json::Value>(raw)
        .ok()?
        .get(CONTENTS_FIELD)?
    {
        serde_json::Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// The terms of `info`'s postings format in `segment`, and the index of
/// `info` among them.
fn open_terms<'s>(
    segment: &'s LuceneSegment,
    info: &FieldInfo,
) -> Result<(SegmentTerms<'s>, usize)> {
    let (format, suffix) = format_of(segment, info)?;
    let mut specs = Vec::new();
    for f in &segment.fields.fields {
        if f.index_options != IndexOptions::None && format_of(segment, f)? == (format, suffix) {
            specs.push(FieldSpec {
                number: f.number,
                layout: layout(f),
            });
        }
    }
    let open = |name: &str| segment.files.input(name);
    let terms = SegmentTerms::open(
        &open,
        &segment.commit.name,
        format,
        suffix,
        &segment.commit.id,
        segment.max_doc(),
        &specs,
    )?;
    let i = terms.fields().iter().position(|t| t.number == info.number);
    match i {
        Some(i) => Ok((terms, i)),
        None => Err(segment.tim_error(format!("field {} has no terms", info.name))),
    }
}

/// Checks the field statistics of `.tmd` against the lengths summed from
/// the lists.
fn check_stats(
    segment: &LuceneSegment,
    terms: &SegmentTerms<'_>,
    i: usize,
    lengths: &[u32],
) -> Result<()> {
    let stats = &terms.fields()[i];
    let sum: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
    let with_terms = lengths.iter().filter(|&&l| l > 0).count() as u64;
    if stats.layout.freqs && sum != stats.sum_total_term_freq {
        return Err(segment.tim_error(format!(
            "the postings hold {sum} occurrences, the field statistics {}",
            stats.sum_total_term_freq
        )));
    }
    if with_terms != u64::from(stats.doc_count) {
        return Err(segment.tim_error(format!(
            "{with_terms} documents have terms, the field statistics say {}",
            stats.doc_count
        )));
    }
    Ok(())
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
