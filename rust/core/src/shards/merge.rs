//! Merging the top k of disjoint parts of a collection (shards) into the
//! top k of the whole, under the index's tie rule: score descending, then
//! docid ascending (byte-wise). Each part's ranking is already in that
//! order, so a k-way merge of their heads is exact: whatever the partition,
//! the result is the single index's ranking when every part was scored
//! with the statistics of the whole.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::error::{Error, Result};

/// One hit of a part: its docid's bytes and its score.
pub type Hit<'a> = (&'a [u8], f32);

/// The rank order of two hits: `Less` when `a` ranks first.
fn rank(a: &Hit<'_>, b: &Hit<'_>) -> Ordering {
    b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0))
}

/// The next unmerged hit of a part, ordered so that the max-heap's top is
/// the best hit (the lower part first between equal hits).
struct Head<'a> {
    hit: Hit<'a>,
    part: usize,
    position: usize,
}

impl Ord for Head<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        rank(&other.hit, &self.hit).then_with(|| other.part.cmp(&self.part))
    }
}

impl PartialOrd for Head<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Head<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head<'_> {}

/// The `k` best hits of `parts` as `(part, position)` pairs, best first.
/// Each part must be in rank order (as every search returns it), or the
/// merge would be wrong: an out-of-order part is an error naming it.
pub fn merge_topk(parts: &[Vec<Hit<'_>>], k: usize) -> Result<Vec<(usize, usize)>> {
    for (p, part) in parts.iter().enumerate() {
        if let Some(i) = part
            .windows(2)
            .position(|w| rank(&w[0], &w[1]) == Ordering::Greater)
        {
            return Err(Error::Argument(format!(
                "part {p} is not in rank order (score descending, then docid ascending) at positions {i} and {}",
                i + 1
            )));
        }
    }
    let mut heap: BinaryHeap<Head<'_>> = parts
        .iter()
        .enumerate()
        .filter_map(|(part, hits)| {
            hits.first().map(|&hit| Head {
                hit,
                part,
                position: 0,
            })
        })
        .collect();
    let total: usize = parts.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(k.min(total));
    while out.len() < k {
        let Some(head) = heap.pop() else { break };
        out.push((head.part, head.position));
        let position = head.position + 1;
        if let Some(&hit) = parts[head.part].get(position) {
            heap.push(Head {
                hit,
                part: head.part,
                position,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(list: &[(&'static str, f32)]) -> Vec<Hit<'static>> {
        list.iter().map(|(d, s)| (d.as_bytes(), *s)).collect()
    }

    #[test]
    fn merges_by_score_then_docid() {
        let parts = vec![
            hits(&[("b", 3.0), ("a", 1.0)]),
            hits(&[("c", 3.0), ("a0", 2.0), ("z", 1.0)]),
            Vec::new(),
        ];
        let merged = merge_topk(&parts, 10).unwrap();
        let docids: Vec<&[u8]> = merged.iter().map(|&(p, i)| parts[p][i].0).collect();
        let want: [&[u8]; 5] = [b"b", b"c", b"a0", b"a", b"z"];
        assert_eq!(docids, want);
        assert_eq!(merge_topk(&parts, 2).unwrap(), vec![(0, 0), (1, 0)]);
        assert!(merge_topk(&[], 3).unwrap().is_empty());
    }

    #[test]
    fn refuses_a_part_out_of_order() {
        let parts = vec![hits(&[("a", 1.0)]), hits(&[("a", 1.0), ("b", 2.0)])];
        let err = merge_topk(&parts, 3).unwrap_err().to_string();
        assert!(err.contains("part 1"), "{err}");
        let ties = vec![hits(&[("b", 1.0), ("a", 1.0)])];
        assert!(merge_topk(&ties, 3).is_err());
    }
}
