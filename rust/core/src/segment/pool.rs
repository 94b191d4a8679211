//! The in-memory postings of a segment being built: every term's list in
//! one array of growing slabs.

/// Where one term's postings are in a [`PostingPool`].
#[derive(Clone, Copy, Default)]
pub(super) struct PoolList {
    /// Start of the first slab.
    first: u32,
    /// Start of the last slab.
    slab: u32,
    /// Next free slot, and the end of the last slab.
    write: u32,
    end: u32,
    /// Number of postings.
    len: u32,
}

/// The postings of every term of a segment being built, in one array of
/// slabs: a slab is the index of the term's next slab, then (doc, tf) pairs.
/// A list's slabs hold as many postings as the list had before them (at
/// least 2, at most 256), so there is no allocation per term and little
/// slack.
#[derive(Default)]
pub(super) struct PostingPool {
    pub(super) pool: Vec<u32>,
    pub(super) lists: Vec<PoolList>,
}

impl PostingPool {
    fn slab_capacity(len_before: u32) -> u32 {
        len_before.clamp(2, 256)
    }

    /// Pool slots that adding `postings` postings to `terms` lists may take
    /// at most: the pairs, and a new slab per list.
    pub(super) fn room_needed(postings: usize, terms: usize) -> usize {
        2 * postings + (1 + 2 * 256) * terms
    }

    #[inline]
    pub(super) fn push(&mut self, list: u32, doc: u32, tf: u32) {
        let l = &mut self.lists[list as usize];
        if l.write == l.end {
            let cap = Self::slab_capacity(l.len);
            let start = self.pool.len() as u32;
            self.pool.resize(self.pool.len() + 1 + 2 * cap as usize, 0);
            if l.len == 0 {
                l.first = start;
            } else {
                self.pool[l.slab as usize] = start;
            }
            l.slab = start;
            l.write = start + 1;
            l.end = start + 1 + 2 * cap;
        }
        let w = l.write as usize;
        self.pool[w] = doc;
        self.pool[w + 1] = tf;
        l.write += 2;
        l.len += 1;
    }

    /// Appends `list`'s postings to `docs` and `tfs`.
    pub(super) fn read(&self, list: u32, docs: &mut Vec<u32>, tfs: &mut Vec<u32>) {
        let l = self.lists[list as usize];
        let (mut slab, mut seen) = (l.first as usize, 0u32);
        while seen < l.len {
            let n = Self::slab_capacity(seen).min(l.len - seen) as usize;
            let pairs = &self.pool[slab + 1..slab + 1 + 2 * n];
            for pair in pairs.chunks_exact(2) {
                docs.push(pair[0]);
                tfs.push(pair[1]);
            }
            seen += n as u32;
            slab = self.pool[slab] as usize;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_posting_pool_gives_back_each_list_in_order() {
        let mut pool = PostingPool::default();
        let mut expected: Vec<(Vec<u32>, Vec<u32>)> = vec![Default::default(); 50];
        pool.lists.resize(50, PoolList::default());
        let mut state = 99u64;
        for doc in 0..20_000u32 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Skewed: low lists get most postings, so some span many slabs.
            let list = ((state >> 33) % 50).min((state >> 40) % 50) as u32;
            let tf = (state >> 20) as u32 % 7 + 1;
            pool.push(list, doc, tf);
            expected[list as usize].0.push(doc);
            expected[list as usize].1.push(tf);
        }
        for (list, (docs, tfs)) in expected.iter().enumerate() {
            let (mut d, mut t) = (vec![7], vec![7]);
            pool.read(list as u32, &mut d, &mut t);
            assert_eq!(&d[1..], docs.as_slice());
            assert_eq!(&t[1..], tfs.as_slice());
        }
    }
}
