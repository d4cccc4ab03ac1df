//! In-tier edges as the successor pass logs them: compact pieces of varints, about 4 to 5
//! bytes per edge where a [`PackedEdge`] takes 8. Edge logs are the largest work files of an
//! out-of-core tier (in disk, and in bytes written), so they are worth the few lines.
//!
//! A worker appends the edges of one chunk of positions into one range as one piece. Its
//! sources never decrease (positions are generated in order), so each edge is written as one
//! varint of `(source - previous source) << range_bits | target offset`:
//!
//! ```text
//! piece := body length (u32 LE) · edge count (u32 LE) · body
//! body  := varint(first source) · varint((Δsource << range_bits) | target offset) per edge
//! ```
//!
//! Pieces of different workers interleave in a log; each stands on its own.

use std::io::Read;
use std::path::Path;

use crate::work::graph::{EdgeCodec, PackedEdge};
use bawo_games::error::{Error, Result};

/// Appends `v` as a little-endian base-128 varint.
#[inline]
pub(crate) fn put_varint(out: &mut Vec<u8>, v: u128) {
    // Nearly every edge fits 64 bits: the loop in one register, not two.
    if let Ok(mut v) = u64::try_from(v) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
        return;
    }
    put_varint_wide(out, v);
}

#[cold]
fn put_varint_wide(out: &mut Vec<u8>, mut v: u128) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint at `*at` in `body`, advancing `*at`.
#[inline]
pub(crate) fn get_varint(body: &[u8], at: &mut usize) -> Option<u128> {
    // Up to 9 bytes (63 bits) in one register; a longer varint is read again, in two.
    let mut v = 0u64;
    for k in 0..9 {
        let b = *body.get(*at + k)?;
        v |= ((b & 0x7f) as u64) << (7 * k);
        if b < 0x80 {
            *at += k + 1;
            return Some(v as u128);
        }
    }
    get_varint_wide(body, at)
}

#[cold]
fn get_varint_wide(body: &[u8], at: &mut usize) -> Option<u128> {
    let mut v = 0u128;
    let mut shift = 0u32;
    loop {
        let b = *body.get(*at)?;
        *at += 1;
        if shift > 126 {
            return None;
        }
        v |= ((b & 0x7f) as u128) << shift;
        if b < 0x80 {
            return Some(v);
        }
        shift += 7;
    }
}

/// Appends `edges` (packed by `codec`) to `out` as one piece. Sorts them by source first
/// when they are not in order already (the successor pass gives them in order).
pub fn encode_piece(codec: EdgeCodec, edges: &mut [PackedEdge], out: &mut Vec<u8>) {
    if edges.is_empty() {
        return;
    }
    if edges
        .windows(2)
        .any(|w| codec.source(w[0]) > codec.source(w[1]))
    {
        edges.sort_by_key(|&e| codec.source(e));
    }
    let head = out.len();
    out.extend_from_slice(&[0u8; 8]);
    let bits = codec.range_bits();
    let mut prev = codec.source(edges[0]);
    put_varint(out, prev as u128);
    for &e in edges.iter() {
        let s = codec.source(e);
        put_varint(out, ((s - prev) as u128) << bits | codec.target(e) as u128);
        prev = s;
    }
    let body = (out.len() - head - 8) as u32;
    out[head..head + 4].copy_from_slice(&body.to_le_bytes());
    out[head + 4..head + 8].copy_from_slice(&(edges.len() as u32).to_le_bytes());
}

/// Reads a piece's header: body length and edge count; `None` at the end of the log.
fn header(path: &Path, r: &mut dyn Read) -> Result<Option<(usize, usize)>> {
    let mut h = [0u8; 8];
    let mut got = 0;
    while got < 8 {
        match r.read(&mut h[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(Error::corrupt(path, "edge log ends inside a piece")),
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    let body = u32::from_le_bytes(h[..4].try_into().expect("4")) as usize;
    let count = u32::from_le_bytes(h[4..].try_into().expect("4")) as usize;
    Ok(Some((body, count)))
}

/// Edges in a log, from its piece headers (a first pass, so that [`decode`] can allocate
/// exactly what the edges take).
pub fn count(path: &Path, r: &mut dyn Read) -> Result<u64> {
    let mut total = 0u64;
    let mut skip = vec![0u8; 1 << 16];
    while let Some((body, count)) = header(path, r)? {
        let mut left = body;
        while left > 0 {
            let n = left.min(skip.len());
            r.read_exact(&mut skip[..n])
                .map_err(|_| Error::corrupt(path, "edge log ends inside a piece"))?;
            left -= n;
        }
        total += count as u64;
    }
    Ok(total)
}

/// Cuts a log held in memory at piece boundaries into at most `parts` runs of pieces of
/// about equal bytes, for [`crate::work::graph::PredRange::build_parts`] to read side by side (each
/// run with [`for_each`]). Checks only the pieces' headers; their bodies are checked when read.
pub fn split(path: &Path, bytes: &[u8], parts: usize) -> Result<Vec<std::ops::Range<usize>>> {
    let goal = bytes.len().div_ceil(parts.max(1)).max(1);
    let mut out = Vec::new();
    let (mut start, mut at) = (0usize, 0usize);
    while at < bytes.len() {
        let mut r = &bytes[at..];
        let (body, _) = header(path, &mut r)?.expect("bytes left");
        if body > bytes.len() - at - 8 {
            return Err(Error::corrupt(path, "edge log ends inside a piece"));
        }
        at += 8 + body;
        if at - start >= goal {
            out.push(start..at);
            start = at;
        }
    }
    if start < at {
        out.push(start..at);
    }
    Ok(out)
}

/// Decodes every piece of a log into `out` (packed by `codec`), checking each against the
/// range of `len` positions it belongs to.
pub fn decode(
    codec: EdgeCodec,
    len: usize,
    path: &Path,
    r: &mut dyn Read,
    out: &mut Vec<PackedEdge>,
) -> Result<()> {
    for_each(codec, len, path, r, &mut |e| out.extend_from_slice(e))
}

/// Calls `f` with the edges of each piece of a log (packed by `codec`), in the log's order,
/// checking each against the range of `len` positions it belongs to: the edges are never all
/// in memory at once ([`crate::work::graph::PredRange::build_streamed`] reads a log twice this
/// way), and `f` is called once a piece, not once an edge.
pub fn for_each(
    codec: EdgeCodec,
    len: usize,
    path: &Path,
    r: &mut dyn Read,
    f: &mut dyn FnMut(&[PackedEdge]),
) -> Result<()> {
    let bad = |why: &str| Error::corrupt(path, format!("edge log: {why}"));
    let bits = codec.range_bits();
    let mask = (1u128 << bits) - 1;
    let mut body = Vec::new();
    let mut edges = Vec::new();
    while let Some((size, count)) = header(path, r)? {
        edges.clear();
        body.resize(size, 0);
        r.read_exact(&mut body)
            .map_err(|_| bad("ends inside a piece"))?;
        let mut at = 0usize;
        let mut source = get_varint(&body, &mut at).ok_or_else(|| bad("bad first source"))?;
        for _ in 0..count {
            let v = get_varint(&body, &mut at).ok_or_else(|| bad("bad edge"))?;
            source += v >> bits;
            let target = (v & mask) as usize;
            if target >= len || source > u64::MAX as u128 {
                return Err(bad("edge out of its range"));
            }
            edges.push(codec.pack(target as u64, source as u64));
        }
        if at != body.len() {
            return Err(bad("piece longer than its edges"));
        }
        f(&edges);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(codec: EdgeCodec, len: usize, pieces: &[Vec<PackedEdge>]) -> Vec<PackedEdge> {
        let mut bytes = Vec::new();
        for p in pieces {
            encode_piece(codec, &mut p.clone(), &mut bytes);
        }
        let path = Path::new("edges-0.log");
        assert_eq!(
            count(path, &mut &bytes[..]).unwrap(),
            pieces.iter().map(|p| p.len() as u64).sum::<u64>()
        );
        let mut out = Vec::new();
        decode(codec, len, path, &mut &bytes[..], &mut out).unwrap();
        out
    }

    #[test]
    fn pieces_round_trip_in_order_and_take_few_bytes() {
        let c = EdgeCodec::narrow(20);
        let a: Vec<u64> = (0..1000u64)
            .map(|i| c.pack((i * 7919) % (1 << 20), 5_000_000 + i / 3))
            .collect();
        let b = vec![c.pack(0, 0), c.pack((1 << 20) - 1, u32::MAX as u64)];
        let got = round_trip(c, 1 << 20, &[a.clone(), b.clone(), Vec::new()]);
        assert_eq!(got, [a.clone(), b].concat());
        let mut bytes = Vec::new();
        encode_piece(c, &mut a.clone(), &mut bytes);
        assert!(bytes.len() < 4 * a.len(), "{} bytes", bytes.len());
    }

    #[test]
    fn unordered_pieces_are_sorted_by_source_and_wide_sources_survive() {
        let c = EdgeCodec::new(true, 24);
        let big = [(1u64 << 40) - 1, 1 << 32, 7, (1 << 39) + 3];
        let edges: Vec<u64> = big
            .iter()
            .enumerate()
            .map(|(i, &s)| c.pack(i as u64, s))
            .collect();
        let mut got = round_trip(c, 4, std::slice::from_ref(&edges));
        let mut want = edges;
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);
    }

    #[test]
    fn varints_round_trip_on_both_sides_of_64_bits() {
        let vals: Vec<u128> = [0u128, 1, 127, 128, 1 << 56, (1 << 63) - 1, 1 << 63]
            .into_iter()
            .chain([u64::MAX as u128, 1 << 64, (1 << 70) + 5, u128::MAX >> 2])
            .collect();
        let mut bytes = Vec::new();
        vals.iter().for_each(|&v| put_varint(&mut bytes, v));
        let mut at = 0;
        for &v in &vals {
            assert_eq!(get_varint(&bytes, &mut at), Some(v));
        }
        assert_eq!(at, bytes.len());
        assert_eq!(get_varint(&bytes, &mut at), None);
        // Cut inside a long varint.
        let mut at = 0;
        assert_eq!(get_varint(&[0x80; 12], &mut at), None);
    }

    #[test]
    fn split_logs_decode_to_the_whole() {
        let c = EdgeCodec::narrow(12);
        let pieces: Vec<Vec<u64>> = (0..40u64)
            .map(|p| {
                (0..p * 3)
                    .map(|i| c.pack((i * 31 + p) % 4096, p * 1000 + i))
                    .collect()
            })
            .collect();
        let mut bytes = Vec::new();
        for p in &pieces {
            encode_piece(c, &mut p.clone(), &mut bytes);
        }
        let path = Path::new("edges-0.log");
        let want = round_trip(c, 4096, &pieces);
        for parts in [1, 2, 3, 7, 100] {
            let runs = split(path, &bytes, parts).unwrap();
            assert!(runs.len() <= parts && runs.first().unwrap().start == 0);
            assert!(runs.windows(2).all(|w| w[0].end == w[1].start));
            assert_eq!(runs.last().unwrap().end, bytes.len());
            let mut got = Vec::new();
            for r in runs {
                decode(c, 4096, path, &mut &bytes[r], &mut got).unwrap();
            }
            assert_eq!(got, want, "{parts} parts");
        }
        assert!(split(path, &[], 4).unwrap().is_empty());
        assert!(split(path, &bytes[..bytes.len() - 1], 4).is_err());
        assert!(split(path, &bytes[..5], 4).is_err());
    }

    #[test]
    fn damaged_logs_are_refused() {
        let c = EdgeCodec::narrow(10);
        let mut bytes = Vec::new();
        encode_piece(c, &mut [c.pack(3, 9), c.pack(1000, 12)], &mut bytes);
        let path = Path::new("edges-0.log");
        let mut out = Vec::new();
        // A target beyond the range.
        assert!(decode(c, 500, path, &mut &bytes[..], &mut out).is_err());
        // A cut piece.
        let cut = &bytes[..bytes.len() - 1];
        assert!(decode(c, 1024, path, &mut &cut[..], &mut out).is_err());
        assert!(count(path, &mut &cut[..]).is_err());
        // A count that disagrees with the body.
        let mut more = bytes.clone();
        more[4] += 1;
        assert!(decode(c, 1024, path, &mut &more[..], &mut out).is_err());
    }
}
