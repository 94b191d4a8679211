//! Python values into owned Rust inputs: documents and query strings.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use rserini_core::document::Doc;
use rserini_core::{Error, document};

use crate::errors::CoreError;

/// One document from a `(docid, text)` pair, an object with `docid` and
/// `text` attributes (`rserini.Document`) or a dict in Pyserini or BEIR
/// shape; a dict is also kept whole (as JSON, through `dumps`) for the
/// document store.
pub fn extract_doc(
    item: &Bound<'_, PyAny>,
    position: usize,
    dumps: &Bound<'_, PyAny>,
) -> PyResult<Doc> {
    if let Ok(dict) = item.cast::<PyDict>() {
        // Type errors in Python's terms first; then one rule for dicts, JSONL
        // lines and the document store.
        for key in ["id", "_id", "docid", "contents", "title", "text"] {
            let Some(v) = dict.get_item(key)? else {
                continue;
            };
            let id_like = key.ends_with("id")
                && v.cast::<pyo3::types::PyInt>().is_ok()
                && !v.is_instance_of::<pyo3::types::PyBool>();
            if !(v.is_instance_of::<PyString>() || v.is_none() && !key.ends_with("id") || id_like) {
                return Err(PyTypeError::new_err(format!(
                    "document #{position}: field {key:?} must be a string, got {}",
                    type_name(&v)
                )));
            }
        }
        let raw: String = dumps.call1((dict,))?.extract()?;
        let (docid, contents, derived) = match document::document_fields(&raw) {
            Ok((docid, contents)) => (docid, contents, true),
            // JSON only Python reads (NaN, Infinity): apply the same rule here.
            Err(document::FieldError::Json(_)) => {
                let (docid, contents) = fields_in_python(dict, position)?;
                (docid, contents, false)
            }
            Err(e) => return Err(field_error(dict, position, e)),
        };
        return Ok(Doc {
            docid,
            contents,
            raw: Some(raw),
            derived,
        });
    }
    let pair = item
        .extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()
        .or_else(|_| match item.cast::<PyList>() {
            Ok(list) if list.len() == 2 => Ok((list.get_item(0)?, list.get_item(1)?)),
            _ => Err(PyTypeError::new_err("not a pair")),
        })
        .or_else(|e| match (item.getattr("docid"), item.getattr("text")) {
            (Ok(docid), Ok(text)) => Ok((docid, text)),
            _ => Err(e),
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

/// The error for a dict that is not a document.
fn field_error(dict: &Bound<'_, PyDict>, position: usize, e: document::FieldError) -> PyErr {
    match e {
        document::FieldError::NoId(_) => CoreError(Error::Document(format!(
            "document #{position} has no id: give {{\"id\", \"contents\"}}, {{\"_id\", \"title\", \"text\"}} or a (docid, text) pair"
        )))
        .into(),
        document::FieldError::Missing(_) => {
            let id = document::ID_FIELDS
                .iter()
                .find_map(|k| dict.get_item(k).ok().flatten())
                .and_then(|v| v.str().ok())
                .map(|s| s.to_string())
                .unwrap_or_default();
            CoreError(Error::Document(format!(
                "document #{position} ({id:?}) has no text: give \"contents\" or \"title\"/\"text\""
            )))
            .into()
        }
        document::FieldError::WrongType(_) => PyTypeError::new_err(format!("document #{position}: {e}")),
        document::FieldError::Json(_) => CoreError(Error::Document(format!("document #{position}: {e}"))).into(),
    }
}

/// `document::fields_of`'s rule, read from a dict whose field types are checked.
fn fields_in_python(dict: &Bound<'_, PyDict>, position: usize) -> PyResult<(String, String)> {
    let text = |key: &str| -> PyResult<Option<String>> {
        match dict.get_item(key)? {
            Some(v) if !v.is_none() => Ok(Some(v.str()?.to_string())),
            _ => Ok(None),
        }
    };
    let docid = match (text("id")?, text("_id")?, text("docid")?) {
        (Some(id), _, _) | (None, Some(id), _) | (None, None, Some(id)) => id,
        _ => {
            return Err(field_error(
                dict,
                position,
                document::FieldError::NoId(String::new()),
            ));
        }
    };
    if dict.contains("contents")? {
        return Ok((docid, text("contents")?.unwrap_or_default()));
    }
    if !dict.contains("title")? && !dict.contains("text")? {
        return Err(field_error(
            dict,
            position,
            document::FieldError::Missing(String::new()),
        ));
    }
    let (title, body) = (
        text("title")?.unwrap_or_default(),
        text("text")?.unwrap_or_default(),
    );
    Ok((docid, format!("{title} {body}")))
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
