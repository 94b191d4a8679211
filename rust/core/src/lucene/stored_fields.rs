//! Stored fields (`Lucene90StoredFieldsFormat`: `.fdt` data, `.fdx` index,
//! `.fdm` metadata), read in one sequential pass over every document.
//!
//! `.fdt` is a run of chunks. A chunk starts with its first document,
//! its document count (shifted left 2, with a "sliced" bit 0 and a "dirty"
//! bit 1), then per document the number of stored fields and the byte
//! length, as `StoredFieldsInts`; then the documents' bytes, compressed in
//! one piece, or in pieces of `chunkSize` bytes when sliced. A piece is a
//! dictionary and sub-blocks compressed against it: LZ4 (`BEST_SPEED`) or
//! raw DEFLATE (`BEST_COMPRESSION`). A document is a list of fields, each a
//! vLong `number << 3 | type` and its value.

use super::compression::{self, Mode};
use super::directory::SegmentFiles;
use super::input::{ID_LENGTH, Input};
use crate::error::Result;

/// A stored value: text or bytes (numbers are skipped: Anserini stores none
/// that rserini reads).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredValue {
    /// A string field.
    Text(String),
    /// A binary field.
    Bytes(Vec<u8>),
}

/// Calls `visit(doc, field number, value)` for every stored string or
/// binary field of every document of a segment, documents in order.
pub fn read_all(
    files: &SegmentFiles,
    segment: &str,
    id: &[u8; ID_LENGTH],
    mode: Option<&str>,
    max_doc: u32,
    visit: &mut dyn FnMut(u32, u32, StoredValue) -> Result<()>,
) -> Result<()> {
    let mode = match mode {
        Some("BEST_SPEED") | None => Mode::Lz4,
        Some("BEST_COMPRESSION") => Mode::Deflate,
        Some(other) => {
            let file = files.file(&format!("{segment}.si"));
            let path = file.map(|f| f.path.clone()).unwrap_or_default();
            return Err(crate::error::Error::LuceneVersion {
                path,
                found: format!("stored fields in mode {other}"),
                supported: "BEST_SPEED and BEST_COMPRESSION".into(),
            });
        }
    };
    let codec = match mode {
        Mode::Lz4 => "Lucene90StoredFieldsFastData",
        Mode::Deflate => "Lucene90StoredFieldsHighData",
    };
    let meta_file = files.file(&format!("{segment}.fdm"))?;
    let data_file = files.file(&format!("{segment}.fdt"))?;
    let index_file = files.file(&format!("{segment}.fdx"))?;
    meta_file.check_footer()?;
    data_file.check_footer()?;
    index_file.check_footer()?;
    let mut data = data_file.input();
    let version = data.check_index_header(codec, 1, 1, id, "")?;
    let mut meta = meta_file.input();
    meta.check_index_header("Lucene90FieldsIndexMeta", 0, version, id, "")?;
    let chunk_size = meta.read_vint()?;
    if chunk_size == 0 || chunk_size > i32::MAX as u32 {
        return Err(meta.corrupt(format!("invalid chunk size {chunk_size}")));
    }
    let mut index = index_file.input();
    index.check_index_header("Lucene90FieldsIndexIdx", 0, version, id, "")?;

    let end = data.len() - super::input::FOOTER_LENGTH;
    let mut doc_base = 0u32;
    let mut counts = Vec::new();
    let mut lengths = Vec::new();
    let mut bytes = Vec::new();
    while doc_base < max_doc {
        let base = data.read_vint()?;
        let token = data.read_vint()?;
        let docs = token >> 2;
        if base != doc_base || docs == 0 || docs > max_doc - doc_base {
            return Err(data.corrupt(format!(
                "chunk of {docs} documents from {base} where document {doc_base} of {max_doc} was expected"
            )));
        }
        let sliced = token & 1 != 0;
        read_ints(&mut data, docs, &mut counts)?;
        read_ints(&mut data, docs, &mut lengths)?;
        let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        if total > data.remaining() as u64 * 300 + 1024 {
            return Err(data.corrupt(format!("chunk of {total} bytes cannot fit")));
        }
        bytes.clear();
        if sliced {
            let mut done = 0u64;
            while done < total {
                let piece = (total - done).min(u64::from(chunk_size)) as usize;
                compression::decompress(mode, &mut data, piece, &mut bytes)?;
                done += piece as u64;
            }
        } else {
            compression::decompress(mode, &mut data, total as usize, &mut bytes)?;
        }
        let mut doc_input = Input::new(data.path(), &bytes);
        for d in 0..docs as usize {
            let start = doc_input.pos();
            for _ in 0..counts[d] {
                read_field(&mut doc_input, &mut |number, value| {
                    visit(doc_base + d as u32, number, value)
                })?;
            }
            if (doc_input.pos() - start) as u64 != u64::from(lengths[d]) {
                return Err(data.corrupt(format!(
                    "document {} takes {} bytes, its chunk header says {}",
                    doc_base + d as u32,
                    doc_input.pos() - start,
                    lengths[d]
                )));
            }
        }
        doc_base += docs;
    }
    if data.pos() != end {
        return Err(data.corrupt(format!(
            "{} bytes after the last chunk",
            end.saturating_sub(data.pos())
        )));
    }
    Ok(())
}

/// Reads one field: strings and bytes go to `visit`, numbers are skipped.
fn read_field(
    input: &mut Input<'_>,
    visit: &mut dyn FnMut(u32, StoredValue) -> Result<()>,
) -> Result<()> {
    let info = input.read_vlong()?;
    let number = u32::try_from(info >> 3).map_err(|_| input.corrupt("invalid field number"))?;
    match info & 7 {
        0 => visit(number, StoredValue::Text(input.read_string()?)),
        1 => {
            let len = input.read_vint_at_most(input.remaining(), "binary field length")?;
            visit(number, StoredValue::Bytes(input.read_bytes(len)?.to_vec()))
        }
        2 => input.read_zint().map(drop),
        3 => match input.read_byte()? {
            0xff => input.read_int().map(drop),
            b if b & 0x80 != 0 => Ok(()),
            _ => input.skip(3),
        },
        4 => {
            if input.read_byte()? & 0x20 != 0 {
                input.read_vlong()?;
            }
            Ok(())
        }
        5 => match input.read_byte()? {
            0xff => input.read_long().map(drop),
            0xfe => input.read_int().map(drop),
            b if b & 0x80 != 0 => Ok(()),
            _ => input.skip(7),
        },
        t => Err(input.corrupt(format!("unknown stored field type {t}"))),
    }
}

/// Reads `count` integers written by `StoredFieldsInts` (or one vInt when
/// `count` is 1) into `out`.
fn read_ints(input: &mut Input<'_>, count: u32, out: &mut Vec<u32>) -> Result<()> {
    out.clear();
    if count == 1 {
        out.push(input.read_vint()?);
        return Ok(());
    }
    let count = count as usize;
    let bits = input.read_byte()?;
    if bits == 0 {
        let v = input.read_vint()?;
        out.resize(count, v);
        return Ok(());
    }
    let width = match bits {
        8 => 1usize,
        16 => 2,
        32 => 4,
        b => return Err(input.corrupt(format!("unsupported bits per value {b}"))),
    };
    // Full blocks of 128 values are packed in little-endian longs, value
    // `i + j * (64 / bits)`'s of a block at bits `64 - (j + 1) * bits` of long `i`.
    let per_long = 8 / width;
    let longs = 128 / per_long;
    out.resize(count, 0);
    let mut k = 0;
    while k + 128 <= count {
        for i in 0..longs {
            let l = input.read_long()?;
            for j in 0..per_long {
                let shift = 64 - (j + 1) * bits as usize;
                let mask = if bits == 32 {
                    u64::from(u32::MAX)
                } else {
                    (1u64 << bits) - 1
                };
                out[k + i + j * longs] = ((l >> shift) & mask) as u32;
            }
        }
        k += 128;
    }
    for slot in &mut out[k..] {
        *slot = match width {
            1 => u32::from(input.read_byte()?),
            2 => u32::from(input.read_short()?),
            _ => input.read_int()?,
        };
    }
    Ok(())
}

#[cfg(test)]
#[path = "stored_fields_tests.rs"]
mod tests;
