//! Reading documents and queries from files.
//!
//! Documents: JSON lines in the shapes [`crate::document`] reads (Pyserini's
//! `{"id", "contents"}`, BEIR's `{"_id", "title", "text"}`), in `.jsonl`,
//! `.json` or gzip-compressed `.jsonl.gz` files; a path may be one file or a
//! folder, searched recursively in sorted order. A folder holding
//! `corpus.jsonl` or `corpus.jsonl.gz` is a BEIR data set: that file alone is
//! its corpus (its `queries.jsonl` is not); [`beir_files`] finds its queries
//! and qrels too. Links to folders are followed, each folder and file once.
//! Queries: BEIR `queries.jsonl` (`{"_id", "text"}`) or `qid<TAB>text` lines.
//!
//! Files are opened through [`safe_fs`] (regular files only, never blocking
//! on a FIFO); a line longer than [`DEFAULT_MAX_LINE_BYTES`] (or the limit
//! given) is an error rather than an unbounded allocation; a UTF-8 byte order
//! mark at the start of a file is skipped. Lines are parsed in parallel;
//! errors name the file and the 1-based line.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde_json::Value;

use crate::document::{Doc, fields_of, id_field};
use crate::error::{Error, Result};
use crate::safe_fs;

/// Lines parsed per parallel batch.
const LINES_PER_BATCH: usize = 8192;

/// The longest line read by default (64 MiB): far above any real document,
/// far below what would exhaust memory.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 << 20;

/// The corpus file of a BEIR data set.
const BEIR_CORPUS: [&str; 2] = ["corpus.jsonl", "corpus.jsonl.gz"];

/// The queries file of a BEIR data set.
const BEIR_QUERIES: &str = "queries.jsonl";

/// The corpus files under `path`: the file itself, or every `.jsonl`,
/// `.jsonl.gz` and `.json` file below the folder, sorted (only
/// `corpus.jsonl[.gz]` in a BEIR folder). Links to folders are followed, but
/// each folder and each file is taken once, so a link cycle ends.
pub fn corpus_files(path: &Path) -> Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    let mut seen = HashSet::from([identity(path, &meta)]);
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if let Some(corpus) = beir_corpus(&dir)? {
            let meta = std::fs::metadata(&corpus).map_err(|e| Error::io(&corpus, e))?;
            if seen.insert(identity(&corpus, &meta)) {
                files.push(corpus);
            }
            continue;
        }
        for entry in std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))? {
            let p = entry.map_err(|e| Error::io(&dir, e))?.path();
            let corpus_file = is_corpus_file(&p);
            let meta = match std::fs::metadata(&p) {
                Ok(meta) => meta,
                // A dangling link is nothing to read, unless it is named as a corpus file.
                Err(_) if !corpus_file => continue,
                Err(e) => return Err(Error::io(&p, e)),
            };
            if meta.is_dir() {
                if seen.insert(identity(&p, &meta)) {
                    stack.push(p);
                }
            } else if corpus_file && seen.insert(identity(&p, &meta)) {
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

/// The files of a BEIR data set folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeirFiles {
    /// `corpus.jsonl` or `corpus.jsonl.gz`: the folder's only corpus file.
    pub corpus: PathBuf,
    /// `queries.jsonl`, if the folder holds it.
    pub queries: Option<PathBuf>,
    /// `qrels/<split>.tsv`, if the folder holds it.
    pub qrels: Option<PathBuf>,
}

/// The files of `dir` if it is a BEIR folder (it holds `corpus.jsonl` or
/// `corpus.jsonl.gz`), with the qrels of `split`; `None` if it is not.
pub fn beir_files(dir: &Path, split: &str) -> Result<Option<BeirFiles>> {
    let Some(corpus) = beir_corpus(dir)? else {
        return Ok(None);
    };
    let file = |path: PathBuf| path.is_file().then_some(path);
    Ok(Some(BeirFiles {
        corpus,
        queries: file(dir.join(BEIR_QUERIES)),
        qrels: file(dir.join("qrels").join(format!("{split}.tsv"))),
    }))
}

/// The corpus file of `dir` if it is a BEIR folder.
fn beir_corpus(dir: &Path) -> Result<Option<PathBuf>> {
    let found: Vec<PathBuf> = BEIR_CORPUS
        .iter()
        .map(|name| dir.join(name))
        .filter(|p| p.exists())
        .collect();
    match &found[..] {
        [] => Ok(None),
        [one] => Ok(Some(one.clone())),
        _ => Err(Error::Document(format!(
            "{} holds both corpus.jsonl and corpus.jsonl.gz; keep one",
            dir.display()
        ))),
    }
}

/// What tells two paths to one folder or file apart from two copies.
#[cfg(unix)]
fn identity(_path: &Path, meta: &std::fs::Metadata) -> (u64, u64, PathBuf) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino(), PathBuf::new())
}

/// What tells two paths to one folder or file apart from two copies.
#[cfg(not(unix))]
fn identity(path: &Path, _meta: &std::fs::Metadata) -> (u64, u64, PathBuf) {
    (
        0,
        0,
        path.canonicalize().unwrap_or_else(|_| path.to_path_buf()),
    )
}

fn is_corpus_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".jsonl") || name.ends_with(".jsonl.gz") || name.ends_with(".json")
}

fn open_lines(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let (file, _) = safe_fs::open(path, safe_fs::Owner::Input)?;
    let gz = path.extension().is_some_and(|e| e == "gz");
    Ok(if gz {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    })
}

/// Reads the next line of `reader` (through its `\n`) into `buf`; `false`
/// at the end. A line of more than `max` bytes (its `\n` aside) is a parse
/// error before it is read whole; memory that cannot be had is
/// [`Error::OutOfMemory`].
fn next_line(
    reader: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    max: usize,
    path: &Path,
    line: usize,
) -> Result<bool> {
    loop {
        let available = reader.fill_buf().map_err(|e| Error::io(path, e))?;
        if available.is_empty() {
            return Ok(!buf.is_empty());
        }
        let (take, ends) = match memchr::memchr(b'\n', available) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        if buf.len() + take - usize::from(ends) > max {
            return Err(Error::Parse {
                path: path.to_path_buf(),
                line,
                message: format!("line longer than {max} bytes; raise max_line_bytes to read it"),
            });
        }
        buf.try_reserve(take).map_err(|_| {
            Error::OutOfMemory(format!(
                "{} bytes for line {line} of {}",
                buf.len() + take,
                path.display()
            ))
        })?;
        buf.extend_from_slice(&available[..take]);
        reader.consume(take);
        if ends {
            return Ok(true);
        }
    }
}

/// Reads `path` line by line in batches of raw lines; calls `on_batch` with
/// `(line number, bytes)` of the non-blank lines. A byte order mark opening
/// the file is skipped.
fn for_each_line_batch(
    path: &Path,
    max_line: usize,
    mut on_batch: impl FnMut(Vec<(usize, Vec<u8>)>) -> Result<()>,
) -> Result<()> {
    let mut reader = open_lines(path)?;
    let mut batch = Vec::with_capacity(LINES_PER_BATCH);
    let mut line_no = 0;
    loop {
        let mut buf = Vec::new();
        if !next_line(&mut *reader, &mut buf, max_line, path, line_no + 1)? {
            break;
        }
        line_no += 1;
        if line_no == 1 && buf.starts_with(b"\xEF\xBB\xBF") {
            buf.drain(..3);
        }
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

/// One document from one JSON line; with `keep_raw`, the line itself too,
/// which the document store keeps whole.
fn document_from(path: &Path, line: usize, bytes: &[u8], keep_raw: bool) -> Result<Doc> {
    let map = parse_json(path, line, bytes)?;
    let text = std::str::from_utf8(bytes).unwrap_or_default(); // `parse_json` checked it
    let (docid, contents) = fields_of(map, text).map_err(|e| Error::Parse {
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
/// `keep_raw` (for a document store); a line longer than `max_line` bytes is
/// an error. Returns the number of documents read.
pub fn read_documents(
    path: &Path,
    keep_raw: bool,
    max_line: usize,
    mut on_batch: impl FnMut(Vec<Doc>) -> Result<()>,
) -> Result<usize> {
    let mut count = 0;
    for file in corpus_files(path)? {
        for_each_line_batch(&file, max_line, |lines| {
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
    for_each_line_batch(path, DEFAULT_MAX_LINE_BYTES, |lines| {
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
                let raw = std::str::from_utf8(&bytes).unwrap_or_default();
                let qid = id_field(&mut map, "_id", raw)
                    .or_else(|| id_field(&mut map, "id", raw))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "{}\n").unwrap();
    }

    #[test]
    fn a_beir_folder_is_its_corpus_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let beir = dir.path().join("beir");
        touch(&beir.join("corpus.jsonl"));
        touch(&beir.join("queries.jsonl"));
        touch(&beir.join("qrels/test.tsv"));
        touch(&dir.path().join("other/a.jsonl.gz"));
        touch(&dir.path().join("other/notes.txt"));
        assert_eq!(corpus_files(&beir).unwrap(), [beir.join("corpus.jsonl")]);
        // Below a plain folder, a BEIR folder still gives its corpus alone.
        assert_eq!(
            corpus_files(dir.path()).unwrap(),
            [
                beir.join("corpus.jsonl"),
                dir.path().join("other/a.jsonl.gz")
            ]
        );
        assert_eq!(
            beir_files(&beir, "test").unwrap(),
            Some(BeirFiles {
                corpus: beir.join("corpus.jsonl"),
                queries: Some(beir.join("queries.jsonl")),
                qrels: Some(beir.join("qrels/test.tsv")),
            })
        );
        let dev = beir_files(&beir, "dev").unwrap().unwrap();
        assert_eq!(dev.qrels, None);
        assert_eq!(beir_files(&dir.path().join("other"), "test").unwrap(), None);
        touch(&beir.join("corpus.jsonl.gz"));
        assert!(beir_files(&beir, "test").is_err());
    }
}
