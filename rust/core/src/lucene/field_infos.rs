//! A segment's field infos (`.fnm`): each field's name, number, what is
//! indexed, whether it has norms, and its codec attributes.
//!
//! `Lucene90FieldInfos` (Lucene 9.0 to 9.3) and `Lucene94FieldInfos`
//! (9.4 on, which adds a vector-encoding byte; version 1 from 9.10 marks a
//! parent field) share everything else.

use super::input::{ID_LENGTH, Input};
use super::segment_infos::SegmentCommit;
use crate::error::Result;

/// What an indexed field records per posting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum IndexOptions {
    /// Not indexed.
    None,
    /// Document ids only.
    Docs,
    /// Ids and term frequencies.
    DocsAndFreqs,
    /// Also positions.
    DocsAndFreqsAndPositions,
    /// Also offsets.
    DocsAndFreqsAndPositionsAndOffsets,
}

/// One field of a segment.
#[derive(Clone, Debug)]
pub struct FieldInfo {
    /// Its name (`contents`, `id`, `raw`).
    pub name: String,
    /// Its number, as postings, norms and stored fields refer to it.
    pub number: u32,
    /// What is indexed.
    pub index_options: IndexOptions,
    /// Whether term vectors are stored.
    pub has_vectors: bool,
    /// Whether norms are omitted.
    pub omit_norms: bool,
    /// Whether postings carry payloads.
    pub has_payloads: bool,
    /// The doc-values type byte (0: none).
    pub doc_values: u8,
    /// Codec attributes, such as `PerFieldPostingsFormat.format`.
    pub attributes: Vec<(String, String)>,
}

impl FieldInfo {
    /// Whether the field has norms: indexed, norms not omitted.
    pub fn has_norms(&self) -> bool {
        self.index_options != IndexOptions::None && !self.omit_norms
    }

    /// The attribute `key`.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The fields of a segment.
#[derive(Clone, Debug, Default)]
pub struct FieldInfos {
    /// In file order.
    pub fields: Vec<FieldInfo>,
}

impl FieldInfos {
    /// The `.fnm` file name of `segment` (a newer generation after updates).
    pub fn file_name(segment: &SegmentCommit) -> String {
        if segment.field_infos_gen > 0 {
            let r#gen = super::directory::base36(segment.field_infos_gen as u64);
            format!("{}_{}.fnm", segment.name, r#gen)
        } else {
            format!("{}.fnm", segment.name)
        }
    }

    /// Reads field infos from `input` (the whole `.fnm`, footer checked by
    /// the caller) of the segment with id `id`; `suffix` is the generation
    /// in base 36, or empty.
    pub fn read(input: &mut Input<'_>, id: &[u8; ID_LENGTH], suffix: &str) -> Result<FieldInfos> {
        let probe = input.clone();
        let (codec, max) = if codec_name(probe).as_deref() == Some("Lucene90FieldInfos") {
            ("Lucene90FieldInfos", 0)
        } else {
            ("Lucene94FieldInfos", 1)
        };
        input.check_index_header(codec, 0, max, id, suffix)?;
        let count = input.read_vint_at_most(input.remaining() / 8, "field count")?;
        let mut fields: Vec<FieldInfo> = Vec::with_capacity(count);
        for _ in 0..count {
            let name = input.read_string()?;
            let number = input.read_vint()?;
            if number > i32::MAX as u32 {
                return Err(input.corrupt(format!("invalid number of field {name}")));
            }
            let bits = input.read_byte()?;
            if bits & 0xE0 != 0 {
                return Err(input.corrupt(format!("unused field bits set: {bits:#x}")));
            }
            let index_options = match input.read_byte()? {
                0 => IndexOptions::None,
                1 => IndexOptions::Docs,
                2 => IndexOptions::DocsAndFreqs,
                3 => IndexOptions::DocsAndFreqsAndPositions,
                4 => IndexOptions::DocsAndFreqsAndPositionsAndOffsets,
                b => return Err(input.corrupt(format!("invalid index options byte {b}"))),
            };
            let doc_values = input.read_byte()?;
            if doc_values > 5 {
                return Err(input.corrupt(format!("invalid doc values byte {doc_values}")));
            }
            input.read_long()?; // doc-values generation
            let attributes = input.read_string_map()?;
            if input.read_vint()? != 0 {
                input.read_vint()?; // point index dimensions
                input.read_vint()?; // point bytes
            }
            input.read_vint()?; // vector dimension
            if codec == "Lucene94FieldInfos" {
                input.read_byte()?; // vector encoding
            }
            input.read_byte()?; // vector similarity
            if fields.iter().any(|f| f.number == number || f.name == name) {
                return Err(input.corrupt(format!("duplicate field {name} (number {number})")));
            }
            fields.push(FieldInfo {
                name,
                number,
                index_options,
                has_vectors: bits & 0x1 != 0,
                omit_norms: bits & 0x2 != 0,
                has_payloads: bits & 0x4 != 0,
                doc_values,
                attributes,
            });
        }
        if input.remaining() != super::input::FOOTER_LENGTH {
            return Err(input.corrupt("unexpected bytes before the footer"));
        }
        Ok(FieldInfos { fields })
    }

    /// The field named `name`.
    pub fn by_name(&self, name: &str) -> Option<&FieldInfo> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The field numbered `number`.
    pub fn by_number(&self, number: u32) -> Option<&FieldInfo> {
        self.fields.iter().find(|f| f.number == number)
    }
}

/// The codec name of a header, if the input starts with one.
fn codec_name(mut input: Input<'_>) -> Option<String> {
    input.read_be_int().ok()?;
    input.read_string().ok()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::lucene::testing::Out;

    fn fnm(codec: &str, version: u32) -> Vec<u8> {
        let mut out = Out::default();
        out.index_header(codec, version, &[3; ID_LENGTH], "");
        out.vint(2);
        for (name, number, options) in [("id", 0u32, 1u8), ("contents", 1, 2)] {
            out.string(name);
            out.vint(number);
            out.byte(if name == "id" { 0x2 } else { 0 });
            out.byte(options);
            out.byte(0);
            out.long(u64::MAX);
            out.string_map(&[("PerFieldPostingsFormat.format", "Lucene99")]);
            out.vint(0);
            out.vint(0);
            if codec == "Lucene94FieldInfos" {
                out.byte(1);
            }
            out.byte(0);
        }
        out.footer();
        out.bytes
    }

    #[test]
    fn reads_both_codecs() {
        for codec in ["Lucene90FieldInfos", "Lucene94FieldInfos"] {
            let bytes = fnm(codec, 0);
            let mut input = Input::new(Path::new("_0.fnm"), &bytes);
            let infos = FieldInfos::read(&mut input, &[3; ID_LENGTH], "").unwrap();
            let contents = infos.by_name("contents").unwrap();
            assert_eq!(contents.number, 1);
            assert_eq!(contents.index_options, IndexOptions::DocsAndFreqs);
            assert!(contents.has_norms());
            assert!(!infos.by_name("id").unwrap().has_norms());
            assert_eq!(
                contents.attribute("PerFieldPostingsFormat.format"),
                Some("Lucene99")
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn damage_is_an_error_not_a_panic(cut in 0usize..400, flip in 0usize..4000) {
            let bytes = fnm("Lucene94FieldInfos", 0);
            let mut damaged = bytes[..cut.min(bytes.len())].to_vec();
            if !damaged.is_empty() {
                let bit = flip % (8 * damaged.len());
                damaged[bit / 8] ^= 1 << (bit % 8);
            }
            let mut input = Input::new(Path::new("_0.fnm"), &damaged);
            let _ = FieldInfos::read(&mut input, &[3; ID_LENGTH], "");
        }
    }
}
