//! Cells of an out-of-core tier held in memory from one attractor level to the next.
//!
//! Out of core, a range's cells live in a file that the attractor maps while it works on the
//! range. Every level changes cells all over every range with work, and the kernel writes a
//! mapped file's changed pages back within about 30 s, at once when the dirty pages pass its
//! background threshold (about a tenth of the memory available). A tier whose cells are
//! larger than that (n = 4, 18 seeds: 4.2 GB) had its cells written back at nearly every
//! level, and each write-back made the next change fault again. So the attractor reads the
//! cells of as many ranges as its share of the plan holds
//! ([`crate::plan::budget::TierPlan::attractor_cells`]) into memory once, and writes them only
//! when a checkpoint comes (packed, [`crate::tier::packed`]); when the attractor is done they
//! go from memory into the tier's table.

use std::io::Read;
use std::path::{Path, PathBuf};

use bawo_games::error::{Error, Result};
use bawo_store::bytes::map_mut;
use memmap2::MmapMut;

use crate::tier::cells::{CellBuf, CellWidth, Slots, Words};

/// The cells of the ranges held in memory (`None` for a range left in its file).
#[derive(Default)]
pub struct HeldCells {
    ranges: Vec<Option<CellBuf>>,
    /// What the bytes given to [`HeldCells::load`] left beside the held cells.
    spare: u64,
}

impl HeldCells {
    /// Reads the cells of the ranges (of lengths `lens`, taken in order while they fit)
    /// whose cells, of `width`, fit `bytes` together, each with `read(range, cells)`; the
    /// rest stay in their files.
    pub fn load(
        lens: &[usize],
        bytes: u64,
        width: CellWidth,
        read: impl Fn(usize, &mut CellBuf) -> Result<()> + Sync,
    ) -> Result<Self> {
        use rayon::prelude::*;
        let mut left = bytes;
        let mut held = Vec::new();
        for &len in lens {
            let need = (width.bytes() * len) as u64;
            if need > left || len == 0 {
                held.push(None);
                continue;
            }
            left -= need;
            held.push(Some(CellBuf::zeroed(width, len)));
        }
        // Read side by side: packed cells are decoded on the way in.
        held.par_iter_mut()
            .enumerate()
            .try_for_each(|(r, cells)| match cells {
                Some(cells) => read(r, cells),
                None => Ok(()),
            })?;
        Ok(HeldCells {
            ranges: held,
            spare: left,
        })
    }

    /// Reads a plain cell file into `cells`, which it fills exactly.
    pub fn read_file(path: &Path, cells: &mut CellBuf) -> Result<()> {
        let mut f = bawo_store::open_no_follow()
            .read(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        f.read_exact(cells.bytes_mut())
            .map_err(|e| Error::io(path, e))
    }

    /// Bytes of the share for held cells that they left unused (less than one range's cells,
    /// unless every range is held): room the attractor may use for a while
    /// (`crate::tier::emit_level`).
    pub fn spare(&self) -> u64 {
        self.spare
    }

    /// Whether range `r`'s cells are held.
    pub fn holds(&self, r: usize) -> bool {
        matches!(self.ranges.get(r), Some(Some(_)))
    }

    /// Ranges held.
    pub fn count(&self) -> usize {
        self.ranges.iter().filter(|c| c.is_some()).count()
    }

    /// Range `r`'s cells as slots, if held.
    pub fn cells(&mut self, r: usize) -> Option<Slots<'_>> {
        Some(self.ranges.get_mut(r)?.as_mut()?.slots())
    }

    /// Range `r`'s cells, if held.
    pub fn words(&self, r: usize) -> Option<Words<'_>> {
        Some(self.ranges.get(r)?.as_ref()?.words())
    }
}

/// The cells file at `path`, mapped for writing: the map in `kept` when it is of that file,
/// else a new one, which `kept` holds from then on (the map of another file goes first, so
/// that at most one cells file is mapped at a time).
pub fn cells_map<'k>(
    kept: &'k mut Option<(PathBuf, MmapMut)>,
    path: &Path,
) -> Result<&'k mut MmapMut> {
    if kept.as_ref().is_none_or(|(p, _)| p != path) {
        *kept = None;
        *kept = Some((path.to_path_buf(), map_mut(path)?));
    }
    Ok(&mut kept.as_mut().expect("mapped above").1)
}

/// A level that touches fewer than one position in this many of a range reads the range's
/// mapped files (cells, predecessor lists) a page at a time (`MADV_RANDOM`). Otherwise each
/// fault reads a large folio ahead (about 140 KiB on Linux 6.18: 35,000 cells), nearly all of
/// it unread by such a level; the long tails of Bao's and Kigogo's attractors (hundreds of
/// levels, most of them small) read their whole predecessor lists from the disk at every
/// level that way. Denser levels touch most pages anyway, and read them faster ahead.
const SPARSE_ONE_IN: usize = 4096;

/// Advice for a map of which `touched` of `len` positions' bytes will be read: page by page
/// where they are few (fewer than one in `SPARSE_ONE_IN`), else the kernel's readahead. Advice only.
pub fn advise(map: &[u8], touched: usize, len: usize) {
    let sparse = touched.saturating_mul(SPARSE_ONE_IN) < len;
    bawo_store::bytes::advise_reads(map, sparse);
}

/// Range `r`'s cells: held in memory, else the file at `path` (cells of `width`) mapped in
/// `kept` ([`cells_map`]), advised for `touched` positions ([`advise`]).
pub fn cells_view<'a>(
    held: &'a mut HeldCells,
    kept: &'a mut Option<(PathBuf, MmapMut)>,
    r: usize,
    path: &Path,
    width: CellWidth,
    touched: usize,
) -> Result<Slots<'a>> {
    if held.holds(r) {
        return Ok(held.cells(r).expect("held"));
    }
    let map = cells_map(kept, path)?;
    advise(map, touched, map.len() / width.bytes());
    // SAFETY: the map is page aligned and only used through these slots.
    Ok(unsafe { Slots::of_bytes(map, width) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tier::cells::CellSlot;

    #[test]
    fn held_ranges_are_read_and_changed_within_their_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        for r in 0..3u32 {
            let words: Vec<u32> = (0..1000).map(|i| i * 3 + r).collect();
            let p = dir.path().join(format!("c{r}"));
            std::fs::write(&p, bawo_store::bytes::u32_bytes(&words)).unwrap();
            files.push(p);
        }
        let wide = CellWidth::Wide;
        let read = |r: usize, cells: &mut CellBuf| HeldCells::read_file(&files[r], cells);
        // Room for two ranges: the first two are held, the third stays in its file.
        let mut held = HeldCells::load(&[1000; 3], 8000, wide, read).unwrap();
        assert!(held.holds(0) && held.holds(1) && !held.holds(2));
        assert_eq!(held.count(), 2);
        assert!(held.cells(2).is_none() && held.words(2).is_none());
        let Some(Slots::Wide(c)) = held.cells(1) else {
            panic!("wide cells")
        };
        assert_eq!(c[7].get(), 22);
        c[7].put(5);
        assert!(matches!(held.words(1), Some(Words::Wide(w)) if w[6..9] == [19, 5, 25]));
        assert_eq!(
            HeldCells::load(&[1000; 3], 0, wide, read).unwrap().count(),
            0
        );
        // Narrow cells take half the bytes: the same room holds the three ranges and more.
        let halves = |_: usize, cells: &mut CellBuf| {
            cells.bytes_mut().fill(0);
            Ok(())
        };
        let narrow = HeldCells::load(&[1000; 5], 8000, CellWidth::Narrow, halves).unwrap();
        assert_eq!(narrow.count(), 4);
        assert!(matches!(narrow.words(3), Some(Words::Narrow(w)) if w.len() == 1000));
        // A smaller range after one that does not fit is held if it fits what is left.
        let small = |r: usize, cells: &mut CellBuf| {
            if r == 3 {
                cells.bytes_mut().fill(0);
                Ok(())
            } else {
                read(r, cells)
            }
        };
        let held = HeldCells::load(&[1000, 1000, 1000, 100], 8400, wide, small).unwrap();
        assert!(held.holds(0) && held.holds(1) && !held.holds(2) && held.holds(3));
        // A file shorter than its range is an error, not cells made up.
        let short = |_: usize, cells: &mut CellBuf| HeldCells::read_file(&files[0], cells);
        assert!(HeldCells::load(&[2000], 8000, wide, short).is_err());
    }
}
