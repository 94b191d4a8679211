//! The footer that ends every binary file of an index: payload length
//! (u64), CRC32 of the payload (u32), format version (u32) and the magic
//! `RSRN`, all little-endian. From format 4 on, a segment's files carry the
//! segment's number (u64) just before it, so that a segment's files copied
//! under another segment's name are refused.

use std::path::Path;

use crate::error::{Error, Result};

const MAGIC: &[u8; 4] = b"RSRN";
const FOOTER_LEN: usize = 20;
/// The first format version whose segment files record their segment.
pub(crate) const SEGMENT_FOOTER_VERSION: u32 = 4;

/// Appends the footer (length, CRC32, format `version`, magic) to `payload`;
/// returns the file's bytes and the CRC32.
pub(crate) fn with_footer(payload: Vec<u8>, version: u32) -> (Vec<u8>, u32) {
    footed(payload, version, None)
}

/// [`with_footer`] for a file of segment number `segment`: from
/// [`SEGMENT_FOOTER_VERSION`] on, the number precedes the footer.
pub(crate) fn with_segment_footer(payload: Vec<u8>, version: u32, segment: u64) -> (Vec<u8>, u32) {
    footed(
        payload,
        version,
        (version >= SEGMENT_FOOTER_VERSION).then_some(segment),
    )
}

fn footed(mut payload: Vec<u8>, version: u32, segment: Option<u64>) -> (Vec<u8>, u32) {
    let crc = crc32fast::hash(&payload);
    let len = payload.len() as u64;
    if let Some(segment) = segment {
        payload.extend_from_slice(&segment.to_le_bytes());
    }
    payload.extend_from_slice(&len.to_le_bytes());
    payload.extend_from_slice(&crc.to_le_bytes());
    payload.extend_from_slice(&version.to_le_bytes());
    payload.extend_from_slice(MAGIC);
    (payload, crc)
}

/// Checks the footer of the file `path` (its magic, format `version` and
/// recorded length); returns the payload's length and recorded CRC32.
pub(crate) fn read_footer(path: &Path, data: &[u8], version: u32) -> Result<(usize, u32)> {
    check_footer(path, data, version, 0)
}

/// [`read_footer`] for a file listed as one of segment number `segment`'s:
/// from [`SEGMENT_FOOTER_VERSION`] on, the number the file records must be
/// `segment`.
pub(crate) fn read_segment_footer(
    path: &Path,
    data: &[u8],
    version: u32,
    segment: u64,
) -> Result<(usize, u32)> {
    if version < SEGMENT_FOOTER_VERSION {
        return read_footer(path, data, version);
    }
    let (payload_len, crc) = check_footer(path, data, version, 8)?;
    let recorded = u64::from_le_bytes(
        data[payload_len..payload_len + 8]
            .try_into()
            .expect("8 bytes"),
    );
    if recorded != segment {
        return Err(Error::corrupted(
            path,
            format!(
                "the file belongs to segment seg{recorded:06}, not seg{segment:06}: \
                 a segment's files copied under another name"
            ),
        ));
    }
    Ok((payload_len, crc))
}

/// Checks the footer with `extra` bytes between the payload and it.
fn check_footer(path: &Path, data: &[u8], version: u32, extra: usize) -> Result<(usize, u32)> {
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
    let Some(payload_len) = data.len().checked_sub(FOOTER_LEN + extra) else {
        return Err(Error::corrupted(
            path,
            format!("truncated: {} bytes, shorter than its footer", data.len()),
        ));
    };
    let len = u64::from_le_bytes(footer[0..8].try_into().expect("8 bytes"));
    if len != payload_len as u64 {
        return Err(Error::corrupted(
            path,
            format!("the footer gives a payload of {len} bytes, the file holds {payload_len}"),
        ));
    }
    let crc = u32::from_le_bytes(footer[8..12].try_into().expect("4 bytes"));
    Ok((payload_len, crc))
}
