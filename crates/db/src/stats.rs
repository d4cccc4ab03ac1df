//! Counts and depth histograms of a database, read from its tier files.
//!
//! The JSON shape extends `solve --json` (`bawo_solve::Summary`): the same top-level
//! keys, each tier with the same keys, plus `win_depths` and `loss_depths` (index = depth,
//! value = positions), so scripts written for one read the other. Like `solve`, it counts the
//! positions of both sides to move: each stored entry stands for two
//! ([`bawo_games::game::POSITIONS_PER_ENTRY`]).

use serde::Serialize;

use super::gather;
use super::memory::{for_each_block, ReadBudget};
use super::Database;
use bawo_games::error::Result;
use bawo_games::game::POSITIONS_PER_ENTRY;
use bawo_games::value::{Entry, Value};

/// One tier's counts and depth histograms.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TierStats {
    /// The tier (its seeds).
    pub tier: u32,
    /// Seeds on the board.
    pub seeds: u32,
    /// Positions of both sides to move.
    pub states: u64,
    /// Positions won for the side to move.
    pub win: u64,
    /// Positions lost for the side to move.
    pub loss: u64,
    /// Drawn positions.
    pub draw: u64,
    /// Longest win or loss, in plies.
    pub max_depth: u32,
    /// Positions that win in exactly `d` plies, at index `d`.
    pub win_depths: Vec<u64>,
    /// Positions that lose in exactly `d` plies, at index `d`.
    pub loss_depths: Vec<u64>,
}

/// The whole database.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// The game's descriptor.
    pub game: String,
    /// Positions of both sides to move.
    pub states: u64,
    /// Positions won for the side to move.
    pub win: u64,
    /// Positions lost for the side to move.
    pub loss: u64,
    /// Drawn positions.
    pub draw: u64,
    /// Longest win or loss, in plies.
    pub max_depth: u32,
    /// Won positions by depth (index = plies).
    pub win_depths: Vec<u64>,
    /// Lost positions by depth (index = plies).
    pub loss_depths: Vec<u64>,
    /// Each tier's statistics.
    pub tiers: Vec<TierStats>,
    /// Every tier of the run's seed budget is finished (false for a run stopped part-way).
    pub complete: bool,
    /// The tiers with a finished table (those `tiers` describes).
    pub finished_tiers: Vec<u32>,
    /// Every tier of the run's seed budget, finished or not.
    pub planned_tiers: Vec<u32>,
    /// Bytes of the tier files read (`.bdb`, or raw tables where there are none).
    pub file_bytes: u64,
}

fn add_into(acc: &mut Vec<u64>, other: &[u64]) {
    if acc.len() < other.len() {
        acc.resize(other.len(), 0);
    }
    for (a, b) in acc.iter_mut().zip(other) {
        *a += b;
    }
}

fn trim(v: &mut Vec<u64>) {
    while v.last() == Some(&0) {
        v.pop();
    }
}

/// Counts one run of entries.
fn count(entries: &[u16]) -> TierStats {
    let mut s = TierStats::default();
    for &e in entries {
        let e = Entry(e);
        let (hist, d) = match (e.value(), e.depth()) {
            (Some(Value::Win), Some(d)) => {
                s.win += 1;
                (&mut s.win_depths, d)
            }
            (Some(Value::Loss), Some(d)) => {
                s.loss += 1;
                (&mut s.loss_depths, d)
            }
            _ => {
                s.draw += 1;
                continue;
            }
        };
        if hist.len() <= d as usize {
            hist.resize(d as usize + 1, 0);
        }
        hist[d as usize] += 1;
        s.max_depth = s.max_depth.max(d);
    }
    s.states = entries.len() as u64;
    s
}

/// The counts of the positions stored entries stand for: each entry is a position with A to
/// move and its mirror with B to move, with the same value and depth.
fn both_sides(mut t: TierStats) -> TierStats {
    for n in [&mut t.states, &mut t.win, &mut t.loss, &mut t.draw] {
        *n *= POSITIONS_PER_ENTRY;
    }
    for n in t.win_depths.iter_mut().chain(t.loss_depths.iter_mut()) {
        *n *= POSITIONS_PER_ENTRY;
    }
    t
}

fn merge(mut a: TierStats, b: TierStats) -> TierStats {
    a.states += b.states;
    a.win += b.win;
    a.loss += b.loss;
    a.draw += b.draw;
    a.max_depth = a.max_depth.max(b.max_depth);
    add_into(&mut a.win_depths, &b.win_depths);
    add_into(&mut a.loss_depths, &b.loss_depths);
    a
}

/// Reads every tier (blocks decoded in parallel, a worker per thread) and counts.
pub fn stats(db: &Database) -> Result<Stats> {
    stats_within(db, &ReadBudget::unbounded(rayon::current_num_threads()))
}

/// Reads every tier and counts within `mem`: `mem.workers` blocks decoded at a time, the
/// compressed files' pages dropped after each batch.
pub fn stats_within(db: &Database, mem: &ReadBudget) -> Result<Stats> {
    let finishing = db.finishing();
    let mut out = Stats {
        game: db.manifest().game.clone(),
        complete: finishing.complete,
        finished_tiers: finishing.finished,
        planned_tiers: finishing.planned,
        ..Default::default()
    };
    for record in &db.manifest().tiers {
        let file = db.source(record.tier)?;
        let mut t = TierStats::default();
        for_each_block(&file, mem.workers, |start, mut entries| {
            // Don't-care entries recovered through their moves, the lookups into lower tiers
            // gathered (a block of them decoded once), as many as the spare bytes allow.
            let len = (mem.spare() / 64).clamp(1 << 16, 1 << 20) as usize;
            bawo_games::with_game!(db.game(), g => gather::resolve(
                db, g, record.tier, start, &mut entries, &|_, _| None, mem.workers, len,
            ))?;
            t = merge(std::mem::take(&mut t), count(&entries));
            Ok(())
        })?;
        let mut t = both_sides(t);
        t.tier = record.tier;
        t.seeds = record.counts.seeds;
        trim(&mut t.win_depths);
        trim(&mut t.loss_depths);
        // Opening the tier above checked that its compressed file is recorded.
        out.file_bytes = out
            .file_bytes
            .saturating_add(record.bdb.as_ref().map_or(0, |b| b.bytes));
        out.states = out.states.saturating_add(t.states);
        out.win = out.win.saturating_add(t.win);
        out.loss = out.loss.saturating_add(t.loss);
        out.draw = out.draw.saturating_add(t.draw);
        out.max_depth = out.max_depth.max(t.max_depth);
        add_into(&mut out.win_depths, &t.win_depths);
        add_into(&mut out.loss_depths, &t.loss_depths);
        out.tiers.push(t);
    }
    Ok(out)
}
