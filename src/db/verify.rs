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
//! memory (2 bytes per position) for the lookups of the tiers above while they fit the
//! budget (`--mem`, the most recent tiers kept); lookups into tiers beyond it are probes
//! through the block cache, slower but within the budget. `--sample K` instead checks K
//! random positions through ordinary probes and the block cache.

use rayon::prelude::*;
use serde::Serialize;

use super::memory::{for_each_block, ReadBudget};
use super::Database;
use crate::error::{Error, Result};
use crate::game::{Game, Successor, Tier};
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
                f.release();
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
    verify_within(
        db,
        opts,
        &ReadBudget::unbounded(rayon::current_num_threads()),
    )
}

/// Runs the checks within `mem`: decoded tiers are kept for lookups while they fit its
/// spare bytes (the most recent ones), the others are probed through the block cache (open
/// the database with a cache of `mem.cache` bytes), and the compressed files' pages are
/// dropped as they are read.
pub fn verify_within(
    db: &Database,
    opts: &VerifyOptions,
    mem: &ReadBudget,
) -> Result<VerifyReport> {
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
        _ => full_pass(db, g, mem, &mut report)?,
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

/// The decoded tiers the full pass keeps for lookups, the most recent first to go last:
/// lookups mostly stay in their own tier or the few below it.
struct Decoded {
    tiers: Vec<(Tier, Vec<u16>)>,
    bytes: u64,
    room: u64,
}

impl Decoded {
    /// Makes room for `bytes` more by dropping the oldest tiers; false when even all the room
    /// cannot hold them.
    fn make_room(&mut self, bytes: u64) -> bool {
        if bytes > self.room {
            return false;
        }
        while self.bytes + bytes > self.room {
            let (_, old) = self.tiers.remove(0);
            self.bytes -= 2 * old.len() as u64;
        }
        true
    }

    fn get(&self, tier: Tier) -> Option<&[u16]> {
        self.tiers
            .iter()
            .find(|t| t.0 == tier)
            .map(|t| t.1.as_slice())
    }
}

fn full_pass<G: Game>(
    db: &Database,
    g: &G,
    mem: &ReadBudget,
    report: &mut VerifyReport,
) -> Result<()> {
    let mut decoded = Decoded {
        tiers: Vec::new(),
        bytes: 0,
        room: mem.spare(),
    };
    let mut seen: Vec<Tier> = Vec::new();
    for record in &db.manifest().tiers {
        let tier = record.tier;
        let size = record.counts.states;
        let file = match db.source(tier) {
            Ok(f) => f,
            Err(e @ Error::Corrupt { .. }) => {
                report.bad_blocks.push(e.to_string());
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        seen.push(tier);
        // A tier that fits is decoded whole first (its own lookups read it); one that does
        // not is checked a batch of blocks at a time, its lookups probing the block cache.
        let resident = decoded.make_room(2 * size);
        let mut whole = Vec::new();
        if resident {
            whole.reserve_exact(size as usize);
        }
        let mut batch: Vec<u16> = Vec::new();
        let mut batch_start = 0u64;
        let batch_len = mem.workers as u64 * file.header().block_positions as u64;
        let decoding = for_each_block(&file, mem.workers, |start, mut entries| {
            // Don't-care entries are recomputed through their moves, as the prober does.
            db.resolve(tier, start, &mut entries)?;
            if resident {
                whole.extend_from_slice(&entries);
                return Ok(());
            }
            if batch.is_empty() {
                batch_start = start;
            }
            batch.extend_from_slice(&entries);
            let end = start + entries.len() as u64;
            if end - batch_start >= batch_len || end == size {
                let (bad, named) = check_range(db, g, tier, batch_start, &batch, &decoded, &seen)?;
                report.mismatches += bad;
                report.bad_positions.extend(named);
                batch.clear();
                db.release_maps();
            }
            Ok(())
        });
        match decoding {
            Err(e @ Error::Corrupt { .. }) => {
                report.bad_blocks.push(e.to_string());
                return Ok(());
            }
            r => r?,
        }
        if resident {
            decoded.bytes += 2 * size;
            decoded.tiers.push((tier, whole));
            let stored = decoded.get(tier).expect("just kept");
            let (bad, named) = check_range(db, g, tier, 0, stored, &decoded, &seen)?;
            report.mismatches += bad;
            report.bad_positions.extend(named);
            db.release_maps();
        }
        report.checked += size;
    }
    Ok(())
}

/// Checks positions `first..first + stored.len()` of `tier` (whose stored entries are
/// `stored`) in parallel: their count of disagreements and the first few named. Successors
/// are looked up in the decoded tiers, else probed.
fn check_range<G: Game>(
    db: &Database,
    g: &G,
    tier: Tier,
    first: u64,
    stored: &[u16],
    decoded: &Decoded,
    seen: &[Tier],
) -> Result<(u64, Vec<BadPosition>)> {
    let end = first + stored.len() as u64;
    let results: Vec<Result<(u64, Vec<BadPosition>)>> = (0..(stored.len() as u64).div_ceil(CHUNK))
        .into_par_iter()
        .map_init(Vec::new, |succ, c| {
            let lo = first + c * CHUNK;
            let mut bad = 0u64;
            let mut named = Vec::new();
            let mut failure = None;
            g.visit(tier, lo..(lo + CHUNK).min(end), |i, pos| {
                if failure.is_some() {
                    return;
                }
                succ.clear();
                g.successors(pos, succ);
                let lookup = |t: Tier, idx: u64| {
                    if let Some(e) = decoded.get(t) {
                        return Ok(Entry(e[idx as usize]));
                    }
                    if !seen.contains(&t) {
                        return Err(Error::Missing(format!(
                            "a move from tier {tier} leads to tier {t}, which the database does not hold"
                        )));
                    }
                    db.probe(t, idx)
                };
                match expected_entry(succ, lookup) {
                    Ok(want) => {
                        let have = Entry(stored[(i - first) as usize]);
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
    let mut bad = 0;
    let mut named = Vec::new();
    for r in results {
        let (b, n) = r?;
        bad += b;
        named.extend(n);
    }
    Ok((bad, named))
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
