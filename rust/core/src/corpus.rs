//! Reading documents and queries from files.
//!
//! Documents: JSON lines in Pyserini's `JsonCollection` shape
//! (`{"id", "contents"}`) or BEIR's (`{"_id", "title", "text"}`, indexed as
//! `title + " " + text`, as Pyserini's BEIR "flat" indexes do), in `.jsonl`,
//! `.json` or gzip-compressed `.jsonl.gz` files; a path may be one file or a
//! folder, searched recursively in sorted order. Queries: BEIR
//! `queries.jsonl` (`{"_id", "text"}`) or `qid<TAB>text` lines.
//!
//! Lines are parsed in parallel; errors name the file and the 1-based line.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::segment::Doc;

/// Lines parsed per parallel batch.
const LINES_PER_BATCH: usize = 8192;

/// The corpus files under `path`: the file itself, or every `.jsonl`,
/// `.jsonl.gz` and `.json` file below the folder, sorted.
pub fn corpus_files(path: &Path) -> Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))? {
            let entry = entry.map_err(|e| Error::io(&dir, e))?;
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if is_corpus_file(&p) {
                files.push(p);
            }
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(Error::Document(format!(
            "{} holds no .jsonl, .jsonl.gz or .json file",
            path.display()
        )));
    }
    Ok(files)
}

fn is_corpus_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".jsonl") || name.ends_with(".jsonl.gz") || name.ends_with(".json")
}

fn open_lines(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let gz = path.extension().is_some_and(|e| e == "gz");
    Ok(if gz {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    })
}

/// Reads `path` line by line in batches of raw lines; calls `on_batch` with
/// `(line number, bytes)` of the non-blank lines.
fn for_each_line_batch(
    path: &Path,
    mut on_batch: impl FnMut(Vec<(usize, Vec<u8>)>) -> Result<()>,
) -> Result<()> {
    let mut reader = open_lines(path)?;
    let mut batch = Vec::with_capacity(LINES_PER_BATCH);
    let mut line_no = 0;
    loop {
        let mut buf = Vec::new();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if buf.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        batch.push((line_no, buf));
        if batch.len() == LINES_PER_BATCH {
            on_batch(std::mem::take(&mut batch))?;
        }
    }
    if !batch.is_empty() {
        on_batch(batch)?;
    }
    Ok(())
}

fn parse_json(path: &Path, line: usize, bytes: &[u8]) -> Result<serde_json::Map<String, Value>> {
    let err = |message: String| Error::Parse {
        path: path.to_path_buf(),
        line,
        message,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| {
        err(format!(
            "not valid UTF-8 (bad byte at column {}); re-encode the file as UTF-8",
            e.valid_up_to() + 1
        ))
    })?;
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(err("expected a JSON object per line".into())),
        Err(e) => Err(err(format!("malformed JSON: {e}"))),
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

fn id_field(
    map: &mut serde_json::Map<String, Value>,
    key: &str,
) -> Option<Result<String, FieldError>> {
    map.remove(key).map(|v| match v {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(wrong_type(key, &other)),
    })
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
/// document store. Takes the fields out of `map`.
pub fn fields_of(mut map: serde_json::Map<String, Value>) -> Result<(String, String), FieldError> {
    let beir = map.contains_key("_id");
    let id = ["id", "_id", "docid"]
        .iter()
        .find_map(|key| id_field(&mut map, key))
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

/// [`fields_of`] for a JSON object given as text.
pub fn document_fields(raw: &str) -> Result<(String, String), FieldError> {
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => fields_of(map),
        Ok(_) => Err(FieldError::Json("expected a JSON object".into())),
        Err(e) => Err(FieldError::Json(format!("malformed JSON: {e}"))),
    }
}

/// One document from one JSON line; with `keep_raw`, the line itself too,
/// which the document store keeps whole.
fn document_from(path: &Path, line: usize, bytes: &[u8], keep_raw: bool) -> Result<Doc> {
    let map = parse_json(path, line, bytes)?;
    let (docid, contents) = fields_of(map).map_err(|e| Error::Parse {
        path: path.to_path_buf(),
        line,
        message: e.to_string(),
    })?;
    let raw = keep_raw.then(|| {
        std::str::from_utf8(bytes)
            .unwrap_or_default()
            .trim_end()
            .to_owned()
    });
    Ok(Doc {
        docid,
        contents,
        raw,
        derived: keep_raw,
    })
}

/// Streams the documents of every corpus file under `path` in batches, in
/// file and line order, keeping each line as the document's `raw` JSON if
/// `keep_raw` (for a document store). Returns the number of documents read.
pub fn read_documents(
    path: &Path,
    keep_raw: bool,
    mut on_batch: impl FnMut(Vec<Doc>) -> Result<()>,
) -> Result<usize> {
    let mut count = 0;
    for file in corpus_files(path)? {
        for_each_line_batch(&file, |lines| {
            let docs: Vec<Doc> = lines
                .par_iter()
                .map(|(line, bytes)| document_from(&file, *line, bytes, keep_raw))
                .collect::<Result<_>>()?;
            count += docs.len();
            on_batch(docs)
        })?;
    }
    Ok(count)
}

/// Reads queries: BEIR `queries.jsonl` (`{"_id", "text"}`, `.gz` allowed)
/// or a TSV of `qid<TAB>text` lines (the format is chosen by extension:
/// `.tsv`/`.txt`, otherwise JSON lines).
pub fn read_queries(path: &Path) -> Result<Vec<(String, String)>> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let tsv = name.ends_with(".tsv") || name.ends_with(".txt") || name.ends_with(".tsv.gz");
    let mut out = Vec::new();
    for_each_line_batch(path, |lines| {
        for (line, bytes) in lines {
            let err = |message: String| Error::Parse {
                path: path.to_path_buf(),
                line,
                message,
            };
            if tsv {
                let text = std::str::from_utf8(&bytes)
                    .map_err(|_| err("not valid UTF-8; re-encode the file as UTF-8".into()))?;
                let text = text.trim_end_matches(['\n', '\r']);
                let Some((qid, query)) = text.split_once('\t') else {
                    return Err(err("expected `qid<TAB>query text`".into()));
                };
                out.push((qid.trim().to_owned(), query.to_owned()));
            } else {
                let mut map = parse_json(path, line, &bytes)?;
                let qid = id_field(&mut map, "_id")
                    .or_else(|| id_field(&mut map, "id"))
                    .ok_or_else(|| err("missing field \"_id\": a BEIR query line is {\"_id\": ..., \"text\": ...}".into()))?
                    .map_err(|e| err(e.to_string()))?;
                let text = match map.get("text").or_else(|| map.get("contents")) {
                    Some(Value::String(s)) => s.clone(),
                    _ => return Err(err("missing or non-string field \"text\"".into())),
                };
                out.push((qid, text));
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// Reads a whole file as UTF-8, naming the file on failure.
pub fn read_text(path: &Path) -> Result<String> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| Error::io(path, e))?;
    String::from_utf8(bytes).map_err(|e| Error::Parse {
        path: path.to_path_buf(),
        line: 1,
        message: format!(
            "not valid UTF-8 (bad byte at offset {})",
            e.utf8_error().valid_up_to()
        ),
    })
}
