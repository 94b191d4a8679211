//! Analysis steps chosen by name.

use crate::error::{Error, Result};

/// An analysis step chosen by name (the tokenizer, the stemmer), as index
/// metadata and Python spell it.
pub trait Choice: Copy + PartialEq + 'static {
    /// Every choice with its name.
    const ALL: &'static [(&'static str, Self)];

    /// The error for a name that is none of [`Choice::ALL`].
    fn unknown(name: &str) -> Error;

    /// The choice named `name`.
    fn parse(name: &str) -> Result<Self> {
        Self::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| Self::unknown(name))
    }

    /// The choice's name.
    fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, v)| *v == self)
            .map(|(n, _)| *n)
            .expect("ALL lists every choice")
    }
}
