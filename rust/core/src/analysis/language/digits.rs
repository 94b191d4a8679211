//! Lucene's `DecimalDigitFilter`: every decimal digit (`Nd`) outside ASCII
//! becomes its ASCII digit (`٣` → `3`).

use std::borrow::Cow;

use unicode_general_category::{GeneralCategory, get_general_category};

fn is_decimal(c: char) -> bool {
    get_general_category(c) == GeneralCategory::DecimalNumber
}

/// The value of a decimal digit: Unicode assigns them in runs of ten from
/// zero, so it is the distance to the run's start, modulo ten.
fn value(c: char) -> u32 {
    let mut cp = c as u32;
    let mut k = 0;
    while let Some(prev) = cp.checked_sub(1).and_then(char::from_u32) {
        if !is_decimal(prev) {
            break;
        }
        cp -= 1;
        k += 1;
    }
    k % 10
}

/// `term` with its non-ASCII decimal digits folded to ASCII.
pub fn fold(term: &str) -> Cow<'_, str> {
    if term.is_ascii() || !term.chars().any(|c| !c.is_ascii() && is_decimal(c)) {
        return Cow::Borrowed(term);
    }
    Cow::Owned(
        term.chars()
            .map(|c| {
                if !c.is_ascii() && is_decimal(c) {
                    char::from_digit(value(c), 10).unwrap_or(c)
                } else {
                    c
                }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_fold() {
        assert_eq!(fold("٠١٢٣٤٥٦٧٨٩"), "0123456789");
        assert_eq!(fold("१९४७"), "1947");
        assert_eq!(fold("x𝟗"), "x9");
        assert_eq!(fold("²"), "²");
        assert!(matches!(fold("abc"), Cow::Borrowed(_)));
    }
}
