//! The time a solve should take, from a short timed sample: the bare successor pass over a few
//! thousand positions of the largest tier, and how much longer a whole solve takes than that
//! pass. The dry run prints it; the whole-run progress line starts its ETA from it.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::plan::budget::MemoryPlan;
use bawo_games::game::Game;

/// A whole solve takes about this many times the bare successor pass over its positions as
/// the sample times it (one thread, consecutive positions, the fastest of a few tries). Set
/// from Bawo `n = 4` with 18 seeds under `--mem 4G` on a quiet 2-core machine: 5 min 02 s,
/// where the sample predicts 92 s per unit; the progress line's ETA corrects it by the
/// tiers' own times as they finish.
const SOLVE_PER_PASS: f64 = 3.3;
/// Runs of consecutive positions of the largest tier whose successors are timed, spread
/// evenly over it: consecutive, as the pass visits them (each run's first position is
/// unranked, the others stepped to).
const SAMPLE_RUNS: u64 = 16;
/// Positions in each run.
const RUN_POSITIONS: u64 = 1024;
/// The sample is timed this many times and the fastest kept: a sample of a few
/// milliseconds taken once says more about the machine's other load than about the game.
const SAMPLE_REPEATS: usize = 3;

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
    let mut fastest = f64::INFINITY;
    for _ in 0..SAMPLE_REPEATS {
        let start = Instant::now();
        for r in 0..runs {
            let from = r * step;
            game.visit(largest.tier, from..from + per_run, |_, pos| {
                succ.clear();
                game.successors(pos, &mut succ);
            });
        }
        fastest = fastest.min(start.elapsed().as_secs_f64());
    }
    let positions = runs * per_run;
    TimeSample {
        seeds: game.tier_seeds(largest.tier),
        positions,
        seconds_per_position: fastest / positions as f64,
    }
}

/// The estimated time to solve `stored` positions with `threads` workers.
pub fn solve_time(sample: &TimeSample, stored: u64, threads: usize) -> Duration {
    let secs = SOLVE_PER_PASS * sample.seconds_per_position * stored as f64 / threads.max(1) as f64;
    Duration::from_secs_f64(secs)
}
