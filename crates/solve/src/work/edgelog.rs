//! In-tier edges as the successor pass logs them: compact pieces of varints, 1.6 to 4 bytes
//! per edge where a [`PackedEdge`] takes 8. Edge logs are the largest work files of an
//! out-of-core tier (in disk, and in bytes written), so they are worth the few lines.
//!
//! A worker appends the edges of one chunk of positions into one range as one piece, in one
//! of two orders:
//!
//! - **by source**, where sources are tier-wide indices: a chunk's sources are close together
//!   and given in order, so each edge is one varint of
//!   `(source - previous source) << range_bits | target offset`;
//! - **by target**, where sources are keys ([`EdgeCodec::keys`]): a key is a small number, and
//!   a chunk's targets crowd into the few groups of positions its keys name (a thousand to
//!   six thousand edges a piece into a range on Kigogo and Bawo), so the edges are sorted by
//!   target and each is one varint of `(target - previous target) << key_bits | key - least
//!   key`. On Kigogo 7 and Bawo `n = 4` with 16 seeds this took 1.6-1.7 bytes an edge where
//!   the order by source took 3.1-3.8; on Bao (sources, not keys) it would take 3.8 where
//!   the order by source takes 3.5.
//!
//! ```text
//! piece  := body length (u32 LE) · edge count (u32 LE; top bit set: by target) · body
//! by source: varint(first source) · varint((Δsource << range_bits) | target offset) per edge
//! by target: varint(least key) · key bits (u8) · varint((Δtarget << key bits) | key - least) per edge
//! ```
//!
//! Pieces of different workers interleave in a log; each stands on its own. A list built
//! from a log holds its target's sources in the order the log gives them, which the
//! attractor does not depend on.

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

/// The edge count's top bit in a piece's header: the piece is in order of target.
const BY_TARGET: u32 = 1 << 31;

/// Appends `edges` (packed by `codec`) to `out` as one piece: by target where the sources are
/// one-byte keys, in whichever order takes fewer bytes where they are wider keys, else by
/// source. Sorts them as it goes (the successor pass gives them in order of source).
pub fn encode_piece(codec: EdgeCodec, edges: &mut [PackedEdge], out: &mut Vec<u8>) {
    if edges.is_empty() {
        return;
    }
    let head = out.len();
    out.extend_from_slice(&[0u8; 8]);
    let mut count = edges.len() as u32;
    assert!(count < BY_TARGET, "a piece of {count} edges");
    // A packed edge holds the target above the source: its order is by target.
    let by_target = match codec.keys() {
        0 => false,
        // One-byte places: by target is smaller but in pieces of an edge or two, where it
        // costs a byte or two more; not worth a second sort and count per piece (a tenth of
        // the successor pass's time went to sorting and sizing pieces when it was done).
        1 => {
            edges.sort_unstable();
            true
        }
        _ => {
            sort_by_source(codec, edges);
            let by_source = by_source_bytes(codec, edges);
            edges.sort_unstable();
            by_target_bytes(codec, edges) < by_source
        }
    };
    if by_target {
        encode_by_target(codec, edges, out);
        count |= BY_TARGET;
    } else {
        sort_by_source(codec, edges);
        encode_by_source(codec, edges, out);
    }
    let body = (out.len() - head - 8) as u32;
    out[head..head + 4].copy_from_slice(&body.to_le_bytes());
    out[head + 4..head + 8].copy_from_slice(&count.to_le_bytes());
}

fn sort_by_source(codec: EdgeCodec, edges: &mut [PackedEdge]) {
    if edges
        .windows(2)
        .any(|w| codec.source(w[0]) > codec.source(w[1]))
    {
        edges.sort_by_key(|&e| codec.source(e));
    }
}

/// Bytes of `v` as a varint.
#[inline]
fn varint_len(v: u128) -> usize {
    (128 - v.leading_zeros() as usize).max(1).div_ceil(7)
}

/// Each edge's varint in order of source (`edges` sorted so), with the first source.
fn by_source_values(
    codec: EdgeCodec,
    edges: &[PackedEdge],
) -> (u64, impl Iterator<Item = u128> + '_) {
    let bits = codec.range_bits();
    let first = codec.source(edges[0]);
    let mut prev = first;
    let values = edges.iter().map(move |&e| {
        let s = codec.source(e);
        let v = ((s - prev) as u128) << bits | codec.target(e) as u128;
        prev = s;
        v
    });
    (first, values)
}

/// Each edge's varint in order of target (`edges` sorted so), with the least key and the
/// keys' width.
fn by_target_values(
    codec: EdgeCodec,
    edges: &[PackedEdge],
) -> (u64, u32, impl Iterator<Item = u128> + '_) {
    let least = edges.iter().map(|&e| codec.source(e)).min().expect("edges");
    let spread = edges
        .iter()
        .map(|&e| codec.source(e) - least)
        .max()
        .expect("edges");
    let key_bits = 64 - spread.leading_zeros();
    let mut prev = 0u64;
    let values = edges.iter().map(move |&e| {
        let t = codec.target(e) as u64;
        let v = ((t - prev) as u128) << key_bits | (codec.source(e) - least) as u128;
        prev = t;
        v
    });
    (least, key_bits, values)
}

fn by_source_bytes(codec: EdgeCodec, edges: &[PackedEdge]) -> usize {
    let (first, values) = by_source_values(codec, edges);
    varint_len(first as u128) + values.map(varint_len).sum::<usize>()
}

fn by_target_bytes(codec: EdgeCodec, edges: &[PackedEdge]) -> usize {
    let (least, _, values) = by_target_values(codec, edges);
    varint_len(least as u128) + 1 + values.map(varint_len).sum::<usize>()
}

fn encode_by_source(codec: EdgeCodec, edges: &[PackedEdge], out: &mut Vec<u8>) {
    let (first, values) = by_source_values(codec, edges);
    put_varint(out, first as u128);
    values.for_each(|v| put_varint(out, v));
}

fn encode_by_target(codec: EdgeCodec, edges: &[PackedEdge], out: &mut Vec<u8>) {
    let (least, key_bits, values) = by_target_values(codec, edges);
    put_varint(out, least as u128);
    out.push(key_bits as u8);
    values.for_each(|v| put_varint(out, v));
}

/// A piece's header.
struct Header {
    /// Bytes of its body.
    body: usize,
    /// Edges in it.
    count: usize,
    /// In order of target ([`encode_by_target`]), else of source.
    by_target: bool,
}

/// How a log's pieces are framed (an 8-byte header whose first four bytes are the body's
/// length, as `header` reads it), so that a resumed log is cut into runs where its pieces
/// begin.
pub const FRAMING: bawo_store::append::Framing = bawo_store::append::Framing {
    header: 8,
    record_len: |h| 8 + u32::from_le_bytes([h[0], h[1], h[2], h[3]]) as u64,
};

/// Reads a piece's header; `None` at the end of the log.
fn header(path: &Path, r: &mut dyn Read) -> Result<Option<Header>> {
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
    let count = u32::from_le_bytes(h[4..].try_into().expect("4"));
    Ok(Some(Header {
        body,
        count: (count & !BY_TARGET) as usize,
        by_target: count & BY_TARGET != 0,
    }))
}

/// Edges in a log, from its piece headers (a first pass, so that [`decode`] can allocate
/// exactly what the edges take).
pub fn count(path: &Path, r: &mut dyn Read) -> Result<u64> {
    let mut total = 0u64;
    let mut skip = vec![0u8; 1 << 16];
    while let Some(Header { body, count, .. }) = header(path, r)? {
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
        let body = header(path, &mut r)?.expect("bytes left").body;
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
    let mut body = Vec::new();
    let mut edges = Vec::new();
    while let Some(h) = header(path, r)? {
        edges.clear();
        body.resize(h.body, 0);
        r.read_exact(&mut body)
            .map_err(|_| bad("ends inside a piece"))?;
        let read = if h.by_target {
            decode_by_target(codec, len, &body, h.count, &mut edges)
        } else {
            decode_by_source(codec, len, &body, h.count, &mut edges)
        };
        if read.map_err(bad)? != body.len() {
            return Err(bad("piece longer than its edges"));
        }
        f(&edges);
    }
    Ok(())
}

/// The edges of a piece in order of source, checked against a range of `len` positions;
/// returns the bytes of `body` they took.
fn decode_by_source(
    codec: EdgeCodec,
    len: usize,
    body: &[u8],
    count: usize,
    edges: &mut Vec<PackedEdge>,
) -> std::result::Result<usize, &'static str> {
    let bits = codec.range_bits();
    let mask = (1u128 << bits) - 1;
    let mut at = 0usize;
    let mut source = get_varint(body, &mut at).ok_or("bad first source")?;
    for _ in 0..count {
        let v = get_varint(body, &mut at).ok_or("bad edge")?;
        source += v >> bits;
        push_checked(codec, len, v & mask, source, edges)?;
    }
    Ok(at)
}

/// The edges of a piece in order of target, checked against a range of `len` positions;
/// returns the bytes of `body` they took.
fn decode_by_target(
    codec: EdgeCodec,
    len: usize,
    body: &[u8],
    count: usize,
    edges: &mut Vec<PackedEdge>,
) -> std::result::Result<usize, &'static str> {
    let mut at = 0usize;
    let least = get_varint(body, &mut at).ok_or("bad least key")?;
    let key_bits = *body.get(at).ok_or("no key width")? as u32;
    at += 1;
    if key_bits > 64 || least > u64::MAX as u128 {
        return Err("bad key width");
    }
    let mask = (1u128 << key_bits) - 1;
    let mut target = 0u128;
    for _ in 0..count {
        let v = get_varint(body, &mut at).ok_or("bad edge")?;
        target += v >> key_bits;
        push_checked(codec, len, target, least + (v & mask), edges)?;
    }
    Ok(at)
}

/// Keeps an edge read back from a log once its target lies in the range of `len` positions
/// and its source fits the codec's bits.
fn push_checked(
    codec: EdgeCodec,
    len: usize,
    target: u128,
    source: u128,
    edges: &mut Vec<PackedEdge>,
) -> std::result::Result<(), &'static str> {
    if target >= len as u128 || source > u64::MAX as u128 || !codec.holds_source(source as u64) {
        return Err("edge out of its range");
    }
    edges.push(codec.pack(target as u64, source as u64));
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
        // The framing a resumed log is cut by finds the same pieces.
        let mut starts = Vec::new();
        let mut at = 0usize;
        while at < bytes.len() {
            starts.push(at);
            at += (FRAMING.record_len)(&bytes[at..at + FRAMING.header]) as usize;
        }
        assert_eq!(at, bytes.len());
        let every = split(path, &bytes, bytes.len()).unwrap();
        assert_eq!(starts, every.iter().map(|r| r.start).collect::<Vec<_>>());
        assert!(split(path, &[], 4).unwrap().is_empty());
        assert!(split(path, &bytes[..bytes.len() - 1], 4).is_err());
        assert!(split(path, &bytes[..5], 4).is_err());
    }

    /// Edges of a crowded chunk as a keyed tier logs them: keys below 200, targets in a few
    /// groups of a range of 2^20 positions.
    fn keyed_piece(c: EdgeCodec, seed: u64, n: u64) -> Vec<PackedEdge> {
        (0..n)
            .map(|i| {
                let x = (i + seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20;
                let group = (x % 3) * 300_000 + seed * 1000;
                c.pack(group + (x >> 8) % 4096, 7 + (x >> 30) % 200)
            })
            .collect()
    }

    #[test]
    fn keyed_pieces_go_by_target_and_take_fewer_bytes() {
        let c = EdgeCodec::narrow(20).with_keys(1);
        let pieces: Vec<Vec<u64>> = (0..5).map(|p| keyed_piece(c, p, 2000 + p * 37)).collect();
        let mut got = round_trip(c, 1 << 20, &pieces);
        let mut want = pieces.concat();
        // Each piece comes back in order of target: the same edges, piece by piece.
        let mut at = 0;
        for p in &pieces {
            let back = &got[at..at + p.len()];
            assert!(back.windows(2).all(|w| w[0] <= w[1]));
            at += p.len();
        }
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);
        // The same edges by source (as a tier without keys logs them) take more.
        let (mut by_target, mut by_source) = (Vec::new(), Vec::new());
        let plain = EdgeCodec::narrow(20);
        for p in &pieces {
            encode_piece(c, &mut p.clone(), &mut by_target);
            encode_piece(plain, &mut p.clone(), &mut by_source);
        }
        let edges = want.len() as f64;
        let (t, s) = (
            by_target.len() as f64 / edges,
            by_source.len() as f64 / edges,
        );
        assert!(t < 2.2 && t < 0.7 * s, "{t:.2} by target, {s:.2} by source");
        // Both orders in one log, as a log of a resumed run with an older build's pieces.
        let mut mixed = &by_source[..];
        let mut both = Vec::new();
        encode_piece(plain, &mut pieces[0].clone(), &mut both);
        encode_piece(c, &mut pieces[1].clone(), &mut both);
        let mut out = Vec::new();
        let path = Path::new("edges-0.log");
        decode(c, 1 << 20, path, &mut &both[..], &mut out).unwrap();
        out.sort_unstable();
        let mut two = [pieces[0].clone(), pieces[1].clone()].concat();
        two.sort_unstable();
        assert_eq!(out, two);
        assert_eq!(count(path, &mut mixed).unwrap(), edges as u64);
    }

    #[test]
    fn wide_keys_and_one_key_survive_by_target() {
        // Keys of four bytes (ranks), a wide codec, and a piece whose keys are all one.
        let c = EdgeCodec::new(true, 24).with_keys(4);
        let a = vec![
            c.pack(5, u32::MAX as u64),
            c.pack(5, 0),
            c.pack((1 << 24) - 1, 77),
        ];
        let b = vec![c.pack(9, 3); 4];
        let mut got = round_trip(c, 1 << 24, &[a.clone(), b.clone()]);
        let mut want = [a, b].concat();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);
    }

    #[test]
    fn damaged_keyed_logs_are_refused() {
        let c = EdgeCodec::narrow(20).with_keys(1);
        let mut bytes = Vec::new();
        encode_piece(c, &mut keyed_piece(c, 0, 500), &mut bytes);
        assert_ne!(bytes[7] & 0x80, 0, "a crowded keyed piece goes by target");
        let path = Path::new("edges-0.log");
        let mut out = Vec::new();
        decode(c, 1 << 20, path, &mut &bytes[..], &mut out).unwrap();
        // A target beyond the range, a cut piece, a count that disagrees with the body, a
        // key width beyond 64 bits.
        assert!(decode(c, 300_000, path, &mut &bytes[..], &mut out).is_err());
        let cut = &bytes[..bytes.len() - 1];
        assert!(decode(c, 1 << 20, path, &mut &cut[..], &mut out).is_err());
        for (at, value) in [(4, bytes[4] + 1), (4, bytes[4] - 1), (9, 65)] {
            let mut bad = bytes.clone();
            bad[at] = value;
            assert!(
                decode(c, 1 << 20, path, &mut &bad[..], &mut out).is_err(),
                "{at}"
            );
        }
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
