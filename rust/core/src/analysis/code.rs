//! Sub-tokens of identifiers, for source code: `getUserById` → `get user by
//! id`, `HTTPSConnection` → `https connection`, `load_chunk_documents` →
//! `load chunk documents`. The rules are those of the regular expression
//! `[_\-.]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])` applied to the
//! original-case token: split on runs of `_` (`-` and `.` never occur inside
//! a `\w+` token), at a lower-or-digit → upper boundary, and before the last
//! capital of an acronym followed by a Titlecase word. Case classes are ASCII
//! only, as in that expression.

/// Calls `emit` with each non-empty part of `token`, left to right, and
/// returns how many parts there were.
pub fn split_parts<'a>(token: &'a str, emit: &mut dyn FnMut(&'a str)) -> usize {
    let bytes = token.as_bytes();
    let mut parts = 0;
    let mut start = 0;
    let mut i = 0;
    let mut push = |from: usize, to: usize, parts: &mut usize| {
        if to > from {
            emit(&token[from..to]);
            *parts += 1;
        }
    };
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'_' || b == b'-' || b == b'.' {
            push(start, i, &mut parts);
            while i < bytes.len() && matches!(bytes[i], b'_' | b'-' | b'.') {
                i += 1;
            }
            start = i;
            continue;
        }
        if i > 0 && b.is_ascii_uppercase() {
            let prev = bytes[i - 1];
            let lower_to_upper = prev.is_ascii_lowercase() || prev.is_ascii_digit();
            let acronym_end = prev.is_ascii_uppercase()
                && bytes.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if lower_to_upper || acronym_end {
                push(start, i, &mut parts);
                start = i;
            }
        }
        i += 1;
    }
    push(start, bytes.len(), &mut parts);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(token: &str) -> Vec<&str> {
        let mut out = Vec::new();
        split_parts(token, &mut |p| out.push(p));
        out
    }

    #[test]
    fn identifier_parts() {
        assert_eq!(parts("getUserById"), ["get", "User", "By", "Id"]);
        assert_eq!(parts("HTTPSConnection"), ["HTTPS", "Connection"]);
        assert_eq!(parts("XMLHttpRequest"), ["XML", "Http", "Request"]);
        assert_eq!(parts("HTML5Parser"), ["HTML5", "Parser"]);
        assert_eq!(
            parts("load_chunk_documents"),
            ["load", "chunk", "documents"]
        );
        assert_eq!(parts("__init__"), ["init"]);
        assert_eq!(parts("foo_foo"), ["foo", "foo"]);
        assert_eq!(parts("chunk"), ["chunk"]);
        assert_eq!(parts("aB_c"), ["a", "B", "c"]);
        assert_eq!(parts("ÉtéÀ"), ["ÉtéÀ"]);
        assert_eq!(parts("___"), Vec::<&str>::new());
    }
}
