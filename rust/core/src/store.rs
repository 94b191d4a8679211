//! Saving and loading an [`Index`] as a folder of files.
//!
//! Format version 1. `meta.json` describes the index (format version,
//! analyzer configuration, counts, and each data file's size and CRC32); it
//! is written last, so a folder without it is not an index. Every binary
//! file is its payload followed by a 20-byte footer: payload length (u64),
//! CRC32 of the payload (u32), format version (u32) and the magic `RSRN`,
//! all little-endian. Loading checks every footer and the consistency of the
//! arrays, so a damaged file is reported as [`Error::Corrupted`] with its
//! path, never read as a wrong answer.
//!
//! | file | payload |
//! |---|---|
//! | `docids.bin` | (N + 1) u64 offsets, then the UTF-8 docids |
//! | `lengths.bin` | N × u32 exact document lengths |
//! | `norms.bin` | N × u8 Lucene length norms |
//! | `docrank.bin` | N × u32 rank of each docid in sorted order |
//! | `terms.fst` | `fst` map from term to term ordinal |
//! | `terminfo.bin` | per term: df u32, first block u32, offset u64, total tf u64 |
//! | `blocks.bin` | per block: last doc u32, offset u32, doc bits u8, tf bits u8, 2 zero bytes, max tf u32, min length u32 |
//! | `postings.bin` | the compressed posting lists |

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::analysis::{Analyzer, AnalyzerConfig};
use crate::error::{Error, Result};
use crate::index::Index;
use crate::postings::{self, BlockMeta, TermInfo};

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
const MAGIC: &[u8; 4] = b"RSRN";
const FOOTER_LEN: usize = 20;
const META_FILE: &str = "meta.json";
const TERM_INFO_LEN: usize = 24;
const BLOCK_META_LEN: usize = 20;

/// Size and checksum of one data file, as recorded in `meta.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// File name inside the index folder.
    pub name: String,
    /// Total bytes, footer included.
    pub bytes: u64,
    /// CRC32 of the payload.
    pub crc32: u32,
}

/// The content of `meta.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexMeta {
    /// Always `"rserini-index"`.
    pub format: String,
    /// [`FORMAT_VERSION`] at write time.
    pub format_version: u32,
    /// Version of rserini that wrote the index.
    pub rserini_version: String,
    /// The analysis chain of documents and queries.
    pub analyzer: AnalyzerConfig,
    /// Number of documents.
    pub num_docs: u64,
    /// Number of distinct terms.
    pub num_terms: u64,
    /// Number of blocks.
    pub num_blocks: u64,
    /// Free-form origin information (for example the fingerprint of a source tree).
    #[serde(default)]
    pub source: Option<String>,
    /// The data files.
    pub files: Vec<FileEntry>,
}

fn with_footer(mut payload: Vec<u8>) -> (Vec<u8>, u32) {
    let crc = crc32fast::hash(&payload);
    let len = payload.len() as u64;
    payload.extend_from_slice(&len.to_le_bytes());
    payload.extend_from_slice(&crc.to_le_bytes());
    payload.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    payload.extend_from_slice(MAGIC);
    (payload, crc)
}

fn write_file(dir: &Path, name: &str, payload: Vec<u8>) -> Result<FileEntry> {
    let (bytes, crc32) = with_footer(payload);
    let path = dir.join(name);
    write_atomically(&path, &bytes)?;
    Ok(FileEntry {
        name: name.to_owned(),
        bytes: bytes.len() as u64,
        crc32,
    })
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    let mut file = fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    file.write_all(bytes).map_err(|e| Error::io(&tmp, e))?;
    file.sync_all().map_err(|e| Error::io(&tmp, e))?;
    fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

/// Saves `index` into `dir` (created if needed). An existing folder is
/// replaced only if it is an rserini index; `source` is stored in the meta.
pub fn save(index: &Index, dir: &Path, source: Option<String>) -> Result<()> {
    if dir.exists() {
        let non_empty = fs::read_dir(dir)
            .map_err(|e| Error::io(dir, e))?
            .next()
            .is_some();
        if non_empty && !dir.join(META_FILE).exists() {
            return Err(Error::io(
                dir,
                std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "folder exists and is not an rserini index; choose an empty or new folder",
                ),
            ));
        }
        // Remove the meta first: a crash below leaves a folder that is
        // clearly not a complete index rather than a mix of two.
        let meta = dir.join(META_FILE);
        if meta.exists() {
            fs::remove_file(&meta).map_err(|e| Error::io(&meta, e))?;
        }
    }
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;

    let n = index.docids.len();
    let mut docids =
        Vec::with_capacity(8 * (n + 1) + index.docids.iter().map(String::len).sum::<usize>());
    let mut offset = 0u64;
    docids.extend_from_slice(&offset.to_le_bytes());
    for d in &index.docids {
        offset += d.len() as u64;
        docids.extend_from_slice(&offset.to_le_bytes());
    }
    for d in &index.docids {
        docids.extend_from_slice(d.as_bytes());
    }
    let u32s = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut term_infos = Vec::with_capacity(index.term_infos.len() * TERM_INFO_LEN);
    for t in &index.term_infos {
        term_infos.extend_from_slice(&t.df.to_le_bytes());
        term_infos.extend_from_slice(&t.first_block.to_le_bytes());
        term_infos.extend_from_slice(&t.offset.to_le_bytes());
        term_infos.extend_from_slice(&t.total_tf.to_le_bytes());
    }
    let mut blocks = Vec::with_capacity(index.blocks.len() * BLOCK_META_LEN);
    for b in &index.blocks {
        blocks.extend_from_slice(&b.last_doc.to_le_bytes());
        blocks.extend_from_slice(&b.offset.to_le_bytes());
        blocks.extend_from_slice(&[b.doc_bits, b.tf_bits, 0, 0]);
        blocks.extend_from_slice(&b.max_tf.to_le_bytes());
        blocks.extend_from_slice(&b.min_length.to_le_bytes());
    }
    let files = vec![
        write_file(dir, "docids.bin", docids)?,
        write_file(dir, "lengths.bin", u32s(&index.lengths))?,
        write_file(dir, "norms.bin", index.norms.clone())?,
        write_file(dir, "docrank.bin", u32s(&index.docid_rank))?,
        write_file(dir, "terms.fst", index.terms.as_fst().as_bytes().to_vec())?,
        write_file(dir, "terminfo.bin", term_infos)?,
        write_file(dir, "blocks.bin", blocks)?,
        write_file(dir, "postings.bin", index.postings.clone())?,
    ];
    let meta = IndexMeta {
        format: "rserini-index".into(),
        format_version: FORMAT_VERSION,
        rserini_version: env!("CARGO_PKG_VERSION").into(),
        analyzer: index.analyzer.config().clone(),
        num_docs: n as u64,
        num_terms: index.term_infos.len() as u64,
        num_blocks: index.blocks.len() as u64,
        source,
        files,
    };
    let json = serde_json::to_vec_pretty(&meta).expect("IndexMeta serialises");
    write_atomically(&dir.join(META_FILE), &json)
}

/// Reads and checks `meta.json` of the index in `dir`.
pub fn read_meta(dir: &Path) -> Result<IndexMeta> {
    let path = dir.join(META_FILE);
    if !dir.is_dir() {
        return Err(Error::io(
            dir,
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such index folder"),
        ));
    }
    let bytes = fs::read(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::corrupted(
                &path,
                "missing: this folder is not a (complete) rserini index",
            )
        } else {
            Error::io(&path, e)
        }
    })?;
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| Error::corrupted(&path, format!("not valid JSON: {e}")))?;
    if value.get("format").and_then(|f| f.as_str()) != Some("rserini-index") {
        return Err(Error::corrupted(&path, "not an rserini index meta file"));
    }
    let version = value
        .get("format_version")
        .and_then(|v| v.as_u64())
        .unwrap_or(0) as u32;
    if version != FORMAT_VERSION {
        return Err(Error::Version {
            path: dir.to_path_buf(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    serde_json::from_value(value)
        .map_err(|e| Error::corrupted(&path, format!("unexpected content: {e}")))
}

struct Reader<'a> {
    dir: &'a Path,
    meta: &'a IndexMeta,
}

impl Reader<'_> {
    fn payload(&self, name: &str) -> Result<(PathBuf, Vec<u8>)> {
        let path = self.dir.join(name);
        let entry = self
            .meta
            .files
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| {
                Error::corrupted(self.dir.join(META_FILE), format!("does not list {name}"))
            })?;
        let mut bytes = fs::read(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::corrupted(&path, "missing")
            } else {
                Error::io(&path, e)
            }
        })?;
        if bytes.len() < FOOTER_LEN {
            return Err(Error::corrupted(
                &path,
                format!("truncated: {} bytes, shorter than its footer", bytes.len()),
            ));
        }
        let footer = bytes.split_off(bytes.len() - FOOTER_LEN);
        if &footer[16..20] != MAGIC {
            return Err(Error::corrupted(
                &path,
                "bad magic number: not an rserini index file",
            ));
        }
        let version = u32::from_le_bytes(footer[12..16].try_into().expect("4 bytes"));
        if version != FORMAT_VERSION {
            return Err(Error::Version {
                path,
                found: version,
                expected: FORMAT_VERSION,
            });
        }
        let len = u64::from_le_bytes(footer[0..8].try_into().expect("8 bytes"));
        if len != bytes.len() as u64 || entry.bytes != (bytes.len() + FOOTER_LEN) as u64 {
            return Err(Error::corrupted(
                &path,
                format!(
                    "truncated or extended: payload is {} bytes, expected {len}",
                    bytes.len()
                ),
            ));
        }
        let crc = u32::from_le_bytes(footer[8..12].try_into().expect("4 bytes"));
        if crc != crc32fast::hash(&bytes) || crc != entry.crc32 {
            return Err(Error::corrupted(
                &path,
                "checksum mismatch: the file was modified or damaged",
            ));
        }
        Ok((path, bytes))
    }

    fn u32s(&self, name: &str, expected: usize) -> Result<Vec<u32>> {
        let (path, bytes) = self.payload(name)?;
        if bytes.len() != expected * 4 {
            return Err(Error::corrupted(
                &path,
                format!("expected {expected} entries, found {} bytes", bytes.len()),
            ));
        }
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Loads the index saved in `dir`.
pub fn load(dir: &Path) -> Result<Index> {
    let meta = read_meta(dir)?;
    let r = Reader { dir, meta: &meta };
    let n = usize::try_from(meta.num_docs)
        .map_err(|_| Error::corrupted(dir.join(META_FILE), "num_docs too large"))?;

    let (path, bytes) = r.payload("docids.bin")?;
    let offsets_len = (n + 1) * 8;
    if bytes.len() < offsets_len {
        return Err(Error::corrupted(&path, "shorter than its offset table"));
    }
    let (offsets, text) = bytes.split_at(offsets_len);
    let mut docids = Vec::with_capacity(n);
    for i in 0..n {
        let (a, b) = (
            le_u64(offsets, i * 8) as usize,
            le_u64(offsets, i * 8 + 8) as usize,
        );
        let raw = text
            .get(a..b)
            .ok_or_else(|| Error::corrupted(&path, "docid offsets out of range"))?;
        let s =
            std::str::from_utf8(raw).map_err(|_| Error::corrupted(&path, "docid is not UTF-8"))?;
        docids.push(s.to_owned());
    }

    let lengths = r.u32s("lengths.bin", n)?;
    let (path, norms) = r.payload("norms.bin")?;
    if norms.len() != n {
        return Err(Error::corrupted(
            &path,
            format!("expected {n} norms, found {}", norms.len()),
        ));
    }
    let docid_rank = r.u32s("docrank.bin", n)?;
    if docid_rank.iter().any(|&x| x as usize >= n) {
        return Err(Error::corrupted(
            dir.join("docrank.bin"),
            "rank out of range",
        ));
    }

    let (path, fst_bytes) = r.payload("terms.fst")?;
    let terms = fst::Map::new(fst_bytes)
        .map_err(|e| Error::corrupted(&path, format!("bad term dictionary: {e}")))?;
    let num_terms = terms.len();

    let (path, info_bytes) = r.payload("terminfo.bin")?;
    if info_bytes.len() != num_terms * TERM_INFO_LEN {
        return Err(Error::corrupted(
            &path,
            format!("expected {num_terms} terms"),
        ));
    }
    let term_infos: Vec<TermInfo> = info_bytes
        .chunks_exact(TERM_INFO_LEN)
        .map(|c| TermInfo {
            df: le_u32(c, 0),
            first_block: le_u32(c, 4),
            offset: le_u64(c, 8),
            total_tf: le_u64(c, 16),
        })
        .collect();

    let (path, block_bytes) = r.payload("blocks.bin")?;
    if block_bytes.len() % BLOCK_META_LEN != 0 {
        return Err(Error::corrupted(
            &path,
            "size is not a whole number of blocks",
        ));
    }
    let blocks: Vec<BlockMeta> = block_bytes
        .chunks_exact(BLOCK_META_LEN)
        .map(|c| BlockMeta {
            last_doc: le_u32(c, 0),
            offset: le_u32(c, 4),
            doc_bits: c[8],
            tf_bits: c[9],
            max_tf: le_u32(c, 12),
            min_length: le_u32(c, 16),
        })
        .collect();
    let (postings_path, postings_bytes) = r.payload("postings.bin")?;

    // Cross-checks, so that searching can index without failing.
    let mut last_offset = 0u64;
    for (ord, t) in term_infos.iter().enumerate() {
        let end_block = t.first_block as usize + postings::num_blocks(t.df);
        let bad = t.df == 0
            || end_block > blocks.len()
            || t.offset < last_offset
            || t.offset > postings_bytes.len() as u64
            || blocks[t.first_block as usize..end_block]
                .iter()
                .any(|b| b.last_doc as usize >= n);
        if bad {
            return Err(Error::corrupted(
                &postings_path,
                format!("term #{ord} points outside the postings"),
            ));
        }
        last_offset = t.offset;
    }

    let analyzer = Analyzer::new(meta.analyzer.clone())?;
    Ok(Index::from_parts(
        analyzer,
        docids,
        docid_rank,
        lengths,
        norms,
        terms,
        term_infos,
        blocks,
        postings_bytes,
    ))
}
