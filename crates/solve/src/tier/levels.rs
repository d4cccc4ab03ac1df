//! The attractor's loop for [`crate::tier`], level by level: each level's messages emitted
//! ([`crate::tier::emit_level`]) and applied range by range, the due logs it read left for
//! the next checkpoint to delete, and the checkpoints taken between levels.

use std::path::PathBuf;

use memmap2::MmapMut;

use crate::tier::attractor::apply_batches;
use crate::tier::checkpoint::Checkpoints;
use crate::tier::held::cells_view;
use crate::tier::{Job, TierProgress};
use crate::work::{remove_file_if_present, WorkFile};
use bawo_games::error::{Error, Result};
use bawo_games::game::Game;

impl<G: Game> Job<'_, G> {
    /// Whether any position is due at level `from` or later.
    fn levels_left(&self, from: u32) -> bool {
        self.due.range((from, 0)..).any(|(_, log)| !log.is_empty())
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
        progress.phase("attractor", 0, 0);
        let mut decided: u64 = 0;
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
            self.note_disk(0);
            // Step 2: apply them, range by range.
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
                if held.holds(r) {
                    // Held cells are never the checkpointed slot: no copy before changing.
                    self.dirty[r] = true;
                } else {
                    self.unpin(r)?;
                }
                let touched = batches.iter().map(|b| b.len()).sum();
                let cells = cells_view(&mut held, &mut kept, r, &self.cells_path(r), touched)?;
                let newly = apply_batches(cells, &batches, level)
                    .map_err(|_| Error::DepthOverflow { tier: self.tier })?;
                if !self.resident {
                    kept = None;
                }
                self.block_sink().queue_batches(r, &newly)?;
            }
            msgs.cleanup();
            // This level's due logs are read: their files go with the next checkpoint.
            let done: Vec<(u32, usize)> = self
                .due
                .range((level, 0)..=(level, usize::MAX))
                .map(|(&k, _)| k)
                .collect();
            for k in done {
                if let Some(log) = self.due.remove(&k) {
                    self.consumed.push(log.path().to_path_buf());
                }
            }
            level += 1;
            self.st.next = level as u64;
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
