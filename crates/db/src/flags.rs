//! Per-position flags of a finished tier, from its successor pass: the solver's hand-off to
//! the database writer for don't-care entries (`db::dontcare`).
//!
//! - **anchored**: the position has no move, or a move that stays in its tier. Such a position
//!   is never don't-care, so a position above may rely on its stored entry.
//! - **don't-care**: no legal move, or every move leaves the tier and every successor is
//!   anchored (or an immediate loss). Its entry follows from its moves one ply down.
//!
//! The pass sets both in the working cell ([`cell::ANCHORED`], [`cell::DONT_CARE`]), so they are
//! spilled, checkpointed and resumed with the cells at no cost; the tier's finish writes them to
//! `tier-KKKK.flags` in the run directory: per 8 positions one byte of anchored bits, then one
//! of don't-care bits (least significant bit first), then the position count and an xxh3 of
//! everything before (16 bytes). The anchored bits of finished tiers are what the pass of the
//! tiers above reads (1 bit a position, in memory); the don't-care bits are what the database
//! writer substitutes. The files are work files: a finished run deletes them. A tier whose
//! lower tiers' files are gone (a lean run extended with `--resume --seeds S+k`) is written
//! with the anchored bits recomputed from the lower tiers' moves ([`AnchoredBits::compute`],
//! one ply), so it gets the don't-care positions a direct solve gives it; a lower tier without
//! bits at all would only make fewer positions don't-care, never wrong ones.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use bitvec::prelude::{BitSlice, BitVec, Lsb0};
use rayon::prelude::*;
use xxhash_rust::xxh3::Xxh3;

use super::cell;
use bawo_games::error::{Error, Result};
use bawo_games::game::{Game, Successor, Tier};
use bawo_store::bytes::map_ro;

/// Bytes after the flag bytes: the position count and the checksum.
const TRAILER: usize = 16;

/// File name of a tier's flags in the run directory.
pub fn flags_file(tier: Tier) -> String {
    format!("tier-{tier:04}.flags")
}

/// The flags file beside a tier's raw table `tier-KKKK.tbl`.
pub fn flags_path_beside(table: &Path) -> PathBuf {
    table.with_extension("flags")
}

/// The two flag bytes of eight working cells: their anchored bits, then their don't-care
/// bits, the first cell's the least significant ([`FlagWriter::push_bytes`]).
pub fn flag_pair(eight: impl IntoIterator<Item = u32>) -> [u8; 2] {
    let mut pair = [0u8; 2];
    for (bit, c) in eight.into_iter().take(8).enumerate() {
        pair[0] |= u8::from(c & cell::ANCHORED != 0) << bit;
        pair[1] |= u8::from(c & cell::DONT_CARE != 0) << bit;
    }
    pair
}

/// Streams a tier's flags, taken from its final cells in index order, into its file (an
/// exclusively created temporary file, synced and renamed by [`FlagWriter::finish`]).
pub struct FlagWriter {
    path: PathBuf,
    tmp: tempfile::NamedTempFile,
    out: Vec<u8>,
    hasher: Xxh3,
    anchored: u8,
    dont_care: u8,
    positions: u64,
    /// Bytes written since the kernel was last asked to write the file back.
    unstarted: usize,
}

/// Bytes of flags written between two requests to the kernel to write them back: a tier's
/// flags (a quarter byte a position, half a gigabyte on the largest tiers) would otherwise
/// wait for the final sync, with the cores idle, as a raw table's did.
const WRITEBACK_EVERY: usize = 64 << 20;

impl FlagWriter {
    /// Creates the flag file at `path`.
    pub fn create(path: &Path) -> Result<FlagWriter> {
        Ok(FlagWriter {
            path: path.to_path_buf(),
            tmp: bawo_store::temp_file_for(path)?,
            out: Vec::with_capacity(1 << 16),
            hasher: Xxh3::new(),
            anchored: 0,
            dont_care: 0,
            positions: 0,
            unstarted: 0,
        })
    }

    /// Appends the flags of `positions` positions given as flag bytes made by [`flag_pair`]
    /// (a byte of anchored bits, then one of don't-care bits, per eight positions; the last
    /// pair may be partial).
    pub fn push_bytes(&mut self, bytes: &[u8], positions: u64) -> Result<()> {
        if (bytes.len() as u64) < positions.div_ceil(8) * 2 {
            return Err(Error::Internal(format!(
                "{} flag bytes given for {positions} positions",
                bytes.len()
            )));
        }
        let whole = (positions / 8) as usize;
        if self.positions.is_multiple_of(8) {
            // On a byte boundary the bytes are the file's: written as they are, not copied.
            self.flush()?;
            self.write_out(&bytes[..2 * whole])?;
            self.positions += 8 * whole as u64;
        } else {
            for pair in bytes[..2 * whole].chunks_exact(2) {
                (0..8).for_each(|bit| self.push_bits(pair, bit));
            }
        }
        for bit in 0..(positions % 8) as usize {
            self.push_bits(&bytes[2 * whole..2 * whole + 2], bit);
        }
        if self.out.len() >= 1 << 16 {
            self.flush()?;
        }
        Ok(())
    }

    /// Appends one position's flags: bit `bit` of a flag byte pair.
    fn push_bits(&mut self, pair: &[u8], bit: usize) {
        let at = (self.positions % 8) as u32;
        self.anchored |= ((pair[0] >> bit) & 1) << at;
        self.dont_care |= ((pair[1] >> bit) & 1) << at;
        self.positions += 1;
        if at == 7 {
            self.out.extend_from_slice(&[self.anchored, self.dont_care]);
            (self.anchored, self.dont_care) = (0, 0);
        }
    }

    /// Appends the flags of the next cells.
    pub fn push(&mut self, mut cells: &[u32]) -> Result<()> {
        if self.positions.is_multiple_of(8) && cells.len() >= 1 << 16 {
            // On a byte boundary: whole bytes in parallel (a tier's finish waits on this).
            let whole = cells.len() - cells.len() % 8;
            let at = self.out.len();
            self.out.resize(at + whole / 4, 0);
            self.out[at..]
                .par_chunks_mut(2)
                .zip(cells[..whole].par_chunks(8))
                .for_each(|(pair, eight)| {
                    pair.copy_from_slice(&flag_pair(eight.iter().copied()));
                });
            self.positions += whole as u64;
            cells = &cells[whole..];
        }
        for &c in cells {
            self.push_bits(&flag_pair([c]), 0);
        }
        if self.out.len() >= 1 << 16 {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let out = std::mem::take(&mut self.out);
        let written = self.write_out(&out);
        self.out = out;
        self.out.clear();
        written
    }

    /// Appends `bytes` to the file and the checksum; the kernel is asked to write the file
    /// back as it grows.
    fn write_out(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.hasher.update(bytes);
        let file = self.tmp.as_file_mut();
        file.write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))?;
        self.unstarted += bytes.len();
        if self.unstarted >= WRITEBACK_EVERY {
            bawo_store::syncs::start_writeback(file);
            self.unstarted = 0;
        }
        Ok(())
    }

    /// Writes the last partial byte and the trailer, syncs and renames the file into place.
    pub fn finish(mut self) -> Result<()> {
        if !self.positions.is_multiple_of(8) {
            self.out.extend_from_slice(&[self.anchored, self.dont_care]);
        }
        self.out.extend_from_slice(&self.positions.to_le_bytes());
        self.flush()?;
        let sum = self.hasher.digest();
        let io = |e| Error::io(&self.path, e);
        let mut f = BufWriter::new(self.tmp.as_file_mut());
        f.write_all(&sum.to_le_bytes()).map_err(io)?;
        f.flush().map_err(io)?;
        drop(f);
        self.tmp.as_file().sync_all().map_err(io)?;
        self.tmp
            .persist(&self.path)
            .map_err(|e| Error::io(&self.path, e.error))?;
        Ok(())
    }
}

/// A finished tier's flags file, mapped and checked.
pub struct TierFlags {
    map: memmap2::Mmap,
    states: u64,
}

impl TierFlags {
    /// Opens the flags of a tier of `states` positions: `None` when the file is missing,
    /// an error when it is damaged or of another size.
    pub fn open(path: &Path, states: u64) -> Result<Option<TierFlags>> {
        if std::fs::symlink_metadata(path).is_err() {
            return Ok(None);
        }
        let map = map_ro(path)?.ok_or_else(|| Error::corrupt(path, "empty flags file"))?;
        let body = 2 * states.div_ceil(8) as usize;
        if map.len() != body + TRAILER {
            return Err(Error::corrupt(path, "flags file of another length"));
        }
        let at = |o: usize| u64::from_le_bytes(map[o..o + 8].try_into().expect("8"));
        let mut h = Xxh3::new();
        h.update(&map[..body + 8]);
        if at(body) != states || h.digest() != at(body + 8) {
            return Err(Error::corrupt(path, "flags file checksum does not match"));
        }
        Ok(Some(TierFlags { map, states }))
    }

    /// Positions the flags cover.
    pub fn states(&self) -> u64 {
        self.states
    }

    /// Whether position `i` is don't-care.
    #[inline]
    pub fn dont_care(&self, i: u64) -> bool {
        (self.map[2 * (i / 8) as usize + 1] >> (i % 8)) & 1 == 1
    }

    /// [`TierFlags::dont_care`] as a closure over the mapped bytes, taken once: the database
    /// writer asks it twice per position of the tier.
    pub fn dont_care_test(&self) -> impl Fn(u64) -> bool + Sync + '_ {
        let bytes: &[u8] = &self.map;
        move |i| (bytes[2 * (i / 8) as usize + 1] >> (i % 8)) & 1 == 1
    }

    /// Drops the mapped pages of the flags from this process's memory (they are read back
    /// from the file when next needed): the compressor of a tier calls it with each batch,
    /// so the flags' pages never pile up beside the next tier's work.
    pub fn release(&self) {
        // SAFETY: a read-only shared file map: dropped pages are read back from the file.
        let _ = unsafe {
            self.map
                .unchecked_advise(memmap2::UncheckedAdvice::DontNeed)
        };
    }

    /// The anchored bits alone, for the tiers above (1 bit a position).
    pub fn anchored_bits(&self) -> AnchoredBits {
        AnchoredBits::from_bytes(
            self.map[..2 * self.states.div_ceil(8) as usize]
                .iter()
                .step_by(2)
                .copied()
                .collect(),
        )
    }
}

/// The anchored bit of every position of a finished tier: one bit a position (a `bitvec` bit
/// set, 8 positions a byte, least significant bit first: the layout the flags file and the
/// cluster's broadcast use), held for every finished tier while the run goes on, so a byte a
/// position would cost eight times the memory the budget counts.
#[derive(Clone, Debug, Default)]
pub struct AnchoredBits(BitVec<u8, Lsb0>);

impl AnchoredBits {
    /// The anchored bits of `tier` (of `states` positions) computed from every position's
    /// moves, one ply, in parallel: for a finished tier whose flags file is gone (a lean run
    /// being extended), so that the tiers above get exactly the don't-care positions a direct
    /// solve gives them.
    pub fn compute<G: Game>(game: &G, tier: Tier, states: u64) -> AnchoredBits {
        const CHUNK: usize = 1 << 12;
        let mut bytes = vec![0u8; states.div_ceil(8) as usize];
        bytes
            .par_chunks_mut(CHUNK / 8)
            .enumerate()
            .for_each_init(Vec::new, |succ, (c, part)| {
                let lo = (c * CHUNK) as u64;
                let hi = (lo + CHUNK as u64).min(states);
                let bits = BitSlice::<u8, Lsb0>::from_slice_mut(part);
                game.visit(tier, lo..hi, |i, pos| {
                    succ.clear();
                    game.successors(pos, succ);
                    let anchored = succ.is_empty()
                        || succ.iter().any(
                            |s| matches!(*s, Successor::Position { tier: t, .. } if t == tier),
                        );
                    bits.set((i - lo) as usize, anchored);
                });
            });
        AnchoredBits::from_bytes(bytes)
    }

    /// Bits taken as they were sent (by [`AnchoredBits::as_bytes`]): 8 positions a byte,
    /// least significant bit first.
    pub fn from_bytes(bytes: Vec<u8>) -> AnchoredBits {
        AnchoredBits(BitVec::from_vec(bytes))
    }

    /// The bits as bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_raw_slice()
    }

    /// Whether position `i` is anchored (false beyond the bits known).
    #[inline]
    pub fn get(&self, i: u64) -> bool {
        // The raw byte, not `BitSlice::get` (a bit proxy): read once per lower-tier
        // successor of every position whose moves all leave its tier.
        let bytes = self.0.as_raw_slice();
        i < self.0.len() as u64 && (bytes[(i >> 3) as usize] >> (i & 7)) & 1 == 1
    }

    /// Bytes held in memory.
    pub fn bytes(&self) -> u64 {
        self.0.as_raw_slice().len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_round_trip_and_damage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(flags_file(3));
        let cells: Vec<u32> = (0..1001u32)
            .map(|i| {
                (if i % 3 == 0 { cell::ANCHORED } else { 0 })
                    | (if i % 5 == 1 { cell::DONT_CARE } else { 0 })
            })
            .collect();
        let mut w = FlagWriter::create(&path).unwrap();
        w.push(&cells[..13]).unwrap();
        w.push(&cells[13..]).unwrap();
        w.finish().unwrap();
        let f = TierFlags::open(&path, 1001).unwrap().unwrap();
        let a = f.anchored_bits();
        for i in 0..1001u64 {
            assert_eq!(a.get(i), i % 3 == 0);
            assert_eq!(f.dont_care(i), i % 5 == 1);
        }
        assert!(!a.get(5000));
        assert!(TierFlags::open(&path, 1000).is_err());
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[7] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(TierFlags::open(&path, 1001).is_err());
        assert!(TierFlags::open(&dir.path().join("none"), 1001)
            .unwrap()
            .is_none());
    }

    #[test]
    fn flag_bytes_pushed_make_the_file_their_cells_make() {
        let dir = tempfile::tempdir().unwrap();
        let flag = |i: u32| {
            (if i % 3 != 1 { cell::ANCHORED } else { 0 })
                | (if i % 13 < 2 { cell::DONT_CARE } else { 0 })
        };
        let cells: Vec<u32> = (0..1003).map(flag).collect();
        let pairs = |cells: &[u32]| -> Vec<u8> {
            cells
                .chunks(8)
                .flat_map(|eight| flag_pair(eight.iter().copied()))
                .collect()
        };
        let by_cells = dir.path().join("cells");
        let mut w = FlagWriter::create(&by_cells).unwrap();
        w.push(&cells).unwrap();
        w.finish().unwrap();
        // On a byte boundary, and after a partial byte (3 positions pushed as cells); each
        // run of bytes ends in a partial pair.
        for first in [0usize, 3] {
            let by_bytes = dir.path().join(format!("bytes-{first}"));
            let mut w = FlagWriter::create(&by_bytes).unwrap();
            w.push(&cells[..first]).unwrap();
            let (a, b) = cells[first..].split_at(501);
            w.push_bytes(&pairs(a), a.len() as u64).unwrap();
            w.push_bytes(&pairs(b), b.len() as u64).unwrap();
            // Too few bytes for the positions named: refused, nothing pushed.
            assert!(w.push_bytes(&[0; 2], 9).is_err());
            w.finish().unwrap();
            assert_eq!(
                std::fs::read(&by_bytes).unwrap(),
                std::fs::read(&by_cells).unwrap(),
                "{first}"
            );
        }
    }

    #[test]
    fn flags_pushed_in_parallel_bytes_read_back_as_pushed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(flags_file(4));
        let n = (1u32 << 17) + 13;
        let flag = |i: u32| {
            (if i % 7 < 3 { cell::ANCHORED } else { 0 })
                | (if i % 11 == 4 { cell::DONT_CARE } else { 0 })
        };
        let cells: Vec<u32> = (0..n).map(flag).collect();
        let mut w = FlagWriter::create(&path).unwrap();
        // A byte's worth one at a time, then a long run on the byte boundary (the parallel
        // path) that ends in a partial byte, then one more past a boundary (the serial path).
        w.push(&cells[..8]).unwrap();
        w.push(&cells[8..(1 << 17) + 3]).unwrap();
        w.push(&cells[(1 << 17) + 3..]).unwrap();
        w.finish().unwrap();
        let f = TierFlags::open(&path, n as u64).unwrap().unwrap();
        let a = f.anchored_bits();
        for i in 0..n {
            assert_eq!(
                a.get(i as u64),
                flag(i) & cell::ANCHORED != 0,
                "anchored {i}"
            );
            assert_eq!(f.dont_care(i as u64), flag(i) & cell::DONT_CARE != 0, "{i}");
            assert_eq!(f.dont_care_test()(i as u64), f.dont_care(i as u64));
        }
        assert!(!a.get(n as u64) && !a.get(u64::MAX));
    }
}
