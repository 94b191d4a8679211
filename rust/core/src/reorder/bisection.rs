//! Recursive graph bisection (Dhulipala et al., KDD 2016), as PISA and
//! Lucene's `BPIndexReorderer` implement it: split the documents in two
//! halves, then swap documents between the halves while the swap lowers the
//! estimated log-gap cost of the postings of both, then recurse into each
//! half. Documents that share terms end up in the same half at every level,
//! so close in the final order.
//!
//! The order is deterministic: every partition starts in ascending document
//! order, gains are summed in a fixed order per document, and documents are
//! ranked by (gain, document number); the two halves are bisected in
//! parallel, but each on its own slice and degree counts, so the thread
//! count never changes the result.

use std::sync::Mutex;

use rayon::prelude::*;

use crate::segment::SegmentData;

/// Settings of the bisection.
#[derive(Clone, Debug, PartialEq)]
pub struct BisectionConfig {
    /// Swap rounds per partition at most (PISA's and Lucene's 20); a
    /// partition stops early once a round swaps nothing.
    pub iterations: u32,
    /// A partition with halves smaller than this is left in document order
    /// (Lucene's 32: a few posting blocks' worth).
    pub min_partition: usize,
    /// Levels of bisection at most.
    pub max_depth: u32,
    /// Terms in fewer documents are left out: a list of one document has
    /// no gap to shrink.
    pub min_df: u32,
    /// Terms in more than this share of the documents are left out: their
    /// gaps are already short, and their long lists dominate the cost.
    pub max_df_share: f64,
}

impl Default for BisectionConfig {
    fn default() -> Self {
        BisectionConfig {
            iterations: 20,
            min_partition: 32,
            max_depth: 40,
            min_df: 2,
            max_df_share: 0.5,
        }
    }
}

/// Documents per parallel task when computing gains.
const GAIN_TASK_DOCS: usize = 4096;

/// `log2(x)` for `x` below this comes from a table (PISA's `Log2<4096>`).
const LOG_TABLE_LEN: usize = 4096;

/// `log2(x)`, by table for small `x`.
struct Log2 {
    table: Vec<f32>,
}

impl Log2 {
    fn new() -> Self {
        Log2 {
            table: (0..LOG_TABLE_LEN)
                .map(|x| if x == 0 { 0.0 } else { (x as f32).log2() })
                .collect(),
        }
    }

    #[inline]
    fn of(&self, x: u32) -> f32 {
        match self.table.get(x as usize) {
            Some(&v) => v,
            None => (x as f32).log2(),
        }
    }
}

/// Each document's distinct terms (those kept by the configuration), as
/// dense term numbers: the document side of the document–term graph.
pub struct ForwardIndex {
    /// Document `d`'s terms are `terms[starts[d]..starts[d + 1]]`.
    starts: Vec<usize>,
    terms: Vec<u32>,
    num_terms: usize,
}

impl ForwardIndex {
    /// The forward index of `docs` (each a list of distinct term numbers
    /// below `num_terms`), keeping every term.
    pub fn new(docs: &[Vec<u32>], num_terms: usize) -> Self {
        let mut starts = Vec::with_capacity(docs.len() + 1);
        starts.push(0);
        let mut terms = Vec::new();
        for doc in docs {
            terms.extend(doc.iter().copied().filter(|&t| (t as usize) < num_terms));
            starts.push(terms.len());
        }
        ForwardIndex {
            starts,
            terms,
            num_terms,
        }
    }

    /// The forward index of a segment's documents over its terms whose
    /// document frequency `config` keeps.
    pub fn from_segment(data: &SegmentData, config: &BisectionConfig) -> Self {
        let n = data.len();
        let max_df = (config.max_df_share * n as f64).floor();
        let kept: Vec<u32> = (0..data.num_terms() as u32)
            .filter(|&ord| {
                let df = data.term_info(ord).df;
                df >= config.min_df.max(2) && f64::from(df) <= max_df
            })
            .collect();
        // Two passes over the kept postings: count per document, then fill.
        let mut starts = vec![0usize; n + 1];
        for &ord in &kept {
            data.for_each_posting(ord, |doc, _| starts[doc as usize + 1] += 1);
        }
        for d in 0..n {
            starts[d + 1] += starts[d];
        }
        let mut fill = starts.clone();
        let mut terms = vec![0u32; starts[n]];
        for (term, &ord) in kept.iter().enumerate() {
            data.for_each_posting(ord, |doc, _| {
                let slot = &mut fill[doc as usize];
                terms[*slot] = term as u32;
                *slot += 1;
            });
        }
        ForwardIndex {
            starts,
            terms,
            num_terms: kept.len(),
        }
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Whether there is no document.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of (document, term) edges.
    pub fn num_edges(&self) -> usize {
        self.terms.len()
    }

    #[inline]
    fn terms(&self, doc: u32) -> &[u32] {
        &self.terms[self.starts[doc as usize]..self.starts[doc as usize + 1]]
    }

    /// The log-gap cost of numbering the documents by `order` (new number
    /// → document): the sum, over every term's list, of `log2` of each gap
    /// between consecutive new numbers (the first counted from -1). About
    /// the bits a gap coder spends on the postings.
    pub fn log_gap_cost(&self, order: &[u32]) -> f64 {
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); self.num_terms];
        for (new, &doc) in order.iter().enumerate() {
            for &t in self.terms(doc) {
                lists[t as usize].push(new as u32);
            }
        }
        lists
            .iter()
            .map(|list| {
                let mut previous = -1i64;
                list.iter()
                    .map(|&p| {
                        let gap = i64::from(p) - previous;
                        previous = i64::from(p);
                        (gap as f64).log2()
                    })
                    .sum::<f64>()
            })
            .sum()
    }
}

/// Degree counts and gains of one partition, sized to the number of terms
/// and all zero between uses: a partition clears only the terms it touched,
/// so a small partition costs nothing per term of the whole index.
struct Scratch {
    left: Vec<u32>,
    right: Vec<u32>,
    /// Per term, the cost saved by moving a left (right) document holding it.
    move_left: Vec<f32>,
    move_right: Vec<f32>,
    touched: Vec<u32>,
    gains: Vec<(f32, u32)>,
}

impl Scratch {
    fn new(num_terms: usize) -> Self {
        Scratch {
            left: vec![0; num_terms],
            right: vec![0; num_terms],
            move_left: vec![0.0; num_terms],
            move_right: vec![0.0; num_terms],
            touched: Vec::new(),
            gains: Vec::new(),
        }
    }
}

/// Scratch spaces shared by the tasks: one per task running at a time.
struct Pool {
    free: Mutex<Vec<Scratch>>,
    num_terms: usize,
}

impl Pool {
    fn take(&self) -> Scratch {
        let reused = self.free.lock().expect("not poisoned").pop();
        reused.unwrap_or_else(|| Scratch::new(self.num_terms))
    }

    fn give(&self, scratch: Scratch) {
        self.free.lock().expect("not poisoned").push(scratch);
    }
}

/// The order (new number → document) recursive graph bisection gives the
/// documents of `forward`.
pub fn bisect(forward: &ForwardIndex, config: &BisectionConfig) -> Vec<u32> {
    let mut order: Vec<u32> = (0..forward.len() as u32).collect();
    let pool = Pool {
        free: Mutex::new(Vec::new()),
        num_terms: forward.num_terms,
    };
    let log2 = Log2::new();
    recurse(forward, config, &pool, &log2, &mut order, 0);
    order
}

fn recurse(
    forward: &ForwardIndex,
    config: &BisectionConfig,
    pool: &Pool,
    log2: &Log2,
    docs: &mut [u32],
    depth: u32,
) {
    // Every partition starts in document order: the result depends on the
    // set of documents only, and leaves keep the original order.
    docs.par_sort_unstable();
    let half = docs.len() / 2;
    if half < config.min_partition.max(1) || depth >= config.max_depth || forward.num_terms == 0 {
        return;
    }
    let mut scratch = pool.take();
    partition(forward, config, log2, docs, half, &mut scratch);
    pool.give(scratch);
    let (left, right) = docs.split_at_mut(half);
    rayon::join(
        || recurse(forward, config, pool, log2, left, depth + 1),
        || recurse(forward, config, pool, log2, right, depth + 1),
    );
}

/// Swaps documents between `docs[..half]` and `docs[half..]` while that
/// lowers the estimated cost.
fn partition(
    forward: &ForwardIndex,
    config: &BisectionConfig,
    log2: &Log2,
    docs: &mut [u32],
    half: usize,
    s: &mut Scratch,
) {
    for (i, &doc) in docs.iter().enumerate() {
        for &t in forward.terms(doc) {
            let t = t as usize;
            if s.left[t] == 0 && s.right[t] == 0 {
                s.touched.push(t as u32);
            }
            if i < half {
                s.left[t] += 1;
            } else {
                s.right[t] += 1;
            }
        }
    }
    let (log_n1, log_n2) = (log2.of(half as u32), log2.of((docs.len() - half) as u32));
    // The log-gap estimate of a term with d1 documents on the left and d2 on
    // the right: d·log2(n/(d+1)) per side.
    let cost = |d1: u32, d2: u32| -> f32 {
        d1 as f32 * (log_n1 - log2.of(d1 + 1)) + d2 as f32 * (log_n2 - log2.of(d2 + 1))
    };
    for _ in 0..config.iterations {
        for &t in &s.touched {
            let t = t as usize;
            let (d1, d2) = (s.left[t], s.right[t]);
            let now = cost(d1, d2);
            s.move_left[t] = if d1 > 0 {
                now - cost(d1 - 1, d2 + 1)
            } else {
                0.0
            };
            s.move_right[t] = if d2 > 0 {
                now - cost(d1 + 1, d2 - 1)
            } else {
                0.0
            };
        }
        let (move_left, move_right) = (&s.move_left, &s.move_right);
        let gain = |i: usize, doc: u32| -> (f32, u32) {
            let per_term = if i < half { move_left } else { move_right };
            let g: f32 = forward
                .terms(doc)
                .iter()
                .map(|&t| per_term[t as usize])
                .sum();
            (g, doc)
        };
        s.gains.clear();
        if docs.len() >= 2 * GAIN_TASK_DOCS {
            docs.par_iter()
                .enumerate()
                .with_min_len(GAIN_TASK_DOCS)
                .map(|(i, &doc)| gain(i, doc))
                .collect_into_vec(&mut s.gains);
        } else {
            s.gains
                .extend(docs.iter().enumerate().map(|(i, &doc)| gain(i, doc)));
        }
        // Most attracted to the other side first; ties by document.
        let by_gain = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        let (left, right) = s.gains.split_at_mut(half);
        left.par_sort_unstable_by(by_gain);
        right.par_sort_unstable_by(by_gain);
        let swaps = left
            .iter()
            .zip(right.iter())
            .take_while(|(l, r)| l.0 + r.0 > 0.0)
            .count();
        if swaps == 0 {
            break;
        }
        for (l, r) in left[..swaps].iter().zip(&right[..swaps]) {
            for &t in forward.terms(l.1) {
                s.left[t as usize] -= 1;
                s.right[t as usize] += 1;
            }
            for &t in forward.terms(r.1) {
                s.left[t as usize] += 1;
                s.right[t as usize] -= 1;
            }
        }
        let (to_left, to_right) = docs.split_at_mut(half);
        for (slot, g) in to_left.iter_mut().zip(&right[..swaps]) {
            *slot = g.1;
        }
        for (slot, g) in to_left[swaps..].iter_mut().zip(&left[swaps..]) {
            *slot = g.1;
        }
        for (slot, g) in to_right.iter_mut().zip(&left[..swaps]) {
            *slot = g.1;
        }
        for (slot, g) in to_right[swaps..].iter_mut().zip(&right[swaps..]) {
            *slot = g.1;
        }
    }
    for &t in &s.touched {
        s.left[t as usize] = 0;
        s.right[t as usize] = 0;
    }
    s.touched.clear();
}
