//! Norms (`.nvm` metadata, `.nvd` data, `Lucene90NormsFormat`): per field,
//! the one-byte length norm of each document that has the field.

use super::directory::SegmentFiles;
use super::disi;
use super::field_infos::FieldInfos;
use super::input::ID_LENGTH;
use crate::error::Result;

/// One field's norms over a segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldNorms {
    /// The norm of each document; 0 for documents without one.
    pub values: Vec<u8>,
    /// Whether each document has a norm (the field was indexed for it).
    pub present: Vec<bool>,
}

/// Reads the norms of every field of a segment that has them: (field
/// number, norms).
pub fn read(
    files: &SegmentFiles,
    segment: &str,
    id: &[u8; ID_LENGTH],
    fields: &FieldInfos,
    max_doc: u32,
) -> Result<Vec<(u32, FieldNorms)>> {
    if !fields.fields.iter().any(|f| f.has_norms()) {
        return Ok(Vec::new());
    }
    let meta_file = files.file(&format!("{segment}.nvm"))?;
    let data_file = files.file(&format!("{segment}.nvd"))?;
    meta_file.check_footer()?;
    data_file.check_footer()?;
    let mut meta = meta_file.input();
    let version = meta.check_index_header("Lucene90NormsMetadata", 0, 0, id, "")?;
    let mut data_header = data_file.input();
    data_header.check_index_header("Lucene90NormsData", version, version, id, "")?;
    let data = data_file.input();
    let mut out = Vec::new();
    loop {
        let number = meta.read_int()?;
        if number == u32::MAX {
            break;
        }
        let field = fields
            .by_number(number)
            .filter(|f| f.has_norms())
            .ok_or_else(|| meta.corrupt(format!("norms for unknown field number {number}")))?;
        if out.iter().any(|(n, _)| *n == number) {
            return Err(meta.corrupt(format!("norms of field {} twice", field.name)));
        }
        let docs_offset = meta.read_long()? as i64;
        let docs_length = meta.read_long()?;
        meta.read_short()?; // jump table entries
        let rank_power = meta.read_byte()? as i8;
        let with_field = meta.read_int()?;
        let bytes_per_norm = meta.read_byte()?;
        let norms_offset = meta.read_long()?;
        if with_field > max_doc {
            return Err(meta.corrupt(format!(
                "{with_field} documents with norms in field {}, more than {max_doc}",
                field.name
            )));
        }
        let docs: Vec<u32> = match docs_offset {
            -2 => Vec::new(),
            -1 => (0..max_doc).collect(),
            o if o >= 0 => {
                let mut slice = data.slice(o as u64, docs_length)?;
                disi::read_docs(&mut slice, with_field, rank_power, max_doc)?
            }
            o => return Err(meta.corrupt(format!("invalid norms offset {o}"))),
        };
        if docs.len() as u32 != with_field && docs_offset != -2 {
            return Err(meta.corrupt(format!(
                "field {}: {} documents with norms, {with_field} expected",
                field.name,
                docs.len()
            )));
        }
        let mut values = vec![0u8; max_doc as usize];
        let mut present = vec![false; max_doc as usize];
        let norm_of = |i: usize, input: &mut super::input::Input<'_>| -> Result<u8> {
            let v: i64 = match bytes_per_norm {
                0 => norms_offset as i64,
                1 => i64::from(input.read_byte()? as i8),
                2 => i64::from(input.read_short()? as i16),
                4 => i64::from(input.read_int()? as i32),
                8 => input.read_long()? as i64,
                b => return Err(input.corrupt(format!("invalid bytes per norm {b}"))),
            };
            // BM25's norms are one signed byte; wider values come from
            // another similarity, whose scores rserini does not reproduce.
            i8::try_from(v).map(|b| b as u8).map_err(|_| {
                input.corrupt(format!(
                    "norm {v} of document {i} is not a one-byte length norm"
                ))
            })
        };
        let mut values_input = if bytes_per_norm == 0 {
            data.slice(0, 0)?
        } else {
            data.slice(norms_offset, u64::from(bytes_per_norm) * docs.len() as u64)?
        };
        for (i, &doc) in docs.iter().enumerate() {
            values[doc as usize] = norm_of(i, &mut values_input)?;
            present[doc as usize] = true;
        }
        out.push((number, FieldNorms { values, present }));
    }
    if meta.remaining() != super::input::FOOTER_LENGTH {
        return Err(meta.corrupt("unexpected bytes before the footer"));
    }
    Ok(out)
}
