//! The footer that ends every binary file of an index: payload length
//! (u64), CRC32 of the payload (u32), format version (u32) and the magic
//! `RSRN`, all little-endian.

use std::path::Path;

use crate::error::{Error, Result};

const MAGIC: &[u8; 4] = b"RSRN";
const FOOTER_LEN: usize = 20;

/// Appends the footer (length, CRC32, format `version`, magic) to `payload`;
/// returns the file's bytes and the CRC32.
pub(crate) fn with_footer(mut payload: Vec<u8>, version: u32) -> (Vec<u8>, u32) {
    let crc = crc32fast::hash(&payload);
    let len = payload.len() as u64;
    payload.extend_from_slice(&len.to_le_bytes());
    payload.extend_from_slice(&crc.to_le_bytes());
    payload.extend_from_slice(&version.to_le_bytes());
    payload.extend_from_slice(MAGIC);
    (payload, crc)
}

/// Checks the footer of the file `path` (its magic, format `version` and
/// recorded length); returns the payload's length and recorded CRC32.
pub(crate) fn read_footer(path: &Path, data: &[u8], version: u32) -> Result<(usize, u32)> {
    if data.len() < FOOTER_LEN {
        return Err(Error::corrupted(
            path,
            format!("truncated: {} bytes, shorter than its footer", data.len()),
        ));
    }
    let footer = &data[data.len() - FOOTER_LEN..];
    if &footer[16..20] != MAGIC {
        return Err(Error::corrupted(
            path,
            "bad magic number: not an rserini index file",
        ));
    }
    let found = u32::from_le_bytes(footer[12..16].try_into().expect("4 bytes"));
    if found != version {
        return Err(Error::Version {
            path: path.to_path_buf(),
            found,
            expected: version,
        });
    }
    let len = u64::from_le_bytes(footer[0..8].try_into().expect("8 bytes"));
    let payload_len = data.len() - FOOTER_LEN;
    if len != payload_len as u64 {
        return Err(Error::corrupted(
            path,
            format!("the footer gives a payload of {len} bytes, the file holds {payload_len}"),
        ));
    }
    let crc = u32::from_le_bytes(footer[8..12].try_into().expect("4 bytes"));
    Ok((payload_len, crc))
}
