//! The document store: each document's original JSON object when it came as
//! JSON (its indexed text is derived from it again on reading, by
//! [`crate::document::fields_of`]), or else its indexed text; compressed with
//! zstd in blocks of about [`BLOCK_BYTES`], so fetching one document
//! decompresses one small block.
//!
//! Payload layout: the compressed blocks back to back, then a block table of
//! `(first doc u32, offset u64)` per block, then the block count (u64). A
//! block holds, per document, a kind byte (0: text; 1: JSON whose derived
//! text is the document's; 2: text, then JSON) then `u32 length + bytes`
//! (twice for kind 2), all little-endian.

use std::cell::RefCell;

use crate::data::Data;

/// Uncompressed bytes gathered before a block is compressed.
pub const BLOCK_BYTES: usize = 16 * 1024;
const ZSTD_LEVEL: i32 = 3;
const KIND_TEXT: u8 = 0;
const KIND_JSON: u8 = 1;
const KIND_TEXT_AND_JSON: u8 = 2;

/// One stored document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredDoc {
    /// The indexed text.
    pub contents: String,
    /// The original JSON object, when the document was given as JSON.
    pub raw: Option<String>,
    /// Whether `contents` is derived from `raw` (stored once).
    pub derived: bool,
}

/// Builds a store document by document, compressing full blocks as it goes.
#[derive(Default)]
pub struct DocStoreWriter {
    out: Vec<u8>,
    table: Vec<(u32, u64)>,
    pending: Vec<u8>,
    pending_first: u32,
    num_docs: u32,
}

impl DocStoreWriter {
    /// Appends the next document (ids are consecutive from 0): its text and
    /// its JSON object, if it has one; `derived` says that the text can be
    /// derived from the JSON again, so only the JSON is kept.
    pub fn add(&mut self, contents: &str, raw: Option<&str>, derived: bool) {
        if self.pending.is_empty() {
            self.pending_first = self.num_docs;
        }
        match raw {
            Some(json) if derived => {
                push_kind(&mut self.pending, KIND_JSON);
                push_bytes(&mut self.pending, json);
            }
            Some(json) => {
                push_kind(&mut self.pending, KIND_TEXT_AND_JSON);
                push_bytes(&mut self.pending, contents);
                push_bytes(&mut self.pending, json);
            }
            None => {
                push_kind(&mut self.pending, KIND_TEXT);
                push_bytes(&mut self.pending, contents);
            }
        }
        self.num_docs += 1;
        if self.pending.len() >= BLOCK_BYTES {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let compressed = zstd::bulk::compress(&self.pending, ZSTD_LEVEL)
            .expect("compressing to memory cannot fail");
        self.table.push((self.pending_first, self.out.len() as u64));
        self.out.extend_from_slice(&compressed);
        self.pending.clear();
    }

    /// Bytes held so far (compressed blocks, the block table and the
    /// pending block).
    pub fn memory_bytes(&self) -> usize {
        self.out.len() + self.table.len() * 12 + self.pending.capacity()
    }

    /// The store's payload bytes.
    pub fn finish(mut self) -> Vec<u8> {
        self.flush();
        write_table(&mut self.out, &self.table);
        self.out
    }
}

/// Appends the block table, `(first doc, byte offset)` per block, and its length.
fn write_table(out: &mut Vec<u8>, table: &[(u32, u64)]) {
    for (first, offset) in table {
        out.extend_from_slice(&first.to_le_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
    }
    out.extend_from_slice(&(table.len() as u64).to_le_bytes());
}

fn push_kind(out: &mut Vec<u8>, kind: u8) {
    out.push(kind);
}

fn push_bytes(out: &mut Vec<u8>, bytes: &str) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes.as_bytes());
}

/// Decompressed blocks up to this size go through the thread's reusable
/// context, sized by the frame header; a larger claimed size (a block with a
/// very large document, or a damaged header) is streamed, so that no header
/// can make a fetch allocate more than it decodes.
const BULK_MAX_BYTES: u64 = 16 << 20;

thread_local! {
    /// One decompression context per thread: setting one up costs more than
    /// decompressing a block, and a fetch needs one.
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
}

/// The bytes of one compressed block; `None` if it is damaged.
fn decompress_block(compressed: &[u8]) -> Option<Vec<u8>> {
    // Blocks are single frames from `zstd::bulk::compress`, which records their size.
    match zstd::zstd_safe::get_frame_content_size(compressed) {
        Ok(Some(size)) if size <= BULK_MAX_BYTES => DECOMPRESSOR.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                *slot = Some(zstd::bulk::Decompressor::new().ok()?);
            }
            slot.as_mut()?.decompress(compressed, size as usize).ok()
        }),
        _ => zstd::stream::decode_all(compressed).ok(),
    }
}

/// Reads documents from a store payload.
#[derive(Clone, Debug)]
pub struct DocStore {
    data: Data,
    table: Vec<(u32, u64)>,
    blocks_end: usize,
    num_docs: u32,
}

impl DocStore {
    /// Opens a store of `num_docs` documents; `None` if its layout is inconsistent.
    pub fn open(data: Data, num_docs: u32) -> Option<Self> {
        let len = data.len();
        let count = u64::from_le_bytes(data.get(len.checked_sub(8)?..)?.try_into().ok()?) as usize;
        let table_start = len.checked_sub(8)?.checked_sub(count.checked_mul(12)?)?;
        let mut table = Vec::with_capacity(count);
        for i in 0..count {
            let at = table_start + i * 12;
            let first = u32::from_le_bytes(data[at..at + 4].try_into().ok()?);
            let offset = u64::from_le_bytes(data[at + 4..at + 12].try_into().ok()?);
            table.push((first, offset));
        }
        let ordered = table
            .windows(2)
            .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1);
        let in_range = table
            .iter()
            .all(|&(f, o)| f < num_docs.max(1) && o as usize <= table_start);
        if !ordered || !in_range || (num_docs > 0 && table.first().map(|t| t.0) != Some(0)) {
            return None;
        }
        Some(DocStore {
            data,
            table,
            blocks_end: table_start,
            num_docs,
        })
    }

    /// One payload holding the documents of `stores` in order, their
    /// compressed blocks copied as they are.
    pub fn concat(stores: &[DocStore]) -> Vec<u8> {
        let mut out = Vec::with_capacity(stores.iter().map(|s| s.data.len()).sum());
        let mut table = Vec::new();
        let mut first_doc = 0u32;
        for store in stores {
            let byte_base = out.len() as u64;
            table.extend(
                store
                    .table
                    .iter()
                    .map(|&(first, offset)| (first + first_doc, offset + byte_base)),
            );
            out.extend_from_slice(&store.data[..store.blocks_end]);
            first_doc += store.num_docs;
        }
        write_table(&mut out, &table);
        out
    }

    /// The payload bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }

    /// Compressed size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.data.len()
    }

    /// Document `doc`; `None` if out of range or the block is damaged.
    pub fn get(&self, doc: u32) -> Option<StoredDoc> {
        if doc >= self.num_docs {
            return None;
        }
        let block = self
            .table
            .partition_point(|&(first, _)| first <= doc)
            .checked_sub(1)?;
        let (first, start) = self.table[block];
        let end = self
            .table
            .get(block + 1)
            .map_or(self.blocks_end as u64, |t| t.1);
        let compressed = self.data.get(start as usize..end as usize)?;
        let raw = decompress_block(compressed)?;
        let mut pos = 0usize;
        let field = |pos: &mut usize| -> Option<&str> {
            let len = u32::from_le_bytes(raw.get(*pos..*pos + 4)?.try_into().ok()?) as usize;
            let bytes = raw.get(*pos + 4..*pos + 4 + len)?;
            *pos += 4 + len;
            std::str::from_utf8(bytes).ok()
        };
        let record = |pos: &mut usize| -> Option<(u8, &str, Option<&str>)> {
            let kind = *raw.get(*pos)?;
            *pos += 1;
            let first = field(pos)?;
            let second = if kind == KIND_TEXT_AND_JSON {
                Some(field(pos)?)
            } else {
                None
            };
            Some((kind, first, second))
        };
        for _ in first..doc {
            record(&mut pos)?;
        }
        let (contents, raw, derived) = match record(&mut pos)? {
            (KIND_TEXT, text, _) => (text.to_owned(), None, false),
            (KIND_JSON, json, _) => (
                crate::document::document_fields(json).ok()?.1,
                Some(json.to_owned()),
                true,
            ),
            (KIND_TEXT_AND_JSON, text, json) => (text.to_owned(), json.map(str::to_owned), false),
            _ => return None,
        };
        Some(StoredDoc {
            contents,
            raw,
            derived,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_over_many_blocks() {
        let mut w = DocStoreWriter::default();
        let docs: Vec<(String, Option<String>)> = (0..3000)
            .map(|i| {
                let text = format!("document {i} ").repeat(i % 50 + 1);
                let raw = (i % 3 == 0).then(|| {
                    serde_json::json!({"id": format!("d{i}"), "contents": text}).to_string()
                });
                (text, raw)
            })
            .collect();
        for (i, (text, raw)) in docs.iter().enumerate() {
            w.add(text, raw.as_deref(), i % 2 == 0);
        }
        let store = DocStore::open(Data::owned(w.finish()), docs.len() as u32).unwrap();
        assert!(store.table.len() > 10);
        for (i, (text, raw)) in docs.iter().enumerate() {
            let got = store.get(i as u32).unwrap();
            assert_eq!(&got.contents, text);
            assert_eq!(&got.raw, raw);
            assert_eq!(got.derived, raw.is_some() && i % 2 == 0);
        }
        assert!(store.get(docs.len() as u32).is_none());
    }

    #[test]
    fn a_block_past_the_bulk_limit_is_streamed() {
        let big = "x".repeat(BULK_MAX_BYTES as usize + 1);
        let mut w = DocStoreWriter::default();
        w.add("small", None, false);
        w.add(&big, None, false);
        w.add("after", None, false);
        let store = DocStore::open(Data::owned(w.finish()), 3).unwrap();
        assert_eq!(store.get(1).unwrap().contents, big);
        assert_eq!(store.get(2).unwrap().contents, "after");
        assert_eq!(store.get(0).unwrap().contents, "small");
    }

    #[test]
    fn damaged_blocks_give_none_or_bytes_never_a_panic() {
        let mut w = DocStoreWriter::default();
        for i in 0..200 {
            w.add(&format!("document number {i} ").repeat(20), None, false);
        }
        let clean = w.finish();
        for at in [0, 4, 9, 30, 200, 1000] {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bytes = clean.clone();
                bytes[at] ^= flip;
                if let Some(store) = DocStore::open(Data::owned(bytes), 200) {
                    for doc in 0..200 {
                        let _ = store.get(doc);
                    }
                }
            }
        }
        // A frame cut short is damaged.
        let mut frame = zstd::bulk::compress(b"tiny", 3).unwrap();
        assert!(decompress_block(&frame).is_some());
        frame.truncate(frame.len() - 1);
        assert!(decompress_block(&frame).is_none());
    }

    #[test]
    fn empty_store_and_garbage() {
        let store = DocStore::open(Data::owned(DocStoreWriter::default().finish()), 0).unwrap();
        assert!(store.get(0).is_none());
        assert!(DocStore::open(Data::owned(vec![1, 2, 3]), 5).is_none());
        assert!(DocStore::open(Data::owned(vec![0xff; 64]), 5).is_none());
    }
}
