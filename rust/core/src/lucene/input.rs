//! Lucene's `DataInput` encodings over a byte slice, and `CodecUtil`'s
//! headers and footers.
//!
//! Since Lucene 9, fixed-width integers are little-endian, except in codec
//! headers, footers and `segments_N`, which stay big-endian. Variable-length
//! integers store 7 bits a byte, low bits first, the high bit meaning "more".
//! Every read is bounds-checked: a short or malformed file is
//! [`Error::Corrupted`] naming it, never a panic.

use std::path::Path;

use crate::error::{Error, Result};

/// First four bytes of every codec header.
pub const CODEC_MAGIC: u32 = 0x3fd7_6c17;
/// First four bytes of every codec footer.
pub const FOOTER_MAGIC: u32 = !CODEC_MAGIC;
/// Bytes of a codec footer: magic, algorithm id, checksum.
pub const FOOTER_LENGTH: usize = 16;
/// Bytes of a segment or commit id.
pub const ID_LENGTH: usize = 16;

/// A cursor over the bytes of one Lucene file (or of a slice of it).
#[derive(Clone)]
pub struct Input<'a> {
    path: &'a Path,
    data: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    /// A cursor at the start of `data`, the bytes of the file `path`
    /// (named in errors).
    pub fn new(path: &'a Path, data: &'a [u8]) -> Self {
        Input { path, data, pos: 0 }
    }

    /// The file this input reads, for error messages.
    pub fn path(&self) -> &'a Path {
        self.path
    }

    /// All bytes of this input.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The current position.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The total length.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the input has no bytes at all.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Bytes left after the current position.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Moves to `pos` (at most the length).
    pub fn seek(&mut self, pos: u64) -> Result<()> {
        match usize::try_from(pos) {
            Ok(p) if p <= self.data.len() => {
                self.pos = p;
                Ok(())
            }
            _ => Err(self.corrupt(format!(
                "seek to {pos} past the end ({} bytes)",
                self.data.len()
            ))),
        }
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: u64) -> Result<()> {
        let target = (self.pos as u64).checked_add(n);
        match target {
            Some(t) => self.seek(t),
            None => Err(self.corrupt("skip overflows")),
        }
    }

    /// A new input over `len` bytes starting at `offset` of this one, for
    /// a region (a compound sub-file, a block) decoded on its own.
    pub fn slice(&self, offset: u64, len: u64) -> Result<Input<'a>> {
        let end = offset.checked_add(len);
        match end {
            Some(e) if e <= self.data.len() as u64 => Ok(Input {
                path: self.path,
                data: &self.data[offset as usize..e as usize],
                pos: 0,
            }),
            _ => Err(self.corrupt(format!(
                "region {offset}+{len} lies outside the file ({} bytes)",
                self.data.len()
            ))),
        }
    }

    /// [`Error::Corrupted`] naming this file.
    pub fn corrupt(&self, message: impl Into<String>) -> Error {
        Error::corrupted(self.path, message)
    }

    fn eof(&self, n: usize) -> Error {
        self.corrupt(format!(
            "truncated: {n} bytes needed at offset {}, {} left",
            self.pos,
            self.remaining()
        ))
    }

    /// The next `n` bytes.
    pub fn read_bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.eof(n));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let bytes = self.read_bytes(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// One byte.
    pub fn read_byte(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    /// A little-endian 16-bit integer (`readShort`).
    pub fn read_short(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    /// A little-endian 32-bit integer (`readInt`).
    pub fn read_int(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// A little-endian 64-bit integer (`readLong`).
    pub fn read_long(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// A big-endian 32-bit integer (`CodecUtil.readBEInt`).
    pub fn read_be_int(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    /// A big-endian 64-bit integer (`CodecUtil.readBELong`).
    pub fn read_be_long(&mut self) -> Result<u64> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    /// A variable-length integer of at most `max_bytes` bytes whose value
    /// must fit in `bits` bits.
    fn read_varint(&mut self, max_bytes: u32, bits: u32, what: &str) -> Result<u64> {
        let start = self.pos;
        let mut value = 0u64;
        for i in 0..max_bytes {
            let b = self.read_byte()?;
            let shift = 7 * i;
            let payload = u64::from(b & 0x7f);
            // Bits that would land beyond `bits` mean a malformed number.
            if shift + 7 > bits && (payload >> (bits - shift)) != 0 {
                return Err(
                    self.corrupt(format!("invalid {what} at offset {start}: too many bits"))
                );
            }
            value |= payload << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.corrupt(format!("invalid {what} at offset {start}: too many bytes")))
    }

    /// A variable-length 32-bit integer (`readVInt`), read as unsigned; a
    /// negative `int` (all 32 bits) is possible, as in Lucene.
    pub fn read_vint(&mut self) -> Result<u32> {
        Ok(self.read_varint(5, 32, "vInt")? as u32)
    }

    /// A variable-length non-negative 64-bit integer (`readVLong`).
    pub fn read_vlong(&mut self) -> Result<u64> {
        self.read_varint(9, 63, "vLong")
    }

    /// A zig-zag encoded variable-length 32-bit integer (`readZInt`).
    pub fn read_zint(&mut self) -> Result<i32> {
        let v = self.read_vint()?;
        Ok(((v >> 1) as i32) ^ -((v & 1) as i32))
    }

    /// A zig-zag encoded variable-length 64-bit integer (`readZLong`).
    pub fn read_zlong(&mut self) -> Result<i64> {
        let v = self.read_varint(10, 64, "zLong")?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A vInt that must be a non-negative `int` no greater than `max`, as a
    /// count or a length.
    pub fn read_vint_at_most(&mut self, max: usize, what: &str) -> Result<usize> {
        let v = self.read_vint()?;
        if v > i32::MAX as u32 || v as usize > max {
            return Err(self.corrupt(format!("{what} {v} is out of range (at most {max})")));
        }
        Ok(v as usize)
    }

    /// A string: a vInt byte length, then UTF-8 (`readString`).
    pub fn read_string(&mut self) -> Result<String> {
        let len = self.read_vint_at_most(self.remaining(), "string length")?;
        let bytes = self.read_bytes(len)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| self.corrupt("a string is not valid UTF-8".to_string()))
    }

    /// A map of strings: a vInt count, then key and value strings
    /// (`readMapOfStrings`), in file order.
    pub fn read_string_map(&mut self) -> Result<Vec<(String, String)>> {
        // Each entry takes at least two bytes: a count beyond that is damage.
        let n = self.read_vint_at_most(self.remaining() / 2, "map size")?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let k = self.read_string()?;
            let v = self.read_string()?;
            out.push((k, v));
        }
        Ok(out)
    }

    /// A set of strings: a vInt count, then the strings (`readSetOfStrings`).
    pub fn read_string_set(&mut self) -> Result<Vec<String>> {
        let n = self.read_vint_at_most(self.remaining(), "set size")?;
        (0..n).map(|_| self.read_string()).collect()
    }

    /// Reads a codec header (`CodecUtil.checkHeader`): the magic, the codec
    /// name `codec`, a version in `min..=max`, which it returns. A version
    /// outside the range is [`Error::LuceneVersion`].
    pub fn check_header(&mut self, codec: &str, min: u32, max: u32) -> Result<u32> {
        let magic = self.read_be_int()?;
        if magic != CODEC_MAGIC {
            return Err(self.corrupt(format!(
                "not a Lucene file of codec {codec}: header magic {magic:#010x}, expected {CODEC_MAGIC:#010x}"
            )));
        }
        let name_len = self.read_vint_at_most(127, "codec name length")?;
        let name = self.read_bytes(name_len)?;
        if name != codec.as_bytes() {
            return Err(self.corrupt(format!(
                "codec mismatch: found {:?}, expected {codec:?}",
                String::from_utf8_lossy(name)
            )));
        }
        let version = self.read_be_int()?;
        if version < min || version > max {
            return Err(Error::LuceneVersion {
                path: self.path.to_path_buf(),
                found: format!("format version {version} of {codec}"),
                supported: format!("versions {min} to {max} of {codec}"),
            });
        }
        Ok(version)
    }

    /// Reads an index header (`CodecUtil.checkIndexHeader`): a codec header,
    /// then the object `id` and `suffix`, which must match.
    pub fn check_index_header(
        &mut self,
        codec: &str,
        min: u32,
        max: u32,
        id: &[u8; ID_LENGTH],
        suffix: &str,
    ) -> Result<u32> {
        let version = self.check_header(codec, min, max)?;
        let found = self.read_bytes(ID_LENGTH)?;
        if found != id {
            return Err(self.corrupt(format!(
                "file mismatch: segment id {} in the header, expected {}",
                hex(found),
                hex(id)
            )));
        }
        self.check_suffix(suffix)?;
        Ok(version)
    }

    /// Reads an index header's suffix, which must be `suffix`.
    pub fn check_suffix(&mut self, suffix: &str) -> Result<()> {
        let len = self.read_byte()? as usize;
        let found = self.read_bytes(len)?;
        if found != suffix.as_bytes() {
            return Err(self.corrupt(format!(
                "file mismatch: suffix {:?}, expected {suffix:?}",
                String::from_utf8_lossy(found)
            )));
        }
        Ok(())
    }

    /// Reads a 16-byte id.
    pub fn read_id(&mut self) -> Result<[u8; ID_LENGTH]> {
        self.array()
    }
}

/// Checks the codec footer that ends `data` (the whole file `path`): the
/// footer magic, algorithm 0, and the CRC32 of every byte before the
/// checksum. Returns the checksum.
pub fn check_footer(path: &Path, data: &[u8]) -> Result<u32> {
    if data.len() < FOOTER_LENGTH {
        return Err(Error::corrupted(
            path,
            format!(
                "truncated: {} bytes, too short for a codec footer",
                data.len()
            ),
        ));
    }
    let mut input = Input::new(path, data);
    input.seek((data.len() - FOOTER_LENGTH) as u64)?;
    let magic = input.read_be_int()?;
    if magic != FOOTER_MAGIC {
        return Err(input.corrupt(format!(
            "codec footer mismatch (file truncated or damaged): magic {magic:#010x}, expected {FOOTER_MAGIC:#010x}"
        )));
    }
    let algorithm = input.read_be_int()?;
    if algorithm != 0 {
        return Err(input.corrupt(format!(
            "codec footer mismatch: unknown checksum algorithm {algorithm}"
        )));
    }
    let stored = input.read_be_long()?;
    if stored >> 32 != 0 {
        return Err(input.corrupt(format!("illegal CRC-32 checksum {stored:#x}")));
    }
    let actual = crc32fast::hash(&data[..data.len() - 8]);
    if u64::from(actual) != stored {
        return Err(input.corrupt(format!(
            "checksum failed (hardware problem?): expected {stored:#010x}, actual {actual:#010x}"
        )));
    }
    Ok(actual)
}

/// Lower-case hex of an id, as in error messages.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;
