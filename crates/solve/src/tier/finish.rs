//! A solved tier's finish: its cells become the raw table, its don't-care flags the file
//! beside it, and its counts are taken on the way.

use std::path::Path;
use std::sync::mpsc::sync_channel;

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
use bawo_store::table_in_place::{Piece, Sealer, TableInPlace};

/// Bytes of a range's entries from which the finish writes them in place. Measured: n = 4,
/// 17 seeds under `--mem 4G` (ranges of 134 MB of entries) finished in 1.7-2.0 s in place
/// against 2.4-2.8 s streamed; n = 4, 18 seeds (33.5 MB) in 3.1-3.6 s against 5.0-5.7 s;
/// Kigogo 7 under `--mem 600M` (169 ranges of 0.6 MB) in 1.4 s against 0.6-0.8 s, each
/// piece's pages costing tens of microseconds to map and fault in.
const IN_PLACE_FROM: u64 = 8 << 20;

/// Makes a range's entries and flags and puts them in the table and the flags file, giving
/// the entries' counts; `None` where the table's writer stopped (it says why).
type FillRange<'f> = dyn FnMut(&Words<'_>) -> Result<Option<TierCounts>> + 'f;

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
        let (states, tier) = (self.st.states, self.tier);
        // Ranges of large entries are written by the workers straight into the table's file
        // ([`TableInPlace`]); small ones, or where the filesystem cannot reserve blocks, are
        // streamed.
        let from = bawo_store::fault::in_place_from().unwrap_or(IN_PLACE_FROM);
        let in_place = if 2 * self.range_len(0) as u64 >= from {
            TableInPlace::create(table_path, tier, states, fingerprint)?
        } else {
            None
        };
        let (peak, (header, bytes)) = match in_place {
            Some(table) => self.finish_in_place(table, &mut counts, &mut flags, progress)?,
            None => {
                self.finish_streamed(table_path, fingerprint, &mut counts, &mut flags, progress)?
            }
        };
        flags.finish()?;
        self.keep_peak(peak);
        Ok((counts, header, bytes))
    }

    /// [`Job::finish`]'s table written in place: the workers fill each range's piece of the
    /// table through its map, and a thread of its own seals it (hashes it in order, unmaps it,
    /// starts its write-back) and writes its flags, a range behind. Done between two ranges
    /// on the driving thread, with the workers idle, that work made the finish of n = 4's
    /// 18-seed tier a fifth longer (3.97 s against 3.29 s). At most two ranges' pieces are
    /// mapped at a time.
    fn finish_in_place(
        &self,
        mut table: TableInPlace,
        counts: &mut TierCounts,
        flags: &mut FlagWriter,
        progress: &dyn TierProgress,
    ) -> Result<(WorkDisk, (table::TableHeader, u64))> {
        let mut sealer = table.sealer()?;
        std::thread::scope(|scope| -> Result<_> {
            // A range's piece and its flag bytes.
            let (tx, rx) = sync_channel::<(Piece, Vec<u8>)>(0);
            let (give_back, used) = sync_channel::<Vec<u8>>(1);
            let sealing = std::thread::Builder::new()
                .name(format!("table-{}", self.tier))
                .spawn_scoped(scope, move || -> Result<Sealer> {
                    for (piece, flag_bytes) in rx {
                        let positions = piece.len() as u64;
                        sealer.seal(piece);
                        flags.push_bytes(&flag_bytes, positions)?;
                        let _ = give_back.try_send(flag_bytes);
                    }
                    Ok(sealer)
                })
                .map_err(|e| Error::Internal(format!("cannot start the table's sealer: {e}")))?;
            let mut fill = |cells: &Words<'_>| {
                let mut piece = table.map_next(cells.len())?;
                let flag_bytes = used.try_recv().unwrap_or_default();
                let made = cells.finished_into(piece.entries()?, flag_bytes);
                // A closed channel: the sealer stopped, and says why.
                Ok(tx.send((piece, made.flags)).is_ok().then_some(made.counts))
            };
            let made = self.finish_ranges(&mut fill, counts, progress);
            drop(tx);
            let sealed = sealing
                .join()
                .map_err(|_| Error::Internal("the table's sealer panicked".to_string()))?;
            let peak = made?;
            Ok((peak, table.finish(sealed?)?))
        })
    }

    /// [`Job::finish`]'s table streamed: written on a thread of its own, a range behind, so
    /// that writing a range's entries overlaps with the next range's. The flags go the same
    /// way, so that the driving thread writes nothing between two ranges. A range at a time
    /// is handed over, so at most two ranges' entries are held; each buffer comes back for
    /// the range after next (a fresh one is fresh pages, which the kernel zeroes at first
    /// touch).
    fn finish_streamed(
        &self,
        table_path: &Path,
        fingerprint: u64,
        counts: &mut TierCounts,
        flags: &mut FlagWriter,
        progress: &dyn TierProgress,
    ) -> Result<(WorkDisk, (table::TableHeader, u64))> {
        let (states, tier) = (self.st.states, self.tier);
        std::thread::scope(|scope| -> Result<_> {
            // A range's entries and its flag bytes.
            let (tx, rx) = sync_channel::<(Vec<u16>, Vec<u8>)>(0);
            let (give_back, used) = sync_channel::<(Vec<u16>, Vec<u8>)>(1);
            let writer = std::thread::Builder::new()
                .name(format!("table-{tier}"))
                .spawn_scoped(scope, move || {
                    table::write_table_streaming(table_path, tier, states, fingerprint, |put| {
                        rx.iter().try_for_each(|(entries, flag_bytes)| {
                            put(&entries)?;
                            flags.push_bytes(&flag_bytes, entries.len() as u64)?;
                            let _ = give_back.try_send((entries, flag_bytes));
                            Ok(())
                        })
                    })
                })
                .map_err(|e| Error::Internal(format!("cannot start the table's writer: {e}")))?;
            let mut fill = |cells: &Words<'_>| {
                let (mut entries, flag_bytes) = used.try_recv().unwrap_or_default();
                entries.resize(cells.len(), 0);
                let made = cells.finished_into(&mut entries, flag_bytes);
                // A closed channel: the writer stopped, and says why.
                Ok(tx
                    .send((entries, made.flags))
                    .is_ok()
                    .then_some(made.counts))
            };
            let made = self.finish_ranges(&mut fill, counts, progress);
            // A range's failure is reported first (the writer then only sees the pieces end
            // early); the writer's (a full disk) stops the ranges at their next send.
            drop(tx);
            let written = writer
                .join()
                .map_err(|_| Error::Internal("the table's writer panicked".to_string()))?;
            Ok((made?, written?))
        })
    }

    /// Each range's final entries and flags made and put in the table and the flags file by
    /// `fill` (which gives `None` where the table's writer stopped), and counted; returns the
    /// disk at its largest while the table grew and copies went (see below).
    fn finish_ranges(
        &self,
        fill: &mut FillRange<'_>,
        counts: &mut TierCounts,
        progress: &dyn TierProgress,
    ) -> Result<WorkDisk> {
        let mut peak = WorkDisk::default();
        let mut gauge = DiskGauge::<()>::default();
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
                let Some(made) = fill(&cells)? else {
                    return Ok(peak);
                };
                counts.merge(&made);
                table_bytes += 2 * cells.len() as u64;
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
