//! Materialized BM25 postings of a segment of a small index: every posting's
//! document and Lucene BM25 denominator `1 + tf · normInverse` (float32)
//! under one set of parameters, so that exhaustive scoring reads two arrays
//! instead of decoding blocks and looking norms up. (bm25s precomputes whole
//! scores at index time; here only the part that depends on k1, b and the
//! lengths is kept, so k1 and b stay free at query time.)
//!
//! A segment builds them on its own, by a rent-or-buy rule: once queries
//! under the same parameters have scored [`BUILD_AFTER`] times as many
//! postings as the segment holds (by then, scoring without them has cost
//! as much as building them), and only in indexes of at most
//! [`MAX_TOKENS`] tokens in all (a bound on their postings). Scores are
//! bit-identical either way: both paths look the norms up with
//! [`norm_inverses`], and [`lucene_score`] is [`lucene_denominator`] then
//! one division.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::postings::{BLOCK_LEN, BlockDecoder};
use crate::scoring::lucene_denominator;
#[cfg(doc)]
use crate::scoring::lucene_score;
use crate::segment::SegmentData;

/// Indexes of more tokens (so possibly more postings) are never
/// materialized (8 bytes a posting: 32 MiB at most).
pub const MAX_TOKENS: u64 = 1 << 22;

/// Postings scored without impacts, per posting of the segment, before they
/// are built: their build costs about 78 instructions a posting and saves
/// about 27 per posting scored (callgrind, SciFact, 300 queries at k = 10).
pub const BUILD_AFTER: u64 = 3;

/// The norm inverses `inverses[norm]` of a run of postings, as Lucene's
/// `BM25Scorer` looks them up. A posting with tf 0, or whose document has
/// norm 0 or lies past the norms (only a damaged file holds those), reads
/// `inverses[0]`, which the caller sets to NaN.
#[inline(always)]
pub fn norm_inverses(
    norms: &[u8],
    inverses: &[f32; 256],
    docs: &[u32],
    tfs: &[u32],
    out: &mut [f32],
) {
    for ((slot, &doc), &tf) in out.iter_mut().zip(docs).zip(tfs) {
        let norm = norms.get(doc as usize).map_or(0, |&n| usize::from(n));
        // tf 0 reads norm 0 too (a mask, not a branch).
        *slot = inverses[norm & usize::from(tf != 0).wrapping_neg()];
    }
}

/// Lucene BM25 denominators `1 + tf · inverses[norm]` of a run of postings
/// (at most [`BLOCK_LEN`]), in float32: what [`lucene_score`] divides by.
fn denominators(norms: &[u8], inverses: &[f32; 256], docs: &[u32], tfs: &[u32], out: &mut [f32]) {
    let mut inverse = [0f32; BLOCK_LEN];
    norm_inverses(norms, inverses, docs, tfs, &mut inverse[..docs.len()]);
    for ((o, &ni), &tf) in out.iter_mut().zip(&inverse).zip(tfs) {
        *o = lucene_denominator(tf, ni);
    }
}

/// A segment's postings with their BM25 denominators, term by term.
#[derive(Debug)]
pub struct Impacts {
    /// Per term ordinal: where its postings start (one more entry at the end).
    starts: Vec<usize>,
    docs: Vec<u32>,
    /// Per posting: its denominator's bits (so that both arrays are `u32`).
    denominators: Vec<u32>,
}

impl Impacts {
    /// Decodes every list of `data` (`postings` postings) and computes their
    /// denominators under `inverses`. A damaged block ends its list, as when
    /// decoding.
    fn build(data: &SegmentData, inverses: &[f32; 256], postings: u64) -> Self {
        // A damaged file's document frequencies may add up to anything: the
        // room reserved is at most what a sound index of this size holds.
        let postings = usize::try_from(postings.min(MAX_TOKENS)).unwrap_or(0);
        let mut out = Impacts {
            starts: Vec::with_capacity(data.num_terms() + 1),
            docs: Vec::with_capacity(postings),
            denominators: Vec::with_capacity(postings),
        };
        out.starts.push(0);
        let mut decoder = BlockDecoder::default();
        let mut dens = [0f32; BLOCK_LEN];
        for ord in 0..data.num_terms() as u32 {
            let list = data.postings(ord);
            for block in 0..list.num_blocks() {
                let Some(len) = decoder.decode(&list, block) else {
                    break;
                };
                let (docs, tfs) = (&decoder.docs[..len], &decoder.tfs[..len]);
                denominators(data.norms(), inverses, docs, tfs, &mut dens[..len]);
                out.docs.extend_from_slice(docs);
                out.denominators
                    .extend(dens[..len].iter().map(|d| d.to_bits()));
            }
            out.starts.push(out.docs.len());
        }
        out
    }

    /// The documents and denominator bits of term `ord`'s postings.
    pub fn list(&self, ord: u32) -> (&[u32], &[u32]) {
        let (from, to) = (self.starts[ord as usize], self.starts[ord as usize + 1]);
        (&self.docs[from..to], &self.denominators[from..to])
    }
}

/// A segment's [`Impacts`] under the latest parameters, built when they pay.
#[derive(Debug, Default)]
pub struct ImpactCache {
    state: Mutex<State>,
    /// The segment's number of postings, once counted.
    postings: OnceLock<u64>,
}

#[derive(Debug, Default)]
struct State {
    /// The bits of the norm inverses the impacts are (to be) built under.
    key: Option<Box<[u32; 256]>>,
    /// Postings scored under `key` without impacts.
    scored: u64,
    built: Option<Arc<Impacts>>,
    building: bool,
}

impl ImpactCache {
    fn state(&self) -> MutexGuard<'_, State> {
        // The state is consistent at every unlock: a panic elsewhere does
        // not spoil it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The number of postings of `data`, the segment this cache belongs to.
    fn postings(&self, data: &SegmentData) -> u64 {
        *self.postings.get_or_init(|| {
            (0..data.num_terms() as u32)
                .map(|ord| u64::from(data.term_info(ord).df))
                .sum()
        })
    }

    /// The impacts of `data` under `inverses` for a query about to score
    /// `postings` postings: built now if the queries under these inverses
    /// have scored [`BUILD_AFTER`] times as many postings as `data` holds,
    /// else `None` until then.
    /// The caller keeps to indexes of [`MAX_TOKENS`] tokens.
    pub fn get(
        &self,
        data: &SegmentData,
        inverses: &[f32; 256],
        postings: u64,
    ) -> Option<Arc<Impacts>> {
        let key: [u32; 256] = std::array::from_fn(|i| inverses[i].to_bits());
        let mut state = self.state();
        if state.key.as_deref() != Some(&key) {
            state.key = Some(Box::new(key));
            state.scored = 0;
            state.built = None;
        }
        if let Some(built) = &state.built {
            return Some(built.clone());
        }
        state.scored = state.scored.saturating_add(postings);
        if state.building || state.scored < BUILD_AFTER.saturating_mul(self.postings(data)) {
            return None;
        }
        // Built without the lock, so other queries go on meanwhile.
        state.building = true;
        drop(state);
        let built = Arc::new(Impacts::build(data, inverses, self.postings(data)));
        let mut state = self.state();
        state.building = false;
        if state.key.as_deref() == Some(&key) {
            state.built = Some(built.clone());
        }
        Some(built)
    }
}

#[cfg(test)]
impl ImpactCache {
    /// Whether impacts are built under the latest inverses.
    pub(crate) fn is_built(&self) -> bool {
        self.state().built.is_some()
    }
}

#[cfg(test)]
mod tests {
    // (The cache is reached through a segment.)
    use crate::analysis::AnalyzerConfig;
    use crate::document::Doc;
    use crate::index::Index;

    fn inverses(x: f32) -> [f32; 256] {
        std::array::from_fn(|i| if i == 0 { f32::NAN } else { x / i as f32 })
    }

    #[test]
    fn built_once_the_queries_have_scored_three_times_the_segments_postings() {
        let config = AnalyzerConfig::preset("whitespace").unwrap();
        let docs = vec![
            Doc::new("a", "x y y z"),
            Doc::new("b", "y z"),
            Doc::new("c", "z"),
        ];
        let index = Index::build_docs(config, docs, false).unwrap();
        let segment = &index.segments()[0];
        let (data, cache) = (segment.data(), &segment.impacts);
        // x: 1 posting, y: 2, z: 3: built once 3 × 6 have been scored.
        assert!(cache.get(data, &inverses(1.0), 17).is_none());
        let built = cache
            .get(data, &inverses(1.0), 1)
            .expect("18 postings scored");
        let ord = |t: &str| data.term_ord(t).unwrap();
        assert_eq!(built.list(ord("y")).0, [0, 1]);
        assert_eq!(built.list(ord("z")).0, [0, 1, 2]);
        // Denominators: 1 + tf · inverse of the document's norm.
        let y = built.list(ord("y"));
        let norm = usize::from(data.norm(0));
        assert_eq!(f32::from_bits(y.1[0]), 1.0 + 2.0 * inverses(1.0)[norm]);
        assert!(cache.get(data, &inverses(1.0), 0).is_some());
        // Other parameters start over.
        assert!(cache.get(data, &inverses(2.0), 1).is_none());
        assert!(!cache.is_built());
        assert!(cache.get(data, &inverses(2.0), 17).is_some());
    }
}
