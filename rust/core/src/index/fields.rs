//! The other fields of an index's documents (Anserini's `-fields`): each
//! an [`Index`] of the same documents in segments of the same sizes and
//! deletions, searched by name with `fields=`. Saved as folders of their
//! own (`fields/<name>/`, [`crate::store`]).

use std::sync::Arc;

use super::{Index, MAIN_FIELD};
use crate::error::{Error, Result};

/// The longest field name, in bytes.
const MAX_FIELD_NAME: usize = 128;

/// Checks that `name` can name an extra field of a saved index (it becomes
/// a folder name): 1 to 128 ASCII letters, digits, `_`, `-` or `.`, not
/// starting with `.`, and not the main field `contents`.
pub fn check_field_name(name: &str) -> Result<()> {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.');
    if name == MAIN_FIELD {
        return Err(Error::Argument(format!(
            "{MAIN_FIELD:?} is the main field, always indexed: name only the other fields"
        )));
    }
    if name.is_empty()
        || name.len() > MAX_FIELD_NAME
        || name.starts_with('.')
        || !name.bytes().all(allowed)
    {
        return Err(Error::Argument(format!(
            "field name {name:?} is not 1 to {MAX_FIELD_NAME} ASCII letters, digits, '_', '-' or '.' (not first)"
        )));
    }
    Ok(())
}

impl Index {
    /// This index with other fields of its documents searchable by name
    /// (`fields=` of a search): each an index of the same documents, in
    /// segments of the same sizes and deletions, with its own statistics.
    pub fn with_fields(mut self, fields: Vec<(String, Index)>) -> Result<Index> {
        let mut named = Vec::with_capacity(fields.len());
        for (name, field) in fields {
            let same = field.segments.len() == self.segments.len()
                && field.segments.iter().zip(&self.segments).all(|(a, b)| {
                    a.data.len() == b.data.len() && a.deletions.as_deref() == b.deletions.as_deref()
                });
            if !same || name == MAIN_FIELD || named.iter().any(|(n, _)| *n == name) {
                return Err(Error::Argument(format!(
                    "field {name:?} is not a distinct field of the same documents"
                )));
            }
            named.push((name, Arc::new(field)));
        }
        self.fields = Arc::new(named);
        Ok(self)
    }

    /// The index of field `name`: this one for [`MAIN_FIELD`].
    pub fn field(&self, name: &str) -> Option<&Index> {
        if name == MAIN_FIELD {
            return Some(self);
        }
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| &**f)
    }

    /// The names of the searchable fields, [`MAIN_FIELD`] first.
    pub fn field_names(&self) -> Vec<&str> {
        std::iter::once(MAIN_FIELD)
            .chain(self.fields.iter().map(|(n, _)| n.as_str()))
            .collect()
    }

    /// The other fields, by name, in the order they were attached.
    pub fn extra_fields(&self) -> &[(String, Arc<Index>)] {
        &self.fields
    }

    /// Whether the index has fields besides [`MAIN_FIELD`].
    pub fn is_multifield(&self) -> bool {
        !self.fields.is_empty()
    }
}
