//! The time a solve should take, from a short timed sample: the bare successor pass over a few
//! thousand positions of the largest tier, and how much longer a whole solve takes than that
//! pass. The dry run prints it; the whole-run progress line starts its ETA from it.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::budget::MemoryPlan;
use bawo_games::game::Game;

/// A whole solve takes about this many times the bare successor pass over its positions
/// (measured with `scripts/bench-solve.sh`: 1.8x at n = 3, 16 seeds, with a margin).
const SOLVE_PER_PASS: f64 = 2.0;
/// Positions of the largest tier whose successors are timed.
const SAMPLE_POSITIONS: u64 = 8192;

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
    let positions = largest.states.min(SAMPLE_POSITIONS);
    let step = largest.states / positions.max(1);
    let mut succ = Vec::with_capacity(64);
    let start = Instant::now();
    for k in 0..positions {
        succ.clear();
        game.successors(&game.position(largest.tier, k * step), &mut succ);
    }
    TimeSample {
        seeds: game.tier_seeds(largest.tier),
        positions,
        seconds_per_position: start.elapsed().as_secs_f64() / positions.max(1) as f64,
    }
}

/// The estimated time to solve `stored` positions with `threads` workers.
pub fn solve_time(sample: &TimeSample, stored: u64, threads: usize) -> Duration {
    let secs = SOLVE_PER_PASS * sample.seconds_per_position * stored as f64 / threads.max(1) as f64;
    Duration::from_secs_f64(secs)
}
