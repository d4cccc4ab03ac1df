//! Due logs as compact pieces: the positions of one range due at one attractor level, sorted
//! and written as varint gaps, about a byte or two each where a plain `u32` takes four.
//!
//! Out of core every decided position is appended to the due log of its level once (sometimes
//! twice: a known win decided earlier in its own tier), so the logs were about 4 bytes written
//! per stored position. Each append is one piece that stands on its own, so a log cut back to
//! a checkpoint's committed length (always between appends) still decodes:
//!
//! ```text
//! piece := varint(count) · varint(first offset) · varint(offset − previous offset) per further position
//! ```
//!
//! Sorting costs little beside the attractor's work and makes the level's reads of cells and
//! predecessor lists walk each range forwards.

use std::path::Path;

use crate::work::edgelog::{get_varint, put_varint};
use bawo_games::error::{Error, Result};

/// Appends `offsets` (sorted here) to `out` as one piece.
pub fn encode(offsets: &mut [u32], out: &mut Vec<u8>) {
    offsets.sort_unstable();
    put_varint(out, offsets.len() as u128);
    let mut prev = 0u32;
    for &o in offsets.iter() {
        put_varint(out, (o - prev) as u128);
        prev = o;
    }
}

/// Adds `offset` to the offsets due at `level`, growing `levels` to hold that level.
pub fn push_at_level(levels: &mut Vec<Vec<u32>>, level: u32, offset: u32) {
    let l = level as usize;
    if levels.len() <= l {
        levels.resize_with(l + 1, Vec::new);
    }
    levels[l].push(offset);
}

/// Each level's offsets coded as one piece ([`encode`]), empty for a level with none; the
/// offsets are cleared, their capacity kept for the next use.
pub fn level_pieces(levels: &mut [Vec<u32>]) -> Vec<Vec<u8>> {
    levels
        .iter_mut()
        .map(|offsets| {
            let mut piece = Vec::new();
            if !offsets.is_empty() {
                encode(offsets, &mut piece);
                offsets.clear();
            }
            piece
        })
        .collect()
}

/// Every position of the pieces in `bytes` (the log at `path`, named in errors), piece by
/// piece.
pub fn decode(bytes: &[u8], path: &Path) -> Result<Vec<u32>> {
    let bad = || Error::corrupt(path, "due log: a piece is cut short or out of range");
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let count = get_varint(bytes, &mut at).ok_or_else(bad)?;
        // A piece holds at least a byte per position: a count beyond that is corrupt.
        if count > (bytes.len() - at) as u128 {
            return Err(bad());
        }
        out.reserve(count as usize);
        let mut prev = 0u64;
        for _ in 0..count {
            let gap = get_varint(bytes, &mut at).ok_or_else(bad)?;
            let v = u64::try_from(gap).ok().and_then(|g| prev.checked_add(g));
            prev = v.filter(|&v| v <= u32::MAX as u64).ok_or_else(bad)?;
            out.push(prev as u32);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_round_trip_sorted_in_place_and_cut_pieces_are_refused() {
        let p = Path::new("due");
        let mut bytes = Vec::new();
        let mut a = vec![7u32, 3, u32::MAX, 0, 3, 1 << 20];
        let mut b: Vec<u32> = (0..1000).map(|i| i * 37 % 1001).collect();
        encode(&mut a, &mut bytes);
        let one = bytes.len();
        encode(&mut [], &mut bytes);
        encode(&mut b, &mut bytes);
        let mut want = vec![0, 3, 3, 7, 1 << 20, u32::MAX];
        let mut sorted_b: Vec<u32> = (0..1000).map(|i| i * 37 % 1001).collect();
        sorted_b.sort_unstable();
        want.extend(&sorted_b);
        assert_eq!(decode(&bytes, p).unwrap(), want);
        // Dense offsets take a byte each, and a piece's prefix decodes alone.
        assert!(bytes.len() - one < 1010, "{}", bytes.len() - one);
        assert_eq!(decode(&bytes[..one], p).unwrap(), &want[..6]);
        assert!(decode(&[], p).unwrap().is_empty());
        // A piece cut short, a count beyond its bytes, a gap past u32: corrupt, not a panic.
        for cut in 1..one {
            assert!(decode(&bytes[..cut], p).is_err(), "cut at {cut}");
        }
        assert!(decode(&[0xff, 0xff, 0x03, 0], p).is_err());
        let mut over = Vec::new();
        put_varint(&mut over, 2);
        put_varint(&mut over, u32::MAX as u128);
        put_varint(&mut over, 1);
        assert!(decode(&over, p).is_err());
    }
}
