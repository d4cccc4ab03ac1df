//! Finished databases: opening a run directory and probing positions.
//!
//! A database is a run directory whose manifest names the game; [`Database::open`] rebuilds the
//! game from that descriptor, so probes never mix rules. Tier tables are opened on first use
//! (header and checksum checked) and kept for later probes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::game::{AnyGame, Game, MoveOutcome, Tier};
use crate::solve::tables::TableData;
use crate::store::manifest::Manifest;
use crate::store::table;
use crate::value::{Entry, Value};

pub struct Database {
    dir: PathBuf,
    manifest: Manifest,
    game: AnyGame,
    open: Mutex<HashMap<Tier, Arc<TableData>>>,
}

impl Database {
    pub fn open(dir: &Path) -> Result<Database> {
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
                crate::store::manifest::FILE
            ))
        })?;
        let game = AnyGame::from_descriptor(&manifest.game).map_err(|e| {
            Error::Mismatch(format!(
                "{}: game '{}' is not one this program knows: {e}",
                dir.display(),
                manifest.game
            ))
        })?;
        Ok(Database {
            dir: dir.to_path_buf(),
            manifest,
            game,
            open: Mutex::new(HashMap::new()),
        })
    }

    pub fn game(&self) -> &AnyGame {
        &self.game
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn table(&self, tier: Tier) -> Result<Arc<TableData>> {
        if let Some(t) = self.open.lock().expect("table cache lock").get(&tier) {
            return Ok(t.clone());
        }
        let record = self.manifest.record(tier).ok_or_else(|| {
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
        })?;
        let path = self.dir.join(&record.file);
        let (header, data) = table::open_table(
            &path,
            tier,
            record.counts.states,
            self.manifest.fingerprint_value(),
            true,
        )?;
        if format!("{:016x}", header.checksum) != record.checksum {
            return Err(Error::corrupt(&path, "checksum differs from the manifest"));
        }
        let data = Arc::new(data);
        self.open
            .lock()
            .expect("table cache lock")
            .insert(tier, data.clone());
        Ok(data)
    }

    /// The stored entry of `index` in `tier`.
    pub fn probe(&self, tier: Tier, index: u64) -> Result<Entry> {
        let t = self.table(tier)?;
        let e = t
            .entries()
            .get(index as usize)
            .copied()
            .map(Entry)
            .ok_or_else(|| Error::Internal(format!("index {index} beyond tier {tier}")))?;
        if !e.is_valid_solved() {
            return Err(Error::corrupt(
                self.dir
                    .join(&self.manifest.record(tier).expect("opened").file),
                format!("position {index} holds an invalid entry {:#06x}", e.0),
            ));
        }
        Ok(e)
    }

    /// The stored entry of a position of game `game` (which must be this database's game).
    pub fn probe_position<G: Game>(&self, game: &G, pos: &G::Position) -> Result<Entry> {
        let (tier, index) = game.locate(pos)?;
        self.probe(tier, index)
    }
}

/// A move's outcome for the player who makes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveAnswer {
    #[serde(rename = "move")]
    pub label: String,
    pub value: Value,
    pub depth: Option<u32>,
}

/// A position's value and its moves, best first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueryAnswer {
    pub value: Value,
    pub depth: Option<u32>,
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
