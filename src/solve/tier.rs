//! Solving one tier: successor pass, predecessor graph, attractor, final entries.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use super::attractor::{attract, LevelQueue};
use super::cell::{self, Outlook, MAX_COUNTER};
use super::graph::{EdgeBuckets, PackedEdge, PredGraph};
use super::tables::Lookup;
use super::SolveError;
use crate::game::{Game, Successor, Tier};
use crate::value::{Entry, Value, MAX_DEPTH};

/// Positions one worker takes at a time in the successor pass.
pub const PASS_CHUNK: usize = 1 << 14;

/// Counts of one solved tier (values for the side to move).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TierCounts {
    pub seeds: u32,
    pub states: u64,
    pub win: u64,
    pub loss: u64,
    pub draw: u64,
    pub max_depth: u32,
}

/// Time and volume of each phase of a tier, for reports and benchmarks.
#[derive(Debug, Clone, Default)]
pub struct TierTimings {
    pub successors: Duration,
    pub predecessors: Duration,
    pub attractor: Duration,
    pub finish: Duration,
    pub in_tier_edges: u64,
    pub levels: u32,
}

/// A solved tier.
pub struct SolvedTier {
    pub entries: Vec<u16>,
    pub counts: TierCounts,
    pub timings: TierTimings,
}

/// Progress hooks for the phases of a tier.
pub trait TierProgress: Sync {
    fn pass_advanced(&self, _positions: u64) {}
    fn phase(&self, _name: &str) {}
    fn level_done(&self, _level: u32, _decided: u64) {}
}

/// Progress reports that go nowhere.
pub struct Silent;
impl TierProgress for Silent {}

/// Output of the successor pass.
pub struct PassOutput {
    pub cells: Vec<AtomicU32>,
    pub queue: LevelQueue,
    pub edges: Vec<Vec<PackedEdge>>,
    pub in_tier_edges: u64,
}

/// Generates every position's successors once. Successors in finished tiers are resolved from
/// `lower` at once; successors inside the tier become edges, bucketed by target range, and a
/// per-position counter of them.
pub fn successor_pass<G: Game, L: Lookup>(
    game: &G,
    tier: Tier,
    size: u64,
    lower: &L,
    range_bits: u32,
    progress: &dyn TierProgress,
) -> Result<PassOutput, SolveError> {
    let mut raw = vec![0u32; size as usize];
    let buckets = EdgeBuckets::new(size, range_bits);
    let edge_total = AtomicU64::new(0);
    let results: Vec<Result<Vec<(u32, u32)>, SolveError>> = raw
        .par_chunks_mut(PASS_CHUNK)
        .enumerate()
        .map_init(
            || (Vec::with_capacity(64), Vec::with_capacity(64), buckets.sink()),
            |(succ, inside, sink), (ci, chunk)| {
                let start = (ci * PASS_CHUNK) as u64;
                let end = start + chunk.len() as u64;
                let mut queued = Vec::new();
                let mut edges = 0u64;
                let mut failure = None;
                game.visit(tier, start..end, |i, pos| {
                    if failure.is_some() {
                        return;
                    }
                    succ.clear();
                    game.successors(pos, succ);
                    let mut o = Outlook {
                        terminal: succ.is_empty(),
                        ..Default::default()
                    };
                    inside.clear();
                    for s in succ.iter() {
                        match *s {
                            Successor::MoverLoses => o.floor = o.floor.max(1),
                            Successor::Position { tier: t, index } if t == tier => {
                                inside.push(index as u32)
                            }
                            Successor::Position { tier: t, index } => {
                                let e = lower.entry(t, index);
                                if e.value().is_none() {
                                    failure = Some(SolveError::Internal(format!(
                                        "a move from tier {tier} leads to tier {t}, which is not solved"
                                    )));
                                    return;
                                }
                                o.add_resolved(e);
                            }
                        }
                    }
                    inside.sort_unstable();
                    inside.dedup();
                    if inside.len() as u32 > MAX_COUNTER {
                        failure = Some(SolveError::Internal(format!(
                            "a position has {} distinct in-tier successors, more than {MAX_COUNTER}",
                            inside.len()
                        )));
                        return;
                    }
                    o.in_tier = inside.len() as u32;
                    if o.floor > MAX_DEPTH || o.win.is_some_and(|w| w > MAX_DEPTH) {
                        failure = Some(SolveError::DepthOverflow { tier });
                        return;
                    }
                    let (c, level) = o.initial_cell();
                    if !cell::is_final(c) {
                        for &t in inside.iter() {
                            sink.push(i as u32, t);
                        }
                        edges += inside.len() as u64;
                    }
                    chunk[(i - start) as usize] = c;
                    if let Some(l) = level {
                        queued.push((l, i as u32));
                    }
                });
                edge_total.fetch_add(edges, Ordering::Relaxed);
                progress.pass_advanced(chunk.len() as u64);
                match failure {
                    Some(e) => Err(e),
                    None => Ok(queued),
                }
            },
        )
        .collect();
    let mut queue = LevelQueue::default();
    for r in results {
        for (l, i) in r? {
            queue.push(l, i);
        }
    }
    // SAFETY-free conversion: AtomicU32 has the same layout as u32, but go through a safe
    // element-wise move; the compiler turns this into a no-op copy.
    let cells: Vec<AtomicU32> = raw.into_iter().map(AtomicU32::new).collect();
    Ok(PassOutput {
        cells,
        queue,
        edges: buckets.into_inner(),
        in_tier_edges: edge_total.into_inner(),
    })
}

/// Options of the tier solver.
#[derive(Clone, Copy, Debug)]
pub struct TierOptions {
    /// Positions per predecessor range, as a power of two.
    pub range_bits: u32,
}

impl Default for TierOptions {
    fn default() -> Self {
        TierOptions { range_bits: 20 }
    }
}

/// Solves `tier` given its finished lower tiers.
pub fn solve_tier<G: Game, L: Lookup>(
    game: &G,
    tier: Tier,
    lower: &L,
    opts: TierOptions,
    progress: &dyn TierProgress,
) -> Result<SolvedTier, SolveError> {
    let size = game.tier_size(tier)?;
    if size > u32::MAX as u64 {
        return Err(SolveError::TierTooLarge { tier, size });
    }
    let mut timings = TierTimings::default();
    let t = Instant::now();
    progress.phase("successors");
    let pass = successor_pass(game, tier, size, lower, opts.range_bits, progress)?;
    timings.successors = t.elapsed();
    timings.in_tier_edges = pass.in_tier_edges;

    let t = Instant::now();
    progress.phase("predecessors");
    let preds = PredGraph::build(size, opts.range_bits, pass.edges);
    timings.predecessors = t.elapsed();

    let t = Instant::now();
    progress.phase("attractor");
    let cells = pass.cells;
    let stats = attract(&cells, &preds, pass.queue, |l, d| progress.level_done(l, d))
        .map_err(|_| SolveError::DepthOverflow { tier })?;
    timings.attractor = t.elapsed();
    timings.levels = stats.levels;
    drop(preds);

    let t = Instant::now();
    progress.phase("finish");
    let (entries, counts) = finish(cells, game.tier_seeds(tier));
    timings.finish = t.elapsed();
    Ok(SolvedTier {
        entries,
        counts,
        timings,
    })
}

/// Turns working cells into stored entries and counts them.
fn finish(cells: Vec<AtomicU32>, seeds: u32) -> (Vec<u16>, TierCounts) {
    let entries: Vec<u16> = cells
        .into_par_iter()
        .map(|c| cell::final_entry(c.into_inner()).0)
        .collect();
    let counts = count_entries(&entries, seeds);
    (entries, counts)
}

/// Counts WIN/LOSS/DRAW and the largest depth of a tier's entries.
pub fn count_entries(entries: &[u16], seeds: u32) -> TierCounts {
    entries
        .par_chunks(1 << 16)
        .map(|chunk| {
            let mut c = TierCounts {
                seeds,
                ..Default::default()
            };
            for &e in chunk {
                let e = Entry(e);
                match e.value() {
                    Some(Value::Win) => c.win += 1,
                    Some(Value::Loss) => c.loss += 1,
                    _ => c.draw += 1,
                }
                c.max_depth = c.max_depth.max(e.depth().unwrap_or(0));
            }
            c.states = chunk.len() as u64;
            c
        })
        .reduce(
            || TierCounts {
                seeds,
                ..Default::default()
            },
            |a, b| TierCounts {
                seeds,
                states: a.states + b.states,
                win: a.win + b.win,
                loss: a.loss + b.loss,
                draw: a.draw + b.draw,
                max_depth: a.max_depth.max(b.max_depth),
            },
        )
}
