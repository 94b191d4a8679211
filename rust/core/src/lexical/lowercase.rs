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
        let ascii = rest
            .bytes()
            .position(|b| !b.is_ascii())
            .unwrap_or(rest.len());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::filters::python_lowercase;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
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
