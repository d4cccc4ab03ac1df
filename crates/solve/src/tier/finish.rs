//! A solved tier's finish: its cells become the raw table, its don't-care flags the file
//! beside it, and its counts are taken on the way.

use std::path::Path;

use crate::counts::{TierCounts, WorkDisk};
use crate::flags::{flags_path_beside, FlagWriter};
use crate::plan::disk::DiskGauge;
use crate::tier::cells::{CellBuf, Words};
use crate::tier::{packed, Job, TierProgress};
use crate::work::remove_file_if_present;
use bawo_games::error::{Error, Result};
use bawo_games::game::Game;
use bawo_store::bytes::map_ro;
use bawo_store::table;

impl<G: Game> Job<'_, G> {
    /// Writes the table and the flags, range by range, and counts the tier.
    pub(super) fn finish(
        &mut self,
        table_path: &Path,
        fingerprint: u64,
        progress: &dyn TierProgress,
    ) -> Result<(TierCounts, table::TableHeader, u64)> {
        let mut counts = TierCounts {
            seeds: self.game.tier_seeds(self.tier),
            ..Default::default()
        };
        // The pass's don't-care flags go beside the table (`crate::flags`).
        let mut flags = FlagWriter::create(&flags_path_beside(table_path))?;
        // The table is written on a thread of its own, a range behind: writing a range's
        // entries (copying them into the page cache, hashing them) took a core for a third
        // of the finish while the other waited, and now overlaps with the next range's
        // entries. A range at a time is handed over, so at most two ranges' entries are held.
        let (states, tier) = (self.st.states, self.tier);
        let (peak, (header, bytes)) = std::thread::scope(|scope| -> Result<_> {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u16>>(0);
            let writer = std::thread::Builder::new()
                .name(format!("table-{tier}"))
                .spawn_scoped(scope, move || {
                    table::write_table_streaming(table_path, tier, states, fingerprint, |put| {
                        rx.iter().try_for_each(|entries| put(&entries))
                    })
                })
                .map_err(|e| Error::Internal(format!("cannot start the table's writer: {e}")))?;
            let made = self.finish_ranges(&tx, &mut counts, &mut flags, progress);
            // A range's failure is reported first (the writer then only sees the pieces end
            // early); the writer's (a full disk) stops the ranges at their next send.
            drop(tx);
            let written = writer
                .join()
                .map_err(|_| Error::Internal("the table's writer panicked".to_string()))?;
            Ok((made?, written?))
        })?;
        flags.finish()?;
        self.keep_peak(peak);
        Ok((counts, header, bytes))
    }

    /// Each range's final entries, counted and sent to the table's writer (`tx`), and its
    /// flags pushed; returns the disk at its largest while the table grew and copies went
    /// (see below).
    fn finish_ranges(
        &self,
        tx: &std::sync::mpsc::SyncSender<Vec<u16>>,
        counts: &mut TierCounts,
        flags: &mut FlagWriter,
        progress: &dyn TierProgress,
    ) -> Result<WorkDisk> {
        let mut peak = WorkDisk::default();
        let mut gauge = DiskGauge::default();
        let mut table_bytes = table::HEADER as u64;
        for r in 0..self.ranges {
            let path = self.cells_path(r);
            let held = self.held.words(r);
            // The next range's plain cells are read from the disk meanwhile.
            self.read_ahead(r + 1);
            {
                let (map, unpacked);
                let cells: Words<'_> = match (held, self.packed_now[r]) {
                    (Some(c), _) => c,
                    // Resumed after the attractor with this range's cells packed.
                    (None, Some(slot)) => {
                        let mut v = CellBuf::zeroed(self.width, self.range_len(r));
                        packed::unpack_into(&self.packed_path(r, slot), &mut v)?;
                        unpacked = v;
                        unpacked.words()
                    }
                    (None, None) => {
                        map = map_ro(&path)?
                            .ok_or_else(|| Error::corrupt(&path, "empty cell file"))?;
                        Words::of_bytes(&path, &map, self.width)?
                    }
                };
                if cells.len() != self.range_len(r) {
                    return Err(Error::corrupt(&path, "cell file has the wrong length"));
                }
                let entries = cells.final_entries();
                counts.add(&entries);
                table_bytes += 2 * entries.len() as u64;
                if tx.send(entries).is_err() {
                    // The writer stopped; it says why.
                    return Ok(peak);
                }
                cells.each_wide(|wide| flags.push(wide))?;
            }
            if let Some(mut now) = gauge.sample(&self.st.work) {
                now.table = table_bytes;
                if now.total() >= peak.total() {
                    peak = now;
                }
            }
            // A range changed since the last checkpoint lives in a copy, not in the slot
            // that checkpoint names, and a range checkpointed packed in plain cells no
            // checkpoint names: once its entries are made, no resume needs them (a run
            // killed now redoes the attractor from the checkpointed slots), so the table
            // takes their place as it grows.
            let copy = held.is_none()
                && self
                    .st
                    .slots
                    .get(r)
                    .is_some_and(|s| s.packed || s.slot != self.slot[r]);
            if copy {
                remove_file_if_present(&path)?;
            }
            progress.advance(1);
        }
        Ok(peak)
    }

    /// Asks the kernel to read range `r`'s plain cells ahead, where the finish will map them
    /// (neither held in memory nor packed).
    fn read_ahead(&self, r: usize) {
        if r >= self.ranges || self.held.words(r).is_some() || self.packed_now[r].is_some() {
            return;
        }
        let opened = bawo_store::open_no_follow()
            .read(true)
            .open(self.cells_path(r));
        if let Ok(f) = opened {
            bawo_store::syncs::read_ahead(&f);
        }
    }
}
