//! Python's `str.lower()` of a whole text, as the `plain` mode applies it
//! before cutting words: the result of `filters::python_lowercase`, built
//! faster for mostly-ASCII text and into a reused buffer.

/// `text` lowercased as Python's `str.lower()` does, in `buf`. ASCII
/// stretches are copied and lowercased in bulk and only other characters
/// are converted one by one (`str::to_lowercase` converts every character
/// after the first non-ASCII one singly). A text holding a capital sigma,
/// whose lowercase depends on its neighbours, goes through
/// `str::to_lowercase`, which applies the final-sigma rule as Python does.
pub(super) fn python_lowercase_into<'a>(text: &str, buf: &'a mut String) -> &'a str {
    buf.clear();
    let mut rest = text;
    while !rest.is_empty() {
        let ascii = ascii_prefix_len(rest.as_bytes());
        let from = buf.len();
        buf.push_str(&rest[..ascii]);
        buf[from..].make_ascii_lowercase();
        rest = &rest[ascii..];
        let other = rest.find(|c: char| c.is_ascii()).unwrap_or(rest.len());
        for c in rest[..other].chars() {
            if c == 'Σ' {
                buf.clear();
                buf.push_str(&text.to_lowercase());
                return buf;
            }
            buf.extend(c.to_lowercase());
        }
        rest = &rest[other..];
    }
    buf
}

/// The length of the longest all-ASCII prefix of `bytes`, found sixteen
/// bytes at a time.
fn ascii_prefix_len(bytes: &[u8]) -> usize {
    const HIGH: u128 = u128::from_ne_bytes([0x80; 16]);
    let mut chunks = bytes.chunks_exact(16);
    let mut len = 0;
    for chunk in chunks.by_ref() {
        if u128::from_ne_bytes(chunk.try_into().expect("16 bytes")) & HIGH != 0 {
            break;
        }
        len += 16;
    }
    len + bytes[len..]
        .iter()
        .position(|b| !b.is_ascii())
        .unwrap_or(bytes.len() - len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::filters::python_lowercase;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn ascii_prefix_is_found(text in "[a-z]{0,40}[é東]?[a-zé]{0,20}") {
            let want = text.bytes().position(|b| !b.is_ascii()).unwrap_or(text.len());
            prop_assert_eq!(ascii_prefix_len(text.as_bytes()), want);
        }

        #[test]
        fn equals_python_lowercase(
            text in "[a-zA-Z0-9 _.ÉéİıΣσςΑΒ'\u{301}\u{130}ẞß東\u{1F600}\u{10400}]{0,40}",
        ) {
            let mut buf = String::from("stale");
            prop_assert_eq!(python_lowercase_into(&text, &mut buf), &*python_lowercase(&text));
        }

        #[test]
        fn equals_python_lowercase_on_any_text(text in "\\PC{0,40}") {
            let mut buf = String::new();
            prop_assert_eq!(python_lowercase_into(&text, &mut buf), &*python_lowercase(&text));
        }
    }
}
