//! The solver's disk, modelled and checked: what each tier's work files, table and
//! compressed file take and write (the figures `--dry-run` prints, [`crate::run::estimate`]), and
//! the free disk checked against them before a solve starts: a run that cannot fit would fail
//! hours in, with a full disk, so it is refused at once (unless `--no-disk-check`).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::counts::WorkDisk;
use crate::plan::budget::{MemoryPlan, TierPlan, EDGE_MARGIN};
use crate::plan::shape::TierShape;
use bawo_games::error::{Error, Result};
use bawo_games::units::human_bytes;

/// Bytes per position of a finished tier's raw table (a 16-bit entry each).
const TABLE_BYTES: f64 = 2.0;
/// Bytes per position of a compressed `.bdb` tier: about 1.3 bits on Bawo, with a margin.
const BDB_BYTES: f64 = 0.25;
/// A tier that is one range keeps edges, predecessor lists and due logs in memory: its work
/// files are the cells (4 bytes per position), written once.
const RESIDENT_WORK_BYTES: f64 = 4.0;
/// Out of core, the successor pass's cells packed ([`crate::tier::packed`]; Bawo `n = 4`, 15
/// seeds: 0.22 bytes per stored position), with a margin.
const PACKED_PASS_BYTES: f64 = 0.3;
/// A packed slot of the attractor's cells (the same tier: up to 0.37 bytes per stored
/// position in the middle of the attractor), with a margin. A checkpoint writes the new slot
/// before the old one goes, so the attractor's disk counts it beside the successor pass's.
const PACKED_BYTES: f64 = 0.4;
/// Due logs: positions queued for the attractor's levels, as sorted varint gaps
/// ([`crate::work::duelog`]; at the peak of Bawo `n = 4`, early in the largest tier's
/// attractor, 0.72 bytes per stored position with 15 seeds under `--mem 512M`, 1.06 with 18
/// under `--mem 4G`. Most positions are queued once, and the logs of finished levels are
/// deleted as checkpoints pass them).
const DUE_BYTES: f64 = 1.0;
/// An in-tier edge in its log ([`crate::work::edgelog`]): a varint of its source's step and its
/// target's offset (measured: 4.5 bytes on Bawo `n = 4`).
const EDGE_LOG_BYTES: f64 = 4.5;
/// Where lists store keys that are places in lists of moved halves (a byte), the pieces go
/// in order of target ([`crate::work::edgelog`]): a varint of the step to the next target and
/// the key, 1.6 to 1.7 bytes an edge with the pieces' headers (measured: Bawo `n = 4`, 16
/// seeds, `--mem 1G`; Kigogo 7, `--mem 512M`), with a margin.
const EDGE_LOG_PLACE_BYTES: f64 = 1.8;
/// Where lists store wider keys, a piece goes by target only where that is smaller: the model
/// takes the order by source, where a key is a small number in the source's place, so the
/// step is nearly always 0 and the varint is the target's offset in its range alone: a number
/// spread evenly below `2^range_bits`, whose varint takes `1 + the sum over j >= 1 of
/// P(offset >= 2^(7j))` bytes, plus the pieces' headers and the steps between keys (a
/// hundredth of a byte an edge). Measured in that order: 2.98 bytes an edge at 2^21 (Bawo
/// `n = 4`, 15 seeds, `--mem 512M`), 3.75 at 2^23 (Kigogo 8), 3.85 at 2^24 (Bawo `n = 4`, 18
/// seeds); this gives 3.00, 3.76 and 3.88.
fn edge_log_key_bytes(range_bits: u32) -> f64 {
    let spread = 2f64.powi(range_bits as i32);
    let over = (1..=9)
        .map(|j| (1.0 - 2f64.powi(7 * j) / spread).max(0.0))
        .sum::<f64>();
    1.0 + over + 0.01
}

/// Out of core, the predecessor phase takes a checkpoint (which deletes the edge logs built
/// into lists) each time the built logs reach `1/LOG_SHARE_PER_CHECKPOINT` of the tier's: the edge
/// logs are the largest work files at that phase's start, and the logs built but not yet
/// deleted add this share to the tier's peak disk. A checkpoint there syncs the new
/// predecessor files and the manifest (a few tenths of a second), so 32 of them cost little
/// and keep the extra share to 3%.
pub const LOG_SHARE_PER_CHECKPOINT: u64 = 32;
/// The share of a tier's in-tier edges whose targets one attractor level decides at most: the
/// busiest level's messages, spilled to disk beyond the plan's message budget
/// ([`crate::tier::messages`]). Measured: Bao mtaji 11 seeds decided a third of its
/// positions at level 1 (8.1 GB of messages spilled, four bytes each then); Bawo `n = 4`'s
/// 20-seed tier had 7% of its edges' messages on disk at its peak.
const BUSIEST_LEVEL: f64 = 1.0 / 3.0;
/// Bytes of a spilled message (sorted varint gaps; four in memory).
const SPILLED_MESSAGE_BYTES: f64 = 1.2;

/// Predecessor lists: offsets as list lengths in blocks ([`crate::work::predfile`]: three
/// quarters of a byte per position where no list is longer than 15, as in every range
/// measured of Bawo, Kigogo and Bao; a byte and a half where one is) and a source or key per
/// edge (3 to 5 bytes, [`crate::work::graph::list_source_bytes`]).
const PRED_OFFSET_BYTES: f64 = 0.78;

/// What one tier puts on disk, by the model.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TierDisk {
    /// Its work files at their largest.
    pub work: u64,
    /// Those work files by kind.
    pub kinds: WorkDisk,
    /// Bytes of the raw table.
    pub table: u64,
    /// Bytes of the raw table beside the work files at the tier's peak: the whole table in a
    /// tier of one range; out of core none when the attractor sets the peak, the whole table
    /// when the finish does (the plain cells it is written from, and the packed slots, are
    /// still there when it is done).
    pub table_at_peak: u64,
    /// Bytes of the compressed file.
    pub bdb: u64,
    /// Bytes it writes: work files (some more than once), table and compressed file.
    pub written: u64,
    /// Its work files at their largest while the successor pass's lower tiers may still be
    /// needed (the pass and the predecessor phase; a tier of one range: all of them).
    pub early: WorkDisk,
    /// Its work files at their largest after that (the attractor or the finish), with its
    /// raw table as far as it is there then (`table`).
    pub late: WorkDisk,
}

/// A tier's disk at its peak beside the tiers below, by the model.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TierPeak {
    /// Everything on disk at the peak: the tier's work files, raw table and compressed
    /// file, and the lower tiers' files still there.
    pub total: u64,
    /// The tier's work files then (`table`: its raw table).
    pub work: WorkDisk,
    /// Raw tables of the tiers below then.
    pub lower_tables: u64,
    /// The tier's own compressed file then (only at its end).
    pub bdb: u64,
}

/// The peak of tier `d` beside `lower_tables` bytes of raw tables and `lower_bdb` of
/// compressed files below: with `retires` ([`crate::tier::Lower::retiring`]) the raw tables
/// are gone after its predecessor phase. The tier's own compressed file is there only at its
/// end, written from its raw table once the work files are gone.
pub fn tier_peak(d: &TierDisk, lower_tables: u64, lower_bdb: u64, retires: bool) -> TierPeak {
    let late_tables = if retires { 0 } else { lower_tables };
    let early = TierPeak {
        total: lower_tables + lower_bdb + d.early.total(),
        work: d.early,
        lower_tables,
        bdb: 0,
    };
    let late = TierPeak {
        total: late_tables + lower_bdb + d.late.total(),
        work: d.late,
        lower_tables: late_tables,
        bdb: 0,
    };
    let compressing = TierPeak {
        total: late_tables + lower_bdb + d.table + d.bdb,
        work: WorkDisk {
            table: d.table,
            ..WorkDisk::default()
        },
        lower_tables: late_tables,
        bdb: d.bdb,
    };
    // The latest of equal moments, as `max_by_key` gives it.
    [early, late, compressing]
        .into_iter()
        .max_by_key(|p| p.total)
        .expect("three moments")
}

/// Bytes of a tier's predecessor lists per stored position (its offsets and its sources),
/// by the sample's edges without the memory plan's margin (see [`tier_disk`]).
pub fn pred_list_bytes(shape: &TierShape, tp: &TierPlan) -> f64 {
    let source = crate::work::graph::list_source_bytes(tp.wide, tp.keys) as f64;
    PRED_OFFSET_BYTES + source * shape.edges_per_position / EDGE_MARGIN
}

/// The model of one tier's disk: out of core its work files peak either when the
/// successor pass ends (packed cells, edge logs, due logs), while predecessor lists are built
/// (edge logs are deleted by checkpoints, a 32nd of them at a time, as the lists are
/// built), or early in the attractor (the plain cells of the ranges it does not hold, two
/// packed slots, predecessor lists, due logs). A tier that `retires` the lower tiers holds
/// more ranges' cells in memory in its attractor ([`TierPlan::held_cells`]).
pub fn tier_disk(shape: &TierShape, tp: &TierPlan, retires: bool, message_budget: u64) -> TierDisk {
    let stored = tp.states as f64;
    // The sample's edges per position, without the memory plan's margin: measured peaks
    // came 15% (Kigogo 8) to 16% (Bawo n = 4, 15 seeds) under a model with it, nearly all
    // of it in the predecessor lists.
    let e = shape.edges_per_position / EDGE_MARGIN;
    let per_stored = |cells: f64, packed: f64, edges: f64, preds: f64, due: f64| WorkDisk {
        cells: (cells * stored) as u64,
        packed: (packed * stored) as u64,
        edges: (edges * stored) as u64,
        preds: (preds * stored) as u64,
        due: (due * stored) as u64,
        messages: 0,
        table: 0,
    };
    let table = (TABLE_BYTES * stored) as u64;
    let with_table = |w: WorkDisk, share: f64| WorkDisk {
        table: (share * table as f64) as u64,
        ..w
    };
    let (kinds, written, table_share, early, late) = if tp.ranges == 1 {
        let all = per_stored(RESIDENT_WORK_BYTES, 0.0, 0.0, 0.0, 0.0);
        let with = with_table(all, 1.0);
        (all, RESIDENT_WORK_BYTES, 1.0, with, with)
    } else {
        let edges = match tp.keys {
            0 => EDGE_LOG_BYTES,
            1 => EDGE_LOG_PLACE_BYTES,
            _ => edge_log_key_bytes(tp.range_bits),
        } * e;
        let preds = pred_list_bytes(shape, tp);
        let at_successors = per_stored(0.0, PACKED_PASS_BYTES, edges, 0.0, DUE_BYTES);
        // The edge logs are deleted as the lists are built (up to a share of them wait for
        // the next checkpoint to delete them): the larger of the two, and that share.
        let waiting = edges / LOG_SHARE_PER_CHECKPOINT as f64;
        let at_predecessors = if preds >= edges {
            per_stored(0.0, PACKED_PASS_BYTES, waiting, preds, DUE_BYTES)
        } else {
            per_stored(0.0, PACKED_PASS_BYTES, edges + waiting, 0.0, DUE_BYTES)
        };
        // Plain cells for the ranges the attractor does not hold, and a packed slot a range:
        // the successor pass's, then a checkpoint's, the other going once the checkpoint
        // after it is taken (measured at the peak, early in the attractor: 0.22 bytes a
        // stored position on Bawo `n = 4`, 15 seeds, `--mem 512M`; 0.11 on Kigogo 8). Both
        // slots are written.
        let held = tp.held_share(retires);
        let cells = (1.0 - held) * tp.cell_bytes() as f64;
        let (packed, packed_written) = (
            PACKED_PASS_BYTES.max(PACKED_BYTES),
            PACKED_PASS_BYTES + PACKED_BYTES,
        );
        // The busiest level's messages beyond what memory holds go to disk: all that were held
        // at each spill, so all but those since the last one (half the budget's room, on
        // average, four bytes a message).
        let busiest = BUSIEST_LEVEL * e * stored;
        let room = message_budget as f64 / 4.0;
        let spilled = if busiest > room {
            (SPILLED_MESSAGE_BYTES * (busiest - room / 2.0)) as u64
        } else {
            0
        };
        let in_attractor = WorkDisk {
            messages: spilled,
            ..per_stored(cells, packed, 0.0, preds, DUE_BYTES)
        };
        let early = [at_successors, at_predecessors]
            .into_iter()
            .max_by_key(WorkDisk::total)
            .unwrap_or_default();
        let peak = [early, in_attractor]
            .into_iter()
            .max_by_key(WorkDisk::total)
            .unwrap_or_default();
        let cells_written = cells + packed_written;
        // Where the busiest level spills, most levels' messages do too, about one per edge.
        let messages_written = if spilled > 0 {
            SPILLED_MESSAGE_BYTES * e
        } else {
            0.0
        };
        let written = cells_written + edges + preds + DUE_BYTES + messages_written;
        // The finish: the table beside the cells, once the predecessor lists and due logs
        // are gone.
        let at_finish = per_stored(cells, packed, 0.0, 0.0, 0.0);
        let late = [in_attractor, with_table(at_finish, 1.0)]
            .into_iter()
            .max_by_key(WorkDisk::total)
            .unwrap_or_default();
        if at_finish.total() as f64 + TABLE_BYTES * stored > peak.total() as f64 {
            (at_finish, written, 1.0, early, late)
        } else {
            (peak, written, 0.0, early, late)
        }
    };
    let table_at_peak = (TABLE_BYTES * table_share * stored) as u64;
    let bdb = (BDB_BYTES * stored) as u64;
    TierDisk {
        work: kinds.total(),
        kinds,
        table,
        table_at_peak,
        bdb,
        written: (written * stored) as u64 + table + bdb,
        early,
        late,
    }
}

/// What the tiers still to solve (those `finished` says are not) need of free disk at their
/// peak: the finished tables and compressed files they add beside the largest work files.
pub fn disk_need(
    shapes: &[TierShape],
    plan: &MemoryPlan,
    finished: &dyn Fn(u32) -> bool,
    retires_last: bool,
) -> DiskNeed {
    let mut need = DiskNeed::default();
    let (mut tables, mut bdbs) = (0u64, 0u64);
    let last = plan.tiers.len().saturating_sub(1);
    for (i, (shape, tp)) in shapes.iter().zip(&plan.tiers).enumerate() {
        if finished(tp.tier) {
            continue;
        }
        let retires = retires_last && i == last && tp.ranges > 1;
        let d = tier_disk(shape, tp, retires, plan.messages);
        need.out = need.out.max(tier_peak(&d, tables, bdbs, retires).total);
        need.work = need.work.max(d.work);
        tables += d.table;
        bdbs += d.bdb;
    }
    need
}

/// Bytes free to an unprivileged writer on the filesystem holding `path` (or its nearest
/// existing folder), and that filesystem's device id; `None` where it cannot be asked.
pub fn free_space(path: &Path) -> Option<(u64, u64)> {
    let at = existing_ancestor(path)?;
    let dev = std::fs::metadata(&at).ok()?.dev();
    if let Some(free) = bawo_store::fault::free_disk() {
        return Some((free, dev));
    }
    let c = std::ffi::CString::new(at.as_os_str().as_encoded_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a writable statvfs.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some((st.f_bavail as u64 * st.f_frsize as u64, dev))
}

/// `path` itself, or the nearest folder above it that exists.
fn existing_ancestor(path: &Path) -> Option<PathBuf> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    abs.ancestors().find(|p| p.exists()).map(Path::to_path_buf)
}

/// What a run still has to put on disk, by the model: at its peak on the run directory's
/// filesystem (finished tables and compressed files beside the tier in progress), and at its
/// peak in the work folder (the largest tier's work files).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiskNeed {
    /// The run directory's files at their largest, work files included when they lie there.
    pub out: u64,
    /// The work files alone at their largest.
    pub work: u64,
}

/// Refuses a run whose need does not fit the free space of its run directory (`out`) and
/// work folder (`work`): one sum when both lie on one filesystem.
pub fn check(need: DiskNeed, out: &Path, work: &Path) -> Result<()> {
    let (Some((out_free, out_dev)), Some((work_free, work_dev))) =
        (free_space(out), free_space(work))
    else {
        return Ok(());
    };
    let refuse = |needed: u64, free: u64, where_: &Path| {
        Error::Limit(format!(
            "not enough free disk: the run needs about {} at its peak in {} and {} is free \
             there; free some space, put the work files on another disk with --tmp, or pass \
             --no-disk-check to start anyway",
            human_bytes(needed),
            where_.display(),
            human_bytes(free)
        ))
    };
    if out_dev == work_dev {
        let needed = need.out.max(need.work);
        if needed > out_free {
            return Err(refuse(needed, out_free, out));
        }
        return Ok(());
    }
    let tables = need.out.saturating_sub(need.work);
    if tables > out_free {
        return Err(refuse(tables, out_free, out));
    }
    if need.work > work_free {
        return Err(refuse(need.work, work_free, work));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_space_is_asked_of_the_nearest_existing_folder() {
        let d = tempfile::tempdir().unwrap();
        let (free, dev) = free_space(&d.path().join("not/yet/made")).unwrap();
        assert!(free > 0);
        assert_eq!(
            Some((free, dev)).map(|x| x.1),
            free_space(d.path()).map(|x| x.1)
        );
    }

    #[test]
    fn a_need_beyond_the_free_space_is_refused_and_one_within_it_passes() {
        let d = tempfile::tempdir().unwrap();
        let (free, _) = free_space(d.path()).unwrap();
        let small = DiskNeed { out: 1, work: 1 };
        assert!(check(small, d.path(), d.path()).is_ok());
        let huge = DiskNeed {
            out: free.saturating_mul(4).max(1 << 60),
            work: 1,
        };
        let e = check(huge, d.path(), &d.path().join("work")).unwrap_err();
        assert!(!e.is_input());
        assert!(e.to_string().contains("--no-disk-check"), "{e}");
    }

    fn out_of_core(states: u64, edges: f64) -> (TierShape, TierPlan) {
        let shape = TierShape {
            tier: 7,
            states,
            edges_per_position: edges,
            wide: false,
            keys: 0,
            key_table: 0,
            narrow_cells: false,
        };
        let tp = TierPlan {
            tier: 7,
            states,
            range_bits: 20,
            ranges: states >> 20,
            wide: false,
            keys: 0,
            narrow_cells: false,
            pass_share: 0,
            compress_beside: false,
            write_beside: false,
            attractor_cells: 0,
            lower_reserve: 0,
        };
        (shape, tp)
    }

    #[test]
    fn a_retiring_tier_peaks_without_the_lower_raw_tables_once_its_pass_is_over() {
        let (shape, tp) = out_of_core(64 << 20, 1.0);
        let d = tier_disk(&shape, &tp, false, u64::MAX);
        // The same bytes of work files as the phases' larger one, split by phase.
        assert_eq!(d.work, d.early.total().max(d.late.total() - d.late.table));
        let (tables, bdbs) = (10 * d.late.total(), 1000);
        let kept = tier_peak(&d, tables, bdbs, false);
        assert_eq!(
            kept.total,
            tables + bdbs + d.early.total().max(d.late.total())
        );
        assert_eq!(kept.lower_tables, tables);
        // Retired: the attractor's disk without the tables, unless the pass's with them is
        // larger (here it is: the tables are ten times the attractor's work files).
        let retired = tier_peak(&d, tables, bdbs, true);
        assert_eq!(retired.total, tables + bdbs + d.early.total());
        assert_eq!(retired.work, d.early);
        let few = tier_peak(&d, 1, bdbs, true);
        assert_eq!(few.total, bdbs + d.late.total());
        assert_eq!((few.work, few.lower_tables), (d.late, 0));
        assert!(few.total < tier_peak(&d, 1, bdbs, false).total);
        // The tier's compressed file is there only beside its raw table, once the work files
        // are gone: the peak where that is the most.
        let small = TierDisk {
            early: WorkDisk::default(),
            late: WorkDisk::default(),
            ..d
        };
        let end = tier_peak(&small, 0, bdbs, true);
        assert_eq!(end.total, bdbs + d.table + d.bdb);
        assert_eq!(end.work.table, d.table);
    }
    #[test]
    fn a_retiring_tier_keeps_fewer_plain_cells_where_its_held_cells_take_the_lower_share() {
        let (shape, mut tp) = out_of_core(64 << 20, 1.0);
        tp.attractor_cells = 64 << 20;
        tp.lower_reserve = 64 << 20;
        let kept = tier_disk(&shape, &tp, false, u64::MAX);
        let retired = tier_disk(&shape, &tp, true, u64::MAX);
        // A quarter of the cells held, then half: the plain cells of the rest, 4 bytes each.
        let plain = |held: f64, bytes: f64| ((1.0 - held) * bytes * (64 << 20) as f64) as u64;
        assert_eq!(kept.late.cells, plain(0.25, 4.0));
        assert_eq!(retired.late.cells, plain(0.5, 4.0));
        assert!(retired.work < kept.work);
        // Narrow cells: the same bytes hold twice the ranges, and the rest take 2 bytes each.
        tp.narrow_cells = true;
        let narrow = tier_disk(&shape, &tp, false, u64::MAX);
        assert_eq!(narrow.late.cells, plain(0.5, 2.0));
        assert_eq!(narrow.late.cells * 3, kept.late.cells);
    }
}
