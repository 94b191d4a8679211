//! The block-tree terms dictionary (`Lucene90BlockTreeTermsReader`) and
//! the postings of its terms, read in order for a one-time conversion.
//!
//! `.tmd` holds, per field, the statistics and the root block's address;
//! `.tim` the term blocks; `.tip` an FST from term prefixes to blocks, for
//! seeking, which an in-order walk does not need: every term is reached
//! from the root block through the sub-block entries (each pointing back
//! to an earlier block) and the floor blocks (each starting where the
//! previous one ends, until the one flagged last).

use super::input::{self, ID_LENGTH, Input};
use super::postings::read_postings;
use super::term_block::TermBlock;
use super::term_meta::{FieldLayout, PostingsVersion, TermMeta};
use crate::error::{Error, Result};

const META_CODEC: &str = "BlockTreeTermsMeta";
const DICT_CODEC: &str = "BlockTreeTermsDict";
const INDEX_CODEC: &str = "BlockTreeTermsIndex";
/// Lucene's longest term, in bytes.
const MAX_TERM_LENGTH: usize = 32766;

/// What the terms reader needs to know of a field.
#[derive(Clone, Copy, Debug)]
pub struct FieldSpec {
    /// The field number.
    pub number: u32,
    /// What the field indexes.
    pub layout: FieldLayout,
}

/// One field's terms statistics, from `.tmd`.
#[derive(Clone, Debug)]
pub struct FieldTerms {
    /// The field number.
    pub number: u32,
    /// What the field indexes.
    pub layout: FieldLayout,
    /// Distinct terms.
    pub num_terms: u64,
    /// Occurrences of all terms (postings when frequencies are omitted).
    pub sum_total_term_freq: u64,
    /// Postings of all terms.
    pub sum_doc_freq: u64,
    /// Documents with at least one term in the field.
    pub doc_count: u32,
    root_fp: u64,
}

/// The terms and postings of one segment in one postings format.
pub struct SegmentTerms<'a> {
    tim: Input<'a>,
    doc: Input<'a>,
    version: PostingsVersion,
    max_doc: u32,
    fields: Vec<FieldTerms>,
}

/// The supported postings formats, as [`Error::LuceneVersion`] names them.
const SUPPORTED: &str = "postings formats Lucene84 (Lucene 8.6 to 8.11), Lucene90 (Lucene 9.0 to 9.8) and Lucene99 (Lucene 9.9 to 9.11)";

/// How one postings format lays out its files.
struct Format {
    version: PostingsVersion,
    /// Codec name and versions of the `.doc` header.
    doc: (&'static str, u32, u32),
    /// Codec name and version of the postings header in `.tmd`.
    terms: (&'static str, u32),
    /// Block-tree versions: Lucene 8's `Lucene40BlockTreeTermsReader` 6
    /// (since 8.6, with a `.tmd`); Lucene 9's `Lucene90BlockTreeTermsReader`
    /// 0 (9.0 to 9.8), 1 (9.9, root code as an MSB-first vLong) and 2.
    tree: (u32, u32),
    /// Whether the root code is an MSB-first vLong from block-tree version 1.
    msb_root: bool,
    /// `FST` metadata versions.
    fst: (u32, u32),
    /// Lucene 8 writes fixed-width integers big-endian.
    big_endian: bool,
}

fn format_of(name: &str) -> Option<Format> {
    let lucene9 = |version, doc| Format {
        version,
        doc: (doc, 0, 0),
        terms: ("Lucene90PostingsWriterTerms", 0),
        tree: (0, 2),
        msb_root: true,
        fst: (8, 10),
        big_endian: false,
    };
    match name {
        "Lucene84" => Some(Format {
            version: PostingsVersion::Lucene84,
            doc: ("Lucene84PostingsWriterDoc", 1, 1),
            terms: ("Lucene84PostingsWriterTerms", 1),
            tree: (6, 6),
            msb_root: false,
            fst: (7, 7),
            big_endian: true,
        }),
        "Lucene90" => Some(lucene9(
            PostingsVersion::Lucene90,
            "Lucene90PostingsWriterDoc",
        )),
        "Lucene99" => Some(lucene9(
            PostingsVersion::Lucene99,
            "Lucene99PostingsWriterDoc",
        )),
        _ => None,
    }
}

impl<'a> SegmentTerms<'a> {
    /// Opens the terms of segment `segment` written by postings format
    /// `format` under per-field suffix `suffix` (files
    /// `{segment}_{format}_{suffix}.tmd|tim|tip|doc`), checking every header
    /// and footer. `fields` describes the segment's indexed fields.
    pub fn open(
        open: &dyn Fn(&str) -> Result<Input<'a>>,
        segment: &str,
        format: &str,
        suffix: &str,
        id: &[u8; ID_LENGTH],
        max_doc: u32,
        fields: &[FieldSpec],
    ) -> Result<Self> {
        let seg_suffix = format!("{format}_{suffix}");
        let name = |ext: &str| format!("{segment}_{seg_suffix}.{ext}");
        let unsupported = |found: String| {
            let path = match open(&name("tmd")) {
                Ok(tmd) => tmd.path().to_path_buf(),
                Err(_) => name("tmd").into(),
            };
            Error::LuceneVersion {
                path,
                found,
                supported: SUPPORTED.to_string(),
            }
        };
        let Some(fmt) = format_of(format) else {
            return Err(unsupported(format!("postings format {format}")));
        };
        // Lucene 8.0 to 8.5 kept the field metadata in `.tim` and `.tip`.
        let Ok(mut meta) = open(&name("tmd")) else {
            return Err(unsupported(format!(
                "postings format {format} without a terms metadata file (Lucene 8.0 to 8.5)"
            )));
        };
        input::check_footer(meta.path(), meta.data())?;
        let (lo, hi) = fmt.tree;
        let tree_version = meta.check_index_header(META_CODEC, lo, hi, id, &seg_suffix)?;
        let (codec, v) = fmt.terms;
        meta.check_index_header(codec, v, v, id, &seg_suffix)?;
        let block_size = meta.read_vint()?;
        if block_size != 128 {
            return Err(meta.corrupt(format!("postings block size {block_size}, expected 128")));
        }
        let n = meta.read_vint_at_most(fields.len(), "number of fields with terms")?;
        let mut out: Vec<FieldTerms> = Vec::with_capacity(n);
        for _ in 0..n {
            let number = meta.read_vint()?;
            let spec = fields.iter().find(|f| f.number == number).ok_or_else(|| {
                meta.corrupt(format!(
                    "terms of field number {number}, which is not indexed"
                ))
            })?;
            if out.iter().any(|f| f.number == number) {
                return Err(meta.corrupt(format!("field number {number} appears twice")));
            }
            let num_terms = meta.read_vlong()?;
            let root = bytes_ref(&mut meta)?;
            let mut root = Input::new(meta.path(), root);
            let code = if fmt.msb_root && tree_version >= 1 {
                read_msb_vlong(&mut root)?
            } else {
                root.read_vlong()?
            };
            let sum_total_term_freq = meta.read_vlong()?;
            let sum_doc_freq = if spec.layout.freqs {
                meta.read_vlong()?
            } else {
                sum_total_term_freq
            };
            let doc_count = meta.read_vint()?;
            bytes_ref(&mut meta)?; // smallest term
            bytes_ref(&mut meta)?; // largest term
            meta.read_vlong()?; // where the field's FST starts in .tip
            skip_fst_metadata(&mut meta, fmt.fst)?;
            if num_terms == 0
                || doc_count > max_doc
                || sum_doc_freq < u64::from(doc_count)
                || sum_total_term_freq < sum_doc_freq
            {
                return Err(meta.corrupt(format!(
                    "field number {number}: inconsistent statistics (terms {num_terms}, docs {doc_count} of {max_doc}, postings {sum_doc_freq}, occurrences {sum_total_term_freq})"
                )));
            }
            out.push(FieldTerms {
                number,
                layout: spec.layout,
                num_terms,
                sum_total_term_freq,
                sum_doc_freq,
                doc_count,
                root_fp: code >> 2,
            });
        }
        let (index_len, terms_len) = if fmt.big_endian {
            (meta.read_be_long()?, meta.read_be_long()?)
        } else {
            (meta.read_long()?, meta.read_long()?)
        };
        if meta.remaining() != input::FOOTER_LENGTH {
            return Err(meta.corrupt("unexpected bytes before the footer"));
        }

        let mut tim = open(&name("tim"))?;
        let mut tip = open(&name("tip"))?;
        for (file, codec, len) in [
            (&mut tim, DICT_CODEC, terms_len),
            (&mut tip, INDEX_CODEC, index_len),
        ] {
            input::check_footer(file.path(), file.data())?;
            file.check_index_header(codec, tree_version, tree_version, id, &seg_suffix)?;
            if file.len() as u64 != len {
                return Err(file.corrupt(format!(
                    "{} bytes, the terms metadata says {len}",
                    file.len()
                )));
            }
        }
        let mut doc = open(&name("doc"))?;
        input::check_footer(doc.path(), doc.data())?;
        let (codec, lo, hi) = fmt.doc;
        doc.check_index_header(codec, lo, hi, id, &seg_suffix)?;
        for f in &out {
            if f.root_fp >= tim.len() as u64 {
                return Err(tim.corrupt(format!(
                    "field number {}: root block at {} is past the end",
                    f.number, f.root_fp
                )));
            }
        }
        Ok(SegmentTerms {
            tim,
            doc,
            version: fmt.version,
            max_doc,
            fields: out,
        })
    }

    /// The fields with terms, in `.tmd` order.
    pub fn fields(&self) -> &[FieldTerms] {
        &self.fields
    }

    /// Walks the terms of field `i` (an index into [`Self::fields`]).
    pub fn terms(&self, i: usize) -> TermsEnum<'_, 'a> {
        let field = &self.fields[i];
        let mut root = Frame::new();
        root.pending = Some(field.root_fp);
        TermsEnum {
            segment: self,
            field,
            stack: vec![root],
            depth: 1,
            term: Vec::new(),
            previous: Vec::new(),
            meta: TermMeta::default(),
            blocks: 0,
            seen: (0, 0, 0),
        }
    }
}

fn bytes_ref<'a>(input: &mut Input<'a>) -> Result<&'a [u8]> {
    let n = input.read_vint_at_most(input.remaining(), "byte string length")?;
    input.read_bytes(n)
}

/// `writeMSBVLong`: 7 bits a byte, most significant first.
fn read_msb_vlong(input: &mut Input) -> Result<u64> {
    let mut v = 0u64;
    for _ in 0..10 {
        let b = input.read_byte()?;
        v = (v << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(input.corrupt("invalid MSB vLong in a root block code"))
}

/// Skips a field's FST metadata: a codec header, the empty-input output,
/// the input type, the start node and the FST's size.
fn skip_fst_metadata(input: &mut Input, (lo, hi): (u32, u32)) -> Result<()> {
    input.check_header("FST", lo, hi)?;
    if input.read_byte()? == 1 {
        let n = input.read_vint_at_most(input.remaining(), "FST empty output length")?;
        input.skip(n as u64)?;
    }
    let t = input.read_byte()?;
    if t > 2 {
        return Err(input.corrupt(format!("invalid FST input type {t}")));
    }
    input.read_vlong()?;
    input.read_vlong()?;
    Ok(())
}

/// A block being walked: the loaded block, where its readers are, and its
/// terms' running state.
struct Frame {
    block: TermBlock,
    /// A block to load before reading (the frame was just pushed).
    pending: Option<u64>,
    prefix: usize,
    next: u32,
    suffix_at: usize,
    length_at: usize,
    stats_at: usize,
    meta_at: usize,
    singleton_run: u32,
    state: TermMeta,
    first: bool,
}

impl Frame {
    fn new() -> Self {
        Frame {
            block: TermBlock::default(),
            pending: None,
            prefix: 0,
            next: 0,
            suffix_at: 0,
            length_at: 0,
            stats_at: 0,
            meta_at: 0,
            singleton_run: 0,
            state: TermMeta::default(),
            first: true,
        }
    }
}

/// The terms of one field in byte order, each with its statistics and, on
/// request, its postings.
pub struct TermsEnum<'s, 'a> {
    segment: &'s SegmentTerms<'a>,
    field: &'s FieldTerms,
    stack: Vec<Frame>,
    depth: usize,
    term: Vec<u8>,
    previous: Vec<u8>,
    meta: TermMeta,
    blocks: u64,
    /// Terms, postings and occurrences seen so far.
    seen: (u64, u64, u64),
}

/// A term and its statistics.
pub struct TermStats<'t> {
    /// The term's bytes (UTF-8 for text fields).
    pub term: &'t [u8],
    /// Documents containing the term.
    pub doc_freq: u32,
    /// Occurrences of the term (the doc freq when frequencies are omitted).
    pub total_term_freq: u64,
}

impl<'a> TermsEnum<'_, 'a> {
    fn corrupt(&self, message: String) -> Error {
        self.segment.tim.corrupt(message)
    }

    /// The next term, or `None` after the last, when the field's totals
    /// are checked against `.tmd`.
    // Not `Iterator::next`: each term borrows the enum.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<TermStats<'_>>> {
        loop {
            if self.depth == 0 {
                return self.finish().map(|()| None);
            }
            let tim = &self.segment.tim;
            let f = &mut self.stack[self.depth - 1];
            if let Some(fp) = f.pending.take() {
                self.blocks += 1;
                if self.blocks > tim.len() as u64 {
                    return Err(self.corrupt("the term blocks form a cycle".to_string()));
                }
                f.block.load(tim, fp)?;
                f.next = 0;
                f.suffix_at = 0;
                f.length_at = 0;
                f.stats_at = f.block.stats.0;
                f.meta_at = f.block.meta.0;
                f.singleton_run = 0;
                f.first = true;
                f.state = TermMeta {
                    singleton_doc: -1,
                    ..TermMeta::default()
                };
            }
            if f.next == f.block.entries {
                if f.block.last_in_floor {
                    self.depth -= 1;
                } else {
                    f.pending = Some(f.block.fp_end);
                }
                continue;
            }
            f.next += 1;
            let mut lengths = Input::new(tim.path(), &f.block.lengths);
            lengths.seek(f.length_at as u64)?;
            let (len, sub) = if f.block.leaf {
                (lengths.read_vint()? as usize, false)
            } else {
                let code = lengths.read_vint()?;
                ((code >> 1) as usize, code & 1 == 1)
            };
            let suffix = f
                .block
                .suffixes
                .get(f.suffix_at..f.suffix_at + len)
                .ok_or_else(|| {
                    tim.corrupt(format!("term block at {}: suffixes run out", f.block.fp))
                })?;
            f.suffix_at += len;
            self.term.truncate(f.prefix);
            self.term.extend_from_slice(suffix);
            if self.term.len() > MAX_TERM_LENGTH {
                return Err(tim.corrupt(format!(
                    "term block at {}: a term longer than {MAX_TERM_LENGTH} bytes",
                    f.block.fp
                )));
            }
            if sub {
                let back = lengths.read_vlong()?;
                f.length_at = lengths.pos();
                let fp = f
                    .block
                    .fp
                    .checked_sub(back)
                    .filter(|_| back > 0)
                    .ok_or_else(|| {
                        tim.corrupt(format!(
                            "term block at {}: sub-block {back} bytes back",
                            f.block.fp
                        ))
                    })?;
                let prefix = self.term.len();
                if self.depth == self.stack.len() {
                    self.stack.push(Frame::new());
                }
                let child = &mut self.stack[self.depth];
                child.pending = Some(fp);
                child.prefix = prefix;
                self.depth += 1;
                continue;
            }
            f.length_at = lengths.pos();
            self.read_term_meta()?;
            return Ok(Some(TermStats {
                term: &self.term,
                doc_freq: self.meta.doc_freq,
                total_term_freq: self.meta.total_term_freq,
            }));
        }
    }

    /// Decodes the current term's statistics and postings metadata, and
    /// checks that terms come in strictly increasing order.
    fn read_term_meta(&mut self) -> Result<()> {
        let tim = &self.segment.tim;
        let layout = self.field.layout;
        let max_doc = self.segment.max_doc;
        let f = &mut self.stack[self.depth - 1];
        let (start, len) = f.block.stats;
        let mut stats = tim.slice(start as u64, len as u64)?;
        stats.seek((f.stats_at - start) as u64)?;
        let (df, ttf) = if f.singleton_run > 0 {
            f.singleton_run -= 1;
            (1, 1)
        } else {
            let token = stats.read_vint()?;
            if token & 1 == 1 {
                f.singleton_run = token >> 1;
                (1, 1)
            } else {
                let df = token >> 1;
                let ttf = if layout.freqs {
                    u64::from(df) + stats.read_vlong()?
                } else {
                    u64::from(df)
                };
                (df, ttf)
            }
        };
        f.stats_at = start + stats.pos();
        if df == 0 || df > max_doc {
            return Err(tim.corrupt(format!(
                "term block at {}: doc freq {df} out of range (1 to {max_doc})",
                f.block.fp
            )));
        }
        let (start, len) = f.block.meta;
        let mut meta = tim.slice(start as u64, len as u64)?;
        meta.seek((f.meta_at - start) as u64)?;
        f.state.doc_freq = df;
        f.state.total_term_freq = ttf;
        f.state.decode(&mut meta, layout, f.first)?;
        f.first = false;
        f.meta_at = start + meta.pos();
        self.meta = f.state;

        if self.seen.0 > 0 && self.term <= self.previous {
            return Err(tim.corrupt(format!(
                "field number {}: terms out of order",
                self.field.number
            )));
        }
        self.previous.clear();
        self.previous.extend_from_slice(&self.term);
        self.seen.0 += 1;
        self.seen.1 += u64::from(df);
        self.seen.2 += ttf;
        if self.seen.0 > self.field.num_terms {
            return Err(tim.corrupt(format!(
                "field number {}: more terms than the {} in the metadata",
                self.field.number, self.field.num_terms
            )));
        }
        Ok(())
    }

    /// Checks the walk's totals against the field's statistics.
    fn finish(&self) -> Result<()> {
        let f = self.field;
        let expected = (f.num_terms, f.sum_doc_freq, f.sum_total_term_freq);
        if self.seen != expected {
            return Err(self.corrupt(format!(
                "field number {}: the blocks hold (terms, postings, occurrences) {:?}, the metadata says {expected:?}",
                f.number, self.seen
            )));
        }
        Ok(())
    }

    /// The current term's postings: segment-local documents, ascending, and
    /// their frequencies (1 each when the field has none).
    pub fn postings(&self, docs: &mut Vec<u32>, freqs: &mut Vec<u32>) -> Result<()> {
        let s = self.segment;
        read_postings(
            &s.doc,
            s.version,
            self.field.layout.freqs,
            &self.meta,
            s.max_doc,
            docs,
            freqs,
        )
    }
}

#[cfg(test)]
#[path = "terms_tests.rs"]
mod tests;
