//! A whole tier's exact entries held compactly in memory, for the lookups of `verify`.
//!
//! `verify` keeps the tiers it has checked for the lookups of the tiers above; as plain
//! 16-bit entries they took 2 bytes a stored position, so under a small `--mem` the largest
//! tiers did not fit and their lookups fell back to block probes, which thrash on a random
//! access pattern. Packed here, a tier takes about half a byte a position:
//!
//! | piece              | what it holds                                                   |
//! |--------------------|-----------------------------------------------------------------|
//! | [`CHUNK`] entries  | one chunk, coded on its own (independent code tables)           |
//! | symbols            | the chunk's most frequent entries, a code is an index into them |
//! | codes              | 4 bits (15 symbols) or 8 bits (255 symbols) a position          |
//! | escapes            | the offsets (ascending) and entries of the rest                 |
//!
//! [`KeptTiers`] holds a reader's packed tiers within its budget. Each chunk takes the cheaper
//! of the two widths. A lookup is one code read and, for an
//! escaped entry, a binary search among the chunk's escapes. Chunks are separate
//! allocations of exactly their size, so a growing tier never reallocates (and never holds
//! its bytes twice) and [`PackedTier::heap_bytes`] is what it holds.

use std::collections::HashMap;

use bawo_games::game::Tier;

/// Entries coded together, with their own code table.
pub const CHUNK_BITS: u32 = 16;
/// Positions per chunk.
pub const CHUNK: usize = 1 << CHUNK_BITS;

/// Bytes of bookkeeping a chunk costs beside its arrays (the struct and the allocator's
/// headers), counted in [`PackedTier::heap_bytes`].
const CHUNK_OVERHEAD: u64 = 128;

struct Chunk {
    /// 4 or 8.
    width: u8,
    codes: Box<[u8]>,
    symbols: Box<[u16]>,
    escape_at: Box<[u16]>,
    escaped: Box<[u16]>,
}

impl Chunk {
    /// Codes `entries` (at most [`CHUNK`]) with the cheaper width.
    fn pack(entries: &[u16]) -> Chunk {
        debug_assert!(entries.len() <= CHUNK);
        let mut counts: HashMap<u16, u32> = HashMap::new();
        for &e in entries {
            *counts.entry(e).or_insert(0) += 1;
        }
        let mut by_count: Vec<(u16, u32)> = counts.into_iter().collect();
        // Most frequent first, ties by entry so the packing is deterministic.
        by_count.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let escapes_beyond = |k: usize| -> u64 {
            by_count
                .iter()
                .skip(k)
                .map(|&(_, c)| u64::from(c))
                .sum::<u64>()
        };
        let n = entries.len() as u64;
        let cost4 = n.div_ceil(2) + 4 * escapes_beyond(15);
        let cost8 = n + 4 * escapes_beyond(255);
        let (width, direct) = if cost4 <= cost8 {
            (4u8, 15)
        } else {
            (8u8, 255)
        };
        let symbols: Box<[u16]> = by_count.iter().take(direct).map(|&(e, _)| e).collect();
        let mut code_of: HashMap<u16, u8> = HashMap::with_capacity(symbols.len());
        for (c, &e) in symbols.iter().enumerate() {
            code_of.insert(e, c as u8);
        }
        let escape = symbols.len() as u8;
        let mut codes = vec![
            0u8;
            if width == 4 {
                entries.len().div_ceil(2)
            } else {
                entries.len()
            }
        ];
        let mut escape_at = Vec::new();
        let mut escaped = Vec::new();
        for (j, &e) in entries.iter().enumerate() {
            let c = match code_of.get(&e) {
                Some(&c) => c,
                None => {
                    escape_at.push(j as u16);
                    escaped.push(e);
                    escape
                }
            };
            if width == 4 {
                codes[j / 2] |= c << ((j & 1) * 4);
            } else {
                codes[j] = c;
            }
        }
        Chunk {
            width,
            codes: codes.into_boxed_slice(),
            symbols,
            escape_at: escape_at.into_boxed_slice(),
            escaped: escaped.into_boxed_slice(),
        }
    }

    fn heap_bytes(&self) -> u64 {
        (self.codes.len() + 2 * (self.symbols.len() + self.escape_at.len() + self.escaped.len()))
            as u64
            + CHUNK_OVERHEAD
    }

    #[inline]
    fn get(&self, j: usize) -> u16 {
        let c = if self.width == 4 {
            (self.codes[j / 2] >> ((j & 1) * 4)) & 15
        } else {
            self.codes[j]
        } as usize;
        if let Some(&e) = self.symbols.get(c) {
            return e;
        }
        let k = self
            .escape_at
            .binary_search(&(j as u16))
            .expect("every escape code has its escaped entry");
        self.escaped[k]
    }
}

/// A tier's entries, appended in index order and then looked up by index.
pub struct PackedTier {
    chunks: Vec<Chunk>,
    /// Appended entries not yet making up a whole chunk.
    pending: Vec<u16>,
    len: u64,
    bytes: u64,
}

impl PackedTier {
    /// An empty tier that will hold `len` entries (the chunk list is sized once).
    pub fn with_len(len: u64) -> PackedTier {
        PackedTier {
            chunks: Vec::with_capacity(len.div_ceil(CHUNK as u64) as usize),
            pending: Vec::new(),
            len: 0,
            bytes: 0,
        }
    }

    /// Appends the entries that follow those appended so far.
    pub fn extend(&mut self, mut entries: &[u16]) {
        while !entries.is_empty() {
            if self.pending.is_empty() && entries.len() >= CHUNK {
                self.push_chunk(Chunk::pack(&entries[..CHUNK]), CHUNK);
                entries = &entries[CHUNK..];
                continue;
            }
            if self.pending.capacity() == 0 {
                self.pending.reserve_exact(CHUNK);
            }
            let take = (CHUNK - self.pending.len()).min(entries.len());
            self.pending.extend_from_slice(&entries[..take]);
            entries = &entries[take..];
            if self.pending.len() == CHUNK {
                self.flush();
            }
        }
    }

    /// Packs the last, partial chunk; call once every entry is appended.
    pub fn finish(&mut self) {
        if !self.pending.is_empty() {
            self.flush();
        }
        self.pending = Vec::new();
    }

    fn flush(&mut self) {
        let c = Chunk::pack(&self.pending);
        let n = self.pending.len();
        self.pending.clear();
        self.push_chunk(c, n);
    }

    /// Adds a chunk of `n` entries (only the last chunk holds fewer than [`CHUNK`]).
    fn push_chunk(&mut self, c: Chunk, n: usize) {
        debug_assert!(
            self.len.is_multiple_of(CHUNK as u64),
            "a partial chunk was not the last"
        );
        self.bytes += c.heap_bytes();
        self.chunks.push(c);
        self.len += n as u64;
    }

    /// Entries packed so far (after [`PackedTier::finish`], all of them).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the tier holds no positions.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held: the packed chunks, the chunk list and the pending chunk's buffer.
    pub fn heap_bytes(&self) -> u64 {
        self.bytes
            + (self.chunks.capacity() * std::mem::size_of::<Chunk>()) as u64
            + 2 * self.pending.capacity() as u64
    }

    /// The entry of position `i` (which must be below [`PackedTier::len`]).
    #[inline]
    pub fn get(&self, i: u64) -> u16 {
        self.chunks[(i >> CHUNK_BITS) as usize].get(i as usize & (CHUNK - 1))
    }
}

/// The packed tiers a reader keeps for lookups (`verify`'s checked tiers) within `room`
/// bytes, the oldest first to go when room runs short: lookups mostly stay in their own tier
/// or the few below it.
pub struct KeptTiers {
    tiers: Vec<(Tier, PackedTier)>,
    /// Bytes of the kept tiers and of any reserved (a tier being packed).
    bytes: u64,
    room: u64,
}

impl KeptTiers {
    /// An empty set that keeps at most `room` bytes.
    pub fn new(room: u64) -> KeptTiers {
        KeptTiers {
            tiers: Vec::new(),
            bytes: 0,
            room,
        }
    }

    /// Counts `more` bytes, dropping the oldest kept tiers to make room for them; false, with
    /// nothing counted, when even dropping all of them leaves too little.
    pub fn reserve(&mut self, more: u64) -> bool {
        while self.bytes + more > self.room {
            if self.tiers.is_empty() {
                return false;
            }
            let (_, old) = self.tiers.remove(0);
            self.bytes -= old.heap_bytes();
        }
        self.bytes += more;
        true
    }

    /// Gives back reserved bytes (a tier abandoned while packed).
    pub fn unreserve(&mut self, bytes: u64) {
        self.bytes -= bytes;
    }

    /// Keeps `packed`, whose bytes were reserved while it was packed.
    pub fn keep(&mut self, tier: Tier, packed: PackedTier) {
        self.tiers.push((tier, packed));
    }

    /// The kept tier `tier`, if kept.
    pub fn get(&self, tier: Tier) -> Option<&PackedTier> {
        self.tiers.iter().find(|t| t.0 == tier).map(|t| &t.1)
    }

    /// The entry of a position of a kept tier.
    pub fn kept(&self, tier: Tier, index: u64) -> Option<u16> {
        self.get(tier).map(|p| p.get(index))
    }

    /// Positions to gather at once when each costs `per_position` bytes: as many as the room
    /// left allows, between 2^16 and 2^20 (more decodes each block for more lookups). The
    /// least, 16 MiB at 256 bytes a position, lies within the fixed overhead a reader's budget
    /// counts ([`super::memory::READ_OVERHEAD`], 64 MiB, where a reader's binary, threads and
    /// allocator take under 10).
    pub fn gather_len(&self, per_position: u64) -> u64 {
        (self.room.saturating_sub(self.bytes) / per_position).clamp(1 << 16, 1 << 20)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn packed(entries: &[u16], pieces: &[usize]) -> PackedTier {
        let mut p = PackedTier::with_len(entries.len() as u64);
        let mut rest = entries;
        let mut k = 0;
        while !rest.is_empty() {
            let n = pieces[k % pieces.len()].clamp(1, rest.len());
            p.extend(&rest[..n]);
            rest = &rest[n..];
            k += 1;
        }
        p.finish();
        p
    }

    proptest! {
        #[test]
        fn every_entry_reads_back(
            entries in prop::collection::vec(prop_oneof![0u16..12, 0u16..400, any::<u16>()], 0..3 * CHUNK),
            pieces in prop::collection::vec(1usize..2 * CHUNK, 1..4),
        ) {
            let p = packed(&entries, &pieces);
            prop_assert_eq!(p.len(), entries.len() as u64);
            for (i, &e) in entries.iter().enumerate() {
                prop_assert_eq!(p.get(i as u64), e);
            }
        }
    }

    #[test]
    fn few_distinct_entries_take_half_a_byte_and_many_take_a_byte() {
        // 12 distinct values: nibbles, no escapes.
        let few: Vec<u16> = (0..4 * CHUNK as u32).map(|i| (i * 7 % 12) as u16).collect();
        let p = packed(&few, &[CHUNK]);
        assert!(
            p.heap_bytes() < few.len() as u64 / 2 + 4096,
            "{}",
            p.heap_bytes()
        );
        assert!(p
            .chunks
            .iter()
            .all(|c| c.width == 4 && c.escaped.is_empty()));
        // 200 values spread evenly: bytes, no escapes.
        let many: Vec<u16> = (0..2 * CHUNK as u32).map(|i| (i % 200) as u16).collect();
        let p = packed(&many, &[1000]);
        assert!(p
            .chunks
            .iter()
            .all(|c| c.width == 8 && c.escaped.is_empty()));
        for (i, &e) in many.iter().enumerate() {
            assert_eq!(p.get(i as u64), e);
        }
        // Mostly few values with a rare tail: nibbles with escapes.
        let tail: Vec<u16> = (0..CHUNK as u32)
            .map(|i| {
                if i % 97 == 0 {
                    1000 + (i % 50) as u16
                } else {
                    (i % 5) as u16
                }
            })
            .collect();
        let p = packed(&tail, &[333]);
        assert!(p.chunks[0].width == 4 && !p.chunks[0].escaped.is_empty());
        for (i, &e) in tail.iter().enumerate() {
            assert_eq!(p.get(i as u64), e);
        }
    }
}
