//! The attractor's loop for [`crate::tier`], level by level: each level's messages emitted
//! ([`crate::tier::emit_level`]) and applied range by range, the due logs it read left for
//! the next checkpoint to delete, and the checkpoints taken between levels.

use std::path::PathBuf;

use memmap2::MmapMut;

use crate::tier::attractor::{apply_batches, apply_marking, Changed, DepthOverflow};
use crate::tier::cells::{with_slots, CellBuf};
use crate::tier::cells_io::CellsIo;
use crate::tier::checkpoint::Checkpoints;
use crate::tier::held::cells_view;
use crate::tier::{Job, TierProgress};
use crate::work::{remove_file_if_present, WorkFile};
use bawo_games::error::{Error, Result};
use bawo_games::game::Game;

/// A level with at least one message per this many cells of a range not held applies them
/// to the range's cells read into memory, and writes back the pages they changed
/// ([`CellsIo`]), rather than through the file's map.
///
/// Changing a mapped file's cells costs a write fault the first time each page is written
/// after the kernel cleaned it, and on Linux 6.18 with ext4's large folios each such fault
/// prepares the whole folio's blocks (`block_page_mkwrite`): on Kigogo's 8-seed tier a third
/// of the attractor's processor time. Reading the range (a copy from the page cache) and
/// writing back only the changed pages prepares each folio's blocks once per write.
const DENSE_ONE_IN: usize = 256;

/// What applying a level to a range gives: the positions decided, or a depth overflow.
type Applied = std::result::Result<Vec<Vec<(u32, u32)>>, DepthOverflow>;

/// Applies `batches` to a range's `cells` read into memory; returns what applying gives and
/// the runs of blocks it changed, to write back.
fn apply_in_memory(
    cells: &mut CellBuf,
    batches: &[&[u32]],
    level: u32,
) -> (Applied, Vec<std::ops::Range<usize>>) {
    let changed = Changed::new(cells.len());
    let applied = with_slots!(cells.slots(), c => apply_marking(c, batches, level, Some(&changed)));
    (applied, changed.runs())
}

impl<G: Game> Job<'_, G> {
    /// Whether any position is due at level `from` or later.
    fn levels_left(&self, from: u32) -> bool {
        self.due.range((from, 0)..).any(|(_, log)| !log.is_empty())
    }

    /// This level's due logs are read: their files go with the next checkpoint.
    fn retire_due_logs(&mut self, level: u32) {
        let done: Vec<(u32, usize)> = self
            .due
            .range((level, 0)..=(level, usize::MAX))
            .map(|(&k, _)| k)
            .collect();
        for k in done {
            if let Some(log) = self.due.remove(&k) {
                // A log read from memory made no file.
                if log.has_file() {
                    self.consumed.push(log.path().to_path_buf());
                }
            }
        }
    }

    /// The attractor; out of core the cells of as many ranges as `held_bytes` holds stay in
    /// memory from level to level ([`crate::tier::held`]).
    pub(super) fn attract(
        &mut self,
        held_bytes: u64,
        ckpt: &mut Checkpoints<'_>,
        progress: &dyn TierProgress,
    ) -> Result<()> {
        let mut level = self.st.next as u32;
        let first = level;
        // Counted from the checkpoint's count, so that a resumed run's progress is of the
        // whole tier.
        let mut decided = self.st.decided;
        progress.phase("attractor", 0, decided);
        // A tier of one range keeps its cells mapped from level to level: mapping them again
        // at every level would fault every page in again. Out of core a range is mapped only
        // while it is worked on.
        let mut kept: Option<(PathBuf, MmapMut)> = None;
        let mut held = if self.resident || !self.levels_left(level) {
            std::mem::take(&mut self.held)
        } else {
            self.open_cells(held_bytes)?
        };
        self.timings.held_ranges = held.count() as u64;
        while self.levels_left(level) {
            // Step 1: messages from the positions due at this level, range by range.
            let emitted = self.emit_level(level, &mut held, &mut kept)?;
            let (mut msgs, direct) = (emitted.msgs, emitted.direct);
            decided += emitted.decided;
            if !self.resident {
                kept = None;
            }
            // Scanned at once at the first level, where the attractor's peak lay on the tiers
            // measured (its due logs at their most); sampled after.
            if level == first {
                self.note_disk_now();
            } else {
                self.note_disk();
            }
            // Step 2: apply them, range by range. A dense level's range not held is read
            // into memory, changed there and written back, on a thread of their own
            // ([`CellsIo`]), the next such range read while this one is applied.
            let dense: Vec<bool> = (0..self.ranges)
                .map(|r| {
                    let touched = match msgs.count(r) {
                        0 => direct.iter().map(Vec::len).sum(),
                        n => n,
                    };
                    !held.holds(r) && !self.resident && touched * DENSE_ONE_IN >= self.range_len(r)
                })
                .collect();
            let next_dense = |from: usize| (from..dense.len()).find(|&r| dense[r]);
            std::thread::scope(|scope| -> Result<()> {
                let mut io = CellsIo::start(scope, self.width)?;
                let mut ahead = next_dense(0);
                if let Some(n) = ahead {
                    self.unpin(n)?;
                    io.read(self.cells_path(n), self.range_len(n))?;
                }
                for r in 0..self.ranges {
                    let m = msgs.take(r)?;
                    let batches: Vec<&[u32]> = if m.is_empty() {
                        direct.iter().map(Vec::as_slice).collect()
                    } else {
                        m.iter().map(Vec::as_slice).collect()
                    };
                    if batches.is_empty() {
                        continue;
                    }
                    let applied = if ahead == Some(r) {
                        let mut cells = io.take()?;
                        ahead = next_dense(r + 1);
                        if let Some(n) = ahead {
                            self.unpin(n)?;
                            io.read(self.cells_path(n), self.range_len(n))?;
                        }
                        let (applied, blocks) = apply_in_memory(&mut cells, &batches, level);
                        io.write(self.cells_path(r), cells, blocks)?;
                        applied
                    } else {
                        if held.holds(r) {
                            // Held cells are never the checkpointed slot: no copy before
                            // changing.
                            self.dirty[r] = true;
                        } else {
                            self.unpin(r)?;
                        }
                        let touched: usize = batches.iter().map(|b| b.len()).sum();
                        let path = self.cells_path(r);
                        let cells =
                            cells_view(&mut held, &mut kept, r, &path, self.width, touched)?;
                        let applied = with_slots!(cells, c => apply_batches(c, &batches, level));
                        // Out of core no map is kept from the emitting step or the range
                        // before.
                        if !self.resident {
                            kept = None;
                        }
                        applied
                    };
                    let newly = applied.map_err(|_| Error::DepthOverflow { tier: self.tier })?;
                    self.block_sink().queue_batches(r, &newly)?;
                }
                io.finish()
            })?;
            msgs.cleanup();
            self.retire_due_logs(level);
            level += 1;
            self.st.next = level as u64;
            self.st.decided = decided;
            progress.level_done(level, decided);
            let due = if self.resident {
                ckpt.due()
            } else {
                ckpt.attractor_due()
            };
            if due {
                // Out of core the checkpoint names packed cells, made now of the ranges
                // changed since the last one.
                self.pack_dirty(&held, !self.resident)?;
                self.checkpoint(ckpt)?;
            }
        }
        self.timings.levels = level;
        // Out of core, one more checkpoint that names no predecessor file lets them go before
        // the table is written beside the cells: it names the held ranges packed (they go
        // from memory into the table) and the others' plain files, synced, which the table
        // is written from.
        if !self.resident && !self.st.preds.is_empty() {
            self.st.preds.clear();
            self.pack_dirty(&held, false)?;
            self.held = held;
            self.checkpoint(ckpt)?;
            for r in 0..self.ranges {
                remove_file_if_present(&self.path(WorkFile::Preds(r)))?;
            }
        } else {
            self.held = held;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::{self, narrow, ANCHORED, LOSS, OPEN, WIN};
    use crate::tier::attractor::{CHANGED_BLOCK, MSG_LOSS, MSG_WIN};
    use crate::tier::cells::CellWidth;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn a_dense_level_applied_through_memory_leaves_the_file_as_its_map_would() {
        for width in [CellWidth::Wide, CellWidth::Narrow] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("cells");
            let len = 3 * CHANGED_BLOCK + 100;
            // Narrow cells are a closed tier's: no floor.
            let floor = if width == CellWidth::Wide { 4 } else { 0 };
            let kinds = [
                cell::make(OPEN, 2, 0) | ANCHORED,
                cell::make(OPEN, 1, floor) | ANCHORED,
                cell::make(WIN, 0, 3) | ANCHORED,
            ];
            let before: Vec<u32> = (0..len).map(|p| kinds[p % 3]).collect();
            let stored = |cells: &[u32]| -> Vec<u8> {
                match width {
                    CellWidth::Wide => bawo_store::bytes::u32_bytes(cells).to_vec(),
                    CellWidth::Narrow => {
                        let n: Vec<u16> =
                            cells.iter().map(|&c| narrow::narrow(c).unwrap()).collect();
                        bawo_store::bytes::u16_bytes(&n).to_vec()
                    }
                }
            };
            std::fs::write(&path, stored(&before)).unwrap();
            // Messages to the first block and the last cells only.
            let msgs: Vec<u32> = (0..200u32)
                .chain(len as u32 - 50..len as u32)
                .map(|p| p | if p % 5 == 0 { MSG_LOSS } else { MSG_WIN })
                .collect();
            let got = std::thread::scope(|s| {
                let mut io = CellsIo::start(s, width).unwrap();
                io.read(path.clone(), len).unwrap();
                let mut cells = io.take().unwrap();
                assert_eq!(cells.width(), width);
                let (applied, blocks) = apply_in_memory(&mut cells, &[&msgs], 4);
                assert!(
                    blocks.len() < len / CHANGED_BLOCK,
                    "only the changed blocks: {blocks:?}"
                );
                io.write(path.clone(), cells, blocks).unwrap();
                io.finish().unwrap();
                applied.unwrap()
            });
            let plain: Vec<AtomicU32> = before.iter().map(|&c| AtomicU32::new(c)).collect();
            let want = apply_batches(&plain, &[&msgs], 4).unwrap();
            assert_eq!(got, want, "{width:?}");
            let file = std::fs::read(&path).unwrap();
            let want_cells: Vec<u32> = plain.iter().map(|c| c.load(Ordering::Relaxed)).collect();
            assert_eq!(file, stored(&want_cells), "{width:?}");
            assert!(want_cells.iter().any(|&c| cell::tag(c) == LOSS));
            // A file shorter than its range is an error, not cells made up.
            let short = dir.path().join("short");
            std::fs::write(&short, [0u8; 40]).unwrap();
            std::thread::scope(|s| {
                let mut io = CellsIo::start(s, width).unwrap();
                io.read(short.clone(), len).unwrap();
                assert!(io.take().is_err());
            });
        }
    }
}
