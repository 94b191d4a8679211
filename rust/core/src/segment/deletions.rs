//! The deleted documents of one segment, as a bit set.

/// A set of deleted documents of one segment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deletions {
    words: Vec<u64>,
    count: usize,
}

impl Deletions {
    /// No deletion among `n` documents.
    pub fn new(n: usize) -> Self {
        Deletions {
            words: vec![0; n.div_ceil(64)],
            count: 0,
        }
    }

    /// Whether `doc` is deleted.
    #[inline]
    pub fn contains(&self, doc: u32) -> bool {
        self.words
            .get(doc as usize / 64)
            .is_some_and(|w| w >> (doc % 64) & 1 == 1)
    }

    /// Marks `doc` deleted; returns whether it was live.
    pub fn insert(&mut self, doc: u32) -> bool {
        let Some(w) = self.words.get_mut(doc as usize / 64) else {
            return false;
        };
        let bit = 1u64 << (doc % 64);
        let was_live = *w & bit == 0;
        *w |= bit;
        self.count += usize::from(was_live);
        was_live
    }

    /// Number of deleted documents.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The on-disk bytes: the 64-bit words, little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// Reads deletions of `n` documents; `None` if the size is wrong.
    pub fn from_bytes(bytes: &[u8], n: usize) -> Option<Self> {
        if bytes.len() != n.div_ceil(64) * 8 {
            return None;
        }
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        // Bits past the last document must be clear.
        if !n.is_multiple_of(64) && words.last().is_some_and(|w| w >> (n % 64) != 0) {
            return None;
        }
        let count = words.iter().map(|w| w.count_ones() as usize).sum();
        Some(Deletions { words, count })
    }
}
