//! Lucene's `IndicNormalizer`: the Unicode 5.2 compositions of the nine
//! Indic scripts (two or three code points written as one letter become that
//! letter), shared by the Hindi, Bengali and Telugu analyzers.

/// Script flags, one bit per block in Unicode order from Devanagari.
const DEV: u16 = 1;
const BEN: u16 = 2;
const GUR: u16 = 4;
const GUJ: u16 = 8;
const ORI: u16 = 16;
const TAM: u16 = 32;
const TEL: u16 = 64;
const KAN: u16 = 128;
const MAL: u16 = 256;

/// A third unit standing for the zero-width joiner.
const ZWJ: i16 = 0xFF;
/// No third unit.
const NONE: i16 = -1;

/// `(first, second, third, composed, scripts)`, as offsets into the script's
/// block, tried in this order; the first that fits is applied.
#[rustfmt::skip]
const COMPOSITIONS: &[(u16, u16, i16, u16, u16)] = &[
    (0x05, 0x3E, 0x45, 0x11, DEV | GUJ),
    (0x05, 0x3E, 0x46, 0x12, DEV),
    (0x05, 0x3E, 0x47, 0x13, DEV | GUJ),
    (0x05, 0x3E, 0x48, 0x14, DEV | GUJ),
    (0x05, 0x3E, NONE, 0x06, DEV | BEN | GUR | GUJ | ORI),
    (0x05, 0x45, NONE, 0x72, DEV),
    (0x05, 0x45, NONE, 0x0D, GUJ),
    (0x05, 0x46, NONE, 0x04, DEV),
    (0x05, 0x47, NONE, 0x0F, GUJ),
    (0x05, 0x48, NONE, 0x10, GUR | GUJ),
    (0x05, 0x49, NONE, 0x11, DEV | GUJ),
    (0x05, 0x4A, NONE, 0x12, DEV),
    (0x05, 0x4B, NONE, 0x13, DEV | GUJ),
    (0x05, 0x4C, NONE, 0x14, DEV | GUR | GUJ),
    (0x06, 0x45, NONE, 0x11, DEV | GUJ),
    (0x06, 0x46, NONE, 0x12, DEV),
    (0x06, 0x47, NONE, 0x13, DEV | GUJ),
    (0x06, 0x48, NONE, 0x14, DEV | GUJ),
    (0x07, 0x57, NONE, 0x08, MAL),
    (0x09, 0x41, NONE, 0x0A, DEV),
    (0x09, 0x57, NONE, 0x0A, TAM | MAL),
    (0x0E, 0x46, NONE, 0x10, MAL),
    (0x0F, 0x45, NONE, 0x0D, DEV),
    (0x0F, 0x46, NONE, 0x0E, DEV),
    (0x0F, 0x47, NONE, 0x10, DEV),
    (0x0F, 0x57, NONE, 0x10, ORI),
    (0x12, 0x3E, NONE, 0x13, MAL),
    (0x12, 0x4C, NONE, 0x14, TEL | KAN),
    (0x12, 0x55, NONE, 0x13, TEL),
    (0x12, 0x57, NONE, 0x14, TAM | MAL),
    (0x13, 0x57, NONE, 0x14, ORI),
    (0x15, 0x3C, NONE, 0x58, DEV),
    (0x16, 0x3C, NONE, 0x59, DEV | GUR),
    (0x17, 0x3C, NONE, 0x5A, DEV | GUR),
    (0x1C, 0x3C, NONE, 0x5B, DEV | GUR),
    (0x21, 0x3C, NONE, 0x5C, DEV | BEN | ORI),
    (0x22, 0x3C, NONE, 0x5D, DEV | BEN | ORI),
    (0x23, 0x4D, ZWJ, 0x7A, MAL),
    (0x24, 0x4D, ZWJ, 0x4E, BEN),
    (0x28, 0x3C, NONE, 0x29, DEV),
    (0x28, 0x4D, ZWJ, 0x7B, MAL),
    (0x2B, 0x3C, NONE, 0x5E, DEV | GUR),
    (0x2F, 0x3C, NONE, 0x5F, DEV | BEN),
    (0x2C, 0x41, 0x41, 0x0B, TEL),
    (0x30, 0x3C, NONE, 0x31, DEV),
    (0x30, 0x4D, ZWJ, 0x7C, MAL),
    (0x32, 0x4D, ZWJ, 0x7D, MAL),
    (0x33, 0x3C, NONE, 0x34, DEV),
    (0x33, 0x4D, ZWJ, 0x7E, MAL),
    (0x35, 0x41, NONE, 0x2E, TEL),
    (0x3E, 0x45, NONE, 0x49, DEV | GUJ),
    (0x3E, 0x46, NONE, 0x4A, DEV),
    (0x3E, 0x47, NONE, 0x4B, DEV | GUJ),
    (0x3E, 0x48, NONE, 0x4C, DEV | GUJ),
    (0x3F, 0x55, NONE, 0x40, KAN),
    (0x41, 0x41, NONE, 0x42, GUR),
    (0x46, 0x3E, NONE, 0x4A, TAM | MAL),
    (0x46, 0x42, 0x55, 0x4B, KAN),
    (0x46, 0x42, NONE, 0x4A, KAN),
    (0x46, 0x46, NONE, 0x48, MAL),
    (0x46, 0x55, NONE, 0x47, TEL | KAN),
    (0x46, 0x56, NONE, 0x48, TEL | KAN),
    (0x46, 0x57, NONE, 0x4C, TAM | MAL),
    (0x47, 0x3E, NONE, 0x4B, BEN | ORI | TAM | MAL),
    (0x47, 0x57, NONE, 0x4C, BEN | ORI),
    (0x4A, 0x55, NONE, 0x4B, KAN),
    (0x72, 0x3F, NONE, 0x07, GUR),
    (0x72, 0x40, NONE, 0x08, GUR),
    (0x72, 0x47, NONE, 0x0F, GUR),
    (0x73, 0x41, NONE, 0x09, GUR),
    (0x73, 0x42, NONE, 0x0A, GUR),
    (0x73, 0x4B, NONE, 0x13, GUR),
];

/// The block of a UTF-16 unit among the nine scripts: its flag and first unit.
fn block(unit: u16) -> Option<(u16, u16)> {
    (0x0900..0x0D80).contains(&unit).then(|| {
        let k = (unit - 0x0900) >> 7;
        (1 << k, 0x0900 + (k << 7))
    })
}

/// Composes the units of `s[..len]` in place; the new length.
pub fn normalize(s: &mut [u16], mut len: usize) -> usize {
    let mut i = 0;
    while i < len {
        if let Some((flag, base)) = block(s[i]) {
            len = compose(s, i, len, flag, base);
        }
        i += 1;
    }
    len
}

/// The first composition starting at `s[pos]` in its script, applied.
fn compose(s: &mut [u16], pos: usize, len: usize, flag: u16, base: u16) -> usize {
    if pos + 1 >= len || block(s[pos + 1]).map(|b| b.1) != Some(base) {
        return len;
    }
    let (c0, c1) = (s[pos] - base, s[pos + 1] - base);
    let c2 = match s.get(pos + 2).filter(|_| pos + 2 < len) {
        Some(&0x200D) => ZWJ,
        Some(&u) if block(u).map(|b| b.1) == Some(base) => (u - base) as i16,
        _ => NONE,
    };
    for &(first, second, third, composed, scripts) in COMPOSITIONS {
        if first == c0 && scripts & flag != 0 && second == c1 && (third < 0 || third == c2) {
            s[pos] = base + composed;
            let n = if third >= 0 { 2 } else { 1 };
            s.copy_within(pos + 1 + n..len, pos + 1);
            return len - n;
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::language::utf16::with_units;

    fn norm(text: &str) -> String {
        with_units(text, normalize)
    }

    #[test]
    fn compositions() {
        // Devanagari: a + aa sign is aa; ka + nukta is qa.
        assert_eq!(norm("\u{905}\u{93E}"), "\u{906}");
        assert_eq!(norm("\u{915}\u{93C}x"), "\u{958}x");
        // Bengali khanda ta: ta, virama, zero-width joiner.
        assert_eq!(norm("\u{9A4}\u{9CD}\u{200D}"), "\u{9CE}");
        // Bengali o sign; a Devanagari pair with a Bengali second unit stays.
        assert_eq!(norm("\u{995}\u{9C7}\u{9BE}"), "\u{995}\u{9CB}");
        assert_eq!(norm("\u{905}\u{9BE}"), "\u{905}\u{9BE}");
        // Telugu vocalic r from three units.
        assert_eq!(norm("\u{C2C}\u{C41}\u{C41}"), "\u{C0B}");
        assert_eq!(norm("abc"), "abc");
    }
}
