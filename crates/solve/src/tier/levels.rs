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
use bawo_store::syncs::each_in_parallel;

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

/// The order a level's ranges are applied in: each range whose cells are read into memory
/// (`dense`, [`CellsIo`]) after a share of the other ranges' messages (`touched`), so that
/// its read overlaps with their work. In range order the workers waited for each such read
/// wherever the ranges before it had few messages: on Kigogo's 8-seed tier under `--mem 4G`,
/// 10 s of its 155 s attractor with a core idle, 2 s in this order. Every range is applied
/// once whatever the order, and a range's due positions go to its own logs only, so the
/// files are the same.
fn apply_order(dense: &[bool], touched: &[usize]) -> Vec<usize> {
    let reads: Vec<usize> = (0..dense.len()).filter(|&r| dense[r]).collect();
    let others: Vec<usize> = (0..dense.len()).filter(|&r| !dense[r]).collect();
    // A share before each read, and one after the last (its write-back).
    let work: usize = others.iter().map(|&r| touched[r]).sum();
    let share = work / (reads.len() + 1);
    let mut order = Vec::with_capacity(dense.len());
    let mut rest = others.into_iter();
    let (mut before, mut due) = (0, 0);
    for read in reads {
        due += share;
        while before < due {
            let Some(r) = rest.next() else { break };
            before += touched[r];
            order.push(r);
        }
        order.push(read);
    }
    order.extend(rest);
    order
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
            // ([`CellsIo`]), the next such range read while the ranges before it in
            // [`apply_order`] are applied.
            let touched: Vec<usize> = (0..self.ranges)
                .map(|r| match msgs.count(r) {
                    0 => direct.iter().map(Vec::len).sum(),
                    n => n,
                })
                .collect();
            let dense: Vec<bool> = (0..self.ranges)
                .map(|r| {
                    !held.holds(r)
                        && !self.resident
                        && touched[r] * DENSE_ONE_IN >= self.range_len(r)
                })
                .collect();
            let order = apply_order(&dense, &touched);
            let mut dense_in_order = order.iter().copied().filter(|&r| dense[r]);
            std::thread::scope(|scope| -> Result<()> {
                let mut io = CellsIo::start(scope, self.width)?;
                let mut ahead = dense_in_order.next();
                if let Some(n) = ahead {
                    self.unpin(n)?;
                    io.read(self.cells_path(n), self.range_len(n))?;
                }
                for &r in &order {
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
                        ahead = dense_in_order.next();
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
                        let path = self.cells_path(r);
                        let cells =
                            cells_view(&mut held, &mut kept, r, &path, self.width, touched[r])?;
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
            let preds: Vec<PathBuf> = (0..self.ranges)
                .map(|r| self.path(WorkFile::Preds(r)))
                .collect();
            each_in_parallel(&preds, |p| remove_file_if_present(p))?;
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
    fn ranges_read_into_memory_are_applied_after_a_share_of_the_others() {
        // Ranges 1 and 4 are read.
        let dense = [false, true, false, false, true, false, false];
        // 120 messages to the others: 40 before the first read, 80 before the second.
        let touched = [30, 500, 0, 30, 500, 30, 30];
        assert_eq!(apply_order(&dense, &touched), vec![0, 2, 3, 1, 5, 4, 6]);
        // One range has them all: it goes before the first read.
        let touched = [0, 500, 0, 0, 500, 90, 0];
        assert_eq!(apply_order(&dense, &touched), vec![0, 2, 3, 5, 1, 4, 6]);
        // Nothing to work on meanwhile: the reads come first.
        let touched = [0, 500, 0, 0, 500, 0, 0];
        assert_eq!(apply_order(&dense, &touched), vec![1, 4, 0, 2, 3, 5, 6]);
        // Nothing read: range order.
        assert_eq!(apply_order(&[false; 3], &[5, 0, 5]), vec![0, 1, 2]);
        // Every range once, the reads in range order, whatever the counts.
        for seed in 0..50usize {
            let dense: Vec<bool> = (0..20).map(|r| (r * 7 + seed) % 5 == 0).collect();
            let touched: Vec<usize> = (0..20).map(|r| (r * 13 + seed * 3) % 11).collect();
            let order = apply_order(&dense, &touched);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..20).collect::<Vec<_>>());
            let reads: Vec<usize> = order.iter().copied().filter(|&r| dense[r]).collect();
            assert!(reads.windows(2).all(|w| w[0] < w[1]));
        }
        assert!(apply_order(&[], &[]).is_empty());
    }

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
