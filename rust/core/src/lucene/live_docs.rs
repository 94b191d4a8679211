//! Live documents (`_N_<gen>.liv`, `Lucene90LiveDocsFormat`): a bitset of
//! the documents not deleted, one bit per document, in 64-bit words.

use super::directory::{Directory, base36};
use super::segment_infos::SegmentCommit;
use crate::error::Result;

/// The deleted documents of `segment` (`max_doc` documents), ascending;
/// empty without deletions.
pub fn read_deleted(dir: &Directory, segment: &SegmentCommit, max_doc: u32) -> Result<Vec<u32>> {
    if segment.del_gen < 0 {
        if segment.del_count != 0 {
            return Err(dir.file_error(
                &format!("{}.si", segment.name),
                "deletions without a live-docs file",
            ));
        }
        return Ok(Vec::new());
    }
    let r#gen = base36(segment.del_gen as u64);
    let file = dir.file(&format!("{}_{}.liv", segment.name, r#gen))?;
    file.check_footer()?;
    let mut input = file.input();
    input.check_index_header("Lucene90LiveDocs", 0, 0, &segment.id, &r#gen)?;
    let words = (max_doc as usize).div_ceil(64);
    let mut deleted = Vec::new();
    for w in 0..words {
        let live = input.read_long()?;
        let bits_here = (max_doc as usize - w * 64).min(64);
        for b in 0..bits_here {
            if live >> b & 1 == 0 {
                deleted.push((w * 64 + b) as u32);
            }
        }
        if bits_here < 64 && live >> bits_here != 0 {
            return Err(input.corrupt("live-docs bits set beyond the last document"));
        }
    }
    if deleted.len() as u32 != segment.del_count {
        return Err(input.corrupt(format!(
            "{} deleted documents, the commit says {}",
            deleted.len(),
            segment.del_count
        )));
    }
    if input.remaining() != super::input::FOOTER_LENGTH {
        return Err(input.corrupt("unexpected bytes before the footer"));
    }
    Ok(deleted)
}
