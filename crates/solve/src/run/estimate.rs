//! Sizing a run before starting it (`solve --dry-run`): positions per tier, the memory plan's
//! ranges, the disk a run holds at its peak and at its end, the bytes it writes, and its time,
//! from a short timed sample of the largest tier. Nothing is written and nothing is locked.
//!
//! Disk and time are estimates from a model of the solver (bytes per position of each work
//! file, in [`crate::plan::space`], edges per position from the planner's sample, solve time from a
//! timed sample of the bare successor pass, the edges and the cells out of core, in
//! [`crate::plan::sample`]); the real figures of a solve are in its per-tier report (`solve --json`).

use serde::Serialize;

use crate::counts::WorkDisk;
use crate::plan::budget::MemoryPlan;
use crate::plan::sample::{tier_time, time_sample, TierWork, TimeSample};
use crate::plan::shape::TierShape;
use crate::plan::space::{tier_disk, tier_peak, TierDisk};
use crate::run::{plan_shapes, tier_shapes, SolveConfig};
use bawo_games::error::Result;
use bawo_games::game::Game;

/// One tier of a planned run.
#[derive(Debug, Clone, Serialize)]
pub struct TierEstimate {
    /// Seeds on the board.
    pub seeds: u32,
    /// Positions of both sides to move (what the solve's counts will add up to).
    pub states: u64,
    /// Positions the tier's table stores.
    pub stored: u64,
    /// Positions per range, as a power of two.
    pub range_bits: u32,
    /// Ranges the tier is split into.
    pub ranges: u64,
    /// In-tier edges per stored position, from the planner's sample (with its margin).
    pub edges_per_position: f64,
    /// Disk of the tier's work files at their largest.
    pub work_disk: u64,
    /// Bytes the tier writes: work files (some of them more than once), raw table, compressed
    /// file.
    pub bytes_written: u64,
    /// Disk of the run while this tier is solved: finished tiers below, this tier's work files,
    /// raw table and compressed file.
    pub peak_disk: u64,
    /// Estimated seconds to solve the tier.
    pub seconds: f64,
}

/// Where the bytes of a run's peak disk are, by the model: the tier in progress's work files
/// by kind, its raw table and compressed file, and the finished tiers below.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct PeakDisk {
    /// Seeds of the tier solved at the peak.
    pub seeds: u32,
    /// That tier's work files, by kind (`table` is its raw table).
    pub work: WorkDisk,
    /// That tier's compressed file.
    pub bdb: u64,
    /// Raw tables of the finished tiers below, read by the successor pass.
    pub lower_tables: u64,
    /// Compressed files of the finished tiers below.
    pub lower_bdb: u64,
    /// The peak over the largest tier's stored positions: the figure to compare across
    /// instances.
    pub bytes_per_stored: f64,
}

/// A planned run, as `solve --dry-run` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct RunEstimate {
    /// Positions of both sides to move.
    pub states: u64,
    /// Positions the tables store.
    pub stored: u64,
    /// The memory budget, in bytes.
    pub budget: u64,
    /// Threads the run uses.
    pub threads: usize,
    /// Disk at the run's largest.
    pub peak_disk: u64,
    /// Where the bytes of that peak are.
    pub peak: PeakDisk,
    /// Disk the finished run holds: compressed files (and raw tables with `--keep-tables`).
    pub final_disk: u64,
    /// Bytes the run writes.
    pub bytes_written: u64,
    /// Estimated seconds of the run.
    pub seconds: f64,
    /// The timing sample the estimate rests on.
    pub sample: TimeSample,
    /// Each tier's estimate.
    pub tiers: Vec<TierEstimate>,
}

/// Plans the run `cfg` asks for and estimates what it will cost, writing nothing.
pub fn estimate_run<G: Game>(game: &G, cfg: &SolveConfig) -> Result<RunEstimate> {
    let tiers = game.tiers_up_to(cfg.seeds)?;
    let shapes = tier_shapes(game, &tiers, cfg)?;
    let plan = plan_shapes(&shapes, cfg)?;
    let sample = time_sample(game, &plan);
    let threads = rayon::current_num_threads();
    Ok(estimate_from(
        game,
        &shapes,
        &plan,
        sample,
        threads,
        cfg.keep_tables,
    ))
}

fn estimate_from<G: Game>(
    game: &G,
    shapes: &[TierShape],
    plan: &MemoryPlan,
    sample: TimeSample,
    threads: usize,
    keep_tables: bool,
) -> RunEstimate {
    let mut tiers = Vec::with_capacity(shapes.len());
    let (mut peak, mut written, mut bdb_total, mut table_total) = (0u64, 0, 0, 0);
    let mut composition = PeakDisk::default();
    let last = plan.tiers.len().saturating_sub(1);
    for (i, (shape, tp)) in shapes.iter().zip(&plan.tiers).enumerate() {
        let stored = tp.states;
        // The run's last tier retires the lower raw tables after its pass, unless they are
        // kept (the single-process solver; a cluster keeps them to the end).
        let retires = !keep_tables && i == last && tp.ranges > 1;
        let d = tier_disk(shape, tp, retires, plan.messages);
        let TierDisk {
            work,
            table,
            bdb,
            written: tier_written,
            ..
        } = d;
        let at = tier_peak(&d, table_total, bdb_total, retires);
        let during = at.total;
        if during >= peak {
            composition = PeakDisk {
                seeds: game.tier_seeds(tp.tier),
                work: at.work,
                bdb: at.bdb,
                lower_tables: at.lower_tables,
                lower_bdb: bdb_total,
                bytes_per_stored: 0.0,
            };
        }
        peak = peak.max(during);
        written += tier_written;
        bdb_total += bdb;
        table_total += table;
        tiers.push(TierEstimate {
            seeds: game.tier_seeds(tp.tier),
            states: stored * bawo_games::game::POSITIONS_PER_ENTRY,
            stored,
            range_bits: tp.range_bits,
            ranges: tp.ranges,
            edges_per_position: shape.edges_per_position,
            work_disk: work,
            bytes_written: tier_written,
            peak_disk: during,
            seconds: tier_time(&sample, &TierWork::of(shape, tp, retires), threads).as_secs_f64(),
        });
    }
    let stored: u64 = tiers.iter().map(|t| t.stored).sum();
    let largest = tiers.iter().map(|t| t.stored).max().unwrap_or(0);
    composition.bytes_per_stored = peak as f64 / largest.max(1) as f64;
    RunEstimate {
        states: tiers.iter().map(|t| t.states).sum(),
        stored,
        budget: plan.budget,
        threads,
        peak_disk: peak,
        peak: composition,
        final_disk: bdb_total + if keep_tables { table_total } else { 0 },
        bytes_written: written,
        seconds: tiers.iter().map(|t| t.seconds).sum(),
        sample,
        tiers,
    }
}
