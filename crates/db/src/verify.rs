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
//! The full pass decodes each tier once (blocks in parallel) and keeps the checked tiers in
//! memory, packed (about half a byte a position, [`PackedTier`]), for the lookups of the
//! tiers above while they fit the budget (`--mem`, the most recent tiers kept); lookups into
//! tiers beyond it are probes through the block cache, slower but within the budget. `--sample K` instead checks K
//! random positions through ordinary probes and the block cache.

use rayon::prelude::*;
use serde::Serialize;

use super::format::BdbFile;
use super::gather;
use super::memory::{for_each_block, ReadBudget};
use super::packed::{KeptTiers, PackedTier};
use super::sample;
use super::Database;
use bawo_games::error::{Error, Result};
use bawo_games::game::{Game, Successor, Tier};
use bawo_games::value::{Entry, Value};

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
    /// The position's tier.
    pub tier: Tier,
    /// The position's index in its tier.
    pub index: u64,
    /// Seeds per pit.
    pub board: Vec<u32>,
    /// The side to move (`"A"` or `"B"`).
    pub to_move: &'static str,
    /// The value stored.
    pub stored: String,
    /// The value the successors imply.
    pub expected: String,
}

/// What a verification found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct VerifyReport {
    /// Files checked.
    pub files: u64,
    /// Blocks checked.
    pub blocks: u64,
    /// Positions recomputed.
    pub checked: u64,
    /// Positions that disagree (all of them, named or not).
    pub mismatches: u64,
    /// The first bad positions in (tier, index) order.
    pub bad_positions: Vec<BadPosition>,
    /// Damaged files or blocks, one line each (the first [`MAX_NAMED`]).
    pub bad_blocks: Vec<String>,
    /// Damaged files or blocks, all of them, named or not.
    pub damaged: u64,
}

impl VerifyReport {
    /// Whether nothing was wrong.
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
    let depth_ok = |d: u32| d <= bawo_games::value::MAX_DEPTH;
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
        report.damaged = report.bad_blocks.len() as u64;
        report.bad_blocks.truncate(MAX_NAMED);
        return Ok(report);
    }
    // A sample at least as large as the database is the whole database (and is never
    // allocated as a list of picks).
    let present: u64 = db.manifest().tiers.iter().map(|r| r.counts.states).sum();
    bawo_games::with_game!(db.game(), g => match opts.sample {
        Some(k) if k < present => sample_pass(db, g, k, opts.seed, mem, &mut report)?,
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

/// Replaces the don't-care entries among `entries` (positions `first..` of `tier`, as stored)
/// by their exact entries, recovered through their moves as the prober does, the lookups
/// into tiers not kept gathered ([`gather::recover_all`]).
#[allow(clippy::too_many_arguments)]
fn resolve<G: Game>(
    db: &Database,
    g: &G,
    tier: Tier,
    first: u64,
    entries: &mut [u16],
    mem: &ReadBudget,
    decoded: &KeptTiers,
) -> Result<()> {
    let kept = |t: Tier, x: u64| decoded.kept(t, x);
    let len = decoded.gather_len(64) as usize;
    gather::resolve(db, g, tier, first, entries, &kept, mem.workers, len)
}

fn full_pass<G: Game>(
    db: &Database,
    g: &G,
    mem: &ReadBudget,
    report: &mut VerifyReport,
) -> Result<()> {
    let mut decoded = KeptTiers::new(mem.spare());
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
        // A tier that fits packed is decoded whole first (its own lookups read it); one that
        // does not is checked a batch of blocks at a time, its own lookups gathered.
        let checked = match pack_tier(db, g, tier, size, &file, mem, &mut decoded) {
            Err(e @ Error::Corrupt { .. }) => {
                report.bad_blocks.push(e.to_string());
                return Ok(());
            }
            Err(e) => return Err(e),
            Ok(Some(packed)) => {
                decoded.keep(tier, packed);
                let stored = decoded.get(tier).expect("just kept");
                let r = check(
                    db,
                    g,
                    tier,
                    0..size,
                    &|i| stored.get(i),
                    mem,
                    &decoded,
                    &seen,
                );
                db.release_maps();
                r?
            }
            Ok(None) => match check_in_batches(db, g, tier, size, &file, mem, &decoded, &seen) {
                Err(e @ Error::Corrupt { .. }) => {
                    report.bad_blocks.push(e.to_string());
                    return Ok(());
                }
                r => r?,
            },
        };
        report.mismatches += checked.bad;
        report.bad_positions.extend(checked.named);
        report.checked += size;
    }
    Ok(())
}

/// Decodes `tier` and packs its exact entries while room can be made for them (the bytes
/// counted in `decoded` as they grow); `None`, with nothing kept, once it cannot.
fn pack_tier<G: Game>(
    db: &Database,
    g: &G,
    tier: Tier,
    size: u64,
    file: &BdbFile,
    mem: &ReadBudget,
    decoded: &mut KeptTiers,
) -> Result<Option<PackedTier>> {
    let mut packed = PackedTier::with_len(size);
    let mut counted = packed.heap_bytes();
    if !decoded.reserve(counted) {
        return Ok(None);
    }
    let mut fits = true;
    for_each_block(file, mem.workers, |start, mut entries| {
        if !fits {
            return Ok(());
        }
        resolve(db, g, tier, start, &mut entries, mem, decoded)?;
        packed.extend(&entries);
        if start + entries.len() as u64 == size {
            packed.finish();
        }
        let now = packed.heap_bytes();
        if decoded.reserve(now - counted) {
            counted = now;
        } else {
            fits = false;
            packed = PackedTier::with_len(0);
        }
        Ok(())
    })?;
    if !fits {
        decoded.unreserve(counted);
        return Ok(None);
    }
    Ok(Some(packed))
}

/// Checks a tier that does not fit packed, a batch of blocks at a time, its lookups into
/// tiers not kept gathered ([`check_gathered`]).
#[allow(clippy::too_many_arguments)]
fn check_in_batches<G: Game>(
    db: &Database,
    g: &G,
    tier: Tier,
    size: u64,
    file: &BdbFile,
    mem: &ReadBudget,
    decoded: &KeptTiers,
    seen: &[Tier],
) -> Result<Tally> {
    let mut tally = Tally::default();
    let mut batch: Vec<u16> = Vec::new();
    let mut batch_start = 0u64;
    let batch_len = mem.workers as u64 * file.header().block_positions as u64;
    for_each_block(file, mem.workers, |start, mut entries| {
        resolve(db, g, tier, start, &mut entries, mem, decoded)?;
        if batch.is_empty() {
            batch_start = start;
        }
        batch.extend_from_slice(&entries);
        let end = start + entries.len() as u64;
        if end - batch_start >= batch_len || end == size {
            let stored = |i: u64| batch[(i - batch_start) as usize];
            tally.add(check(
                db,
                g,
                tier,
                batch_start..end,
                &stored,
                mem,
                decoded,
                seen,
            )?);
            batch.clear();
            db.release_maps();
        }
        Ok(())
    })?;
    Ok(tally)
}

/// Disagreements found: how many, and the first few named.
#[derive(Default)]
struct Tally {
    bad: u64,
    named: Vec<BadPosition>,
}

impl Tally {
    /// Counts (and names, while few are named) a position whose stored entry disagrees.
    fn compare<G: Game>(&mut self, g: &G, tier: Tier, index: u64, have: Entry, want: Entry) {
        if have != want {
            self.bad += 1;
            if self.named.len() < MAX_NAMED {
                self.named.push(bad_position(g, tier, index, have, want));
            }
        }
    }

    fn add(&mut self, other: Tally) {
        self.bad += other.bad;
        self.named.extend(other.named);
    }
}

/// Checks the positions `range` of `tier` (whose stored entries `stored` gives): directly
/// when every tier checked so far is kept ([`check_kept`]), else as many positions at a time
/// as the room left allows ([`check_gathered`]).
#[allow(clippy::too_many_arguments)]
fn check<G: Game>(
    db: &Database,
    g: &G,
    tier: Tier,
    range: std::ops::Range<u64>,
    stored: &(dyn Fn(u64) -> u16 + Sync),
    mem: &ReadBudget,
    decoded: &KeptTiers,
    seen: &[Tier],
) -> Result<Tally> {
    if seen.iter().all(|&t| decoded.get(t).is_some()) {
        return check_kept(g, tier, range, stored, decoded);
    }
    let len = decoded.gather_len(256);
    let mut tally = Tally::default();
    let mut lo = range.start;
    while lo < range.end {
        let hi = (lo + len).min(range.end);
        tally.add(check_gathered(
            db,
            g,
            tier,
            lo..hi,
            stored,
            mem,
            decoded,
            seen,
        )?);
        lo = hi;
    }
    Ok(tally)
}

/// Checks the positions `range` of `tier` in parallel against their successors' entries:
/// every position's successors are generated first, looked up in the kept tiers, and the
/// lookups into tiers not kept (a tier that does not fit packed, its own moves, lower tiers
/// dropped for room) are sorted and each block they touch decoded once for all of them
/// ([`gather`]), rather than once per lookup through the block cache (a random lookup rarely
/// finds its block there). Holds the range's successors (16 bytes each), their answers and
/// the sorted lookups: about 256 bytes a position.
#[allow(clippy::too_many_arguments)]
fn check_gathered<G: Game>(
    db: &Database,
    g: &G,
    tier: Tier,
    range: std::ops::Range<u64>,
    stored: &(dyn Fn(u64) -> u16 + Sync),
    mem: &ReadBudget,
    decoded: &KeptTiers,
    seen: &[Tier],
) -> Result<Tally> {
    let (first, end) = (range.start, range.end);
    // Every position's successors, flat; `starts[k]` is where position first + k's begin.
    let parts: Vec<(Vec<u32>, Vec<Successor>)> = (0..(end - first).div_ceil(CHUNK))
        .into_par_iter()
        .map_init(Vec::new, |succ, c| {
            let lo = first + c * CHUNK;
            let hi = (lo + CHUNK).min(end);
            let mut counts = Vec::with_capacity((hi - lo) as usize);
            let mut flat = Vec::new();
            g.visit(tier, lo..hi, |_, pos| {
                succ.clear();
                g.successors(pos, succ);
                counts.push(succ.len() as u32);
                flat.extend_from_slice(succ);
            });
            (counts, flat)
        })
        .collect();
    let mut starts = Vec::with_capacity((end - first) as usize + 1);
    starts.push(0usize);
    let mut succs = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
    for (counts, flat) in parts {
        for c in counts {
            starts.push(starts.last().expect("starts at 0") + c as usize);
        }
        succs.extend(flat);
    }
    // Answers from the kept tiers at once; the rest requested, sorted by tier and index.
    let mut answers = vec![0u16; succs.len()];
    let mut requests: Vec<(Tier, u64, u32)> = Vec::new();
    for (slot, s) in succs.iter().enumerate() {
        if let Successor::Position { tier: t, index } = *s {
            if let Some(p) = decoded.get(t) {
                answers[slot] = p.get(index);
            } else if !seen.contains(&t) {
                return Err(Error::Missing(format!(
                    "a move from tier {tier} leads to tier {t}, which the database does not hold"
                )));
            } else {
                requests.push((t, index, slot as u32));
            }
        }
    }
    // Each distinct position looked up read once: its stored entry, or for a don't-care one
    // its exact entry, recovered through its moves.
    requests.par_sort_unstable();
    let mut keys: Vec<(Tier, u64)> = requests.iter().map(|r| (r.0, r.1)).collect();
    keys.dedup();
    let stored_keys = gather::stored_entries(db, &keys, mem.workers)?;
    let kept = |t: Tier, x: u64| decoded.kept(t, x);
    let exact = gather::recover_all(db, g, &keys, &kept, mem.workers)?;
    let mut k = 0;
    for &(t, index, slot) in &requests {
        while keys[k] != (t, index) {
            k += 1;
        }
        answers[slot as usize] = exact[k].unwrap_or(stored_keys[k]);
    }
    // Each position against its successors' answers.
    let (starts, succs, answers) = (&starts, &succs, &answers);
    let results: Vec<Tally> = (0..(end - first).div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let lo = first + c * CHUNK;
            let mut tally = Tally::default();
            for i in lo..(lo + CHUNK).min(end) {
                let k = (i - first) as usize;
                let slots = starts[k]..starts[k + 1];
                // Lookups come in the order of the successors; the cursor skips the others.
                let mut cursor = slots.start;
                let lookup = |t: Tier, idx: u64| {
                    while succs[cursor]
                        != (Successor::Position {
                            tier: t,
                            index: idx,
                        })
                    {
                        cursor += 1;
                    }
                    cursor += 1;
                    Ok(Entry(answers[cursor - 1]))
                };
                let want = expected_entry(&succs[slots.clone()], lookup)?;
                tally.compare(g, tier, i, Entry(stored(i)), want);
            }
            Ok(tally)
        })
        .collect::<Result<_>>()?;
    let mut tally = Tally::default();
    for t in results {
        tally.add(t);
    }
    Ok(tally)
}

/// Checks the positions `range` of `tier` (whose stored entries `stored` gives) in parallel
/// when every tier their moves reach is kept: each successor looked up as it is generated,
/// nothing gathered.
fn check_kept<G: Game>(
    g: &G,
    tier: Tier,
    range: std::ops::Range<u64>,
    stored: &(dyn Fn(u64) -> u16 + Sync),
    decoded: &KeptTiers,
) -> Result<Tally> {
    let (first, end) = (range.start, range.end);
    let results: Vec<Result<Tally>> = (0..(end - first).div_ceil(CHUNK))
        .into_par_iter()
        .map_init(Vec::new, |succ, c| {
            let lo = first + c * CHUNK;
            let mut tally = Tally::default();
            let mut failure = None;
            g.visit(tier, lo..(lo + CHUNK).min(end), |i, pos| {
                if failure.is_some() {
                    return;
                }
                succ.clear();
                g.successors(pos, succ);
                let lookup = |t: Tier, idx: u64| match decoded.get(t) {
                    Some(p) => Ok(Entry(p.get(idx))),
                    None => Err(Error::Missing(format!(
                        "a move from tier {tier} leads to tier {t}, which the database does not hold"
                    ))),
                };
                match expected_entry(succ, lookup) {
                    Ok(want) => {
                        let have = Entry(stored(i));
                        tally.compare(g, tier, i, have, want);
                    }
                    Err(e) => failure = Some(e),
                }
            });
            match failure {
                Some(e) => Err(e),
                None => Ok(tally),
            }
        })
        .collect();
    let mut tally = Tally::default();
    for t in results {
        tally.add(t?);
    }
    Ok(tally)
}

/// Checks `k` random stored positions, a batch at a time with every entry the batch needs
/// gathered ([`super::sample`]); a batch that meets a damaged block is checked again one
/// position at a time through the block cache, so every damaged block met is named and the
/// other positions still checked.
fn sample_pass<G: Game>(
    db: &Database,
    g: &G,
    k: u64,
    seed: u64,
    mem: &ReadBudget,
    report: &mut VerifyReport,
) -> Result<()> {
    // A position against its successors, every entry read through `entry`.
    let check = |tier: Tier,
                 index: u64,
                 succ: &[Successor],
                 entry: &dyn Fn(Tier, u64) -> Result<Entry>|
     -> Result<Option<BadPosition>> {
        let want = expected_entry(succ, entry)?;
        let have = entry(tier, index)?;
        Ok((have != want).then(|| bad_position(g, tier, index, have, want)))
    };
    let picks = sample::draw(db, k, seed);
    for part in picks.chunks(sample::batch_len(mem)) {
        let read = sample::Gathered::read(db, g, part, mem.workers);
        let results: Vec<Result<Option<BadPosition>>> = match read {
            Ok(batch) => part
                .par_iter()
                .zip(&batch.successors)
                .map(|(&(tier, index), succ)| check(tier, index, succ, &|t, i| batch.entry(t, i)))
                .collect(),
            Err(Error::Corrupt { .. }) => part
                .par_iter()
                .map_init(Vec::new, |succ, &(tier, index)| {
                    succ.clear();
                    g.successors(&g.position(tier, index), succ);
                    check(tier, index, succ, &|t, i| db.probe(t, i))
                })
                .collect(),
            Err(e) => return Err(e),
        };
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
    }
    report.damaged = report.bad_blocks.len() as u64;
    report.bad_blocks.truncate(MAX_NAMED);
    Ok(())
}
