//! A range's predecessor lists as a file, read in place through a memory map.
//!
//! Offsets take a byte and a half per position instead of 4: the range is cut into blocks of
//! [`COUNT_BLOCK`] positions, each with its first offset (`u32`), and every position stores
//! the length of its list (`u8`); a lookup adds up the lengths before it in its block.
//! Where no list is longer than 15 (most ranges of Bawo and Kigogo), a length takes half a
//! byte and a block 16 positions: three quarters of a byte per position ([`NIB_BLOCK`]).
//! A range with a list longer than 255 falls back to blocks of [`BLOCK`] positions with each
//! position's offset from its block's first (`u16`), and one with a block whose lists exceed
//! `u16` (never seen: 64 positions with 65,536 predecessors) to plain `u32` offsets. Lookups
//! stay random-access, so the attractor reads only the pages of the positions due.
//!
//! ```text
//! file    := kind (u32 LE: 0 plain, 1 blocked, 2 counted, 3 nibbled) · positions (u32 LE) · offsets · padding · sources
//! plain   := positions + 1 offsets (u32)
//! blocked := blocks + 1 block offsets (u32, the last one the end) · positions offsets in their block (u16)
//! counted := blocks + 1 block offsets (u32, the last one the end) · positions list lengths (u8)
//! nibbled := blocks + 1 block offsets (u32, the last one the end) · blocks words of 16 lengths (4 bits each, the first lowest; the last word padded with 0)
//! ```
//!
//! The padding aligns the sources (`u32`, or five bytes that need no alignment, see
//! [`crate::work::graph::Source`]).

use std::path::Path;

use bawo_games::error::{Error, Result};
use bawo_store::bytes::{as_u16, as_u32, u16_bytes, u32_bytes};

/// Positions per block of offsets, as a power of two.
pub const BLOCK_BITS: u32 = 6;
/// Positions per block of offsets.
pub const BLOCK: usize = 1 << BLOCK_BITS;

/// Positions per block of counted offsets, as a power of two: a block's lengths are one
/// 8-byte word, so a lookup adds up the lengths before it in one step.
pub const COUNT_BITS: u32 = 3;
/// Positions per block of counted offsets.
pub const COUNT_BLOCK: usize = 1 << COUNT_BITS;

/// Positions per block of nibbled offsets, as a power of two: a block's lengths are one
/// 8-byte word of sixteen 4-bit lengths.
pub const NIB_BITS: u32 = 4;
/// Positions per block of nibbled offsets.
pub const NIB_BLOCK: usize = 1 << NIB_BITS;

const PLAIN: u32 = 0;
const BLOCKED: u32 = 1;
const COUNTED: u32 = 2;
const NIBBLED: u32 = 3;

/// Where each target's list starts among a range's sources: plain (`len + 1` offsets, in
/// memory), or in blocks as a file stores them.
#[derive(Clone, Copy, Debug)]
pub enum Offsets<'a> {
    /// Offsets in memory, `len + 1` of them.
    Plain(&'a [u32]),
    /// Each block's first offset (and the end, last), and each position's offset from its
    /// block's first.
    Blocked {
        /// Each block's first offset (and the end).
        bases: &'a [u32],
        /// Each position's offset from its block's first.
        rel: &'a [u16],
    },
    /// Each block's first offset (and the end), and each position's list length.
    Counted {
        /// Each block's first offset (and the end).
        bases: &'a [u32],
        /// Each position's list length.
        counts: &'a [u8],
    },
    /// Each block's first offset (and the end), and each position's list length in 4 bits.
    Nibbled {
        /// Each block's first offset (and the end).
        bases: &'a [u32],
        /// Each block's sixteen lengths, one 8-byte word a block.
        nibbles: &'a [u8],
    },
}

/// The list of target `t < rel.len()` among a range's sources, from blocked offsets: one
/// lookup's work, with no enum to match (the attractor matches once per level and range).
#[inline]
pub fn blocked_span(bases: &[u32], rel: &[u16], t: usize) -> std::ops::Range<usize> {
    let start = bases[t >> BLOCK_BITS] as usize + rel[t] as usize;
    let end = match rel.get(t + 1) {
        Some(&r) => bases[(t + 1) >> BLOCK_BITS] as usize + r as usize,
        None => bases[bases.len() - 1] as usize,
    };
    start..end
}

/// The list of target `t < counts.len()` among a range's sources, from counted offsets.
#[inline]
pub fn counted_span(bases: &[u32], counts: &[u8], t: usize) -> std::ops::Range<usize> {
    let first = t & !(COUNT_BLOCK - 1);
    let before = match counts.get(first..first + COUNT_BLOCK) {
        // A whole block: its word, the lengths from `t` on masked off.
        Some(block) => {
            let w = u64::from_le_bytes(block.try_into().expect("a block is 8 bytes"));
            word_sum(w & ((1u64 << (8 * (t - first))) - 1))
        }
        None => byte_sum(&counts[first..t]),
    };
    let start = bases[t >> COUNT_BITS] as usize + before;
    start..start + counts[t] as usize
}

/// The list of target `t` among a range's sources, from nibbled offsets: the lengths before
/// it in its block's word masked off and added up in one step.
#[inline]
pub fn nibbled_span(bases: &[u32], nibbles: &[u8], t: usize) -> std::ops::Range<usize> {
    let (block, j) = (t >> NIB_BITS, 4 * (t & (NIB_BLOCK - 1)));
    let w = u64::from_le_bytes(nibbles[8 * block..8 * block + 8].try_into().expect("8"));
    const LOW: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    let below = w & ((1u64 << j) - 1);
    // Pairs of nibbles into bytes (at most 30 each), then the bytes into the top one (at most
    // 240 in all).
    let pairs = (below & LOW) + ((below >> 4) & LOW);
    let before = (pairs.wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize;
    let start = bases[block] as usize + before;
    start..start + ((w >> j) & 0xF) as usize
}

/// The sum of fewer than eight bytes, in one step (every attractor lookup adds up the lengths
/// before its target in its block): pairs of bytes added into 16-bit lanes (at most 510
/// each), then the lanes added into the top lane by one multiplication.
#[inline]
fn byte_sum(bytes: &[u8]) -> usize {
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    word_sum(u64::from_le_bytes(word))
}

/// The sum of a word's eight bytes.
#[inline]
fn word_sum(w: u64) -> usize {
    const LOW: u64 = 0x00FF_00FF_00FF_00FF;
    let pairs = (w & LOW) + ((w >> 8) & LOW);
    (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize
}

impl Offsets<'_> {
    /// The offset of target `t` (`t` up to the range's length, whose offset is the end).
    #[inline]
    pub fn at(&self, t: usize) -> usize {
        match *self {
            Offsets::Plain(o) => o[t] as usize,
            Offsets::Blocked { bases, rel } => match rel.get(t) {
                Some(&r) => bases[t >> BLOCK_BITS] as usize + r as usize,
                None => bases[bases.len() - 1] as usize,
            },
            Offsets::Counted { bases, counts } => match counts.get(t) {
                Some(_) => counted_span(bases, counts, t).start,
                None => bases[bases.len() - 1] as usize,
            },
            Offsets::Nibbled { bases, nibbles } => {
                if t >> NIB_BITS < bases.len() - 1 && 8 * (t >> NIB_BITS) < nibbles.len() {
                    nibbled_span(bases, nibbles, t).start
                } else {
                    bases[bases.len() - 1] as usize
                }
            }
        }
    }
}

/// The alignment the sources of `size` bytes each are padded to: their size where it is a
/// power of two (`u32`), else none (five-byte sources are read a byte array at a time).
fn alignment(size: usize) -> usize {
    if size.is_power_of_two() {
        size
    } else {
        1
    }
}

/// The bytes of a file before its sources (kind, count, offsets, padding to the alignment of
/// a source of `size` bytes), from the `len + 1` plain offsets of a range.
pub fn head(offsets: &[u32], size: usize) -> Vec<u8> {
    let align = alignment(size);
    let len = offsets.len() - 1;
    let longest = offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    if longest <= 0xF {
        return nibbled_head(offsets, align);
    }
    if longest <= u8::MAX as u32 {
        return counted_head(offsets, align);
    }
    let mut out = Vec::with_capacity(8 + 2 * len + 4 * (len / BLOCK + 2) + 8);
    let mut bases: Vec<u32> = offsets.iter().step_by(BLOCK).copied().collect();
    if !len.is_multiple_of(BLOCK) {
        bases.push(offsets[len]);
    }
    let fits = (0..len).all(|t| offsets[t] - bases[t >> BLOCK_BITS] <= u16::MAX as u32);
    out.extend_from_slice(&(if fits { BLOCKED } else { PLAIN }).to_le_bytes());
    out.extend_from_slice(&(len as u32).to_le_bytes());
    if fits {
        out.extend_from_slice(u32_bytes(&bases));
        let rel: Vec<u16> = (0..len)
            .map(|t| (offsets[t] - bases[t >> BLOCK_BITS]) as u16)
            .collect();
        out.extend_from_slice(u16_bytes(&rel));
    } else {
        out.extend_from_slice(u32_bytes(offsets));
    }
    out.resize(out.len().next_multiple_of(align), 0);
    out
}

/// [`head`] with counted offsets: every list is at most 255 long.
fn counted_head(offsets: &[u32], align: usize) -> Vec<u8> {
    let len = offsets.len() - 1;
    let mut out = Vec::with_capacity(8 + len + 4 * (len / COUNT_BLOCK + 2) + 8);
    let mut bases: Vec<u32> = offsets.iter().step_by(COUNT_BLOCK).copied().collect();
    if !len.is_multiple_of(COUNT_BLOCK) {
        bases.push(offsets[len]);
    }
    out.extend_from_slice(&COUNTED.to_le_bytes());
    out.extend_from_slice(&(len as u32).to_le_bytes());
    out.extend_from_slice(u32_bytes(&bases));
    out.extend(offsets.windows(2).map(|w| (w[1] - w[0]) as u8));
    out.resize(out.len().next_multiple_of(align), 0);
    out
}

/// [`head`] with nibbled offsets: every list is at most 15 long. Written into place a block
/// at a time (a whole block's sixteen lengths in one unrolled step): pushed a length at a
/// time, making it took 40% of the predecessor writer's time on `n = 4`'s 18-seed tier, and
/// the next range's handoff waited for the writer.
fn nibbled_head(offsets: &[u32], align: usize) -> Vec<u8> {
    let len = offsets.len() - 1;
    let blocks = len.div_ceil(NIB_BLOCK);
    let words_at = 8 + 4 * (blocks + 1);
    let used = words_at + 8 * blocks;
    let mut out = vec![0u8; used.next_multiple_of(align)];
    out[..4].copy_from_slice(&NIBBLED.to_le_bytes());
    out[4..8].copy_from_slice(&(len as u32).to_le_bytes());
    let (bases, words) = out[8..used].split_at_mut(4 * (blocks + 1));
    // Each block's first offset, then the end (`blocks * NIB_BLOCK` is at least `len`).
    for (b, base) in bases.chunks_exact_mut(4).enumerate() {
        base.copy_from_slice(&offsets[(b * NIB_BLOCK).min(len)].to_le_bytes());
    }
    for (b, word) in words.chunks_exact_mut(8).enumerate() {
        let lo = b * NIB_BLOCK;
        let block = &offsets[lo..(lo + NIB_BLOCK).min(len) + 1];
        let mut w = 0u64;
        if let Ok(full) = <&[u32; NIB_BLOCK + 1]>::try_from(block) {
            for j in 0..NIB_BLOCK {
                w |= ((full[j + 1] - full[j]) as u64) << (4 * j);
            }
        } else {
            for (j, pair) in block.windows(2).enumerate() {
                w |= ((pair[1] - pair[0]) as u64) << (4 * j);
            }
        }
        word.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// Splits a mapped predecessor file of a range of `len` positions into its offsets and the
/// bytes of its sources (of `size` bytes each, aligned as [`head`] pads them; checked against
/// the offsets).
pub fn parse<'a>(
    path: &Path,
    bytes: &'a [u8],
    len: usize,
    size: usize,
) -> Result<(Offsets<'a>, &'a [u8])> {
    let short = || Error::corrupt(path, "predecessor file shorter than its offsets");
    let word = |at: usize| -> Result<u32> {
        let b = bytes.get(at..at + 4).ok_or_else(short)?;
        Ok(u32::from_le_bytes(b.try_into().expect("4")))
    };
    let (kind, count) = (word(0)?, word(4)? as usize);
    if count != len {
        return Err(Error::corrupt(
            path,
            format!("predecessor file of {count} positions, expected {len}"),
        ));
    }
    let (offsets, end, used) = match kind {
        PLAIN => {
            let used = 8 + 4 * (len + 1);
            let o = as_u32(path, bytes.get(8..used).ok_or_else(short)?)?;
            (Offsets::Plain(o), o[len], used)
        }
        BLOCKED => {
            let blocks = len.div_ceil(BLOCK) + 1;
            let at = 8 + 4 * blocks;
            let used = at + 2 * len;
            let bases = as_u32(path, bytes.get(8..at).ok_or_else(short)?)?;
            let rel = as_u16(path, bytes.get(at..used).ok_or_else(short)?)?;
            (Offsets::Blocked { bases, rel }, bases[blocks - 1], used)
        }
        COUNTED => {
            let blocks = len.div_ceil(COUNT_BLOCK) + 1;
            let at = 8 + 4 * blocks;
            let used = at + len;
            let bases = as_u32(path, bytes.get(8..at).ok_or_else(short)?)?;
            let counts = bytes.get(at..used).ok_or_else(short)?;
            (Offsets::Counted { bases, counts }, bases[blocks - 1], used)
        }
        NIBBLED => {
            let blocks = len.div_ceil(NIB_BLOCK) + 1;
            let at = 8 + 4 * blocks;
            let used = at + 8 * (blocks - 1);
            let bases = as_u32(path, bytes.get(8..at).ok_or_else(short)?)?;
            let nibbles = bytes.get(at..used).ok_or_else(short)?;
            (Offsets::Nibbled { bases, nibbles }, bases[blocks - 1], used)
        }
        _ => return Err(Error::corrupt(path, "unknown predecessor file kind")),
    };
    let head = used.next_multiple_of(alignment(size));
    let sources = bytes.get(head..).ok_or_else(short)?;
    if end as usize * size != sources.len() {
        return Err(Error::corrupt(
            path,
            "predecessor offsets do not match the lists",
        ));
    }
    Ok((offsets, sources))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Re-aligns file bytes through a `u64` buffer, as a page-aligned map would be.
    fn aligned(bytes: &[u8]) -> Vec<u64> {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        for (i, b) in bytes.iter().enumerate() {
            words[i / 8] |= (*b as u64) << (8 * (i % 8));
        }
        words
    }

    fn file_of(offsets: &[u32], sources: &[u32]) -> Vec<u64> {
        let mut bytes = head(offsets, 4);
        bytes.extend_from_slice(u32_bytes(sources));
        let n = bytes.len();
        let mut w = aligned(&bytes);
        w.push(n as u64);
        w
    }

    /// The kind of offsets a file takes.
    #[derive(Debug, PartialEq)]
    enum Kind {
        Plain,
        Blocked,
        Counted,
        Nibbled,
    }

    fn check(offsets: &[u32], kind: Kind) {
        let len = offsets.len() - 1;
        let sources: Vec<u32> = (0..offsets[len]).collect();
        let w = file_of(offsets, &sources);
        let n = *w.last().unwrap() as usize;
        let bytes = &bawo_store::bytes::u64_bytes(&w)[..n];
        let p = Path::new("preds-0.bin");
        let (o, src) = parse(p, bytes, len, 4).unwrap();
        let got = match o {
            Offsets::Plain(_) => Kind::Plain,
            Offsets::Blocked { .. } => Kind::Blocked,
            Offsets::Counted { .. } => Kind::Counted,
            Offsets::Nibbled { .. } => Kind::Nibbled,
        };
        assert_eq!(got, kind);
        assert_eq!(src.len(), 4 * sources.len());
        for (t, &want) in offsets.iter().enumerate() {
            assert_eq!(o.at(t), want as usize, "target {t}");
        }
        for t in 0..len {
            let want = offsets[t] as usize..offsets[t + 1] as usize;
            match o {
                Offsets::Blocked { bases, rel } => {
                    assert_eq!(blocked_span(bases, rel, t), want, "span of {t}")
                }
                Offsets::Counted { bases, counts } => {
                    assert_eq!(counted_span(bases, counts, t), want, "span of {t}")
                }
                Offsets::Nibbled { bases, nibbles } => {
                    assert_eq!(nibbled_span(bases, nibbles, t), want, "span of {t}")
                }
                Offsets::Plain(_) => {}
            }
        }
        assert!(parse(p, bytes, len + 1, 4).is_err());
        assert!(parse(p, &bytes[..n - 4], len, 4).is_err() || offsets[len] == 0);
    }

    /// The nibbled head made a length at a time, as the format above reads.
    fn nibbled_one_at_a_time(offsets: &[u32], align: usize) -> Vec<u8> {
        let len = offsets.len() - 1;
        let blocks = len.div_ceil(NIB_BLOCK);
        let mut out = Vec::new();
        out.extend_from_slice(&NIBBLED.to_le_bytes());
        out.extend_from_slice(&(len as u32).to_le_bytes());
        for b in 0..blocks {
            out.extend_from_slice(&offsets[b * NIB_BLOCK].to_le_bytes());
        }
        out.extend_from_slice(&offsets[len].to_le_bytes());
        for b in 0..blocks {
            let mut w = 0u64;
            for t in b * NIB_BLOCK..((b + 1) * NIB_BLOCK).min(len) {
                w |= ((offsets[t + 1] - offsets[t]) as u64) << (4 * (t - b * NIB_BLOCK));
            }
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.resize(out.len().next_multiple_of(align), 0);
        out
    }

    proptest::proptest! {
        #[test]
        fn nibbled_heads_are_the_bytes_made_a_length_at_a_time(
            lens in proptest::collection::vec(0u32..16, 0..300),
            align in proptest::sample::select(vec![1usize, 4]),
        ) {
            let mut offsets = vec![0u32];
            for l in &lens {
                offsets.push(offsets.last().unwrap() + l);
            }
            proptest::prop_assert_eq!(
                nibbled_head(&offsets, align),
                nibbled_one_at_a_time(&offsets, align)
            );
        }
    }

    #[test]
    fn bytes_are_summed_in_one_step_as_one_at_a_time() {
        let bytes: Vec<u8> = (0..64u32).map(|i| (i * 97 + 255 * (i % 2)) as u8).collect();
        for n in 0..COUNT_BLOCK {
            for from in [0, 5, 32] {
                let piece = &bytes[from..from + n];
                let want: usize = piece.iter().map(|&b| b as usize).sum();
                assert_eq!(byte_sum(piece), want, "{n} bytes from {from}");
            }
        }
        assert_eq!(byte_sum(&[255; 7]), 7 * 255);
    }

    #[test]
    fn offsets_round_trip_counted_in_blocks_and_plain_as_lists_grow() {
        let running = |lens: &[u32]| {
            let mut o = vec![0u32];
            for l in lens {
                o.push(o.last().unwrap() + l);
            }
            o
        };
        // Lengths around both blocks' edges, lists of every size a byte holds.
        for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200, 1000] {
            // Lists of at most 15: nibbled, every length a nibble holds, all-15 blocks too.
            let short: Vec<u32> = (0..len as u32).map(|t| (t * 11 + t / 7) % 16).collect();
            check(&running(&short), Kind::Nibbled);
            check(&running(&vec![15; len]), Kind::Nibbled);
            if len == 0 {
                continue;
            }
            let mut lens: Vec<u32> = (0..len as u32).map(|t| (t * t * 7) % 256).collect();
            // One list of 16: no longer nibbled.
            lens[len - 1] = 16;
            check(&running(&lens), Kind::Counted);
            // One list longer than a byte: blocks of 16-bit offsets.
            let mut long = lens.clone();
            long[len / 2] = 256 + len as u32;
            check(&running(&long), Kind::Blocked);
        }
        // 70,000 predecessors in one block: plain offsets.
        let mut o: Vec<u32> = vec![0, 70_000];
        o.extend((0..100).map(|i| 70_001 + i));
        check(&o, Kind::Plain);
        // Fewer bytes than plain offsets: three quarters of a byte a position nibbled, a
        // byte and a half counted.
        let o: Vec<u32> = (0..=1000).collect();
        assert!(head(&o, 4).len() <= 8 + 1000 / 2 + 8 + 4 * (1000 / NIB_BLOCK + 2) + 4);
        let o: Vec<u32> = (0..=1000).map(|t| 16 * t).collect();
        assert!(head(&o, 4).len() <= 8 + 1000 + 4 * (1000 / COUNT_BLOCK + 2) + 4);
        let mut o: Vec<u32> = (0..=1000).map(|t| 16 * t).collect();
        o[1000] = 20000;
        assert!(head(&o, 4).len() < 2 * 4 * 1000 / 3);
    }
}
