//! A range's working cells in either width: four bytes a position ([`crate::cell`]), or two
//! in a closed tier ([`crate::cell::narrow`]).
//!
//! Bao's one tier has no lower tier, so its cells carry no floor, no known win and flags that
//! follow from the value: two bytes hold all of it. Out of core that halves the plain cells on
//! disk (Bao mtaji 11 seeds, `--mem 4G`: 13.9 GB of 50.8 at the peak) and lets the attractor
//! hold twice as many ranges in the same memory. The attractor's steps are written once over
//! [`CellSlot`], which both widths implement in terms of the wide cell; a narrow slot turns
//! what it stores into and out of two bytes. Packed cells ([`crate::tier::packed`]) keep the
//! wide form in both, so checkpoints read the same whatever the width.

use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};

use rayon::prelude::*;

use crate::cell::{self, narrow, COUNTER_ONE, OPEN};
use crate::counts::TierCounts;
use crate::flags::flag_pair;
use bawo_games::error::{Error, Result};

/// How many bytes a range's working cells take a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CellWidth {
    /// Four bytes: every tier.
    #[default]
    Wide,
    /// Two bytes: a closed tier ([`bawo_games::game::Game::closed_tier`]).
    Narrow,
}

impl CellWidth {
    /// The width of a tier's cells: narrow where the checkpoint or the plan says so.
    pub fn narrow_if(narrow: bool) -> CellWidth {
        if narrow {
            CellWidth::Narrow
        } else {
            CellWidth::Wide
        }
    }

    /// Bytes a position.
    pub fn bytes(self) -> usize {
        match self {
            CellWidth::Wide => 4,
            CellWidth::Narrow => 2,
        }
    }
}

/// One working cell, read and changed in terms of the wide cell ([`crate::cell`]) whatever
/// it stores: what the attractor's steps ([`crate::tier::attractor`]) are written over.
pub trait CellSlot: Sync {
    /// The cell.
    fn get(&self) -> u32;
    /// Stores `cell` (only where no other worker can change it at the same level).
    fn put(&self, cell: u32);
    /// Replaces `current` with `new`, or gives the cell found instead (may fail spuriously).
    fn replace(&self, current: u32, new: u32) -> std::result::Result<(), u32>;
    /// One in-tier option fewer for an open cell: the cell before, or `None` where it was
    /// not open (and nothing was written).
    fn lose_option(&self) -> Option<u32>;
}

impl CellSlot for AtomicU32 {
    #[inline]
    fn get(&self) -> u32 {
        self.load(Ordering::Relaxed)
    }

    #[inline]
    fn put(&self, cell: u32) {
        self.store(cell, Ordering::Relaxed)
    }

    #[inline]
    fn replace(&self, current: u32, new: u32) -> std::result::Result<(), u32> {
        self.compare_exchange_weak(current, new, Ordering::Relaxed, Ordering::Relaxed)
            .map(|_| ())
    }

    #[inline]
    fn lose_option(&self) -> Option<u32> {
        if cell::tag(self.get()) != OPEN {
            return None;
        }
        // A decrement racing with a change of tag lands in the counter, which then decides
        // nothing ([`crate::cell`]): the caller looks at the tag it returns.
        Some(self.fetch_sub(COUNTER_ONE, Ordering::Relaxed))
    }
}

/// A narrow cell ([`crate::cell::narrow`]) as a [`CellSlot`].
#[repr(transparent)]
pub struct NarrowCell(AtomicU16);

impl NarrowCell {
    /// The narrow form of a cell the attractor stores: every cell it makes of a closed
    /// tier's cells has one.
    #[inline]
    fn code(cell: u32) -> u16 {
        let n = narrow::narrow(cell);
        debug_assert!(n.is_some(), "{cell:#x} has no narrow form");
        n.unwrap_or(0)
    }
}

impl CellSlot for NarrowCell {
    #[inline]
    fn get(&self) -> u32 {
        narrow::widen(self.0.load(Ordering::Relaxed))
    }

    #[inline]
    fn put(&self, cell: u32) {
        self.0.store(Self::code(cell), Ordering::Relaxed)
    }

    #[inline]
    fn replace(&self, current: u32, new: u32) -> std::result::Result<(), u32> {
        self.0
            .compare_exchange_weak(
                Self::code(current),
                Self::code(new),
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .map(|_| ())
            .map_err(narrow::widen)
    }

    #[inline]
    fn lose_option(&self) -> Option<u32> {
        // The depth shares the counter's bits: a decrement must not land in a cell that
        // another worker decided meanwhile, so it is a compare-and-swap on an open cell.
        let mut n = self.0.load(Ordering::Relaxed);
        loop {
            let wide = narrow::widen(n);
            if cell::tag(wide) != OPEN || cell::counter(wide) == 0 {
                return None;
            }
            match self
                .0
                .compare_exchange_weak(n, n - 1, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(wide),
                Err(now) => n = now,
            }
        }
    }
}

/// A range's cells as slots: what the attractor's steps change.
#[derive(Clone, Copy)]
pub enum Slots<'a> {
    /// Four bytes a position.
    Wide(&'a [AtomicU32]),
    /// Two bytes a position.
    Narrow(&'a [NarrowCell]),
}

/// Runs `$body` with `$c` bound to the slice of slots of either width (generic code is
/// monomorphised for each).
macro_rules! with_slots {
    ($slots:expr, $c:ident => $body:expr) => {
        match $slots {
            $crate::tier::cells::Slots::Wide($c) => $body,
            $crate::tier::cells::Slots::Narrow($c) => $body,
        }
    };
}
pub(crate) use with_slots;

impl<'a> Slots<'a> {
    /// The slots over `bytes` (a mapped cells file), of `width`.
    ///
    /// # Safety
    /// `bytes` must be aligned to the width and not accessed through any other reference
    /// while the slots live.
    pub unsafe fn of_bytes(bytes: &'a mut [u8], width: CellWidth) -> Slots<'a> {
        let w = width.bytes();
        assert_eq!(bytes.as_ptr() as usize % w, 0, "cells must be aligned");
        let ptr = bytes.as_mut_ptr();
        match width {
            CellWidth::Wide => Slots::Wide(std::slice::from_raw_parts(
                ptr as *const AtomicU32,
                bytes.len() / 4,
            )),
            CellWidth::Narrow => Slots::Narrow(std::slice::from_raw_parts(
                ptr as *const NarrowCell,
                bytes.len() / 2,
            )),
        }
    }
}

/// A range's cells in memory, owned.
#[derive(Debug)]
pub enum CellBuf {
    /// Four bytes a position.
    Wide(Vec<u32>),
    /// Two bytes a position.
    Narrow(Vec<u16>),
}

impl CellBuf {
    /// `len` cells of `width`, zero (a buffer to read into).
    pub fn zeroed(width: CellWidth, len: usize) -> CellBuf {
        match width {
            CellWidth::Wide => CellBuf::Wide(crate::work::huge::filled(len, 0u32)),
            CellWidth::Narrow => CellBuf::Narrow(crate::work::huge::filled(len, 0u16)),
        }
    }

    /// The width.
    pub fn width(&self) -> CellWidth {
        match self {
            CellBuf::Wide(_) => CellWidth::Wide,
            CellBuf::Narrow(_) => CellWidth::Narrow,
        }
    }

    /// Cells held.
    pub fn len(&self) -> usize {
        match self {
            CellBuf::Wide(v) => v.len(),
            CellBuf::Narrow(v) => v.len(),
        }
    }

    /// Whether it holds no cell.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes it `len` cells (what is kept is overwritten by the next read).
    pub fn resize(&mut self, len: usize) {
        match self {
            CellBuf::Wide(v) => v.resize(len, 0),
            CellBuf::Narrow(v) => v.resize(len, 0),
        }
    }

    /// The cells as they are stored.
    pub fn bytes(&self) -> &[u8] {
        match self {
            CellBuf::Wide(v) => bawo_store::bytes::u32_bytes(v),
            CellBuf::Narrow(v) => bawo_store::bytes::u16_bytes(v),
        }
    }

    /// The cells as they are stored, to read into.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            CellBuf::Wide(v) => bawo_store::bytes::u32_bytes_mut(v),
            CellBuf::Narrow(v) => bawo_store::bytes::u16_bytes_mut(v),
        }
    }

    /// The cells as slots, to change.
    pub fn slots(&mut self) -> Slots<'_> {
        // SAFETY: a vector is aligned to its element, and the exclusive borrow keeps every
        // other access out while the slots live.
        unsafe {
            match self {
                CellBuf::Wide(v) => Slots::Wide(std::slice::from_raw_parts(
                    v.as_mut_ptr() as *const AtomicU32,
                    v.len(),
                )),
                CellBuf::Narrow(v) => Slots::Narrow(std::slice::from_raw_parts(
                    v.as_mut_ptr() as *const NarrowCell,
                    v.len(),
                )),
            }
        }
    }

    /// The cells, to read.
    pub fn words(&self) -> Words<'_> {
        match self {
            CellBuf::Wide(v) => Words::Wide(v),
            CellBuf::Narrow(v) => Words::Narrow(v),
        }
    }
}

/// A range's cells, read only, in either width.
#[derive(Clone, Copy, Debug)]
pub enum Words<'a> {
    /// Four bytes a position.
    Wide(&'a [u32]),
    /// Two bytes a position.
    Narrow(&'a [u16]),
}

/// Wide cells made of narrow ones at a time, where a whole range's would take memory.
const WIDEN_CHUNK: usize = 1 << 16;

impl<'a> Words<'a> {
    /// The cells stored in `bytes` (a mapped or read cells file at `path`), of `width`.
    pub fn of_bytes(path: &Path, bytes: &'a [u8], width: CellWidth) -> Result<Words<'a>> {
        Ok(match width {
            CellWidth::Wide => Words::Wide(bawo_store::bytes::as_u32(path, bytes)?),
            CellWidth::Narrow => Words::Narrow(bawo_store::bytes::as_u16(path, bytes)?),
        })
    }

    /// Cells held.
    pub fn len(&self) -> usize {
        match self {
            Words::Wide(v) => v.len(),
            Words::Narrow(v) => v.len(),
        }
    }

    /// Whether it holds no cell.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the finish makes of the cells, in one pass of the workers over them: their final
    /// entries into `entries` (as long), their counts, and their flag bytes into `flags`
    /// (reused from range to range). Made one after the other, these were three passes over
    /// the range, the flags' on one thread.
    pub fn finished_into(&self, entries: &mut [u16], flags: Vec<u8>) -> Finished {
        debug_assert_eq!(entries.len(), self.len());
        match self {
            Words::Wide(v) => finish_cells(|i| v[i], entries, flags),
            Words::Narrow(v) => finish_cells(|i| narrow::widen(v[i]), entries, flags),
        }
    }

    /// Calls `f` with the wide cells in order, a chunk at a time.
    pub fn each_wide<E>(
        &self,
        mut f: impl FnMut(&[u32]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        match self {
            Words::Wide(v) => f(v),
            Words::Narrow(v) => {
                let mut wide = Vec::with_capacity(WIDEN_CHUNK.min(v.len()));
                for chunk in v.chunks(WIDEN_CHUNK) {
                    wide.clear();
                    wide.extend(chunk.iter().map(|&n| narrow::widen(n)));
                    f(&wide)?;
                }
                Ok(())
            }
        }
    }
}

/// What a range's finish makes of its cells beside their entries ([`Words::finished_into`]).
pub struct Finished {
    /// The entries' counts (the seeds left 0).
    pub counts: TierCounts,
    /// Their flags, two bytes per eight cells ([`crate::flags::flag_pair`]), the last pair
    /// partial where the cells are not a whole number of eights.
    pub flags: Vec<u8>,
}

/// Cells a worker finishes at a time: a whole number of eights, so that its flag bytes are
/// its own.
const FINISH_CHUNK: usize = 1 << 16;

/// [`Words::finished_into`] of the cells given by `cell_at`, as many as `entries`.
fn finish_cells(
    cell_at: impl Fn(usize) -> u32 + Sync,
    entries: &mut [u16],
    mut flags: Vec<u8>,
) -> Finished {
    flags.clear();
    flags.resize(2 * entries.len().div_ceil(8), 0);
    // As many flag chunks as entry chunks: ceil(ceil(n / 8) / (C / 8)) = ceil(n / C).
    let counts = entries
        .par_chunks_mut(FINISH_CHUNK)
        .zip(flags.par_chunks_mut(FINISH_CHUNK / 4))
        .enumerate()
        .map(|(k, (entries, flags))| {
            let first = k * FINISH_CHUNK;
            // Eight cells at a time, their entries and then their flags.
            let eights = flags.chunks_exact_mut(2).zip(entries.chunks_mut(8));
            for (g, (pair, eight)) in eights.enumerate() {
                let at = first + 8 * g;
                for (e, i) in eight.iter_mut().zip(at..) {
                    *e = cell::final_entry(cell_at(i)).0;
                }
                pair.copy_from_slice(&flag_pair((at..at + eight.len()).map(&cell_at)));
            }
            TierCounts::of_entries(entries)
        })
        .reduce(TierCounts::default, TierCounts::merged);
    Finished { counts, flags }
}

/// Narrows wide cells into `out` (as long), refusing a cell a closed tier cannot have.
pub fn narrow_into(wide: &[u32], out: &mut [u16]) -> Result<()> {
    debug_assert_eq!(wide.len(), out.len());
    let bad = out
        .par_iter_mut()
        .zip(wide.par_iter())
        .map(|(o, &c)| match narrow::narrow(c) {
            Some(n) => {
                *o = n;
                None
            }
            None => Some(c),
        })
        .find_any(Option::is_some)
        .flatten();
    match bad {
        None => Ok(()),
        Some(c) => Err(Error::Internal(format!(
            "a cell of a closed tier holds what such a tier cannot have ({c:#010x}): its \
             moves leave the tier or lose at once"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::{make, ANCHORED, DONT_CARE, LOSS, WIN};

    /// Cells a closed tier has, as the pass makes them and the attractor changes them.
    fn closed_cells() -> Vec<u32> {
        vec![
            make(OPEN, 3, 0) | ANCHORED,
            make(OPEN, 1, 0) | ANCHORED,
            make(LOSS, 0, 0) | ANCHORED | DONT_CARE,
            make(WIN, 0, 5) | ANCHORED,
            make(LOSS, 0, 9) | ANCHORED,
        ]
    }

    /// The same steps on a wide and a narrow slot give the same wide cells.
    #[test]
    fn narrow_slots_behave_as_wide_ones() {
        for c in closed_cells() {
            let wide = AtomicU32::new(c);
            let narrow = NarrowCell(AtomicU16::new(narrow::narrow(c).unwrap()));
            assert_eq!(narrow.get(), narrow::widen(narrow::narrow(c).unwrap()));
            let (a, b) = (wide.lose_option(), narrow.lose_option());
            assert_eq!(a.is_some(), b.is_some(), "{c:#x}");
            if let (Some(a), Some(b)) = (a, b) {
                assert_eq!(a, b);
                assert_eq!(cell::counter(narrow.get()), cell::counter(a) - 1);
                assert_eq!(wide.get(), narrow.get());
            }
            let now = narrow.get();
            if now & DONT_CARE != 0 {
                continue; // a position without moves is never decided again
            }
            let won = cell::retag(now, WIN, 4);
            let other = make(WIN, 0, 77) | ANCHORED;
            assert_eq!(narrow.replace(other, won), Err(now));
            while narrow.replace(now, won).is_err() {}
            assert_eq!(narrow.get(), make(WIN, 0, 4) | ANCHORED);
            narrow.put(make(LOSS, 0, 0) | ANCHORED | DONT_CARE);
            assert_eq!(narrow.get(), make(LOSS, 0, 0) | ANCHORED | DONT_CARE);
        }
        // An open cell with no option left is not decremented into its tag.
        let empty = NarrowCell(AtomicU16::new(
            narrow::narrow(make(OPEN, 0, 0) | ANCHORED).unwrap(),
        ));
        assert_eq!(empty.lose_option(), None);
    }

    /// A range's finish pass, against each cell taken on its own: entry, counts by tag and
    /// depth, and flag bits, over several workers' chunks and a partial last byte.
    #[test]
    fn a_finish_pass_gives_each_cell_its_entry_counts_and_flags() {
        let kinds = closed_cells();
        let n = 2 * FINISH_CHUNK + 13;
        let cells: Vec<u32> = (0..n)
            .map(|i| kinds[(i * 7 + i / 5) % kinds.len()])
            .collect();
        let narrow: Vec<u16> = cells.iter().map(|&c| narrow::narrow(c).unwrap()).collect();
        let (mut win, mut loss, mut draw, mut deepest) = (0, 0, 0, 0);
        for &c in &cells {
            match cell::tag(c) {
                WIN => win += 1,
                LOSS => loss += 1,
                _ => draw += 1,
            }
            if matches!(cell::tag(c), WIN | LOSS) {
                deepest = deepest.max(cell::depth(c));
            }
        }
        for words in [Words::Wide(&cells), Words::Narrow(&narrow)] {
            // A reused buffer with stale bytes in it.
            let mut entries = vec![u16::MAX; n];
            let made = words.finished_into(&mut entries, vec![0xAA; 5]);
            for (i, &c) in cells.iter().enumerate() {
                assert_eq!(entries[i], cell::final_entry(c).0, "entry {i}");
                let bit = |b: u8| (b >> (i % 8)) & 1 == 1;
                assert_eq!(bit(made.flags[2 * (i / 8)]), c & ANCHORED != 0, "{i}");
                assert_eq!(bit(made.flags[2 * (i / 8) + 1]), c & DONT_CARE != 0, "{i}");
            }
            assert_eq!(made.flags.len(), 2 * n.div_ceil(8));
            let c = &made.counts;
            assert_eq!(
                (c.states, c.win, c.loss, c.draw),
                (n as u64, win, loss, draw)
            );
            assert_eq!(c.max_depth, deepest);
            assert!(win > 0 && loss > 0 && draw > 0 && deepest == 9);
        }
    }

    #[test]
    fn buffers_read_and_narrow_in_either_width() {
        let cells = closed_cells();
        let mut n = vec![0u16; cells.len()];
        narrow_into(&cells, &mut n).unwrap();
        let buf = CellBuf::Narrow(n.clone());
        assert_eq!(buf.bytes().len(), 2 * cells.len());
        let mut seen = Vec::new();
        buf.words()
            .each_wide(|w| {
                seen.extend_from_slice(w);
                Ok::<(), Error>(())
            })
            .unwrap();
        assert_eq!(seen, cells);
        let wide = CellBuf::Wide(cells.clone());
        let finish = |w: Words<'_>| {
            let mut entries = vec![0; w.len()];
            let made = w.finished_into(&mut entries, Vec::new());
            (entries, made.counts, made.flags)
        };
        assert_eq!(finish(wide.words()), finish(buf.words()));
        let back = Words::of_bytes(Path::new("x"), buf.bytes(), CellWidth::Narrow).unwrap();
        assert!(matches!(back, Words::Narrow(v) if v == &n[..]));
        // A cell of a tier with lower tiers is refused, not stored as something else.
        let mut out = vec![0u16; 1];
        assert!(narrow_into(&[make(OPEN, 2, 7) | ANCHORED], &mut out).is_err());
        let mut r = CellBuf::zeroed(CellWidth::Narrow, 3);
        r.resize(5);
        assert_eq!((r.width(), r.len()), (CellWidth::Narrow, 5));
    }
}
