//! A tier's checkpoints: committing its logs and cell slots, and letting go of what no
//! checkpoint names any more; and the cell slots' rule that the checkpointed slot of a range
//! is never changed. In a tier of one range a copy is changed; out of core the checkpoints
//! name packed cells ([`crate::tier::packed`]), written afresh into the other packed slot for
//! each range changed since the last one, and the plain cells are changed in place.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::tier::blocksink::cell_log;
use crate::tier::checkpoint::{Checkpoints, Phase, SlotRecord};
use crate::tier::held::HeldCells;
use crate::tier::{packed, Job};
use crate::work::{remove_file_if_present, LogName, Slot, WorkFile};
use bawo_games::error::{Error, Result};
use bawo_games::game::Game;
use bawo_store::append::AppendLog;
use bawo_store::bytes::file_checksum;
use bawo_store::syncs::each_in_parallel;
use bawo_store::Checksum;

/// The thread of [`Job::start_settling`]: each range's cells with their checksum.
pub(crate) type Settling = std::thread::JoinHandle<Result<Vec<(usize, Checksum)>>>;

impl<G: Game> Job<'_, G> {
    /// Commits every log and cell slot and saves the manifest; its time counts in the
    /// tier's timings.
    pub(super) fn checkpoint(&mut self, ckpt: &mut Checkpoints<'_>) -> Result<()> {
        let t = Instant::now();
        let taken = self.checkpoint_now(ckpt);
        self.count_checkpoint(t, 1);
        taken
    }

    /// Adds the time since `t` and `taken` checkpoints to the current phase's.
    pub(super) fn count_checkpoint(&mut self, t: Instant, taken: u32) {
        let phase = &mut self.timings.checkpoints[self.st.phase as usize];
        phase.0 += taken;
        phase.1 += t.elapsed();
    }

    fn checkpoint_now(&mut self, ckpt: &mut Checkpoints<'_>) -> Result<()> {
        // Every log with bytes since the last checkpoint is synced; out of core there are
        // hundreds (a due log per level and range), synced side by side.
        let mut to_commit: Vec<(LogName, &AppendLog)> = Vec::new();
        if self.st.phase == Phase::Successors {
            for (r, log) in self.cell_logs.iter().enumerate() {
                if let Some(log) = log {
                    to_commit.push((cell_log(self.resident, r), log));
                }
            }
        }
        // Edge logs of ranges whose predecessor lists are built are not needed by this
        // checkpoint: they are deleted once it is saved.
        let needed_edges = match self.st.phase {
            Phase::Successors => 0,
            Phase::Predecessors => self.st.next as usize,
            Phase::Attractor => self.edge_logs.len(),
        };
        for (r, log) in self.edge_logs.iter().enumerate().skip(needed_edges) {
            to_commit.push((LogName::Edges(r), log));
        }
        for (&(l, r), log) in &self.due {
            to_commit.push((LogName::Due { level: l, range: r }, log));
        }
        let committed = each_in_parallel(&to_commit, |(_, log)| log.commit())?;
        let logs: BTreeMap<LogName, _> = to_commit
            .iter()
            .map(|(name, _)| *name)
            .zip(committed)
            .collect();
        self.st.logs = logs;
        for r in 0..self.ranges {
            let path = self.path(WorkFile::Preds(r));
            if let Some((p, written)) = &mut self.preds_mem[r] {
                if !*written {
                    let sum = p.write(&path, false)?;
                    if let Some(s) = self.st.preds.get_mut(r) {
                        *s = sum;
                    }
                    *written = true;
                    self.unsynced_preds.push(r);
                }
            }
        }
        let preds: Vec<_> = std::mem::take(&mut self.unsynced_preds)
            .into_iter()
            .map(|r| self.path(WorkFile::Preds(r)))
            .collect();
        each_in_parallel(&preds, |path| sync_file(path))?;
        if self.st.phase >= Phase::Predecessors {
            self.settle_ahead()?;
            let dirty = self.dirty_cells();
            let sums = each_in_parallel(&dirty, |(_, path)| synced_checksum(path))?;
            for ((r, _), checksum) in dirty.into_iter().zip(sums) {
                self.settle_cells(r, checksum);
            }
            bawo_store::sync_dir(&self.st.work)?;
        }
        // A range's plain cells are pinned unless the checkpoint names its packed ones.
        for r in 0..self.ranges {
            self.pinned[r] = !self.st.slots.get(r).is_some_and(|s| s.packed);
        }
        ckpt.save(Some(self.st.clone()))?;
        // What the saved checkpoint no longer names, and no earlier one will be resumed from.
        // (Deleting a log twice is harmless: its file is gone, its handle holds nothing.)
        // The edge logs on a thread of their own ([`crate::work::deleter`]).
        let edges = self.edge_logs.iter().take(needed_edges);
        self.deleter.delete(edges.map(AppendLog::let_go))?;
        // A range's other cell slot is named by no checkpoint now (the next change copies
        // into it afresh), nor are the packed slots the checkpoint does not name.
        if self.st.phase >= Phase::Predecessors {
            for r in 0..self.ranges {
                let other = self.path(WorkFile::Cells {
                    range: r,
                    slot: self.slot[r].other(),
                });
                self.consumed.push(other);
                let rec = &self.st.slots[r];
                if rec.packed {
                    self.consumed.push(self.packed_path(r, rec.slot.other()));
                } else {
                    self.consumed.push(self.packed_path(r, Slot::A));
                    self.consumed.push(self.packed_path(r, Slot::B));
                }
            }
        }
        // Side by side: thousands of due logs at the attractor's last checkpoint, each
        // unlink waiting on the filesystem to free its blocks.
        each_in_parallel(&std::mem::take(&mut self.consumed), |p| {
            remove_file_if_present(p)
        })?;
        Ok(())
    }

    /// The ranges changed since the last checkpoint, with their current cells' files.
    fn dirty_cells(&self) -> Vec<(usize, PathBuf)> {
        (0..self.ranges)
            .filter(|&r| self.dirty[r])
            .map(|r| (r, self.current_cells_path(r)))
            .collect()
    }

    /// Records range `r`'s current cells, of `checksum`, as the next checkpoint's.
    fn settle_cells(&mut self, r: usize, checksum: Checksum) {
        self.st.slots[r] = SlotRecord {
            slot: self.packed_now[r].unwrap_or(self.slot[r]),
            checksum,
            packed: self.packed_now[r].is_some(),
        };
        self.dirty[r] = false;
    }

    /// Out of core, starts the first checkpoint of the predecessor phase on a thread of its
    /// own: the successor pass's due logs synced, and every range's cells (all changed by
    /// the pass, none changed until the attractor) synced and checksummed. Done by the
    /// checkpoint itself, this kept the workers idle: on n = 4, 18 seeds under `--mem 4G`,
    /// 0.45 s at half a core of a 9.7 s phase. The checkpoint takes the checksums
    /// ([`Job::settle_ahead`]); its own syncs of the logs then find them clean.
    pub(super) fn start_settling(&mut self) {
        let cells = self.dirty_cells();
        if self.resident || cells.is_empty() {
            return;
        }
        let logs: Vec<PathBuf> = (self.due.values())
            .filter(|log| log.has_file())
            .map(|log| log.path().to_path_buf())
            .collect();
        // Joined by the next checkpoint; a run that stops first leaves it to end by itself
        // (it only reads and syncs the files). Without a thread the checkpoint does it.
        self.settling = std::thread::Builder::new()
            .name("cells-sums".to_string())
            .spawn(move || {
                each_in_parallel(&logs, |path| sync_file(path))?;
                let sums = each_in_parallel(&cells, |(_, path)| synced_checksum(path))?;
                Ok(cells.into_iter().map(|(r, _)| r).zip(sums).collect())
            })
            .ok();
    }

    /// Takes the checksums [`Job::start_settling`] started, if any.
    pub(super) fn settle_ahead(&mut self) -> Result<()> {
        let Some(thread) = self.settling.take() else {
            return Ok(());
        };
        let sums = thread
            .join()
            .map_err(|_| Error::Internal("the cells' checksums panicked".to_string()))??;
        for (r, checksum) in sums {
            self.settle_cells(r, checksum);
        }
        Ok(())
    }

    /// Copies a checkpointed slot before its first change.
    pub(super) fn unpin(&mut self, r: usize) -> Result<()> {
        if self.pinned[r] {
            let from = self.cells_path(r);
            self.slot[r] = self.slot[r].other();
            let to = self.cells_path(r);
            std::fs::copy(&from, &to).map_err(|e| Error::io(&to, e))?;
            self.pinned[r] = false;
        }
        self.dirty[r] = true;
        Ok(())
    }

    /// Packs the ranges changed since the last checkpoint, for the next one to name: the
    /// held ranges' cells from memory and, with `plain_too`, the others' from their plain
    /// files (those left are synced plain by the checkpoint). Each goes into the packed slot
    /// the last checkpoint does not name, and is synced.
    pub(super) fn pack_dirty(&mut self, held: &HeldCells, plain_too: bool) -> Result<()> {
        let t = Instant::now();
        let packed = self.pack_dirty_now(held, plain_too);
        self.count_checkpoint(t, 0);
        packed
    }

    fn pack_dirty_now(&mut self, held: &HeldCells, plain_too: bool) -> Result<()> {
        // The changed ranges left plain are synced by the checkpoint after: their write-back
        // starts now, so that the disk takes them while the cores pack (their syncs took
        // 0.07 s after the packing on n = 4's 18-seed tier).
        for r in (0..self.ranges).filter(|&r| self.dirty[r] && !plain_too && !held.holds(r)) {
            start_writeback_at(&self.current_cells_path(r));
        }
        let todo: Vec<(usize, Slot, PathBuf)> = (0..self.ranges)
            .filter(|&r| self.dirty[r] && (plain_too || held.holds(r)))
            .map(|r| {
                let rec = &self.st.slots[r];
                let slot = if rec.packed {
                    rec.slot.other()
                } else {
                    Slot::A
                };
                (r, slot, self.packed_path(r, slot))
            })
            .collect();
        let sums = todo
            .par_iter()
            .map(|(r, _, to)| {
                let sum = match held.words(*r) {
                    Some(words) => packed::pack_words(words, to),
                    None => packed::pack_file(&self.cells_path(*r), to, self.width),
                }?;
                // Synced below, once all are packed: written back meanwhile.
                start_writeback_at(to);
                Ok(sum)
            })
            .collect::<Result<Vec<_>>>()?;
        each_in_parallel(&todo, |(_, _, to)| sync_file(to))?;
        for (&(r, slot, _), checksum) in todo.iter().zip(sums) {
            self.st.slots[r] = SlotRecord {
                slot,
                checksum,
                packed: true,
            };
            self.dirty[r] = false;
        }
        Ok(())
    }

    /// Out of core, the attractor's cells: as many ranges as `held_bytes` holds read into
    /// memory (in order, while they fit), the others unpacked into their plain files where
    /// they are packed. A held range's plain file, if it has one the checkpoint does not
    /// name, goes: its cells live in memory and in their packed slot.
    pub(super) fn open_cells(&mut self, held_bytes: u64) -> Result<HeldCells> {
        let lens: Vec<usize> = (0..self.ranges).map(|r| self.range_len(r)).collect();
        let held = HeldCells::load(&lens, held_bytes, self.width, |r, cells| {
            match self.packed_now[r] {
                Some(s) => packed::unpack_into(&self.packed_path(r, s), cells),
                None => HeldCells::read_file(&self.cells_path(r), cells),
            }
        })?;
        let unpack: Vec<(usize, Slot)> = (0..self.ranges)
            .filter(|&r| !held.holds(r))
            .filter_map(|r| self.packed_now[r].map(|s| (r, s)))
            .collect();
        unpack
            .par_iter()
            .map(|&(r, s)| {
                let (from, to) = (self.packed_path(r, s), self.cells_path(r));
                packed::unpack_file(&from, &to, lens[r], self.width)
            })
            .collect::<Result<Vec<()>>>()?;
        for r in 0..self.ranges {
            if self.packed_now[r].take().is_some() {
                // The plain cells are not the checkpoint's: they are changed in place.
                self.pinned[r] = false;
                if held.holds(r) {
                    remove_file_if_present(&self.cells_path(r))?;
                }
            }
        }
        Ok(held)
    }
}

/// Syncs a file, then checksums it.
fn synced_checksum(path: &Path) -> Result<Checksum> {
    sync_file(path)?;
    file_checksum(path)
}

/// Asks the kernel to start writing the file at `path` back (advice only: a file that cannot
/// be opened is left to the sync that follows, which reports it).
fn start_writeback_at(path: &Path) {
    if let Ok(f) = bawo_store::open_no_follow().read(true).open(path) {
        bawo_store::syncs::start_writeback(&f);
    }
}

/// Syncs a file's data and metadata.
fn sync_file(path: &Path) -> Result<()> {
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    f.sync_all().map_err(|e| Error::io(path, e))
}
