//! Lists of items stored back to back, and their inversion.

/// Lists of items stored back to back (compressed sparse rows).
#[derive(Clone, Debug, PartialEq)]
pub struct Lists<T> {
    pub(super) starts: Vec<usize>,
    pub(super) items: Vec<T>,
}

impl<T> Default for Lists<T> {
    fn default() -> Self {
        Lists {
            starts: vec![0],
            items: Vec::new(),
        }
    }
}

impl<T> Lists<T> {
    /// Appends one list.
    pub fn push(&mut self, list: impl IntoIterator<Item = T>) {
        self.items.extend(list);
        self.starts.push(self.items.len());
    }

    /// List `i`.
    pub fn get(&self, i: usize) -> &[T] {
        &self.items[self.starts[i]..self.starts[i + 1]]
    }

    /// Number of lists.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Whether there is no list.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every list, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[T]> {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl Lists<(u32, u32)> {
    /// Per-row `(term, count)` lists (a term at most once per row) turned
    /// into `num_terms` per-term `(row, count)` lists, rows ascending: a
    /// counting sort.
    pub(super) fn invert(&self, num_terms: usize) -> Lists<(u32, u32)> {
        let mut starts = vec![0usize; num_terms + 1];
        for &(t, _) in &self.items {
            starts[t as usize + 1] += 1;
        }
        for t in 0..num_terms {
            starts[t + 1] += starts[t];
        }
        let mut fill = starts.clone();
        let mut items = vec![(0u32, 0u32); self.items.len()];
        for (row, list) in self.iter().enumerate() {
            for &(t, c) in list {
                let at = &mut fill[t as usize];
                items[*at] = (row as u32, c);
                *at += 1;
            }
        }
        Lists { starts, items }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Inversion by a list per term.
    fn invert_directly(lists: &Lists<(u32, u32)>, num_terms: usize) -> Lists<(u32, u32)> {
        let mut out: Vec<Vec<(u32, u32)>> = vec![Vec::new(); num_terms];
        for (row, list) in lists.iter().enumerate() {
            for &(t, c) in list {
                out[t as usize].push((row as u32, c));
            }
        }
        let mut inverted = Lists::default();
        for list in out {
            inverted.push(list);
        }
        inverted
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        /// Any number of terms (some in no row), rows empty or not.
        #[test]
        fn inverts_like_a_list_per_term(
            num_terms in 0usize..3000,
            rows in proptest::collection::vec(
                proptest::collection::btree_map(0u32..3000, 1u32..5, 0..20), 0..40),
        ) {
            let mut lists = Lists::default();
            for row in &rows {
                lists.push(row.iter().filter(|(t, _)| (**t as usize) < num_terms).map(|(&t, &c)| (t, c)));
            }
            prop_assert_eq!(lists.invert(num_terms), invert_directly(&lists, num_terms));
        }
    }
}
