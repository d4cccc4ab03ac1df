//! Every use of the bawo library by the extension, behind types of its own: the PyO3 glue in
//! `lib.rs` sees only this module, and this module sees only the `bawo-db` crate.
//!
//! | item              | job                                                                   |
//! |-------------------|-----------------------------------------------------------------------|
//! | [`Engine`]        | an opened database: what it holds, probes, queries, stats, verify      |
//! | [`PositionText`]  | a position as `bawo query` takes it: board text, side, hands, houses  |
//! | [`Fail`]          | why a call failed: bad input, a position not held, the files          |
//! | [`Scan`]          | a tier's positions, values and depths in chunks, made by a thread      |
//!
//! Every entry point runs under [`guard`]: a panic anywhere below (a worker thread of a
//! parallel loop included) comes back as a [`Fail::Database`], never unwinds into Python.
//!
//! Besides the library's functions, two hot loops touch positions' fields, which the three
//! games' position types all keep plain (`board`, `side`): the bulk probe writes a row's
//! counts into a parsed empty position instead of parsing its text, and tier chunks copy
//! `board` instead of calling `Game::board_counts` (a vector a row). Both are checked against
//! the text path and `bawo export` by the tests.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use bawo_db::coverage::{ensure_covered, unfinished_note};
use bawo_db::stats::stats;
use bawo_db::{
    query, verify, with_game, Database, Entry, Error, Game, GameParams, PositionSpec, Side, Tier,
    TierSummary, Value, VerifyOptions,
};

/// Value codes of the bulk calls: ordered from the mover's point of view, worst first.
pub const LOSS: i8 = 0;
pub const DRAW: i8 = 1;
pub const WIN: i8 = 2;

/// Why a call failed, each kind raised as its own Python exception.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fail {
    /// Malformed input (`ValueError`), worded as the command line words it.
    Input(String),
    /// A well-formed position, or a tier, that the database does not hold.
    NotCovered(String),
    /// Missing, damaged or mismatched files, and internal errors.
    Database(String),
}

impl Fail {
    fn prefixed(self, what: &str) -> Fail {
        match self {
            Fail::Input(m) => Fail::Input(format!("{what}{m}")),
            Fail::NotCovered(m) => Fail::NotCovered(format!("{what}{m}")),
            Fail::Database(m) => Fail::Database(format!("{what}{m}")),
        }
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        match e {
            Error::Input(_) | Error::TooLarge(_) | Error::Memory(_) => Fail::Input(e.to_string()),
            e => Fail::Database(e.to_string()),
        }
    }
}

impl From<bawo_db::InputError> for Fail {
    fn from(e: bawo_db::InputError) -> Fail {
        Fail::Input(e.to_string())
    }
}

pub type R<T> = Result<T, Fail>;

/// Runs `f`, turning a panic into a [`Fail::Database`].
pub fn guard<T>(f: impl FnOnce() -> R<T>) -> R<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(panic_fail(p)))
}

fn panic_fail(p: Box<dyn std::any::Any + Send>) -> Fail {
    let msg = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    Fail::Database(format!("internal error: {msg}"))
}

/// A position as `bawo query` takes it: `--board`, `--to-move`, `--hands`, `--houses`.
#[derive(Debug, Clone, Default)]
pub struct PositionText {
    pub board: String,
    pub to_move: String,
    pub hands: Option<String>,
    pub houses: Option<String>,
}

/// A value and its depth (none for a draw), as `query --json` writes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub value: &'static str,
    pub depth: Option<u32>,
}

/// One legal move: its label in the game's notation, and its outcome for the mover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveOutcome {
    pub label: String,
    pub outcome: Outcome,
}

/// A position's outcome and every legal move's, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryOutcome {
    pub outcome: Outcome,
    pub moves: Vec<MoveOutcome>,
}

/// The side to move of every row of a bulk probe.
#[derive(Debug, Clone, Copy)]
pub enum Sides<'a> {
    /// The same side for every row (0 = A, 1 = B).
    All(u8),
    /// One side per row (0 = A, 1 = B).
    Each(&'a [u8]),
}

/// Rows of a tier: stored positions (A to move) and, with both sides, each followed by its
/// mirror with B to move, the rows of `bawo export`.
#[derive(Debug, Default)]
pub struct Chunk {
    pub rows: usize,
    pub pits: usize,
    /// The entry's index within the tier (a mirror shares its stored position's index).
    pub index: Vec<u64>,
    /// `rows * pits` pit counts, row after row, in the game's pit order.
    pub boards: Vec<u8>,
    /// 0 for A to move, 1 for B.
    pub to_move: Vec<u8>,
    /// [`LOSS`], [`DRAW`] or [`WIN`] for the side to move.
    pub value: Vec<i8>,
    /// Plies to the end under best play; -1 for a draw.
    pub depth: Vec<i16>,
}

fn side_letter(code: u8) -> R<Side> {
    match code {
        0 => Ok(Side::A),
        1 => Ok(Side::B),
        other => Err(Fail::Input(format!(
            "side to move must be 0 (A) or 1 (B), not {other}"
        ))),
    }
}

fn value_code(v: Value) -> i8 {
    match v {
        Value::Loss => LOSS,
        Value::Draw => DRAW,
        Value::Win => WIN,
    }
}

fn outcome(value: Value, depth: Option<u32>) -> Outcome {
    Outcome {
        value: value.as_str(),
        depth,
    }
}

fn entry_outcome(e: Entry) -> R<Outcome> {
    match e.value() {
        Some(v) => Ok(outcome(v, e.depth())),
        None => Err(Fail::Database(
            "internal error: the database holds an unsolved entry".into(),
        )),
    }
}

/// Value code and depth (-1 for a draw) of an entry; an unsolved entry (never in a finished
/// tier) reads as -1, -1.
#[inline]
fn codes(e: Entry) -> (i8, i16) {
    match e.value() {
        Some(v) => (value_code(v), e.depth().map_or(-1, |d| d as i16)),
        None => (-1, -1),
    }
}

/// Appends `v` in decimal (the bulk calls' board text, without `format!`).
#[inline]
fn push_count(out: &mut String, v: u8) {
    if v >= 100 {
        out.push((b'0' + v / 100) as char);
    }
    if v >= 10 {
        out.push((b'0' + v / 10 % 10) as char);
    }
    out.push((b'0' + v % 10) as char);
}

/// A row of a bulk probe located: the stored position's tier and index, and the row.
type Key = (Tier, u64, u32);

/// A value code and a depth (-1 for a draw).
type Codes = (i8, i16);

/// A row of a bulk probe refused, and why.
type RowFail = (usize, Fail);

/// An opened database.
pub struct Engine {
    db: Database,
    pits: usize,
}

impl Engine {
    /// Opens the database in `dir` (the `--out` of a solve): its manifest is read and its
    /// game rebuilt; tier files are opened and checked on first use.
    pub fn open(dir: &Path) -> R<Engine> {
        guard(|| {
            let db = Database::open(dir)?;
            let m = db.manifest();
            let pits = with_game!(db.game(), g => {
                let tier = m
                    .tiers
                    .first()
                    .map(|r| r.tier)
                    .or_else(|| g.tiers_up_to(m.seeds).ok()?.first().copied());
                tier.map_or(0, |t| g.board_counts(&g.position(t, 0)).len())
            });
            Ok(Engine { db, pits })
        })
    }

    /// The game's name: bawo, kigogo or bao.
    pub fn name(&self) -> &'static str {
        self.db.game().name()
    }

    /// Every parameter and rule option in one line, as the manifest records it.
    pub fn descriptor(&self) -> String {
        self.db.game().descriptor()
    }

    /// The game's parameters (Bawo: n, lap-cap) and rule options, in descriptor order.
    #[allow(clippy::type_complexity)]
    pub fn params_and_rules(&self) -> (Vec<(String, String)>, Vec<(String, String)>) {
        let Ok(p) = GameParams::from_descriptor(&self.descriptor()) else {
            return (Vec::new(), Vec::new());
        };
        let rules = p
            .rules
            .as_deref()
            .unwrap_or("")
            .split(',')
            .filter_map(|w| w.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        (p.params, rules)
    }

    /// Pits on the board.
    pub fn pits(&self) -> usize {
        self.pits
    }

    /// The seed budget of the run.
    pub fn seeds(&self) -> u32 {
        self.db.manifest().seeds
    }

    /// Every tier of the run's budget is finished.
    pub fn complete(&self) -> bool {
        self.db.is_complete()
    }

    /// For a run stopped part-way, the command line's sentence saying which tiers are
    /// finished.
    pub fn unfinished_note(&self) -> Option<String> {
        unfinished_note(&self.db)
    }

    /// The tiers the database holds with their counts, in solving order.
    pub fn tiers(&self) -> Vec<TierSummary> {
        self.db.tier_summaries()
    }

    /// Drops the mapped pages of the tier files opened so far.
    pub fn release(&self) {
        self.db.release_maps()
    }

    /// The position `p` names, refused as the command line refuses it: malformed text is
    /// [`Fail::Input`], a position the database holds no table for [`Fail::NotCovered`].
    fn position<G: Game>(&self, g: &G, p: PositionText) -> R<G::Position> {
        let spec = PositionSpec {
            board: p.board,
            to_move: Side::parse(&p.to_move)?,
            hands: p.hands,
            houses: p.houses,
        };
        let pos = g.parse_position(&spec)?;
        self.covered(g, &pos)?;
        Ok(pos)
    }

    /// Refuses, as `bawo query` does, a parsed position that no table of the database holds.
    fn covered<G: Game>(&self, g: &G, pos: &G::Position) -> R<()> {
        ensure_covered(&self.db, g, pos, self.db.dir()).map_err(|e| match e {
            // The text parsed: what is left to refuse is the position itself (a board beyond
            // the database, a Bao position with seeds in hand).
            Error::Input(_) | Error::TooLarge(_) => Fail::NotCovered(e.to_string()),
            e => Fail::from(e),
        })
    }

    /// Value and depth of one position.
    pub fn probe(&self, p: PositionText) -> R<Outcome> {
        guard(|| {
            with_game!(self.db.game(), g => {
                let pos = self.position(g, p)?;
                entry_outcome(self.db.probe_position(g, &pos)?)
            })
        })
    }

    /// Value and depth of one position and of every legal move, best first (`bawo query`).
    pub fn query(&self, p: PositionText) -> R<QueryOutcome> {
        guard(|| {
            with_game!(self.db.game(), g => {
                let pos = self.position(g, p)?;
                let a = query(&self.db, g, &pos)?;
                Ok(QueryOutcome {
                    outcome: outcome(a.value, a.depth),
                    moves: a
                        .moves
                        .into_iter()
                        .map(|m| MoveOutcome {
                            label: m.label,
                            outcome: outcome(m.value, m.depth),
                        })
                        .collect(),
                })
            })
        })
    }

    /// Value codes and depths of `boards` (`cols` pit counts a row), in parallel. The first
    /// row refused, if any, fails the call, its message prefixed with its row number.
    pub fn probe_many(&self, boards: &[u8], cols: usize, sides: Sides) -> R<(Vec<i8>, Vec<i16>)> {
        guard(|| {
            if cols != self.pits {
                return Err(Fail::Input(format!(
                    "boards have {cols} pit counts a row, this game needs {}",
                    self.pits
                )));
            }
            let rows = boards.len().checked_div(cols).unwrap_or(0);
            if rows > u32::MAX as usize {
                return Err(Fail::Input(format!(
                    "{rows} boards in one call; at most {} a call",
                    u32::MAX
                )));
            }
            if let Sides::Each(s) = sides {
                if s.len() != rows {
                    return Err(Fail::Input(format!(
                        "to_move has {} sides for {rows} boards",
                        s.len()
                    )));
                }
            }
            let mut values = vec![0i8; rows];
            let mut depths = vec![0i16; rows];
            let budget = self.db.manifest().seeds;
            const PART: usize = 1024;
            let mut failures: Vec<(usize, Fail)> = Vec::new();
            with_game!(self.db.game(), g => {
                // The empty board with A to move, parsed as `bawo query` parses a board: each
                // row within the database's seed budget is written into a copy of it (the
                // three games' positions all keep `board` and `side` in plain fields), which
                // is exactly the position its text parses to. Any other row, and any row the
                // database refuses, goes through the text, for the command line's answer.
                let mut empty = String::new();
                for j in 0..cols {
                    if j > 0 {
                        empty.push(',');
                    }
                    empty.push('0');
                }
                let template = g.parse_position(&PositionSpec::new(&empty, Side::A))?;
                // First the stored position (tier, index) of every row; rows that need the
                // text are answered here.
                let located: Vec<(Vec<Key>, Option<RowFail>)> = values
                    .par_chunks_mut(PART)
                    .zip(depths.par_chunks_mut(PART))
                    .enumerate()
                    .map(|(c, (vs, ds))| {
                        let mut keys = Vec::with_capacity(vs.len());
                        let mut text = String::with_capacity(4 * cols);
                        let mut pos = template;
                        for k in 0..vs.len() {
                            let row = c * PART + k;
                            let counts = &boards[row * cols..(row + 1) * cols];
                            let side = match sides {
                                Sides::All(s) => s,
                                Sides::Each(s) => s[row],
                            };
                            let side = match side_letter(side) {
                                Ok(s) => s,
                                Err(f) => return (keys, Some((row, f))),
                            };
                            let seeds: u32 = counts.iter().map(|&v| v as u32).sum();
                            if seeds <= budget {
                                pos.board[..cols].copy_from_slice(counts);
                                pos.side = side;
                                if let Ok((t, i)) = g.locate(&pos) {
                                    if self.db.manifest().record(t).is_some() {
                                        keys.push((t, i, row as u32));
                                        continue;
                                    }
                                }
                            }
                            text.clear();
                            for (j, &v) in counts.iter().enumerate() {
                                if j > 0 {
                                    text.push(',');
                                }
                                push_count(&mut text, v);
                            }
                            match self.probe_row(g, &mut text, side) {
                                Ok((v, d)) => {
                                    vs[k] = v;
                                    ds[k] = d;
                                }
                                Err(f) => return (keys, Some((row, f))),
                            }
                        }
                        (keys, None)
                    })
                    .collect();
                let mut keys = Vec::with_capacity(rows);
                for (k, f) in located {
                    keys.extend(k);
                    failures.extend(f);
                }
                // Then the probes in (tier, index) order: neighbours share blocks, and their
                // moves' lookups land near each other.
                keys.par_sort_unstable();
                let probed: Vec<Vec<(u32, R<Codes>)>> = keys
                    .par_chunks(PART)
                    .map(|ks| {
                        ks.iter()
                            .map(|&(t, i, row)| (row, self.db.probe(t, i).map(codes).map_err(Fail::from)))
                            .collect()
                    })
                    .collect();
                for (row, r) in probed.into_iter().flatten() {
                    match r {
                        Ok((v, d)) => {
                            values[row as usize] = v;
                            depths[row as usize] = d;
                        }
                        Err(f) => failures.push((row as usize, f)),
                    }
                }
            });
            if let Some((row, f)) = failures.into_iter().min_by_key(|(r, _)| *r) {
                return Err(f.prefixed(&format!("row {row}: ")));
            }
            Ok((values, depths))
        })
    }

    /// One row of [`Engine::probe_many`], its board text in `text` (handed back there).
    fn probe_row<G: Game>(&self, g: &G, text: &mut String, to_move: Side) -> R<(i8, i16)> {
        let spec = PositionSpec {
            board: std::mem::take(text),
            to_move,
            hands: None,
            houses: None,
        };
        let parsed = g.parse_position(&spec);
        *text = spec.board;
        let pos = parsed?;
        self.covered(g, &pos)?;
        Ok(codes(self.db.probe_position(g, &pos)?))
    }

    /// Entries stored for tier `tier` (positions with A to move), its file opened and its
    /// header checked: a tier the database does not hold is [`Fail::NotCovered`], a missing
    /// or damaged file [`Fail::Database`].
    pub fn tier_entries(&self, tier: u32) -> R<u64> {
        guard(|| {
            let states = match self.db.record(tier) {
                Ok(r) => r.counts.states,
                Err(e) => return Err(Fail::NotCovered(e.to_string())),
            };
            self.db.source(tier)?;
            Ok(states)
        })
    }

    /// Starts reading tier `tier` on a thread of its own: chunks of at most `chunk_rows` rows
    /// (stored positions, each followed by its mirror with `both_sides`), a chunk or two
    /// ahead of the reader, so memory stays bounded whatever the tier's size.
    pub fn scan(self: &Arc<Self>, tier: u32, chunk_rows: usize, both_sides: bool) -> R<Scan> {
        guard(|| {
            let stored = self.tier_entries(tier)?;
            let per_row = if both_sides { 2 } else { 1 };
            let per_chunk = (chunk_rows / per_row).max(1);
            let (tx, rx) = sync_channel(1);
            let me = Arc::clone(self);
            std::thread::Builder::new()
                .name(format!("bawo-tier-{tier}"))
                .spawn(move || {
                    let done = guard(|| me.produce(tier, per_chunk, both_sides, &tx));
                    if let Err(f) = done {
                        let _ = tx.send(Err(f));
                    }
                })
                .map_err(|e| Fail::Database(format!("cannot start a reader thread: {e}")))?;
            Ok(Scan {
                rx: Mutex::new(rx),
                rows: stored * per_row as u64,
            })
        })
    }

    /// The scan's thread: tier `tier` block by block ([`Database::for_each_run`], don't-care
    /// entries recovered), cut into chunks sent to `tx`. Stops quietly when the reader is gone.
    fn produce(
        &self,
        tier: u32,
        per_chunk: usize,
        both_sides: bool,
        tx: &SyncSender<R<Chunk>>,
    ) -> R<()> {
        let mut gone = false;
        let read = with_game!(self.db.game(), g => self.db.for_each_run(tier, |start, entries| {
            for (k, part) in entries.chunks(per_chunk).enumerate() {
                let first = start + (k * per_chunk) as u64;
                // The board of a position is its `board` field's first pits (a plain field in
                // all three games: `board_counts` would allocate a vector a row).
                let chunk = chunk_of(g, tier, first, part, both_sides, self.pits, |q, out| {
                    out.copy_from_slice(&q.board[..out.len()])
                });
                if tx.send(Ok(chunk)).is_err() {
                    gone = true;
                    return Err(Error::Internal("the reader is gone".into()));
                }
            }
            Ok(())
        }));
        match read {
            Err(_) if gone => Ok(()),
            r => r.map_err(Fail::from),
        }
    }

    /// `stats --json`: counts and depth histograms per tier, read from the tier files.
    pub fn stats_json(&self) -> R<String> {
        guard(|| {
            let s = stats(&self.db)?;
            serde_json::to_string(&s).map_err(|e| Fail::Database(format!("internal error: {e}")))
        })
    }

    /// `verify --json` of this database.
    pub fn verify_json(&self, sample: Option<u64>, seed: u64, partial: bool) -> R<String> {
        guard(|| verify_db(&self.db, sample, seed, partial))
    }
}

/// `verify --json` of the database in `dir`: every checksum, then every stored value (or
/// `sample` random ones) recomputed from its successors. A damaged or wrong database is a
/// report saying so, not a failure; an unfinished run fails unless `partial`.
pub fn verify_dir(dir: &Path, sample: Option<u64>, seed: u64, partial: bool) -> R<String> {
    guard(|| verify_db(&Database::open(dir)?, sample, seed, partial))
}

fn verify_db(db: &Database, sample: Option<u64>, seed: u64, partial: bool) -> R<String> {
    if let Some(note) = unfinished_note(db).filter(|_| !partial) {
        return Err(Fail::Database(format!(
            "{note}; pass partial=True to verify the finished tiers only"
        )));
    }
    let report = verify(db, &VerifyOptions { sample, seed })?;
    serde_json::to_string(&report).map_err(|e| Fail::Database(format!("internal error: {e}")))
}

/// The rows of stored positions `first..first + entries.len()` of `tier`, built in parallel.
fn chunk_of<G: Game>(
    g: &G,
    tier: u32,
    first: u64,
    entries: &[u16],
    both_sides: bool,
    pits: usize,
    board_of: impl Fn(&G::Position, &mut [u8]) + Sync,
) -> Chunk {
    let per = if both_sides { 2 } else { 1 };
    let rows = entries.len() * per;
    let mut c = Chunk {
        rows,
        pits,
        index: vec![0; rows],
        boards: vec![0; rows * pits],
        to_move: vec![0; rows],
        value: vec![0; rows],
        depth: vec![0; rows],
    };
    const PART: usize = 1 << 13;
    c.index
        .par_chunks_mut(PART * per)
        .zip(c.boards.par_chunks_mut(PART * per * pits))
        .zip(c.to_move.par_chunks_mut(PART * per))
        .zip(c.value.par_chunks_mut(PART * per))
        .zip(c.depth.par_chunks_mut(PART * per))
        .enumerate()
        .for_each(|(p, ((((ix, bd), tm), vs), ds))| {
            let lo = first + (p * PART) as u64;
            let n = ix.len() / per;
            g.visit(tier, lo..lo + n as u64, |i, pos| {
                let k = (i - lo) as usize;
                let (v, d) = codes(Entry(entries[(i - first) as usize]));
                let mut put = |row: usize, q: &G::Position| {
                    ix[row] = i;
                    tm[row] = g.side_to_move(q).index() as u8;
                    vs[row] = v;
                    ds[row] = d;
                    board_of(q, &mut bd[row * pits..(row + 1) * pits]);
                };
                put(k * per, pos);
                if both_sides {
                    put(k * per + 1, &g.mirror(pos));
                }
            });
        });
    c
}

/// A tier being read: chunks in index order, then the end (or one failure).
pub struct Scan {
    rx: Mutex<Receiver<R<Chunk>>>,
    rows: u64,
}

impl Scan {
    /// Rows the whole scan gives.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The next chunk; `None` at the end. Blocks until the reader thread has it.
    pub fn next(&self) -> Option<R<Chunk>> {
        self.rx.lock().ok()?.recv().ok()
    }
}
