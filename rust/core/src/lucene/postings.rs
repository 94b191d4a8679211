//! One term's documents and frequencies from `.doc`, read in order.
//!
//! A term's postings are `doc_freq / 128` packed blocks (the doc gaps, then
//! the frequencies as a PFOR block when the field has them), then the rest
//! as vInts: `gap << 1 | (freq == 1)` followed by the frequency when it is
//! not 1, or the bare gap without frequencies. Skip data follows the
//! postings and is not needed to read them in order; positions live in
//! `.pos` and are not read. A term in one document has no `.doc` entry: its
//! document is in the term metadata.

use super::for_util::{self, BLOCK_SIZE};
use super::input::Input;
use super::term_meta::{PostingsVersion, TermMeta};
use crate::error::Result;

/// Reads the postings of the term described by `meta` from `doc` (the whole
/// `.doc` file) into `docs` (ascending, below `max_doc`) and `freqs` (1 for
/// every document when the field has no frequencies). Checks that there are
/// `doc_freq` documents whose frequencies sum to `total_term_freq`.
pub fn read_postings(
    doc: &Input,
    version: PostingsVersion,
    has_freqs: bool,
    meta: &TermMeta,
    max_doc: u32,
    docs: &mut Vec<u32>,
    freqs: &mut Vec<u32>,
) -> Result<()> {
    docs.clear();
    freqs.clear();
    let df = meta.doc_freq as usize;
    if df == 0 || df > max_doc as usize {
        return Err(doc.corrupt(format!(
            "a term's doc freq {df} is out of range (1 to {max_doc})"
        )));
    }
    if df == 1 {
        let d = meta.singleton_doc;
        if d < 0 || d >= i64::from(max_doc) {
            return Err(doc.corrupt(format!(
                "a singleton term's document {d} is out of range (0 to {max_doc})"
            )));
        }
        let freq = if has_freqs {
            u32::try_from(meta.total_term_freq).map_err(|_| {
                doc.corrupt(format!("term freq {} is too large", meta.total_term_freq))
            })?
        } else {
            1
        };
        if freq == 0 {
            return Err(doc.corrupt("a singleton term with a zero frequency"));
        }
        docs.push(d as u32);
        freqs.push(freq);
        return Ok(());
    }

    let mut input = doc.clone();
    input.seek(meta.doc_start_fp)?;
    docs.reserve(df);
    freqs.reserve(df);
    // The first gap counts from document 0.
    let mut last: i64 = 0;
    let mut gaps = [0u32; BLOCK_SIZE];
    let mut block_freqs = [1u32; BLOCK_SIZE];
    for _ in 0..df / BLOCK_SIZE {
        let at = input.pos();
        match version {
            PostingsVersion::Lucene90 => for_util::read_pfor(&mut input, &mut gaps)?,
            _ => for_util::read_for_delta(&mut input, &mut gaps)?,
        }
        for &g in &gaps {
            last = next_doc(&input, at, last, g, docs.is_empty(), max_doc)?;
            docs.push(last as u32);
        }
        if has_freqs {
            for_util::read_pfor(&mut input, &mut block_freqs)?;
        }
        freqs.extend_from_slice(&block_freqs);
    }
    // The rest: one code a document (the gap, shifted left with the low
    // bit set for a frequency of 1 when the field has frequencies), as
    // vInts interleaved with the other frequencies (Lucene 8 and 9.0), or as
    // group-varints followed by the other frequencies (Lucene 9.9).
    let tail = df % BLOCK_SIZE;
    let at = input.pos();
    let mut codes = [0u32; BLOCK_SIZE];
    match version {
        PostingsVersion::Lucene84 | PostingsVersion::Lucene90 => {
            for (code, freq) in codes[..tail].iter_mut().zip(&mut block_freqs) {
                *code = input.read_vint()?;
                *freq = tail_freq(&mut input, has_freqs, *code)?;
            }
        }
        PostingsVersion::Lucene99 => {
            read_group_varints(&mut input, &mut codes[..tail])?;
            for (&code, freq) in codes[..tail].iter().zip(&mut block_freqs) {
                *freq = tail_freq(&mut input, has_freqs, code)?;
            }
        }
    }
    for &code in &codes[..tail] {
        let gap = if has_freqs { code >> 1 } else { code };
        last = next_doc(&input, at, last, gap, docs.is_empty(), max_doc)?;
        docs.push(last as u32);
    }
    freqs.extend_from_slice(&block_freqs[..tail]);

    let mut sum = 0u64;
    for &f in freqs.iter() {
        if f == 0 {
            return Err(input.corrupt(format!(
                "a zero frequency in the postings at offset {}",
                meta.doc_start_fp
            )));
        }
        sum += u64::from(f);
    }
    let expected = if has_freqs {
        meta.total_term_freq
    } else {
        df as u64
    };
    if sum != expected {
        return Err(input.corrupt(format!(
            "the postings at offset {} have {sum} occurrences, the term dictionary says {expected}",
            meta.doc_start_fp
        )));
    }
    Ok(())
}

/// The frequency of a vInt-coded document: 1 when the code's low bit says
/// so (or the field has none), else the next vInt.
fn tail_freq(input: &mut Input, has_freqs: bool, code: u32) -> Result<u32> {
    if has_freqs && code & 1 == 0 {
        input.read_vint()
    } else {
        Ok(1)
    }
}

/// `readGroupVInts`: groups of four values, each group a byte of four
/// 2-bit lengths (bytes minus one, first value in the high bits) and the
/// values in little-endian order; the last values, fewer than four, as vInts.
fn read_group_varints(input: &mut Input, out: &mut [u32]) -> Result<()> {
    let groups = out.len() / 4 * 4;
    for group in out[..groups].chunks_exact_mut(4) {
        let flag = input.read_byte()?;
        for (k, v) in group.iter_mut().enumerate() {
            let n = usize::from((flag >> (6 - 2 * k)) & 3) + 1;
            let bytes = input.read_bytes(n)?;
            *v = bytes
                .iter()
                .rev()
                .fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
        }
    }
    for v in &mut out[groups..] {
        *v = input.read_vint()?;
    }
    Ok(())
}

/// The document `gap` after `last`: the first gap may be 0 (document 0),
/// every other gap is at least 1, and the result is below `max_doc`.
fn next_doc(
    input: &Input,
    at: usize,
    last: i64,
    gap: u32,
    first: bool,
    max_doc: u32,
) -> Result<i64> {
    let d = last + i64::from(gap);
    if (gap == 0 && !(first && last == 0)) || d >= i64::from(max_doc) {
        return Err(input.corrupt(format!(
            "postings block at offset {at}: document {d} after {last} is out of order or past {max_doc} documents"
        )));
    }
    Ok(d)
}

#[cfg(test)]
#[path = "postings_tests.rs"]
mod tests;
