//! Level-ordered WIN/LOSS attractor over one tier's in-tier graph.
//!
//! Level `d` holds the positions decided with depth `d`. Levels are processed in increasing
//! order, each completely before the next (a barrier between levels), so a WIN gets its
//! smallest depth and a LOSS its largest, and the outcome does not depend on thread count or
//! scheduling: within a level every update commutes.
//!
//! Propagating a decided position `f` at level `d` to each predecessor `p`:
//! - `f` is a LOSS (for its mover): `p` wins with depth `d + 1`, unless already decided or
//!   already known to win at most as fast through a lower tier.
//! - `f` is a WIN: `p` loses one open option (its counter); at zero, an `OPEN` `p` loses with
//!   depth `max(d + 1, floor)` (its slowest loss, counting lower-tier successors). A loss
//!   deeper than `d + 1` is decided now and propagated when its level comes.
//!
//! Positions still undecided at the end are draws.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use rayon::prelude::*;

use super::cell::{self, COUNTER_ONE, KNOWN_WIN, LOSS, OPEN, OPEN_NO_LOSS, WIN};
use super::graph::PredGraph;
use crate::value::MAX_DEPTH;

/// Positions to look at when the attractor reaches each level.
#[derive(Default, Debug)]
pub struct LevelQueue {
    levels: Vec<Vec<u32>>,
}

impl LevelQueue {
    pub fn push(&mut self, level: u32, index: u32) {
        let l = level as usize;
        if self.levels.len() <= l {
            self.levels.resize_with(l + 1, Vec::new);
        }
        self.levels[l].push(index);
    }

    fn take(&mut self, level: u32) -> Vec<u32> {
        self.levels
            .get_mut(level as usize)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn any_after(&self, level: u32) -> bool {
        self.levels
            .iter()
            .skip(level as usize + 1)
            .any(|v| !v.is_empty())
    }

    pub fn len(&self) -> usize {
        self.levels.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A depth beyond what entries can store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepthOverflow;

/// Work the attractor did, for reports.
#[derive(Debug, Default, Clone, Copy)]
pub struct AttractorStats {
    pub levels: u32,
    pub propagated: u64,
}

const CHUNK: usize = 2048;

/// Runs the attractor to its fixed point. `on_level(level, decided_so_far)` is called after
/// each level for progress reports.
pub fn attract(
    cells: &[AtomicU32],
    preds: &PredGraph,
    mut queue: LevelQueue,
    mut on_level: impl FnMut(u32, u64),
) -> Result<AttractorStats, DepthOverflow> {
    let overflow = AtomicBool::new(false);
    let mut frontier: Vec<u32> = Vec::new();
    let mut stats = AttractorStats::default();
    let mut level: u32 = 0;
    loop {
        let pending = queue.take(level);
        if frontier.is_empty() && pending.is_empty() && !queue.any_after(level) {
            break;
        }
        // Queued positions whose level has come: known wins are decided now; positions decided
        // earlier at exactly this depth are propagated now.
        let due: Vec<u32> = pending
            .into_par_iter()
            .filter(|&s| settle(&cells[s as usize], level))
            .collect();
        frontier.extend(due);
        stats.propagated += frontier.len() as u64;

        let (next, deferred) = frontier
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut next = Vec::new();
                let mut deferred = Vec::new();
                for &f in chunk {
                    propagate(cells, preds, f, level, &mut next, &mut deferred, &overflow);
                }
                (next, deferred)
            })
            .reduce(
                || (Vec::new(), Vec::new()),
                |mut a, b| {
                    a.0.extend(b.0);
                    a.1.extend(b.1);
                    a
                },
            );
        if overflow.load(Ordering::Relaxed) {
            return Err(DepthOverflow);
        }
        for (d, p) in deferred {
            queue.push(d, p);
        }
        frontier = next;
        level += 1;
        on_level(level, stats.propagated);
    }
    stats.levels = level;
    Ok(stats)
}

/// Decides a queued position at its level; true when it is to be propagated now.
fn settle(c: &AtomicU32, level: u32) -> bool {
    let v = c.load(Ordering::Relaxed);
    match cell::tag(v) {
        KNOWN_WIN => {
            debug_assert_eq!(cell::depth(v), level);
            // Nothing else writes this cell during settling.
            c.store(cell::retag(v, WIN, level), Ordering::Relaxed);
            true
        }
        WIN | LOSS => cell::depth(v) == level,
        _ => false,
    }
}

#[inline]
fn propagate(
    cells: &[AtomicU32],
    preds: &PredGraph,
    f: u32,
    level: u32,
    next: &mut Vec<u32>,
    deferred: &mut Vec<(u32, u32)>,
    overflow: &AtomicBool,
) {
    let decided = cell::tag(cells[f as usize].load(Ordering::Relaxed));
    let d = level + 1;
    if decided == LOSS {
        for &p in preds.preds(f) {
            let c = &cells[p as usize];
            let mut v = c.load(Ordering::Relaxed);
            loop {
                let t = cell::tag(v);
                let improves =
                    t == OPEN || t == OPEN_NO_LOSS || (t == KNOWN_WIN && cell::depth(v) > d);
                if !improves {
                    break;
                }
                if d > MAX_DEPTH {
                    overflow.store(true, Ordering::Relaxed);
                    return;
                }
                match c.compare_exchange_weak(
                    v,
                    cell::retag(v, WIN, d),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        next.push(p);
                        break;
                    }
                    Err(now) => v = now,
                }
            }
        }
    } else {
        debug_assert_eq!(decided, WIN);
        for &p in preds.preds(f) {
            let c = &cells[p as usize];
            let prev = c.fetch_sub(COUNTER_ONE, Ordering::Relaxed);
            if cell::tag(prev) == OPEN && cell::counter(prev) == 1 {
                // Every in-tier option wins for the opponent: p loses, as slowly as it can.
                let depth = d.max(cell::depth(prev));
                if depth > MAX_DEPTH {
                    overflow.store(true, Ordering::Relaxed);
                    return;
                }
                // No other update can reach p now: its counter is zero and no in-tier
                // successor is undecided.
                c.store(
                    cell::retag(prev - COUNTER_ONE, LOSS, depth),
                    Ordering::Relaxed,
                );
                if depth == d {
                    next.push(p);
                } else {
                    deferred.push((depth, p));
                }
            }
        }
    }
}
