//! Python values into owned Rust inputs: documents and query strings.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use rserini_core::Error;
use rserini_core::segment::Doc;

use crate::errors::CoreError;

fn str_field(dict: &Bound<'_, PyDict>, key: &str) -> PyResult<Option<String>> {
    match dict.get_item(key)? {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => match v.cast::<PyString>() {
            Ok(s) => Ok(Some(s.to_str()?.to_owned())),
            Err(_) if key.ends_with("id") && v.extract::<i64>().is_ok() => {
                Ok(Some(v.str()?.to_str()?.to_owned()))
            }
            Err(_) => Err(PyTypeError::new_err(format!(
                "field {key:?} must be a string, got {}",
                v.get_type().name()?
            ))),
        },
    }
}

/// One document from a `(docid, text)` pair or a dict in Pyserini or BEIR
/// shape; a dict is also kept whole (as JSON, through `dumps`) for the
/// document store.
pub fn extract_doc(
    item: &Bound<'_, PyAny>,
    position: usize,
    dumps: &Bound<'_, PyAny>,
) -> PyResult<Doc> {
    if let Ok(dict) = item.cast::<PyDict>() {
        let id = match str_field(dict, "id")? {
            Some(id) => Some(id),
            None => match str_field(dict, "_id")? {
                Some(id) => Some(id),
                None => str_field(dict, "docid")?,
            },
        };
        let Some(docid) = id else {
            return Err(CoreError(Error::Document(format!(
                "document #{position} has no id: give {{\"id\", \"contents\"}}, {{\"_id\", \"title\", \"text\"}} or a (docid, text) pair"
            )))
            .into());
        };
        let contents = match str_field(dict, "contents")? {
            Some(contents) => contents,
            None => match (str_field(dict, "title")?, str_field(dict, "text")?) {
                (None, None) => {
                    return Err(CoreError(Error::Document(format!(
                        "document #{position} ({docid:?}) has no text: give \"contents\" or \"title\"/\"text\""
                    )))
                    .into());
                }
                (Some(t), None) => t,
                (None, Some(x)) => x,
                (Some(t), Some(x)) => format!("{t} {x}"),
            },
        };
        let raw: String = dumps.call1((dict,))?.extract()?;
        return Ok(Doc {
            docid,
            contents,
            raw: Some(raw),
        });
    }
    let pair = item
        .extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()
        .or_else(|_| match item.cast::<PyList>() {
            Ok(list) if list.len() == 2 => Ok((list.get_item(0)?, list.get_item(1)?)),
            _ => Err(PyTypeError::new_err("not a pair")),
        })
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "document #{position} is a {}; give (docid, text) pairs or dicts",
                type_name(item)
            ))
        })?;
    Ok(Doc::new(
        text_of(&pair.0, position, "docid")?,
        text_of(&pair.1, position, "text")?,
    ))
}

fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}

fn text_of(v: &Bound<'_, PyAny>, position: usize, what: &str) -> PyResult<String> {
    v.cast::<PyString>()
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "document #{position}: the {what} must be a str, got {}",
                type_name(v)
            ))
        })?
        .to_str()
        .map(str::to_owned)
}

/// A query string, or a `TypeError` naming what was given instead.
pub fn query_text(query: &Bound<'_, PyAny>) -> PyResult<String> {
    let s = query.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!("query must be a str, got {}", type_name(query)))
    })?;
    Ok(s.to_str()?.to_owned())
}
