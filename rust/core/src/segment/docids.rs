//! A segment's external docids, bit-packed offsets then the UTF-8 text.

use crate::bits::{self, BitWriter};
use crate::data::Data;

/// Docids of a segment: a u8 bit width `w`, `n + 1` offsets bit-packed at
/// `w` bits (LSB first, zero-padded to a byte), then the UTF-8 bytes.
#[derive(Clone, Debug)]
pub struct DocIds {
    data: Data,
    count: usize,
    width: u8,
    text_at: usize,
}

impl DocIds {
    /// Encodes `docids` in the on-disk layout.
    pub fn encode<'a>(docids: impl ExactSizeIterator<Item = &'a str> + Clone) -> Vec<u8> {
        let total: usize = docids.clone().map(str::len).sum();
        let width = bits::width(total as u64);
        let mut out = BitWriter::after(vec![width]);
        let mut offset = 0u64;
        out.push(offset, width);
        for d in docids.clone() {
            offset += d.len() as u64;
            out.push(offset, width);
        }
        let mut out = out.finish();
        out.reserve(total);
        for d in docids {
            out.extend_from_slice(d.as_bytes());
        }
        out
    }

    /// Opens `count` docids; `None` if the layout is inconsistent: offsets
    /// must start at 0, never decrease and end at the data's end, and every
    /// docid must be UTF-8.
    pub fn open(data: Data, count: usize) -> Option<Self> {
        let width = *data.first()?;
        if width > 64 {
            return None;
        }
        let text_at = bits::packed_len(count.checked_add(1)?, width)?.checked_add(1)?;
        if data.len() < text_at {
            return None;
        }
        let ids = DocIds {
            data,
            count,
            width,
            text_at,
        };
        let text_len = (ids.data.len() - text_at) as u64;
        if ids.offset(0) != 0 || ids.offset(count) != text_len {
            return None;
        }
        let text = std::str::from_utf8(&ids.data[text_at..]).ok()?;
        let mut offsets = bits::Reader::new(&ids.data[1..text_at], width);
        let mut previous = offsets.next_value();
        for _ in 0..count {
            let next = offsets.next_value();
            if next < previous || !text.is_char_boundary(usize::try_from(next).ok()?) {
                return None;
            }
            previous = next;
        }
        Some(ids)
    }

    fn offset(&self, i: usize) -> u64 {
        bits::read(
            &self.data[1..self.text_at],
            i * usize::from(self.width),
            self.width,
        )
    }

    /// The docid of document `doc`.
    pub fn get(&self, doc: u32) -> Option<&str> {
        std::str::from_utf8(self.get_bytes(doc)?).ok()
    }

    /// The UTF-8 bytes of the docid of `doc` (they compare as the docids do).
    pub fn get_bytes(&self, doc: u32) -> Option<&[u8]> {
        let i = doc as usize;
        if i >= self.count {
            return None;
        }
        let (a, b) = (self.offset(i) as usize, self.offset(i + 1) as usize);
        self.data[self.text_at..].get(a..b)
    }

    /// Number of docids.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there is no docid.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The encoded bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }
}
