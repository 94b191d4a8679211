//! A document to index, and the one rule that turns a JSON object into one.
//!
//! A JSON document is Pyserini's `JsonCollection` shape (`{"id",
//! "contents"}`), BEIR's (`{"_id", "title", "text"}`, indexed as
//! `title + " " + text`, as Pyserini's BEIR "flat" indexes do) or either
//! with its id under `"docid"`. [`fields_of`] is that rule for JSONL files
//! ([`crate::corpus`]), Python dicts (the bindings) and the document store
//! ([`crate::docstore`]), which derives the indexed text from the JSON it
//! keeps instead of storing the text twice.

use serde_json::Value;

/// The fields that may hold a document's id, in the order they are looked for.
pub const ID_FIELDS: [&str; 3] = ["id", "_id", "docid"];

/// One document to index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doc {
    /// External id, unique in the index.
    pub docid: String,
    /// The text that is analyzed and indexed.
    pub contents: String,
    /// The original JSON object, when the document came as JSON.
    pub raw: Option<String>,
    /// Whether [`document_fields`] of `raw` gives `contents`, so that the
    /// document store need not keep the text twice.
    pub derived: bool,
}

impl Doc {
    /// A document without original JSON.
    pub fn new(docid: impl Into<String>, contents: impl Into<String>) -> Self {
        Doc {
            docid: docid.into(),
            contents: contents.into(),
            raw: None,
            derived: false,
        }
    }
}

/// Why a JSON object is not a document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldError {
    /// No `"id"`, `"_id"` or `"docid"` field.
    NoId(String),
    /// A required field is missing.
    Missing(String),
    /// A field has the wrong JSON type.
    WrongType(String),
    /// The text is not JSON this parser reads (for example `NaN`).
    Json(String),
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldError::NoId(m)
            | FieldError::Missing(m)
            | FieldError::WrongType(m)
            | FieldError::Json(m) => f.write_str(m),
        }
    }
}

fn wrong_type(key: &str, value: &Value) -> FieldError {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    FieldError::WrongType(format!("field {key:?} must be a string, got {kind}"))
}

/// The id field `key` of `map`, parsed from the JSON text `raw`: a string,
/// or a number kept exactly as written (`1E2`, `-0` and integers past 64
/// bits would change, or collide, if read as numbers). Query files name
/// their ids the same way.
pub(crate) fn id_field(
    map: &mut serde_json::Map<String, Value>,
    key: &str,
    raw: &str,
) -> Option<Result<String, FieldError>> {
    map.remove(key).map(|v| match v {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(number_text(raw, key).unwrap_or_else(|| n.to_string())),
        other => Err(wrong_type(key, &other)),
    })
}

/// The text of the member `key` of the JSON object `raw`, as written.
fn number_text(raw: &str, key: &str) -> Option<String> {
    let members: std::collections::HashMap<String, &serde_json::value::RawValue> =
        serde_json::from_str(raw).ok()?;
    Some(members.get(key)?.get().trim().to_owned())
}

fn text_field(map: &mut serde_json::Map<String, Value>, key: &str) -> Result<String, FieldError> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(wrong_type(key, &other)),
    }
}

/// The docid and indexed text of a JSON document: the id is `"id"`, `"_id"`
/// or `"docid"` (a string or a number); the text is `"contents"` (Pyserini's
/// JsonCollection) or else `title + " " + text` (BEIR, a missing field
/// counting as empty). The one rule for files, Python dicts and the
/// document store. Takes the fields out of `map`, parsed from the JSON text
/// `raw` (a numeric id is taken from there as written).
pub fn fields_of(
    mut map: serde_json::Map<String, Value>,
    raw: &str,
) -> Result<(String, String), FieldError> {
    let beir = map.contains_key("_id");
    let id = ID_FIELDS
        .iter()
        .find_map(|key| id_field(&mut map, key, raw))
        .ok_or_else(|| {
            FieldError::NoId(
                "no document id: expected {\"id\", \"contents\"} (Pyserini JsonCollection) or {\"_id\", \"title\", \"text\"} (BEIR)"
                    .to_owned(),
            )
        })??;
    if map.contains_key("contents") {
        return Ok((id, text_field(&mut map, "contents")?));
    }
    if !map.contains_key("text") && !map.contains_key("title") {
        return Err(FieldError::Missing(if beir {
            "missing field \"text\": a BEIR corpus line is {\"_id\": ..., \"title\": ..., \"text\": ...}".into()
        } else {
            "missing field \"contents\": a Pyserini JsonCollection line is {\"id\": ..., \"contents\": ...}".into()
        }));
    }
    let mut title = text_field(&mut map, "title")?;
    let text = text_field(&mut map, "text")?;
    title.push(' ');
    title.push_str(&text);
    Ok((id, title))
}

/// The texts of the other fields `names` of `doc` (Anserini's `-fields`):
/// each the member of that name of the document's JSON, a string (`null`
/// or missing: empty); all empty for a document without JSON.
pub fn field_texts(doc: &Doc, names: &[String]) -> Result<Vec<String>, FieldError> {
    let Some(raw) = &doc.raw else {
        return Ok(vec![String::new(); names.len()]);
    };
    let mut map = match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err(FieldError::Json("expected a JSON object".into())),
        Err(e) => return Err(FieldError::Json(format!("malformed JSON: {e}"))),
    };
    names
        .iter()
        .map(|name| text_field(&mut map, name))
        .collect()
}

/// [`fields_of`] for a JSON object given as text.
pub fn document_fields(raw: &str) -> Result<(String, String), FieldError> {
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => fields_of(map, raw),
        Ok(_) => Err(FieldError::Json("expected a JSON object".into())),
        Err(e) => Err(FieldError::Json(format!("malformed JSON: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(raw: &str) -> Result<(String, String), FieldError> {
        document_fields(raw)
    }

    fn ok(docid: &str, text: &str) -> Result<(String, String), FieldError> {
        Ok((docid.to_owned(), text.to_owned()))
    }

    #[test]
    fn field_texts_are_the_json_members_of_those_names() {
        let names = ["title".to_owned(), "x".to_owned()];
        let mut doc = Doc::new("a", "body");
        assert_eq!(
            field_texts(&doc, &names),
            Ok(vec![String::new(), String::new()])
        );
        doc.raw = Some(r#"{"id": "a", "title": "T", "x": null}"#.into());
        assert_eq!(
            field_texts(&doc, &names),
            Ok(vec!["T".into(), String::new()])
        );
        doc.raw = Some(r#"{"id": "a", "title": 3}"#.into());
        assert!(
            matches!(field_texts(&doc, &names), Err(FieldError::WrongType(m)) if m.contains("title"))
        );
    }

    #[test]
    fn every_shape_gives_its_docid_and_text() {
        assert_eq!(fields(r#"{"id": "a", "contents": "x y"}"#), ok("a", "x y"));
        assert_eq!(
            fields(r#"{"_id": "b", "title": "T", "text": "body"}"#),
            ok("b", "T body")
        );
        // "contents" wins whatever the id field; a missing title or text is empty.
        assert_eq!(fields(r#"{"_id": "c", "contents": "x"}"#), ok("c", "x"));
        assert_eq!(fields(r#"{"docid": "d", "contents": "x"}"#), ok("d", "x"));
        assert_eq!(fields(r#"{"id": "e", "title": "T"}"#), ok("e", "T "));
        assert_eq!(fields(r#"{"_id": "f", "text": null}"#), ok("f", " "));
        // A numeric id as written, not as the number it reads as.
        assert_eq!(fields(r#"{"id": 1E2, "contents": ""}"#), ok("1E2", ""));
        assert_eq!(fields(r#"{"id": -0, "contents": ""}"#), ok("-0", ""));
    }

    #[test]
    fn what_is_not_a_document_says_why() {
        assert!(matches!(
            fields(r#"{"contents": "x"}"#),
            Err(FieldError::NoId(_))
        ));
        assert!(
            matches!(fields(r#"{"id": "a"}"#), Err(FieldError::Missing(m)) if m.contains("contents"))
        );
        assert!(
            matches!(fields(r#"{"_id": "a"}"#), Err(FieldError::Missing(m)) if m.contains("BEIR"))
        );
        assert!(matches!(
            fields(r#"{"id": "a", "contents": 3}"#),
            Err(FieldError::WrongType(m)) if m == "field \"contents\" must be a string, got number"
        ));
        assert!(matches!(
            fields(r#"{"id": true, "contents": ""}"#),
            Err(FieldError::WrongType(_))
        ));
        assert!(matches!(fields("[1]"), Err(FieldError::Json(_))));
        assert!(matches!(fields("{nope"), Err(FieldError::Json(_))));
    }
}
