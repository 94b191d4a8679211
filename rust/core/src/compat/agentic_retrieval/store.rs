//! A `LexicalRetriever` as one checksummed binary file: a caller-given
//! metadata string (the Python layer's docids, units and parameters, as
//! JSON), then the TF-IDF and BM25 arms' statistics, every float stored by
//! its bits so a round trip is exact. The file ends with the index files'
//! footer (length, CRC32, [`FORMAT_VERSION`], magic) and is written through
//! a temporary file renamed into place, so a crash never leaves a torn file.
//!
//! Layout (little-endian): the tag `rserini-lexical\0`, the metadata (u64
//! length + UTF-8), the TF-IDF arm, then the BM25 arm. A single arm (as
//! pickled) is its own tag (`rserini-tfidf`, `rserini-bm25`, NUL-padded to
//! 16 bytes) and the arm, with the same footer. An arm is its mode
//! (u8: 0 plain, 1 code), its fields in declaration order; a string is a u32
//! length + UTF-8, a list a u64 count + items.

use std::path::Path;

use super::{Bm25Arm, Mode, TfidfArm};
use crate::error::{Error, Result};
use crate::safe_fs;
use crate::store::{read_footer, with_footer};

/// The version of the lexical file format.
pub const FORMAT_VERSION: u32 = 1;
const TAG: &[u8; 16] = b"rserini-lexical\0";
const TFIDF_TAG: &[u8; 16] = b"rserini-tfidf\0\0\0";
const BM25_TAG: &[u8; 16] = b"rserini-bm25\0\0\0\0";

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
    /// Rows of `(term, value)` pairs: the row count, then each row's length
    /// and pairs.
    fn rows<'a, V>(
        &mut self,
        rows: impl Iterator<Item = impl IntoIterator<Item = (&'a str, V)>>,
        put: fn(&mut Self, V),
    ) {
        let rows: Vec<Vec<(&str, V)>> = rows.map(|r| r.into_iter().collect()).collect();
        self.u64(rows.len() as u64);
        for row in rows {
            self.u64(row.len() as u64);
            for (t, v) in row {
                self.str(t);
                put(self, v);
            }
        }
    }
    /// `(term, [(doc, value)])` lists: the list count, then each term, its
    /// length and its `(doc, value)` pairs.
    fn postings<'a, V: Copy + 'a, L: AsRef<[(u32, V)]>>(
        &mut self,
        lists: impl Iterator<Item = (&'a str, L)>,
        put: fn(&mut Self, V),
    ) {
        let lists: Vec<_> = lists.collect();
        self.u64(lists.len() as u64);
        for (t, list) in lists {
            self.str(t);
            let list = list.as_ref();
            self.u64(list.len() as u64);
            for &(d, v) in list {
                self.u32(d);
                put(self, v);
            }
        }
    }
    fn mode(&mut self, m: Mode) {
        self.0.push(match m {
            Mode::Plain => 0,
            Mode::Code => 1,
        });
    }
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl<'a> Reader<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            return Err(Error::corrupted(self.path, "truncated lexical data"));
        };
        let out = &self.data[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.bytes(8)?.try_into().expect("8 bytes"),
        ))
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.bytes(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_bits(self.u64()?))
    }
    fn len(&mut self) -> Result<usize> {
        // A count can never exceed the bytes left: refuse absurd ones early.
        let n = self.u64()?;
        if n > (self.data.len() - self.at) as u64 {
            return Err(Error::corrupted(self.path, "bad list length"));
        }
        Ok(n as usize)
    }
    fn string(&mut self, n: usize) -> Result<String> {
        let bytes = self.bytes(n)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| Error::corrupted(self.path, "a string is not UTF-8"))
    }
    fn str(&mut self) -> Result<String> {
        let n = self.u32()? as usize;
        self.string(n)
    }
    fn mode(&mut self) -> Result<Mode> {
        match self.bytes(1)?[0] {
            0 => Ok(Mode::Plain),
            1 => Ok(Mode::Code),
            m => Err(Error::corrupted(
                self.path,
                format!("bad tokenizer mode {m}"),
            )),
        }
    }
    fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        let n = self.len()?;
        (0..n).map(|_| item(self)).collect()
    }
}

fn write_tfidf(w: &mut Writer, arm: &TfidfArm) {
    w.mode(arm.mode());
    w.u64(arm.n_docs() as u64);
    w.rows(arm.doc_vectors(), Writer::f64);
    w.postings(arm.postings(), Writer::f64);
}

fn read_tfidf(r: &mut Reader<'_>) -> Result<TfidfArm> {
    let mode = r.mode()?;
    let n_docs = r.u64()? as usize;
    let vectors = r.list(|r| r.list(|r| Ok((r.str()?, r.f64()?))))?;
    let postings = r.list(|r| Ok((r.str()?, r.list(|r| Ok((r.u32()?, r.f64()?)))?)))?;
    TfidfArm::from_parts(mode, n_docs, vectors, postings)
        .map_err(|e| Error::corrupted(r.path, e.to_string()))
}

fn write_bm25(w: &mut Writer, arm: &Bm25Arm) {
    w.mode(arm.mode());
    w.u64(arm.n_docs() as u64);
    w.f64(arm.avgdl());
    w.rows(arm.tf(), Writer::u32);
    w.u64(arm.dl().len() as u64);
    for &dl in arm.dl() {
        w.u64(dl);
    }
    // A BM25 posting's count is its document's tf of the term: not stored.
    w.postings(arm.postings(), |_, _| {});
    let df: Vec<_> = arm.df().collect();
    w.u64(df.len() as u64);
    for (t, d) in df {
        w.str(t);
        w.u64(d);
    }
}

fn read_bm25(r: &mut Reader<'_>) -> Result<Bm25Arm> {
    let mode = r.mode()?;
    let n_docs = r.u64()? as usize;
    let avgdl = r.f64()?;
    let tf = r.list(|r| r.list(|r| Ok((r.str()?, r.u32()?))))?;
    let dl = r.list(|r| r.u64())?;
    let postings = r.list(|r| Ok((r.str()?, r.list(|r| r.u32())?)))?;
    let df = r.list(|r| Ok((r.str()?, r.u64()?)))?;
    Bm25Arm::from_parts(mode, n_docs, avgdl, tf, dl, postings, df)
        .map_err(|e| Error::corrupted(r.path, e.to_string()))
}

/// `tag` and what `write` writes, then the footer.
fn framed(tag: &[u8; 16], write: impl FnOnce(&mut Writer)) -> Vec<u8> {
    let mut w = Writer::default();
    w.0.extend_from_slice(tag);
    write(&mut w);
    with_footer(w.0, FORMAT_VERSION).0
}

/// Checks the footer, checksum and `tag` of [`framed`] bytes, hands a reader
/// of the content to `read`, and checks that it read everything.
fn unframed<T>(
    data: &[u8],
    path: &Path,
    tag: &[u8; 16],
    read: impl FnOnce(&mut Reader<'_>) -> Result<T>,
) -> Result<T> {
    let (len, crc) = read_footer(path, data, FORMAT_VERSION)?;
    let payload = &data[..len];
    if crc32fast::hash(payload) != crc {
        return Err(Error::corrupted(
            path,
            "checksum mismatch: the file was modified or damaged",
        ));
    }
    let mut r = Reader {
        data: payload,
        at: 0,
        path,
    };
    if r.bytes(tag.len())? != tag {
        return Err(Error::corrupted(
            path,
            format!(
                "not a saved {}",
                String::from_utf8_lossy(tag).trim_end_matches('\0')
            ),
        ));
    }
    let out = read(&mut r)?;
    if r.at != payload.len() {
        return Err(Error::corrupted(path, "trailing bytes"));
    }
    Ok(out)
}

/// The bytes of a retriever: `meta`, then both arms, then the footer.
pub fn to_bytes(meta: &str, tfidf: &TfidfArm, bm25: &Bm25Arm) -> Vec<u8> {
    framed(TAG, |w| {
        w.u64(meta.len() as u64);
        w.0.extend_from_slice(meta.as_bytes());
        write_tfidf(w, tfidf);
        write_bm25(w, bm25);
    })
}

/// Reads [`to_bytes`]' output; `path` names the source in errors.
pub fn from_bytes(data: &[u8], path: &Path) -> Result<(String, TfidfArm, Bm25Arm)> {
    unframed(data, path, TAG, |r| {
        let n = r.len()?;
        Ok((r.string(n)?, read_tfidf(r)?, read_bm25(r)?))
    })
}

/// The bytes of one TF-IDF arm (for pickling).
pub fn tfidf_to_bytes(arm: &TfidfArm) -> Vec<u8> {
    framed(TFIDF_TAG, |w| write_tfidf(w, arm))
}

/// Reads [`tfidf_to_bytes`]' output.
pub fn tfidf_from_bytes(data: &[u8]) -> Result<TfidfArm> {
    unframed(data, Path::new("<tfidf bytes>"), TFIDF_TAG, read_tfidf)
}

/// The bytes of one BM25 arm (for pickling).
pub fn bm25_to_bytes(arm: &Bm25Arm) -> Vec<u8> {
    framed(BM25_TAG, |w| write_bm25(w, arm))
}

/// Reads [`bm25_to_bytes`]' output.
pub fn bm25_from_bytes(data: &[u8]) -> Result<Bm25Arm> {
    unframed(data, Path::new("<bm25 bytes>"), BM25_TAG, read_bm25)
}

/// Saves crash-safely to the file `path`.
pub fn save(path: &Path, meta: &str, tfidf: &TfidfArm, bm25: &Bm25Arm) -> Result<()> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Error::io(path, std::io::ErrorKind::InvalidInput.into()))?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    safe_fs::write_atomically(dir, name, &to_bytes(meta, tfidf, bm25))
}

/// Loads a file written by [`save`].
pub fn load(path: &Path) -> Result<(String, TfidfArm, Bm25Arm)> {
    let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    from_bytes(&data, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compat::agentic_retrieval::{self as lexical, fit};

    fn corpus() -> Vec<String> {
        ["e e b", "d d c d c", "e", "", "getUserById e"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn round_trip_is_exact_and_damage_is_detected() {
        let (t, b) = fit(Mode::Code, &corpus());
        let bytes = to_bytes("{\"x\": 1}", &t, &b);
        let path = Path::new("<memory>");
        let (meta, t2, b2) = from_bytes(&bytes, path).unwrap();
        assert_eq!(meta, "{\"x\": 1}");
        assert_eq!(to_bytes(&meta, &t2, &b2), bytes);
        let q = "e user c";
        assert_eq!(
            lexical::ranking(&t.scores(q)),
            lexical::ranking(&t2.scores(q))
        );
        assert_eq!(
            lexical::ranking(&b.scores(q, 1.5, 0.75)),
            lexical::ranking(&b2.scores(q, 1.5, 0.75))
        );
        for i in [0, 20, bytes.len() / 2, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[i] ^= 1;
            assert!(from_bytes(&bad, path).is_err(), "flip at {i}");
        }
        assert!(from_bytes(&bytes[..bytes.len() - 3], path).is_err());
        let t3 = tfidf_from_bytes(&tfidf_to_bytes(&t)).unwrap();
        let b3 = bm25_from_bytes(&bm25_to_bytes(&b)).unwrap();
        assert_eq!(to_bytes("", &t3, &b3), to_bytes("", &t, &b));
        assert!(bm25_from_bytes(&tfidf_to_bytes(&t)).is_err());
    }
}
