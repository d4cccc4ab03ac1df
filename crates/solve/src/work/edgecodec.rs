//! How a tier splits its indices into ranges and packs an in-tier edge into 64 bits: the
//! successor pass's edge logs and the predecessor lists built from them ([`crate::work::graph`])
//! both go through an [`EdgeCodec`].

/// Tiers of at most this many positions index every position in 32 bits ("narrow").
pub const NARROW_LIMIT: u64 = 1 << 32;

/// An edge in a bucket: the target's offset inside its range (high bits) and the source.
pub type PackedEdge = u64;

/// How one tier splits its indices into ranges and packs an edge into a [`PackedEdge`]: the
/// source in the low `shift` bits, the target's offset inside its range above them.
///
/// Narrow tiers use `shift = 32`. A wide tier gives the source every bit its range's offsets
/// leave free (`64 - range_bits`), so an edge stays 8 bytes; a tier needs
/// `range_bits + index bits <= 64` ([`max_wide_range_bits`]), which the memory plan keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgeCodec {
    shift: u32,
    range_bits: u32,
    /// Bytes of a key where sources are stored as keys ([`EdgeCodec::with_keys`]), else 0.
    keys: u8,
}

/// Bits needed to write every index of a tier of `states` positions.
pub fn index_bits(states: u64) -> u32 {
    64 - states.saturating_sub(1).leading_zeros()
}

/// The largest range (as a power of two) whose offsets fit beside a wide tier's sources.
pub fn max_wide_range_bits(states: u64) -> u32 {
    64 - index_bits(states)
}

/// Bytes per source in the predecessor lists of a tier, wide or not: `u32`, or five bytes
/// ([`crate::work::graph::U40`]).
pub fn source_bytes(wide: bool) -> u64 {
    if wide {
        5
    } else {
        4
    }
}

/// Bytes per source in a tier's predecessor lists: a key's where sources are keys
/// (`keys > 0`), else an index's ([`source_bytes`]).
pub fn list_source_bytes(wide: bool, keys: u8) -> u64 {
    if keys > 0 {
        keys as u64
    } else {
        source_bytes(wide)
    }
}

/// Bytes of the keys of a tier whose keys are below `limit`: three where they fit, else
/// four; 0 (no keys) beyond 2^32.
pub fn key_bytes(limit: u64) -> u8 {
    match limit {
        0..=0x100_0000 => 3,
        0x100_0001..=0x1_0000_0000 => 4,
        _ => 0,
    }
}

/// Bytes of the keys of a tier whose keys are places in lists of moved halves of at most
/// `widest` entries ([`bawo_games::game::moved::MovedHalves`]): one where they fit, else two;
/// 0 (keys by rank instead) beyond 2^16.
pub fn moved_key_bytes(widest: u64) -> u8 {
    match widest {
        0..=0x100 => 1,
        0x101..=0x1_0000 => 2,
        _ => 0,
    }
}

impl EdgeCodec {
    /// The codec of a tier cut into ranges of `2^range_bits` positions (at most 2^32), with
    /// wide (40-bit) sources when `wide`.
    pub fn new(wide: bool, range_bits: u32) -> EdgeCodec {
        let range_bits = range_bits.min(32);
        let shift = if wide { 64 - range_bits.max(1) } else { 32 };
        EdgeCodec {
            shift,
            range_bits,
            keys: 0,
        }
    }

    /// The codec with sources stored as keys of `bytes` bytes (0: as indices): keys under
    /// 2^32 that name a source together with its target
    /// ([`bawo_games::game::kept::KeptHalf`]), in the source's bits of an edge.
    pub fn with_keys(self, bytes: u8) -> EdgeCodec {
        EdgeCodec {
            keys: bytes,
            ..self
        }
    }

    /// Bytes of a key, or 0 where sources are indices.
    pub fn keys(self) -> u8 {
        self.keys
    }

    /// 32-bit sources: tiers of at most [`NARROW_LIMIT`] positions.
    pub fn narrow(range_bits: u32) -> EdgeCodec {
        EdgeCodec::new(false, range_bits)
    }

    /// Whether sources are stored in 40 bits (the tier has more than 2^32 positions).
    pub fn is_wide(self) -> bool {
        self.shift != 32
    }

    /// Positions per range, as a power of two.
    pub fn range_bits(self) -> u32 {
        self.range_bits
    }

    /// The range of a tier-wide index, and its offset inside the range.
    #[inline]
    pub fn split(self, index: u64) -> (usize, u64) {
        let mask = (1u64 << self.range_bits) - 1;
        ((index >> self.range_bits) as usize, index & mask)
    }

    /// Whether every index and edge of a tier of `states` positions fits (a wide tier's
    /// sources are five bytes: at most 2^40 positions).
    pub fn fits(self, states: u64) -> bool {
        if self.is_wide() {
            index_bits(states) <= self.shift.min(40)
        } else {
            states <= NARROW_LIMIT
        }
    }

    /// Packs an edge from `source` to the range-local `target_local`.
    #[inline]
    pub fn pack(self, target_local: u64, source: u64) -> PackedEdge {
        debug_assert!(source >> self.shift == 0 && target_local >> (64 - self.shift) == 0);
        (target_local << self.shift) | source
    }

    /// Whether `source` fits an edge's source bits (a log read back is checked with it).
    #[inline]
    pub fn holds_source(self, source: u64) -> bool {
        source >> self.shift == 0
    }

    /// The target's offset inside its range.
    #[inline]
    pub fn target(self, e: PackedEdge) -> usize {
        (e >> self.shift) as usize
    }

    /// The source of `e`.
    #[inline]
    pub fn source(self, e: PackedEdge) -> u64 {
        e & ((1u64 << self.shift) - 1)
    }

    /// Bytes per source in predecessor lists.
    pub fn source_bytes(self) -> u64 {
        list_source_bytes(self.is_wide(), self.keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: EdgeCodec = EdgeCodec {
        shift: 32,
        range_bits: 30,
        keys: 0,
    };

    #[test]
    fn index_bits_and_codec_limits_at_2_32_and_2_40() {
        assert_eq!(index_bits(0), 0);
        assert_eq!(index_bits(1), 0);
        assert_eq!(index_bits(2), 1);
        assert_eq!(index_bits(1 << 32), 32);
        assert_eq!(index_bits((1 << 32) + 1), 33);
        assert_eq!(index_bits(1 << 40), 40);
        assert_eq!(index_bits((1 << 40) + 1), 41);
        assert_eq!(max_wide_range_bits(1 << 34), 30);
        assert_eq!(max_wide_range_bits((1 << 34) + 1), 29);
        assert_eq!(max_wide_range_bits(1 << 40), 24);
        // Narrow holds exactly the tiers whose indices fit 32 bits.
        assert!(N.fits(1 << 32));
        assert!(!N.fits((1 << 32) + 1));
        assert!(!N.is_wide() && N.source_bytes() == 4);
        assert_eq!(EdgeCodec::narrow(30), N);
        let w = EdgeCodec::new(true, 30);
        assert!(w.is_wide() && w.source_bytes() == 5);
        assert!(w.fits((1 << 32) + 1));
        assert!(w.fits(1 << 34));
        assert!(!w.fits((1 << 34) + 1));
        assert!(EdgeCodec::new(true, 24).fits(1 << 40));
        assert!(!EdgeCodec::new(true, 24).fits((1 << 40) + 1));
        // Ranges of one position (range_bits 0) still leave the source its bits, up to the
        // five bytes predecessor lists store.
        assert!(EdgeCodec::new(true, 0).fits(1 << 40));
        assert!(!EdgeCodec::new(true, 0).fits((1 << 40) + 1));
    }

    #[test]
    fn indices_split_into_ranges_near_2_32_and_2_40() {
        let c = EdgeCodec::new(true, 30);
        assert_eq!(c.split((1 << 32) - 1), (3, (1 << 30) - 1));
        assert_eq!(c.split(1 << 32), (4, 0));
        assert_eq!(c.split((1 << 32) + 1), (4, 1));
        assert_eq!(c.split((1 << 40) - 1), (1023, (1 << 30) - 1));
        assert_eq!(c.split(1 << 40), (1024, 0));
        let c = EdgeCodec::new(true, 24);
        assert_eq!(c.split((1 << 40) + 7), (1 << 16, 7));
        // One range of 2^32 positions (the in-memory graphs): the offset is the index.
        let one = EdgeCodec::narrow(32);
        assert_eq!(one.split((1 << 32) - 1), (0, (1 << 32) - 1));
        assert_eq!(EdgeCodec::narrow(0).split(5), (5, 0));
    }

    #[test]
    fn wide_edges_round_trip_near_2_32_and_2_40() {
        for (bits, states) in [(30u32, (1u64 << 33) + 5), (24, 1u64 << 40)] {
            let c = EdgeCodec::new(true, bits);
            assert!(c.fits(states));
            let last_local = (1u64 << bits) - 1;
            for source in [
                0,
                (1 << 32) - 1,
                1 << 32,
                (1 << 32) + 1,
                states / 2,
                states - 1,
            ] {
                for local in [0, 1, last_local - 1, last_local] {
                    let e = c.pack(local, source);
                    assert_eq!((c.target(e) as u64, c.source(e)), (local, source));
                }
            }
        }
        // The narrow packing is the one earlier versions wrote: target above bit 32.
        assert_eq!(N.pack(5, u32::MAX as u64), (5 << 32) | u32::MAX as u64);
    }
}
