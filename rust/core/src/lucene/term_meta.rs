//! The postings writer's per-term metadata in a term block (`decodeTerm`
//! of the Lucene 8.x (format version 1), 9.0 and 9.9 postings readers,
//! which agree on it): where
//! the term's postings start in `.doc`, `.pos` and `.pay`, or the one
//! document of a term that occurs in a single document.

use super::input::Input;
use crate::error::Result;

/// Values in one packed postings block (`BLOCK_SIZE` of the postings formats).
pub const BLOCK_SIZE: u64 = 128;

/// The postings formats this module reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PostingsVersion {
    /// `Lucene84PostingsFormat` (Lucene 8.x), format version 1: doc gaps
    /// in FOR blocks, vInt tails as Lucene90.
    Lucene84,
    /// `Lucene90PostingsFormat` (Lucene 9.0 to 9.8): doc gaps in PFOR blocks.
    Lucene90,
    /// `Lucene99PostingsFormat` (Lucene 9.9 to 9.11): doc gaps in FOR blocks.
    Lucene99,
}

/// What a field indexes, which decides what its metadata holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldLayout {
    /// Term frequencies are indexed.
    pub freqs: bool,
    /// Positions are indexed (`.pos` pointers follow).
    pub positions: bool,
    /// Offsets or payloads are indexed (`.pay` pointers follow).
    pub offsets_or_payloads: bool,
}

/// One term's statistics and postings pointers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TermMeta {
    /// Documents containing the term.
    pub doc_freq: u32,
    /// Occurrences of the term (the doc freq when frequencies are omitted).
    pub total_term_freq: u64,
    /// Start of the term's postings in `.doc`.
    pub doc_start_fp: u64,
    /// Start of the term's positions in `.pos`.
    pub pos_start_fp: u64,
    /// Start of the term's payloads and offsets in `.pay`.
    pub pay_start_fp: u64,
    /// The one document of a term with doc freq 1, inlined here, else -1.
    pub singleton_doc: i64,
}

impl TermMeta {
    /// Decodes the next term's metadata from a block's metadata bytes.
    /// `self` holds the previous term of the block (pointers are deltas
    /// from it) unless `absolute`, for the block's first term. The term's
    /// `doc_freq` and `total_term_freq` must already be set.
    pub fn decode(&mut self, input: &mut Input, layout: FieldLayout, absolute: bool) -> Result<()> {
        if absolute {
            self.doc_start_fp = 0;
            self.pos_start_fp = 0;
            self.pay_start_fp = 0;
        }
        let at = input.pos();
        let code = input.read_vlong()?;
        if code & 1 == 0 {
            self.doc_start_fp = add(input, self.doc_start_fp, code >> 1)?;
            self.singleton_doc = if self.doc_freq == 1 {
                i64::from(input.read_vint()?)
            } else {
                -1
            };
        } else {
            // A singleton as a zig-zag delta from the previous term's singleton.
            if absolute || self.singleton_doc < 0 || self.doc_freq != 1 {
                return Err(input.corrupt(format!(
                    "term metadata at offset {at}: a singleton document delta without a previous singleton"
                )));
            }
            let z = code >> 1;
            let delta = (z >> 1) as i64 ^ -((z & 1) as i64);
            self.singleton_doc += delta;
        }
        if layout.positions {
            let d = input.read_vlong()?;
            self.pos_start_fp = add(input, self.pos_start_fp, d)?;
            if layout.offsets_or_payloads {
                let d = input.read_vlong()?;
                self.pay_start_fp = add(input, self.pay_start_fp, d)?;
            }
            if self.total_term_freq > BLOCK_SIZE {
                input.read_vlong()?; // offset of the last positions block
            }
        }
        if u64::from(self.doc_freq) > BLOCK_SIZE {
            input.read_vlong()?; // skip data offset, not needed to read in order
        }
        Ok(())
    }
}

fn add(input: &Input, a: u64, b: u64) -> Result<u64> {
    a.checked_add(b)
        .ok_or_else(|| input.corrupt("a file pointer in the term metadata overflows"))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::lucene::testing::Out;

    const DOCS_FREQS: FieldLayout = FieldLayout {
        freqs: true,
        positions: false,
        offsets_or_payloads: false,
    };

    fn meta(df: u32, ttf: u64) -> TermMeta {
        TermMeta {
            doc_freq: df,
            total_term_freq: ttf,
            singleton_doc: -1,
            ..TermMeta::default()
        }
    }

    #[test]
    fn pointers_are_deltas_and_singletons_inline_or_as_zigzag_deltas() {
        let mut o = Out::default();
        o.vlong(100 << 1); // first term: doc fp 100, doc freq 3
        o.vlong(40 << 1); // second: +40, doc freq 200, then its skip offset
        o.vlong(77);
        o.vlong(0); // third: singleton document 9
        o.vint(9);
        o.vlong((3 << 1) << 1 | 1); // fourth: singleton 9 + 3 (zig-zag 6)
        let path = Path::new("_0_Lucene99_0.tim");
        let mut input = Input::new(path, &o.bytes);
        let mut m = meta(3, 5);
        m.decode(&mut input, DOCS_FREQS, true).unwrap();
        assert_eq!((m.doc_start_fp, m.singleton_doc), (100, -1));
        m.doc_freq = 200;
        m.decode(&mut input, DOCS_FREQS, false).unwrap();
        assert_eq!((m.doc_start_fp, m.singleton_doc), (140, -1));
        m.doc_freq = 1;
        m.decode(&mut input, DOCS_FREQS, false).unwrap();
        assert_eq!((m.doc_start_fp, m.singleton_doc), (140, 9));
        m.decode(&mut input, DOCS_FREQS, false).unwrap();
        assert_eq!(m.singleton_doc, 12);
        o.bytes.clear();
        o.vlong(1 << 1 | 1); // then 12 - 1 (zig-zag 1)
        m.decode(&mut Input::new(path, &o.bytes), DOCS_FREQS, false)
            .unwrap();
        assert_eq!(m.singleton_doc, 11);
    }

    #[test]
    fn position_pointers_follow_when_positions_are_indexed() {
        let layout = FieldLayout {
            freqs: true,
            positions: true,
            offsets_or_payloads: true,
        };
        let mut o = Out::default();
        o.vlong(8 << 1);
        o.vlong(30); // pos
        o.vlong(7); // pay
        o.vlong(999); // last pos block offset (ttf > 128)
        let mut m = meta(2, 300);
        let mut input = Input::new(Path::new("t.tim"), &o.bytes);
        m.decode(&mut input, layout, true).unwrap();
        assert_eq!((m.doc_start_fp, m.pos_start_fp, m.pay_start_fp), (8, 30, 7));
        assert_eq!(input.remaining(), 0);
    }

    #[test]
    fn a_delta_without_a_previous_singleton_is_corruption() {
        let mut o = Out::default();
        o.vlong(3);
        let mut m = meta(1, 1);
        let err = m
            .decode(
                &mut Input::new(Path::new("t.tim"), &o.bytes),
                DOCS_FREQS,
                true,
            )
            .unwrap_err();
        assert!(err.to_string().contains("t.tim"), "{err}");
    }
}
