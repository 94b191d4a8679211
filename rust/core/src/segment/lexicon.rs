//! A small segment's term dictionary as a hash table, with every term's
//! postings info decoded: once the segment has been asked for enough terms,
//! a lookup is one hash probe instead of a walk down the FST and two reads
//! of the bit-packed term table (together about a seventh of a short
//! query's instructions on SciFact).
//!
//! Terms of up to 16 bytes (nearly all) are kept inline in the table, so a
//! lookup reads its group of control bytes and one entry: between queries,
//! scoring evicts the table from the caches, and each further read it made
//! (the term's text, its place in a list) would be one more miss waited
//! for. Longer terms are looked up in the FST.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use hashbrown::HashTable;

use crate::data::Data;
use crate::postings::{BLOCK_LEN, TermInfo, TermTable};
use crate::short_key::{ShortKey, short_hash, short_key};

/// Segments of more terms keep to the FST: their tables would cost tens of
/// bytes a term in memory, and their queries read so many postings that a
/// lookup is a small part of them.
const MAX_TERMS: usize = 1 << 18;

/// The table is built once the segment has been asked for one term per
/// this many terms it holds. Building takes about half an FST lookup per
/// term (6–7 ms for SciFact's 28,865), so a segment asked for that many is
/// searched often enough for the table to pay for itself soon, and one
/// asked for a handful of terms never builds it.
const TERMS_PER_LOOKUP: usize = 4;

/// A term of up to 16 bytes, zero-padded, with its length (so that a term
/// ending in NUL bytes is told apart) and ordinal.
#[derive(Clone, Copy)]
struct Entry {
    key: ShortKey,
    len: u32,
    ord: u32,
}

/// The dictionary of one segment.
struct Table {
    /// The terms of up to 16 bytes.
    short: HashTable<Entry>,
    /// Every term's info, by ordinal.
    infos: Vec<TermInfo>,
}

/// A segment's dictionary as a hash table, built on demand (see the module
/// documentation); until then every lookup is counted.
#[derive(Default)]
pub(crate) struct Lexicon {
    table: OnceLock<Table>,
    lookups: AtomicUsize,
}

impl Lexicon {
    /// The ordinal of `term` in the segment of dictionary `terms` and term
    /// table `infos`, from the table once it is built; `None` until then,
    /// for a term longer than 16 bytes, and for segments too large to get a
    /// table: the caller then reads the FST.
    #[inline]
    pub(crate) fn ord(
        &self,
        terms: &fst::Map<Data>,
        infos: &TermTable,
        term: &str,
    ) -> Option<Option<u32>> {
        let key = short_key(term.as_bytes(), 0, term.len())?;
        let table = self.table(terms, infos)?;
        let len = term.len() as u32;
        let found = table
            .short
            .find(short_hash(key), |e| e.key == key && e.len == len);
        Some(found.map(|e| e.ord))
    }

    /// `ord`'s info, once the table is built.
    #[inline]
    pub(crate) fn info(&self, ord: u32) -> Option<TermInfo> {
        self.table.get()?.infos.get(ord as usize).copied()
    }

    /// The table, if built or due to be built now.
    fn table(&self, terms: &fst::Map<Data>, infos: &TermTable) -> Option<&Table> {
        if let Some(table) = self.table.get() {
            return Some(table);
        }
        let count = infos.len();
        if count > MAX_TERMS {
            return None;
        }
        // A plain load and store, not a read-modify-write: threads racing
        // here may lose a count, which only delays the build a little.
        let lookups = self.lookups.load(Ordering::Relaxed) + 1;
        self.lookups.store(lookups, Ordering::Relaxed);
        if lookups.saturating_mul(TERMS_PER_LOOKUP) < count {
            return None;
        }
        Some(self.table.get_or_init(|| Table::build(terms, infos)))
    }
}

impl Table {
    fn build(terms: &fst::Map<Data>, table: &TermTable) -> Table {
        use fst::Streamer;
        let count = table.len();
        let mut short = HashTable::with_capacity(count);
        let mut stream = terms.stream();
        while let Some((term, ord)) = stream.next() {
            // Keys are distinct; ordinals are read as `term_ord` reads them.
            if let Some(key) = short_key(term, 0, term.len()) {
                let (len, ord) = (term.len() as u32, ord as u32);
                short.insert_unique(short_hash(key), Entry { key, len, ord }, |e| {
                    short_hash(e.key)
                });
            }
        }
        let mut infos = Vec::with_capacity(count);
        table.scan(|ord, df, offset| {
            // The first block's index is kept for the few long lists only.
            let first_block = match df as usize >= BLOCK_LEN {
                true => table.get(ord).first_block,
                false => 0,
            };
            infos.push(TermInfo {
                df,
                offset,
                first_block,
            });
            true
        });
        Table { short, infos }
    }
}

#[cfg(test)]
impl Lexicon {
    pub(crate) fn is_built(&self) -> bool {
        self.table.get().is_some()
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::AnalyzerConfig;
    use crate::document::Doc;
    use crate::index::Index;

    #[test]
    fn built_after_a_quarter_of_the_terms_looked_up_and_answering_as_the_fst() {
        let config = AnalyzerConfig::preset("whitespace").unwrap();
        // 204 distinct terms, one of them (t0) in 150 documents: a list
        // with a block table, so its first block's index is kept; three
        // longer than 16 bytes, looked up in the FST.
        let docs: Vec<Doc> = (0..150)
            .map(|i| {
                let text = format!("t0 t{} u{} a_term_of_17_bytes{}", i % 50 + 1, i, i % 3);
                Doc::new(format!("d{i}"), text)
            })
            .collect();
        let index = Index::build_docs(config, docs, false).unwrap();
        let data = index.segments()[0].data();
        let terms: Vec<String> = {
            use fst::Streamer;
            let mut stream = data.terms.stream();
            let mut all = Vec::new();
            while let Some((key, _)) = stream.next() {
                all.push(String::from_utf8(key.to_vec()).unwrap());
            }
            all
        };
        assert_eq!(terms.len(), 204);
        let expected = |t: &str| data.terms.get(t).map(|o| o as u32);
        // Answered from the FST until 204 / 4 terms of up to 16 bytes have
        // been asked for (longer ones are not counted).
        for t in terms.iter().filter(|t| t.len() <= 16).take(50) {
            assert_eq!(data.term_ord(t), expected(t));
            assert!(!data.lexicon.is_built());
        }
        assert_eq!(data.term_ord("absent"), None);
        assert!(data.lexicon.is_built());
        let others = [
            "absent",
            "",
            "a_term_of_17_bytes",
            "a_term_of_17_bytes9",
            "t0\0",
        ];
        for t in terms.iter().map(String::as_str).chain(others) {
            assert_eq!(data.term_ord(t), expected(t), "{t:?}");
            let from_table = data.lexicon.ord(&data.terms, &data.term_infos, t);
            assert_eq!(from_table.is_none(), t.len() > 16, "{t:?}");
        }
        for ord in 0..terms.len() as u32 + 2 {
            let (got, want) = (data.term_info(ord), data.term_infos.get(ord));
            assert_eq!(
                (got.df, got.offset, got.first_block),
                (want.df, want.offset, want.first_block)
            );
        }
        assert!(data.term_info(data.term_ord("t0").unwrap()).has_blocks());
    }
}
