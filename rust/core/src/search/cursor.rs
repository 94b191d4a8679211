//! A document-at-a-time cursor over one posting list, for the pruned
//! top-k algorithms of [`super::pruned`].
//!
//! A cursor decodes one block at a time and moves forward only: `next` to
//! the following posting, `advance` to the first posting at or after a
//! target document, skipping whole blocks by their last doc id without
//! decoding them. It also answers, from block metadata alone, the score
//! bound of the block that would hold a target document (`block_bound`),
//! which is what block-max pruning needs.

use crate::postings::{BlockDecoder, PostingList};

/// The doc id of an exhausted cursor (a segment holds fewer documents).
pub const END: u32 = u32::MAX;

/// A forward-only reader of one term's postings.
pub struct Cursor<'a> {
    list: PostingList<'a>,
    decoder: BlockDecoder,
    /// Index of the decoded block.
    block: usize,
    /// Block of the latest metadata lookup (never behind `block` for a
    /// later target), so that lookups for ascending targets stay linear.
    shallow: usize,
    /// Documents in the decoded block.
    len: usize,
    /// Position in the decoded block.
    pos: usize,
    /// The current document, or [`END`].
    pub doc: u32,
    /// Score upper bound of each block (one entry for a list without a
    /// block table); see [`Cursor::bound`].
    block_bounds: Vec<f64>,
    /// Upper bound of any posting's score in the list.
    bound: f64,
}

impl<'a> Cursor<'a> {
    /// A cursor on the first posting of `list`. `block_bound(max_tf,
    /// min_length)` bounds the score of any posting of a block with that
    /// largest tf and smallest document length; `posting_score(doc, tf)` is
    /// the exact score of one posting (used to bound lists too short to
    /// have block metadata, by scoring all of their postings).
    pub fn new(
        list: PostingList<'a>,
        block_bound: impl Fn(u32, u32) -> f64,
        posting_score: impl Fn(u32, u32) -> f64,
    ) -> Self {
        let mut cursor = Cursor {
            list,
            decoder: BlockDecoder::default(),
            block: 0,
            shallow: 0,
            len: 0,
            pos: 0,
            doc: END,
            block_bounds: Vec::new(),
            bound: 0.0,
        };
        cursor.load(0);
        if list.blocks.is_empty() {
            let best = (0..cursor.len)
                .map(|i| posting_score(cursor.decoder.docs[i], cursor.decoder.tfs[i]))
                .fold(0.0, f64::max);
            cursor.block_bounds.push(best);
        } else {
            cursor.block_bounds = list
                .blocks
                .iter()
                .map(|m| block_bound(m.max_tf, m.min_length))
                .collect();
        }
        cursor.bound = cursor.block_bounds.iter().copied().fold(0.0, f64::max);
        cursor
    }

    /// Upper bound of the score of any posting in the list.
    #[inline]
    pub fn bound(&self) -> f64 {
        self.bound
    }

    /// The list's document frequency.
    #[inline]
    pub fn df(&self) -> u32 {
        self.list.df
    }

    /// Moves back to the first posting.
    pub fn rewind(&mut self) {
        self.shallow = 0;
        self.load(0);
    }

    /// The current posting's tf.
    #[inline]
    pub fn tf(&self) -> u32 {
        self.decoder.tfs[self.pos]
    }

    /// Decodes block `index` and moves to its first posting; an undecodable
    /// (damaged) or missing block ends the cursor.
    fn load(&mut self, index: usize) {
        self.block = index;
        self.pos = 0;
        self.len = if index < self.list.num_blocks() {
            self.decoder.decode(&self.list, index).unwrap_or(0)
        } else {
            0
        };
        self.doc = if self.len == 0 {
            END
        } else {
            self.decoder.docs[0]
        };
    }

    /// Moves to the next posting.
    #[inline]
    pub fn next(&mut self) {
        if self.doc == END {
            return;
        }
        self.pos += 1;
        if self.pos < self.len {
            self.doc = self.decoder.docs[self.pos];
        } else {
            self.load(self.block + 1);
        }
    }

    /// The postings of the decoded block from the current one on whose docs
    /// are at most `end`: their docs and tfs.
    #[inline]
    pub fn run(&self, end: u32) -> (&[u32], &[u32]) {
        let docs = &self.decoder.docs[self.pos..self.len];
        let count = docs.partition_point(|&d| d <= end);
        (
            &docs[..count],
            &self.decoder.tfs[self.pos..self.pos + count],
        )
    }

    /// Moves past `count` postings of the decoded block (at most those
    /// left in it): to the next block when none is left.
    #[inline]
    pub fn skip(&mut self, count: usize) {
        if self.doc == END || count == 0 {
            return;
        }
        self.pos = (self.pos + count).min(self.len);
        if self.pos < self.len {
            self.doc = self.decoder.docs[self.pos];
        } else {
            self.load(self.block + 1);
        }
    }

    /// Index of the first block, from the current one on, whose last doc is
    /// at least `target` (the number of blocks if none).
    #[inline]
    fn block_for(&mut self, target: u32) -> usize {
        let blocks = self.list.blocks;
        if blocks.is_empty() {
            // One block, decoded: it holds `target` unless it ends before.
            return if self.len > 0 && self.decoder.docs[self.len - 1] >= target {
                0
            } else {
                1
            };
        }
        let resume = self.shallow > self.block
            && blocks
                .get(self.shallow - 1)
                .is_some_and(|m| m.last_doc < target);
        let mut b = if resume { self.shallow } else { self.block };
        while b < blocks.len() && blocks[b].last_doc < target {
            b += 1;
        }
        self.shallow = b;
        b
    }

    /// Moves to the first posting whose doc is at least `target`.
    #[inline]
    pub fn advance(&mut self, target: u32) {
        if self.doc >= target {
            return;
        }
        let b = self.block_for(target);
        if b != self.block {
            self.load(b);
        }
        // Past the decoded block only if its last doc disagrees with its
        // metadata, which only a damaged file does.
        while self.doc < target {
            self.next();
        }
    }

    /// Score bound of the block that would hold `target` (0 past the end of
    /// the list), from metadata alone: nothing is decoded.
    #[inline]
    pub fn block_bound(&mut self, target: u32) -> f64 {
        if self.doc == END {
            return 0.0;
        }
        let b = self.block_for(target);
        self.block_bounds.get(b).copied().unwrap_or(0.0)
    }

    /// Last doc of the block that would hold `target` ([`END`] past the end
    /// of the list): every doc up to it shares that block's bound.
    #[inline]
    pub fn block_end(&mut self, target: u32) -> u32 {
        if self.doc == END {
            return END;
        }
        let b = self.block_for(target);
        match self.list.blocks.get(b) {
            Some(meta) => meta.last_doc,
            None if self.list.blocks.is_empty() && b == 0 => self.decoder.docs[self.len - 1],
            None => END,
        }
    }
}
