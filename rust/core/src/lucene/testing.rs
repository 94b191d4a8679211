//! A writer of Lucene's encodings for the unit tests' tiny fixtures: the
//! mirror of [`super::input::Input`].

use super::input::{CODEC_MAGIC, FOOTER_MAGIC, ID_LENGTH};

/// Bytes being written in Lucene's encodings.
#[derive(Default)]
pub(crate) struct Out {
    pub(crate) bytes: Vec<u8>,
}

impl Out {
    pub(crate) fn byte(&mut self, b: u8) {
        self.bytes.push(b);
    }

    pub(crate) fn raw(&mut self, b: &[u8]) {
        self.bytes.extend_from_slice(b);
    }

    pub(crate) fn int(&mut self, v: u32) {
        self.raw(&v.to_le_bytes());
    }

    pub(crate) fn long(&mut self, v: u64) {
        self.raw(&v.to_le_bytes());
    }

    pub(crate) fn be_int(&mut self, v: u32) {
        self.raw(&v.to_be_bytes());
    }

    pub(crate) fn be_long(&mut self, v: u64) {
        self.raw(&v.to_be_bytes());
    }

    pub(crate) fn vlong(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.byte((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        self.byte(v as u8);
    }

    pub(crate) fn vint(&mut self, v: u32) {
        self.vlong(u64::from(v));
    }

    pub(crate) fn zint(&mut self, v: i32) {
        self.vint(((v << 1) ^ (v >> 31)) as u32);
    }

    pub(crate) fn zlong(&mut self, v: i64) {
        self.vlong(((v << 1) ^ (v >> 63)) as u64);
    }

    pub(crate) fn string(&mut self, s: &str) {
        self.vint(s.len() as u32);
        self.raw(s.as_bytes());
    }

    pub(crate) fn string_map(&mut self, m: &[(&str, &str)]) {
        self.vint(m.len() as u32);
        for (k, v) in m {
            self.string(k);
            self.string(v);
        }
    }

    pub(crate) fn string_set(&mut self, s: &[&str]) {
        self.vint(s.len() as u32);
        for x in s {
            self.string(x);
        }
    }

    pub(crate) fn header(&mut self, codec: &str, version: u32) {
        self.be_int(CODEC_MAGIC);
        self.string(codec);
        self.be_int(version);
    }

    pub(crate) fn index_header(
        &mut self,
        codec: &str,
        version: u32,
        id: &[u8; ID_LENGTH],
        suffix: &str,
    ) {
        self.header(codec, version);
        self.raw(id);
        self.byte(suffix.len() as u8);
        self.raw(suffix.as_bytes());
    }

    pub(crate) fn footer(&mut self) {
        self.be_int(FOOTER_MAGIC);
        self.be_int(0);
        let crc = crc32fast::hash(&self.bytes);
        self.be_long(u64::from(crc));
    }
}
