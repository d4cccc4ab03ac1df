//! `bawo verify`: an independent check of a finished database.
//!
//! Two parts. First every checksum: the manifest's record of each file, each file's header
//! and index checksum, each block's checksum, and each file's whole-file checksum. Then a
//! forward pass that recomputes each position's value and depth from its successors
//! ([`Game::successors`]) and the *stored* entries of those successors, sharing no code with
//! the solver's backward pass:
//!
//! | successors (for the opponent)     | the position must be                  |
//! |-----------------------------------|---------------------------------------|
//! | none                              | LOSS in 0                             |
//! | some LOSS in d                    | WIN in 1 + the smallest such d        |
//! | no LOSS, some DRAW                | DRAW                                  |
//! | all WIN in d (a lost-at-once move counts as WIN in 0) | LOSS in 1 + the largest d |
//!
//! Local agreement everywhere proves the whole table: depths of wins and losses strictly
//! decrease along the moves that justify them, so no cycle can fake a decided value, and a
//! position wrongly stored as a draw is caught at the shallowest such position, whose
//! justifying successors are all stored correctly.
//!
//! The full pass decodes each tier once (blocks in parallel) and keeps the decoded tiers in
//! memory (2 bytes per position) for the lookups of the tiers above; `--sample K` instead
//! checks K random positions through ordinary probes and the block cache.

use rayon::prelude::*;
use serde::Serialize;

use super::Database;
use crate::error::{Error, Result};
use crate::game::{Game, Successor, Tier};
use crate::solve::tables::{Lookup, TableData, Tables};
use crate::value::{Entry, Value};

/// At most this many bad positions and bad blocks are named.
pub const MAX_NAMED: usize = 10;

/// What to check.
#[derive(Clone, Copy, Debug, Default)]
pub struct VerifyOptions {
    /// Check this many random positions instead of all (all of them when the database holds
    /// no more).
    pub sample: Option<u64>,
    /// Seed of the sample.
    pub seed: u64,
}

/// A position whose stored entry disagrees with its successors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BadPosition {
    pub tier: Tier,
    pub index: u64,
    pub board: Vec<u32>,
    pub to_move: &'static str,
    pub stored: String,
    pub expected: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct VerifyReport {
    pub files: u64,
    pub blocks: u64,
    /// Positions recomputed.
    pub checked: u64,
    /// Positions that disagree (all of them, named or not).
    pub mismatches: u64,
    /// The first bad positions in (tier, index) order.
    pub bad_positions: Vec<BadPosition>,
    /// Damaged files or blocks, one line each.
    pub bad_blocks: Vec<String>,
}

impl VerifyReport {
    pub fn ok(&self) -> bool {
        self.mismatches == 0 && self.bad_blocks.is_empty()
    }
}

/// What a position's entry must be, given its successors' stored entries.
pub fn expected_entry(
    successors: &[Successor],
    mut lookup: impl FnMut(Tier, u64) -> Result<Entry>,
) -> Result<Entry> {
    if successors.is_empty() {
        return Ok(Entry::decided(Value::Loss, 0));
    }
    let mut win: Option<u32> = None;
    let mut draw = false;
    let mut loss = 0u32;
    for s in successors {
        match *s {
            Successor::MoverLoses => loss = loss.max(1),
            Successor::Position { tier, index } => {
                let e = lookup(tier, index)?;
                match (e.value(), e.depth()) {
                    (Some(Value::Loss), Some(d)) => win = Some(win.map_or(d + 1, |w| w.min(d + 1))),
                    (Some(Value::Win), Some(d)) => loss = loss.max(d + 1),
                    (Some(Value::Draw), _) => draw = true,
                    _ => {
                        return Err(Error::Internal(format!(
                            "successor {index} in tier {tier} has no stored value"
                        )))
                    }
                }
            }
        }
    }
    let depth_ok = |d: u32| d <= crate::value::MAX_DEPTH;
    Ok(match (win, draw) {
        (Some(w), _) if depth_ok(w) => Entry::decided(Value::Win, w),
        (None, true) => Entry::DRAW,
        (None, false) if depth_ok(loss) => Entry::decided(Value::Loss, loss),
        _ => {
            return Err(Error::Internal(
                "a recomputed depth exceeds what entries hold".into(),
            ))
        }
    })
}

fn describe(e: Entry) -> String {
    format!("{e:?}")
}

/// Checks every checksum without decompressing; returns the damaged files and blocks.
fn check_checksums(db: &Database, report: &mut VerifyReport) {
    for record in &db.manifest().tiers {
        report.files += 1;
        match db.source(record.tier) {
            Err(e) => report.bad_blocks.push(e.to_string()),
            Ok(f) => {
                report.blocks += f.blocks() as u64;
                let bad: Vec<String> = (0..f.blocks())
                    .into_par_iter()
                    .filter_map(|b| f.check_block(b).err().map(|e| e.to_string()))
                    .collect();
                let whole = f.check_file().err();
                report.bad_blocks.extend(bad);
                if let Some(e) = whole {
                    report.bad_blocks.push(e.to_string());
                }
            }
        }
    }
}

/// Runs the checks. Damaged files stop the run before the forward pass, whose lookups could
/// not be trusted.
pub fn verify(db: &Database, opts: &VerifyOptions) -> Result<VerifyReport> {
    let mut report = VerifyReport::default();
    check_checksums(db, &mut report);
    if !report.bad_blocks.is_empty() {
        report.bad_blocks.truncate(MAX_NAMED);
        return Ok(report);
    }
    // A sample at least as large as the database is the whole database (and is never
    // allocated as a list of picks).
    let present: u64 = db.manifest().tiers.iter().map(|r| r.counts.states).sum();
    crate::with_game!(db.game(), g => match opts.sample {
        Some(k) if k < present => sample_pass(db, g, k, opts.seed, &mut report)?,
        _ => full_pass(db, g, &mut report)?,
    });
    report.bad_positions.sort_by_key(|b| (b.tier, b.index));
    report.bad_positions.truncate(MAX_NAMED);
    Ok(report)
}

fn bad_position<G: Game>(
    g: &G,
    tier: Tier,
    index: u64,
    stored: Entry,
    expected: Entry,
) -> BadPosition {
    let pos = g.position(tier, index);
    BadPosition {
        tier,
        index,
        board: g.board_counts(&pos),
        to_move: g.side_to_move(&pos).letter(),
        stored: describe(stored),
        expected: describe(expected),
    }
}

/// Positions one worker checks at a time.
const CHUNK: u64 = 1 << 14;

fn full_pass<G: Game>(db: &Database, g: &G, report: &mut VerifyReport) -> Result<()> {
    let mut tables = Tables::default();
    for record in &db.manifest().tiers {
        let tier = record.tier;
        let entries = match db.tier_entries(tier) {
            Ok(e) => e,
            Err(e @ Error::Corrupt { .. }) => {
                report.bad_blocks.push(e.to_string());
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        tables.insert(tier, TableData::Owned(entries));
        let stored = tables.get(tier).expect("inserted").entries();
        let size = stored.len() as u64;
        let results: Vec<Result<(u64, Vec<BadPosition>)>> = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .map_init(Vec::new, |succ, c| {
                let lo = c * CHUNK;
                let mut bad = 0u64;
                let mut named = Vec::new();
                let mut failure = None;
                g.visit(tier, lo..(lo + CHUNK).min(size), |i, pos| {
                    if failure.is_some() {
                        return;
                    }
                    succ.clear();
                    g.successors(pos, succ);
                    let lookup = |t: Tier, idx: u64| {
                        let e = tables.entry(t, idx);
                        if e.value().is_none() {
                            return Err(Error::Missing(format!(
                                "a move from tier {tier} leads to tier {t}, which the database does not hold"
                            )));
                        }
                        Ok(e)
                    };
                    match expected_entry(succ, lookup) {
                        Ok(want) => {
                            let have = Entry(stored[i as usize]);
                            if have != want {
                                bad += 1;
                                if named.len() < MAX_NAMED {
                                    named.push(bad_position(g, tier, i, have, want));
                                }
                            }
                        }
                        Err(e) => failure = Some(e),
                    }
                });
                match failure {
                    Some(e) => Err(e),
                    None => Ok((bad, named)),
                }
            })
            .collect();
        for r in results {
            let (bad, named) = r?;
            report.mismatches += bad;
            report.bad_positions.extend(named);
        }
        report.checked += size;
    }
    Ok(())
}

fn sample_pass<G: Game>(
    db: &Database,
    g: &G,
    k: u64,
    seed: u64,
    report: &mut VerifyReport,
) -> Result<()> {
    let tiers: Vec<(Tier, u64)> = db
        .manifest()
        .tiers
        .iter()
        .map(|r| (r.tier, r.counts.states))
        .collect();
    let total: u64 = tiers.iter().map(|t| t.1).sum();
    if total == 0 {
        return Ok(());
    }
    let mut rng = super::play::SplitMix64::new(seed);
    let mut picks: Vec<(Tier, u64)> = (0..k)
        .map(|_| {
            let mut r = rng.below(total);
            for &(t, n) in &tiers {
                if r < n {
                    return (t, r);
                }
                r -= n;
            }
            unreachable!("r < total")
        })
        .collect();
    // Sorted picks share blocks: each block is decoded once while its picks are checked.
    picks.sort_unstable();
    let results: Vec<Result<Option<BadPosition>>> = picks
        .par_iter()
        .map_init(Vec::new, |succ, &(tier, index)| {
            let pos = g.position(tier, index);
            succ.clear();
            g.successors(&pos, succ);
            let want = expected_entry(succ, |t, i| db.probe(t, i))?;
            let have = db.probe(tier, index)?;
            Ok((have != want).then(|| bad_position(g, tier, index, have, want)))
        })
        .collect();
    for r in results {
        report.checked += 1;
        match r {
            Ok(Some(b)) => {
                report.mismatches += 1;
                report.bad_positions.push(b);
            }
            Ok(None) => {}
            Err(e @ Error::Corrupt { .. }) => {
                report.bad_blocks.push(e.to_string());
                report.bad_blocks.dedup();
            }
            Err(e) => return Err(e),
        }
    }
    report.bad_blocks.truncate(MAX_NAMED);
    Ok(())
}
