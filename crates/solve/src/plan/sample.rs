//! The time a solve should take, from a short timed sample: the bare successor pass over a few
//! thousand positions of the largest tier, and a model of a whole solve's work per tier in
//! terms of it, of the tier's in-tier edges and of the share of its cells the attractor
//! changes on disk. The dry run prints it; the whole-run progress line starts its ETA from it.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::plan::budget::{MemoryPlan, TierPlan, EDGE_MARGIN};
use crate::plan::shape::TierShape;
use crate::plan::space::pred_list_bytes;
use bawo_games::game::Game;

/// A tier's work per stored position, beside its edges, in units of the sample's bare
/// successor pass: the pass itself, with its lookups of the tiers below and its writes,
/// the finish and the compression.
const PASSES_PER_POSITION: f64 = 2.7;
/// One thread's time per in-tier edge for the predecessor lists and the attractor, with
/// every cell held in memory, in seconds.
const SECONDS_PER_EDGE: f64 = 70e-9;
/// Out of core, an edge costs this much more per share of the tier's cells not held: those
/// cells are changed on disk, at every level that touches them.
const OUT_OF_CORE_PER_EDGE: f64 = 2.5;
// The three were set together from four whole runs under `--mem 4G` on a quiet 2-core
// machine, which they give within 4%: Bawo `n = 4` 18 seeds (5 min 15 s; 21% of the last
// tier's cells on disk), Kigogo 8 (7 min 06 s; 34%, 2.1 in-tier edges a position), Bao
// mtaji 10 (3 min 06 s, all held) and 11 (16 min 32 s; 62% on disk). The bare pass alone
// (3.3 of it a position, as once) said 10% to 44% too little.

/// How fast one thread writes predecessor lists into the page cache: Bao mtaji 9 seeds
/// under `--mem 4G` (three ranges of 2^27 positions, too large for a range's file to be
/// written beside the next one's build) wrote its 1.4 GB of lists in 4.7 s of its driving
/// thread (`perf` samples), a third of its predecessor phase, with the other core idle.
/// The three figures above, set on runs that write beside, did not see that time: the dry
/// run said 29% too little.
const INLINE_WRITE_BYTES_PER_SECOND: f64 = 300e6;

/// Runs of consecutive positions of the largest tier whose successors are timed, spread
/// evenly over it: consecutive, as the pass visits them (each run's first position is
/// unranked, the others stepped to).
const SAMPLE_RUNS: u64 = 16;
/// Positions in each run.
const RUN_POSITIONS: u64 = 1024;
/// The sample is timed at least this many times and the median kept: a sample of a few
/// milliseconds taken once says more about the machine's other load than about the game.
const SAMPLE_REPEATS: usize = 3;

/// ... and again until this long has passed (at most [`SAMPLE_MAX_REPEATS`] times): the
/// fastest of three timings of a millisecond or two each could fall within one hiccup of
/// a shared machine (Bawo `n = 4` 18 seeds' dry run once said 376 s where it said 279 to
/// 312 s in six runs around it; its run took 293 s). The median of a quarter second's
/// timings is the machine's usual pace; their fastest, 10% quicker than that, is not what
/// a run of minutes sees.
const SAMPLE_SECONDS: f64 = 0.25;

/// The most times the sample is timed.
const SAMPLE_MAX_REPEATS: usize = 200;

/// The timed sample the time estimate rests on.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct TimeSample {
    /// Seeds of the tier sampled.
    pub seeds: u32,
    /// Positions timed.
    pub positions: u64,
    /// One thread's time per position for the bare successor pass.
    pub seconds_per_position: f64,
}

/// Times the bare successor pass over an even sample of the plan's largest tier, on one
/// thread (so that other threads' scheduling does not blur it).
pub fn time_sample<G: Game>(game: &G, plan: &MemoryPlan) -> TimeSample {
    let Some(largest) = plan.tiers.iter().max_by_key(|t| t.states) else {
        return TimeSample {
            seeds: 0,
            positions: 0,
            seconds_per_position: 0.0,
        };
    };
    let runs = SAMPLE_RUNS
        .min(largest.states.div_ceil(RUN_POSITIONS))
        .max(1);
    let per_run = RUN_POSITIONS.min(largest.states / runs).max(1);
    let step = largest.states / runs;
    let mut succ = Vec::with_capacity(64);
    let mut timings = Vec::new();
    let began = Instant::now();
    for repeat in 0..SAMPLE_MAX_REPEATS {
        if repeat >= SAMPLE_REPEATS && began.elapsed().as_secs_f64() >= SAMPLE_SECONDS {
            break;
        }
        let start = Instant::now();
        for r in 0..runs {
            let from = r * step;
            game.visit(largest.tier, from..from + per_run, |_, pos| {
                succ.clear();
                game.successors(pos, &mut succ);
            });
        }
        timings.push(start.elapsed().as_secs_f64());
    }
    let positions = runs * per_run;
    TimeSample {
        seeds: game.tier_seeds(largest.tier),
        positions,
        seconds_per_position: median(&mut timings) / positions as f64,
    }
}

/// The middle of `values` (the mean of the two middle ones where they are even).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// What one tier's time rests on beside the sample.
#[derive(Debug, Clone, Copy)]
pub struct TierWork {
    /// Positions the tier stores.
    pub stored: u64,
    /// Its in-tier edges, by the planner's sample (without the planner's margin).
    pub edges: f64,
    /// The share of its cells its attractor holds in memory.
    pub held: f64,
    /// Bytes of predecessor lists written between two ranges' builds, with the workers
    /// idle: all of them where the memory plan leaves no room to write a range's file beside
    /// the next range's build ([`TierPlan::write_beside`]), else none.
    pub written_inline: f64,
}

impl TierWork {
    /// A tier of the given shape and plan; `retired` where the lower tiers are retired
    /// before its attractor, which then holds more of its cells ([`TierPlan::held_share`]).
    pub fn of(shape: &TierShape, plan: &TierPlan, retired: bool) -> TierWork {
        let inline = plan.ranges > 1 && !plan.write_beside;
        TierWork {
            stored: plan.states,
            edges: shape.edges_per_position / EDGE_MARGIN * plan.states as f64,
            held: plan.held_share(retired),
            written_inline: if inline {
                pred_list_bytes(shape, plan) * plan.states as f64
            } else {
                0.0
            },
        }
    }
}

/// The estimated time to solve a tier with `threads` workers.
pub fn tier_time(sample: &TimeSample, work: &TierWork, threads: usize) -> Duration {
    let not_held = (1.0 - work.held).clamp(0.0, 1.0);
    let per_thread = PASSES_PER_POSITION * sample.seconds_per_position * work.stored as f64
        + SECONDS_PER_EDGE * work.edges * (1.0 + OUT_OF_CORE_PER_EDGE * not_held);
    Duration::from_secs_f64(
        per_thread / threads.max(1) as f64 + work.written_inline / INLINE_WRITE_BYTES_PER_SECOND,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(seconds_per_position: f64) -> TimeSample {
        TimeSample {
            seeds: 8,
            positions: 16384,
            seconds_per_position,
        }
    }

    fn secs(work: TierWork, threads: usize) -> f64 {
        tier_time(&sample(1e-7), &work, threads).as_secs_f64()
    }

    #[test]
    fn a_tier_takes_longer_with_more_edges_and_fewer_cells_held() {
        let base = TierWork {
            stored: 1 << 30,
            edges: 0.5 * (1u64 << 30) as f64,
            held: 1.0,
            written_inline: 0.0,
        };
        let denser = TierWork {
            edges: 2.0 * base.edges,
            ..base
        };
        let on_disk = TierWork { held: 0.4, ..base };
        assert!(secs(denser, 2) > secs(base, 2));
        assert!(secs(on_disk, 2) > secs(base, 2));
        // Cells not held cost only through the edges: a tier without any is not slower.
        let edgeless = TierWork { edges: 0.0, ..base };
        let edgeless_on_disk = TierWork {
            held: 0.0,
            ..edgeless
        };
        assert_eq!(secs(edgeless, 2), secs(edgeless_on_disk, 2));
        // A slower sample, a slower pass.
        let slow = tier_time(&sample(2e-7), &base, 2).as_secs_f64();
        assert!(slow > secs(base, 2));
    }

    #[test]
    fn threads_share_a_tier_s_time() {
        let work = TierWork {
            stored: 1 << 28,
            edges: 3e8,
            held: 0.5,
            written_inline: 0.0,
        };
        let one = secs(work, 1);
        assert!(one > 0.0);
        assert!((secs(work, 4) * 4.0 - one).abs() < 1e-9 * one);
        // No threads counts as one.
        assert_eq!(secs(work, 0), one);
        // Lists written between builds take one thread's time, however many there are.
        let inline = TierWork {
            written_inline: 3e9,
            ..work
        };
        let writing = 3e9 / INLINE_WRITE_BYTES_PER_SECOND;
        for threads in [1, 2, 16] {
            let more = secs(inline, threads) - secs(work, threads);
            assert!((more - writing).abs() < 1e-9 * writing, "{threads}: {more}");
        }
    }

    #[test]
    fn lists_count_as_written_inline_only_where_the_plan_writes_none_beside() {
        let shape = TierShape {
            tier: 9,
            states: 1 << 29,
            edges_per_position: 1.5,
            wide: false,
            keys: 0,
            key_table: 0,
            narrow_cells: false,
        };
        let plan = |ranges: u64, write_beside: bool| TierPlan {
            tier: 9,
            states: 1 << 28,
            range_bits: 27,
            ranges,
            wide: false,
            keys: 0,
            narrow_cells: false,
            pass_share: 0,
            compress_beside: false,
            write_beside,
            attractor_cells: 0,
            lower_reserve: 0,
        };
        let lists = pred_list_bytes(&shape, &plan(2, false)) * (1u64 << 28) as f64;
        assert!(lists > 0.0);
        let inline = TierWork::of(&shape, &plan(2, false), false).written_inline;
        assert!((inline - lists).abs() < 1e-6 * lists);
        assert_eq!(
            TierWork::of(&shape, &plan(2, true), false).written_inline,
            0.0
        );
        // A tier of one range keeps its lists in memory.
        assert_eq!(
            TierWork::of(&shape, &plan(1, false), false).written_inline,
            0.0
        );
    }
}
