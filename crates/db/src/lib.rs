//! Finished databases: opening a run directory and probing positions.
//!
//! | module     | job                                                              |
//! |------------|------------------------------------------------------------------|
//! | [`format`](mod@format) | the compressed tier file (`.bdb`): open, check, decode blocks     |
//! | [`encode`] | a tier's entries into a `.bdb` file                               |
//! | [`block`]  | one decoded block                                                 |
//! | [`layout`] | the `.bdb` byte layout the writer and the reader share            |
//! | [`source`] | a file's bytes mapped, or read with `pread` where files may change under a server |
//! | [`cache`]  | decoded blocks kept for repeated probes                           |
//! | [`prefix`] | a block decompressed only as far as one probe needs               |
//! | [`dontcare`] | positions whose entry follows from one ply: stored as anything, recovered by probes |
//! | [`memory`] | the `--mem` budget of `verify` and `stats`, blocks decoded in batches |
//! | [`gather`] | many lookups answered together, each block decoded once          |
//! | [`packed`] | a whole tier's exact entries, about half a byte each, for `verify`'s lookups |
//! | [`verify`](mod@verify) | forward pass recomputing every stored value, checksums            |
//! | [`sample`] | `verify --sample`: random positions, their lookups gathered        |
//! | [`stats`]  | counts and depth histograms per tier                              |
//! | [`stored`] | a finished tier's file on resume: checked, or decoded and checked in one read |
//! | [`play`]   | a game against perfect play                                      |
//! | [`probe`](mod@probe) | [`Probe`]: the library's probe of a position and its moves |
//! | [`export`] | a tier as CSV                                                     |
//! | [`compact`] | a database re-encoded into a new directory with other block and zstd settings |
//! | [`manifest`] | the manifest: the game, each finished tier's counts and files   |
//! | [`counts`] | what a solved tier counts, how long its phases took, what it wrote |
//! | [`cell`]   | the solver's per-position cell and what lower tiers say of it (shared with don't-care recovery) |
//! | [`flags`]  | per-position anchored/don't-care flags handed to the writer      |
//! | [`sink`]   | the interface through which a solver hands finished tiers to the writer |
//!
//! A database is a run directory whose manifest names the game; [`Database::open`] rebuilds
//! the game from that descriptor, so probes never mix rules. Each tier is read from its
//! compressed `.bdb` file (a shipped database holds only those and the manifest); files are
//! opened on first use, their headers checked, and kept.

pub mod block;
pub mod cache;
pub mod cell;
pub mod compact;
pub mod counts;
pub mod coverage;
pub mod dontcare;
pub mod encode;
pub mod export;
pub mod flags;
pub mod format;
pub mod gather;
pub mod layout;
pub mod manifest;
pub mod memory;
pub mod packed;
pub mod play;
pub mod prefix;
pub mod probe;
pub mod sample;
pub mod sink;
pub mod source;
pub mod stats;
pub mod stored;
pub mod verify;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use cache::BlockCache;
use format::BdbFile;
pub use probe::Probe;
pub use source::Access;

pub use bawo_games::{
    with_game, AnyGame, Bao, BaoPosition, BaoRules, Bawo, BawoPosition, BawoRules, Entry, Error,
    Game, GameParams, InputError, Kigogo, KigogoPosition, KigogoRules, LabelledMove, MoveOutcome,
    PositionSpec, Result, Side, Tier, Value, MAX_DEPTH,
};
pub use counts::{TierCounts, TierSummary};
pub use manifest::{Manifest, TierRecord};
pub use verify::{verify, VerifyOptions, VerifyReport};

/// The manifest's checksum proves nothing (anyone can write one), so its tiers are checked
/// against each other and the game before any is read: each tier once, in ascending order,
/// with as many entries as the game's tier holds, and counts of values that add up to them.
fn check_counts(dir: &Path, m: &Manifest, game: &AnyGame) -> Result<()> {
    let path = Manifest::path(dir);
    let damaged = |why: String| Err(Error::corrupt(&path, why));
    let mut last: Option<Tier> = None;
    for r in &m.tiers {
        if let Some(prev) = last.filter(|&p| p >= r.tier) {
            return damaged(format!(
                "tier {} is listed after tier {prev} (tiers must be unique and ascending)",
                r.tier
            ));
        }
        last = Some(r.tier);
        let c = &r.counts;
        let sum = c
            .win
            .checked_add(c.loss)
            .and_then(|s| s.checked_add(c.draw));
        if sum != Some(c.states) {
            return damaged(format!(
                "tier {}: wins {} + losses {} + draws {} do not add up to its {} positions",
                r.tier, c.win, c.loss, c.draw, c.states
            ));
        }
        let size = bawo_games::with_game!(game, g => g.tier_size(r.tier));
        match size {
            Ok(size) if size == c.states => {}
            Ok(size) => {
                return damaged(format!(
                    "tier {} records {} stored positions; the game's tier holds {size}",
                    r.tier, c.states
                ))
            }
            Err(_) => {
                return damaged(format!(
                    "tier {} is not a tier of {} this program can hold",
                    r.tier, m.game
                ))
            }
        }
    }
    Ok(())
}

/// A finished database, open for queries.
pub struct Database {
    dir: PathBuf,
    manifest: Manifest,
    game: AnyGame,
    open: Mutex<HashMap<Tier, Arc<BdbFile>>>,
    cache: BlockCache,
    access: Access,
}

impl Database {
    /// Opens the database in `dir`, checking its manifest.
    pub fn open(dir: &Path) -> Result<Database> {
        Self::open_with_cache(dir, cache::DEFAULT_BUDGET)
    }

    /// Opens a database whose block cache keeps up to `cache_bytes` of decoded blocks.
    pub fn open_with_cache(dir: &Path, cache_bytes: usize) -> Result<Database> {
        Self::open_with(dir, cache_bytes, Access::Map)
    }

    /// Opens a database that reads its tier files by `access` (a server that must outlive
    /// files changing under it reads them, [`Access::Read`]).
    pub fn open_with(dir: &Path, cache_bytes: usize, access: Access) -> Result<Database> {
        if !dir.is_dir() {
            return Err(Error::Missing(format!(
                "{} is not a directory holding a database",
                dir.display()
            )));
        }
        let manifest = Manifest::load(dir)?.ok_or_else(|| {
            Error::Missing(format!(
                "{} holds no database (no {})",
                dir.display(),
                bawo_store::manifest::FILE
            ))
        })?;
        let game = AnyGame::from_descriptor(&manifest.game).map_err(|e| {
            Error::Mismatch(format!(
                "{}: game '{}' is not one this program knows: {e}",
                dir.display(),
                bawo_games::game::input::short(&manifest.game)
            ))
        })?;
        check_counts(dir, &manifest, &game)?;
        Ok(Database {
            dir: dir.to_path_buf(),
            manifest,
            game,
            open: Mutex::new(HashMap::new()),
            cache: BlockCache::new(cache_bytes),
            access,
        })
    }

    /// The game the database solves.
    pub fn game(&self) -> &AnyGame {
        &self.game
    }

    /// The database's manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Each finished tier's counts, as the manifest records them (positions of both sides).
    pub fn tier_summaries(&self) -> Vec<TierSummary> {
        self.manifest
            .tiers
            .iter()
            .map(|r| TierSummary::of(r.tier, &r.counts))
            .collect()
    }

    /// The database's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cache of decoded blocks.
    pub fn cache(&self) -> &BlockCache {
        &self.cache
    }

    /// The manifest's record of `tier`, or an error naming the tiers the database holds.
    pub fn record(&self, tier: Tier) -> Result<&TierRecord> {
        self.manifest.record(tier).ok_or_else(|| {
            let solved: Vec<String> = self
                .manifest
                .tiers
                .iter()
                .map(|r| r.tier.to_string())
                .collect();
            Error::Missing(format!(
                "tier {tier} is not in the database at {} (it holds tiers {})",
                self.dir.display(),
                if solved.is_empty() {
                    "none".to_string()
                } else {
                    solved.join(",")
                }
            ))
        })
    }

    /// Every tier the database holds with its number of stored positions, in tier order.
    pub fn tier_sizes(&self) -> Vec<(Tier, u64)> {
        self.manifest
            .tiers
            .iter()
            .map(|r| (r.tier, r.counts.states))
            .collect()
    }

    /// Opens (once) the compressed file that holds `tier`.
    pub fn source(&self, tier: Tier) -> Result<Arc<BdbFile>> {
        if let Some(t) = self.open.lock().expect("table lock").get(&tier) {
            return Ok(t.clone());
        }
        let record = self.record(tier)?;
        let fp = self.manifest.fingerprint_value();
        // Every finished tier of a format-3 run directory has its compressed file.
        let bdb = record.bdb.as_ref().ok_or_else(|| {
            Error::Mismatch(format!(
                "{}: tier {tier} has no compressed .bdb file (a run directory of an older \
                 layout); solve again into a new directory",
                self.dir.display()
            ))
        })?;
        let path = self.dir.join(&bdb.file);
        let f = BdbFile::open_with(&path, self.access, tier, record.counts.states, fp)?;
        if f.stored_checksum() != bdb.checksum {
            return Err(Error::corrupt(
                &path,
                "file checksum differs from the manifest",
            ));
        }
        let f = Arc::new(f);
        self.open
            .lock()
            .expect("table lock")
            .insert(tier, f.clone());
        Ok(f)
    }

    /// Drops the mapped pages of every file opened so far (see [`BdbFile::release`]).
    pub fn release_maps(&self) {
        let open: Vec<Arc<BdbFile>> = self
            .open
            .lock()
            .expect("table lock")
            .values()
            .cloned()
            .collect();
        open.iter().for_each(|f| f.release());
    }

    /// The exact entry of `index` in `tier`: the stored one, or for a don't-care position of
    /// a file that substitutes them, the entry recovered from the stored entries of its moves
    /// one ply down ([`dontcare::recover`], which never recurses). Decompresses at most one
    /// block per tier it reads.
    pub fn probe(&self, tier: Tier, index: u64) -> Result<Entry> {
        if self.source(tier)?.header().dont_care {
            if let Some(e) = self.recover_if_dont_care(tier, index)? {
                return Ok(e);
            }
        }
        self.probe_stored(tier, index)
    }

    /// The entry of a don't-care position, recovered; `None` for any other.
    fn recover_if_dont_care(&self, tier: Tier, index: u64) -> Result<Option<Entry>> {
        if index >= self.record(tier)?.counts.states {
            return Err(Error::Internal(format!("index {index} beyond tier {tier}")));
        }
        bawo_games::with_game!(&self.game, g => {
            let pos = g.position(tier, index);
            let mut s = dontcare::Scratch::default();
            if !dontcare::is_dont_care(g, tier, &pos, &mut s) {
                return Ok(None);
            }
            dontcare::recover(&s, |t, x| self.probe_stored(t, x)).map(Some)
        })
    }

    /// Replaces the don't-care entries among `entries` (positions `first..` of `tier`, as
    /// stored) by their exact entries, when the tier's file substitutes them.
    pub fn resolve(&self, tier: Tier, first: u64, entries: &mut [u16]) -> Result<()> {
        if !self.source(tier)?.header().dont_care {
            return Ok(());
        }
        let stored = |t: Tier, x: u64| self.probe_stored(t, x);
        bawo_games::with_game!(&self.game, g => dontcare::resolve_run(g, tier, first, entries, &stored))
    }

    /// The entry of `index` in `tier` as the file stores it (for a don't-care position of a
    /// file that substitutes them, whatever compressed best). Decompresses at most one block.
    pub fn probe_stored(&self, tier: Tier, index: u64) -> Result<Entry> {
        let states = self.record(tier)?.counts.states;
        if index >= states {
            return Err(Error::Internal(format!("index {index} beyond tier {tier}")));
        }
        let f = self.source(tier)?;
        let (b, j) = f.locate(index);
        let block = match self.cache.get(tier, b) {
            Some(block) => block,
            None => {
                if self.cache.first_touch(tier, b) {
                    if let Some(e) = f.entry_from_prefix(b, j)? {
                        return Ok(e);
                    }
                }
                let block = Arc::new(f.decode_block(b)?);
                self.cache.insert(tier, b, block.clone());
                block
            }
        };
        Ok(block.entry(f.symbols(), j))
    }

    /// The stored entry of a position of game `game` (which must be this database's game).
    pub fn probe_position<G: Game>(&self, game: &G, pos: &G::Position) -> Result<Entry> {
        let (tier, index) = game.locate(pos)?;
        self.probe(tier, index)
    }

    /// Every exact entry of `tier` in index order (blocks decoded in parallel, bypassing the
    /// cache; don't-care entries recovered).
    pub fn tier_entries(&self, tier: Tier) -> Result<Vec<u16>> {
        let mut entries = self.source(tier)?.decode_all()?;
        self.resolve(tier, 0, &mut entries)?;
        Ok(entries)
    }

    /// Calls `f(first_index, entries)` for consecutive runs of `tier`'s exact entries in index
    /// order, one block at a time, so a tier larger than memory can be streamed.
    pub fn for_each_run(
        &self,
        tier: Tier,
        mut f: impl FnMut(u64, &[u16]) -> Result<()>,
    ) -> Result<()> {
        let file = self.source(tier)?;
        let mut buf = Vec::new();
        let mut start = 0u64;
        for b in 0..file.blocks() {
            buf.clear();
            file.decode_block(b)?.entries_into(file.symbols(), &mut buf);
            self.resolve(tier, start, &mut buf)?;
            f(start, &buf)?;
            start += buf.len() as u64;
        }
        Ok(())
    }
}

/// A move's outcome for the player who makes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveAnswer {
    /// The move's name.
    #[serde(rename = "move")]
    pub label: String,
    /// Value for the mover, after the move.
    pub value: Value,
    /// Plies to the end with perfect play (`None` for a draw).
    pub depth: Option<u32>,
}

/// A position's value and its moves, best first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueryAnswer {
    /// Value for the side to move.
    pub value: Value,
    /// Plies to the end with perfect play (`None` for a draw).
    pub depth: Option<u32>,
    /// Each legal move with its value.
    pub moves: Vec<MoveAnswer>,
}

/// Orders outcomes for the mover: fastest win, then draws, then slowest loss.
pub fn outcome_rank(value: Value, depth: Option<u32>) -> (u8, i64) {
    match value {
        Value::Win => (0, depth.unwrap_or(0) as i64),
        Value::Draw => (1, 0),
        Value::Loss => (2, -(depth.unwrap_or(0) as i64)),
    }
}

/// Value and depth of `pos`, and of each legal move from the mover's point of view (plies
/// counted from `pos`), best first.
pub fn query<G: Game>(db: &Database, game: &G, pos: &G::Position) -> Result<QueryAnswer> {
    let e = db.probe_position(game, pos)?;
    let mut moves = Vec::new();
    for m in game.moves(pos) {
        let (value, depth) = match m.outcome {
            MoveOutcome::MoverLoses => (Value::Loss, Some(1)),
            MoveOutcome::Position(q) => {
                let s = db.probe_position(game, &q)?;
                let v = s.value().expect("valid entry").flip();
                (v, s.depth().map(|d| d + 1))
            }
        };
        moves.push(MoveAnswer {
            label: m.label,
            value,
            depth,
        });
    }
    moves.sort_by_key(|m| outcome_rank(m.value, m.depth));
    Ok(QueryAnswer {
        value: e.value().expect("valid entry"),
        depth: e.depth(),
        moves,
    })
}
