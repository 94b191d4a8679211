//! Snowball's Finnish stemmer at the release Lucene 9.9 generated its own
//! from: the one of `rust-stemmers` tests "not a vowel" where this one tests
//! "a consonant", which differs on characters outside Finnish's alphabet
//! (`maría`, `kambodžassa`, `0,00`).
//!
//! Written from the algorithm's description (snowballstem.org, Finnish),
//! over UTF-16 units as Lucene's generated stemmer runs.

use super::utf16::with_units;

const V1: &str = "aeiouyäö";
const V2: &str = "aeiouäö";
const C: &str = "bcdfghjklmnpqrstvwxz";
const AEI: &str = "aäei";
const LONG: [&str; 7] = ["aa", "ee", "ii", "oo", "uu", "ää", "öö"];

fn is(group: &str, unit: u16) -> bool {
    char::from_u32(u32::from(unit)).is_some_and(|c| group.contains(c))
}

/// A term being stemmed backwards: Snowball's cursor, backward limit and slice.
struct Word<'a> {
    s: &'a mut [u16],
    len: usize,
    c: usize,
    lb: usize,
    bra: usize,
    ket: usize,
}

impl Word<'_> {
    /// Whether the unit before the cursor is in `group` (not moving).
    fn before_in(&self, group: &str) -> bool {
        self.c > self.lb && is(group, self.s[self.c - 1])
    }

    /// Whether `lit` ends at the cursor (within the limit); moves past it.
    fn eat(&mut self, lit: &str) -> bool {
        let u: Vec<u16> = lit.encode_utf16().collect();
        if self.c >= self.lb + u.len() && self.s[self.c - u.len()..self.c] == u[..] {
            self.c -= u.len();
            true
        } else {
            false
        }
    }

    /// The longest of `items` ending at the cursor (at or after `limit`)
    /// whose condition holds: slice set around it, cursor at its start.
    fn among<T: Copy>(
        &mut self,
        limit: usize,
        items: &[(&str, T)],
        ok: impl Fn(&mut Self, T) -> bool,
    ) -> Option<T> {
        let (end, saved) = (self.c, self.lb);
        self.lb = limit;
        let mut found: Option<(usize, T)> = None;
        for &(lit, tag) in items {
            self.c = end;
            let n = lit.encode_utf16().count();
            if found.is_some_and(|(m, _)| m >= n) || !self.eat(lit) {
                continue;
            }
            if ok(self, tag) {
                found = Some((n, tag));
            }
        }
        self.lb = saved;
        let (n, tag) = found?;
        self.ket = end;
        self.bra = end - n;
        self.c = self.bra;
        Some(tag)
    }

    /// Deletes the slice; the cursor goes to the new end.
    fn delete(&mut self) {
        let n = self.ket - self.bra;
        self.s.copy_within(self.ket..self.len, self.bra);
        self.len -= n;
        self.c = self.len;
    }

    fn long(&mut self) -> bool {
        LONG.iter().any(|l| {
            let c = self.c;
            let hit = self.eat(l);
            self.c = c;
            hit
        })
    }
}

/// The Finnish stem of `term`.
pub fn stem(term: &str) -> String {
    with_units(term, |s, len| {
        let (p1, p2) = regions(&s[..len]);
        let mut w = Word {
            s,
            len,
            c: len,
            lb: 0,
            bra: 0,
            ket: 0,
        };
        particle_etc(&mut w, p1, p2);
        w.c = w.len;
        possessive(&mut w, p1);
        w.c = w.len;
        let removed = case_ending(&mut w, p1);
        w.c = w.len;
        other_endings(&mut w, p2);
        w.c = w.len;
        if removed {
            if w.c >= p1 && w.among(p1, &[("i", ()), ("j", ())], |_, _| true).is_some() {
                w.delete();
            }
        } else {
            t_plural(&mut w, p1, p2);
        }
        w.c = w.len;
        tidy(&mut w, p1);
        w.len
    })
}

/// `p1` and `p2`: after the first non-vowel following a vowel, twice.
fn regions(s: &[u16]) -> (usize, usize) {
    let mut marks = [s.len(); 2];
    let mut c = 0;
    for mark in &mut marks {
        let Some(v) = s[c..].iter().position(|&u| is(V1, u)) else {
            break;
        };
        let Some(n) = s[c + v + 1..].iter().position(|&u| !is(V1, u)) else {
            break;
        };
        c += v + 1 + n + 1;
        *mark = c;
    }
    (marks[0], marks[1])
}

fn particle_etc(w: &mut Word<'_>, p1: usize, p2: usize) {
    const ITEMS: [(&str, bool); 10] = [
        ("kin", true),
        ("kaan", true),
        ("kään", true),
        ("ko", true),
        ("kö", true),
        ("han", true),
        ("hän", true),
        ("pa", true),
        ("pä", true),
        ("sti", false),
    ];
    if w.c < p1 {
        return;
    }
    if let Some(particle) = w.among(p1, &ITEMS, |_, _| true) {
        let keep = if particle {
            w.before_in("aeiouyäönt")
        } else {
            p2 <= w.c
        };
        if keep {
            w.delete();
        }
    }
}

fn possessive(w: &mut Word<'_>, p1: usize) {
    const ITEMS: [(&str, u8); 9] = [
        ("si", 0),
        ("ni", 1),
        ("nsa", 2),
        ("nsä", 2),
        ("mme", 2),
        ("nne", 2),
        ("an", 3),
        ("än", 4),
        ("en", 5),
    ];
    if w.c < p1 {
        return;
    }
    let Some(kind) = w.among(p1, &ITEMS, |_, _| true) else {
        return;
    };
    let after = |w: &mut Word<'_>, xs: &[&str]| {
        xs.iter().any(|x| {
            let c = w.c;
            let hit = w.eat(x);
            w.c = c;
            hit
        })
    };
    match kind {
        0 if !after(w, &["k"]) => w.delete(),
        1 => {
            w.delete();
            if w.eat("kse") {
                let at = w.c;
                w.s[at + 2] = u16::from(b'i');
            }
        }
        2 => w.delete(),
        3 if after(w, &["ta", "ssa", "sta", "lla", "lta", "na"]) => w.delete(),
        4 if after(w, &["tä", "ssä", "stä", "llä", "ltä", "nä"]) => w.delete(),
        5 if after(w, &["lle", "ine"]) => w.delete(),
        _ => {}
    }
}

/// Whether an ending was removed.
fn case_ending(w: &mut Word<'_>, p1: usize) -> bool {
    // Tags: 1-6 need the vowel before; 7 if preceded by i and a vowel
    // (V2); 8 if preceded by a long vowel; 9 no condition; 10 the
    // genitive/illative n; 11 a vowel then a consonant; 12 an e.
    #[rustfmt::skip]
    const ITEMS: [(&str, u8); 30] = [
        ("han", 1), ("hen", 2), ("hin", 3), ("hon", 4), ("hän", 5), ("hön", 6),
        ("siin", 7), ("seen", 8), ("den", 7), ("tten", 7), ("n", 10),
        ("a", 11), ("ä", 11), ("tta", 12), ("ttä", 12), ("ta", 9), ("tä", 9),
        ("ssa", 9), ("ssä", 9), ("sta", 9), ("stä", 9), ("lla", 9), ("llä", 9),
        ("lta", 9), ("ltä", 9), ("lle", 9), ("na", 9), ("nä", 9), ("ksi", 9), ("ine", 9),
    ];
    if w.c < p1 {
        return false;
    }
    let vi = |w: &mut Word<'_>| {
        let c = w.c;
        let ok = w.eat("i") && w.before_in(V2);
        w.c = c;
        ok
    };
    let condition = |w: &mut Word<'_>, tag: u8| match tag {
        7 => vi(w),
        8 => w.long(),
        _ => true,
    };
    let Some(tag) = w.among(p1, &ITEMS, condition) else {
        return false;
    };
    let ok = match tag {
        1..=6 => w.eat(["a", "e", "i", "o", "ä", "ö"][usize::from(tag - 1)]),
        10 => {
            let c = w.c;
            let pair = w.long() || {
                let hit = w.eat("ie");
                w.c = c;
                hit
            };
            if pair && w.c > w.lb {
                w.bra = w.c - 1;
            }
            true
        }
        11 => {
            w.before_in(V1) && {
                w.c -= 1;
                w.before_in(C)
            }
        }
        12 => w.eat("e"),
        _ => true,
    };
    if ok {
        w.delete();
    }
    ok
}

fn other_endings(w: &mut Word<'_>, p2: usize) {
    #[rustfmt::skip]
    const ITEMS: [(&str, bool); 14] = [
        ("mpi", true), ("mpa", true), ("mpä", true), ("mmi", true), ("mma", true), ("mmä", true),
        ("impi", false), ("impa", false), ("impä", false), ("immi", false), ("imma", false),
        ("immä", false), ("eja", false), ("ejä", false),
    ];
    if w.c < p2 {
        return;
    }
    if let Some(not_po) = w.among(p2, &ITEMS, |_, _| true)
        && !(not_po && w.eat("po"))
    {
        w.delete();
    }
}

fn t_plural(w: &mut Word<'_>, p1: usize, p2: usize) {
    if w.c < p1 {
        return;
    }
    let end = w.c;
    w.lb = p1;
    let t = w.eat("t") && w.before_in(V1);
    w.lb = 0;
    if !t {
        return;
    }
    w.ket = end;
    w.bra = end - 1;
    w.delete();
    if w.c < p2 {
        return;
    }
    if let Some(not_po) = w.among(p2, &[("mma", true), ("imma", false)], |_, _| true)
        && !(not_po && w.eat("po"))
    {
        w.delete();
    }
}

fn tidy(w: &mut Word<'_>, p1: usize) {
    if w.c < p1 {
        return;
    }
    w.lb = p1;
    // Undouble a long vowel.
    if w.long() && w.c > w.lb {
        w.ket = w.c;
        w.bra = w.c - 1;
        w.delete();
    }
    // A final a, ä, e or i after a consonant goes.
    if w.before_in(AEI) {
        w.c -= 1;
        if w.before_in(C) {
            (w.bra, w.ket) = (w.len - 1, w.len);
            w.delete();
        }
        w.c = w.len;
    }
    // A final j after o or u, and a final o after j, go.
    for (last, before) in [("j", ["o", "u"]), ("o", ["j", "j"])] {
        let end = w.c;
        if w.eat(last) && before.iter().any(|b| w.eat(b)) {
            (w.bra, w.ket) = (end - 1, end);
            w.delete();
        }
        w.c = w.len;
    }
    w.lb = 0;
    // Undouble the last non-vowel if it is a consonant.
    let Some(at) = (0..w.c).rev().find(|&i| !is(V1, w.s[i])) else {
        return;
    };
    if is(C, w.s[at]) && at > 0 && w.s[at - 1] == w.s[at] {
        (w.bra, w.ket) = (at, at + 1);
        w.delete();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        assert_eq!(stem("taloissa"), "talo");
        assert_eq!(stem("kissaa"), "kis");
        assert_eq!(stem("maría"), "maría");
        assert_eq!(stem("kambodžassa"), "kambodža");
        assert_eq!(stem("0,00"), "0,00");
        assert_eq!(stem("u.s.a"), "u.s.a");
    }
}
