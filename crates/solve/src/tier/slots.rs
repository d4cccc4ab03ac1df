//! A tier's checkpoints: committing its logs and cell slots, and letting go of what no
//! checkpoint names any more; and the cell slots' rule that the checkpointed slot of a range
//! is never changed (a copy is changed, or cells held in memory are written to the other slot).

use std::collections::BTreeMap;
use std::fs::File;

use crate::tier::checkpoint::{Checkpoints, Phase, SlotRecord};
use crate::tier::held::HeldCells;
use crate::tier::Job;
use crate::work::{remove_file_if_present, LogName, WorkFile};
use bawo_games::error::{Error, Result};
use bawo_games::game::Game;
use bawo_store::append::AppendLog;
use bawo_store::bytes::file_checksum;
use bawo_store::syncs::each_in_parallel;

impl<G: Game> Job<'_, G> {
    /// Commits every log and cell slot and saves the manifest.
    pub(super) fn checkpoint(&mut self, ckpt: &mut Checkpoints<'_>) -> Result<()> {
        // Every log with bytes since the last checkpoint is synced; out of core there are
        // hundreds (a due log per level and range), synced side by side.
        let mut to_commit: Vec<(LogName, &AppendLog)> = Vec::new();
        if self.st.phase == Phase::Successors {
            for (r, log) in self.cell_logs.iter().enumerate() {
                if let Some(log) = log {
                    to_commit.push((LogName::Cells(r), log));
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
            let dirty: Vec<(usize, std::path::PathBuf)> = (0..self.ranges)
                .filter(|&r| self.dirty[r])
                .map(|r| (r, self.cells_path(r)))
                .collect();
            let sums = each_in_parallel(&dirty, |(_, path)| {
                sync_file(path)?;
                file_checksum(path)
            })?;
            for ((r, _), checksum) in dirty.into_iter().zip(sums) {
                self.st.slots[r] = SlotRecord {
                    slot: self.slot[r],
                    checksum,
                };
                self.dirty[r] = false;
            }
            bawo_store::sync_dir(&self.st.work)?;
        }
        self.pinned.iter_mut().for_each(|p| *p = true);
        ckpt.save(Some(self.st.clone()))?;
        // What the saved checkpoint no longer names, and no earlier one will be resumed from.
        // (Deleting a log twice is harmless: its file is gone, its handle holds nothing.)
        for log in self.edge_logs.iter().take(needed_edges) {
            log.discard()?;
        }
        // A range's other cell slot is named by no checkpoint now (the next change copies
        // into it afresh).
        if self.st.phase >= Phase::Predecessors {
            for r in 0..self.ranges {
                let other = self.path(WorkFile::Cells {
                    range: r,
                    slot: self.slot[r].other(),
                });
                self.consumed.push(other);
            }
        }
        for path in std::mem::take(&mut self.consumed) {
            remove_file_if_present(&path)?;
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

    /// Writes the held ranges changed since the last checkpoint into their other slot (the
    /// checkpointed one is never changed), which becomes their current one.
    pub(super) fn write_held(&mut self, held: &mut HeldCells) -> Result<()> {
        for r in 0..self.ranges {
            if !held.holds(r) || !self.dirty[r] {
                continue;
            }
            self.slot[r] = self.slot[r].other();
            held.write(r, &self.cells_path(r))?;
        }
        Ok(())
    }
}

/// Syncs a file's data and metadata.
fn sync_file(path: &std::path::Path) -> Result<()> {
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    f.sync_all().map_err(|e| Error::io(path, e))
}
