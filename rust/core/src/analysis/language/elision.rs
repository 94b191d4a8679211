//! Lucene's `ElisionFilter`: a leading article and its apostrophe go
//! (`l'avion` → `avion`), with the default articles of the French and
//! Italian analyzers, matched ignoring case.

use crate::analysis::filters::lucene_lowercase;

/// `FrenchAnalyzer.DEFAULT_ARTICLES`.
pub const FRENCH: &[&str] = &[
    "l", "m", "t", "qu", "n", "s", "j", "d", "c", "jusqu", "quoiqu", "lorsqu", "puisqu",
];

/// `ItalianAnalyzer`'s default articles.
pub const ITALIAN: &[&str] = &[
    "c", "l", "all", "dall", "dell", "nell", "sull", "coll", "pell", "gl", "agl", "dagl", "degl",
    "negl", "sugl", "un", "m", "t", "s", "v", "d",
];

/// `token` without its elided article: everything up to the first
/// apostrophe (U+0027 or U+2019) goes when it is one of `articles`.
pub fn strip<'a>(token: &'a str, articles: &[&str]) -> &'a str {
    match token.find(['\'', '\u{2019}']) {
        Some(at) if articles.contains(&lucene_lowercase(&token[..at]).as_ref()) => {
            let apostrophe = token[at..].chars().next().map_or(1, char::len_utf8);
            &token[at + apostrophe..]
        }
        _ => token,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_go() {
        assert_eq!(strip("l'avion", FRENCH), "avion");
        assert_eq!(strip("L\u{2019}Avion", FRENCH), "Avion");
        assert_eq!(strip("Jusqu'ici", FRENCH), "ici");
        assert_eq!(strip("aujourd'hui", FRENCH), "aujourd'hui");
        assert_eq!(strip("dell'arte", ITALIAN), "arte");
        assert_eq!(strip("dell'arte", FRENCH), "dell'arte");
        assert_eq!(strip("avion", FRENCH), "avion");
    }
}
