//! The JSON objects of the API. `/api/query` and `/api/stats` serialize the library's own
//! answers ([`bawo_db::QueryAnswer`], [`bawo_db::stats::Stats`]) as `bawo query --json`
//! and `bawo stats --json` do; [`MovesJson`] repeats the shape of `bawo moves --json`
//! (`tests/serve_api.rs` compares both with the binary's output, so the copies cannot drift).

use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value as Json};

use super::served::ServedDb;
use bawo_db::coverage::ensure_covered;
use bawo_db::TierSummary;
use bawo_games::error::Error;
use bawo_games::game::{AnyGame, Game, GameParams, InputError, MoveOutcome, Tier};
use bawo_games::value::Value;

/// One legal move and where it leads, as `bawo moves --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct MoveJson {
    /// The move's name.
    #[serde(rename = "move")]
    pub label: String,
    /// The board after the move.
    pub board: Vec<u32>,
    /// The side to move after the move.
    pub to_move: &'static str,
    /// Seeds captured by the move.
    pub captured: u32,
    /// Seeds removed from play by the move.
    pub discarded: u32,
    /// Set when playing the move loses at once (no board follows).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub mover_loses: bool,
    /// Game-specific fields of the resulting position (Bao: hands, houses).
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

/// `bawo moves --json`.
#[derive(Debug, Clone, Serialize)]
pub struct MovesJson {
    /// The legal moves.
    pub moves: Vec<MoveJson>,
}

/// The legal moves of `pos` with the positions they lead to.
pub fn moves_json<G: Game>(g: &G, pos: &G::Position) -> MovesJson {
    let moves = g
        .moves(pos)
        .into_iter()
        .map(|m| match m.outcome {
            MoveOutcome::Position(q) => MoveJson {
                label: m.label,
                board: g.board_counts(&q),
                to_move: g.side_to_move(&q).letter(),
                captured: m.captured,
                discarded: m.discarded,
                mover_loses: false,
                extra: g.position_fields(&q),
            },
            MoveOutcome::MoverLoses => MoveJson {
                label: m.label,
                board: g.board_counts(pos),
                to_move: g.side_to_move(pos).other().letter(),
                captured: m.captured,
                discarded: m.discarded,
                mover_loses: true,
                extra: Map::new(),
            },
        })
        .collect();
    MovesJson { moves }
}

/// A position as the page draws it (`/api/position`).
#[derive(Debug, Clone, Serialize)]
pub struct PositionJson {
    /// Seeds per pit.
    pub board: Vec<u32>,
    /// The side to move.
    pub to_move: &'static str,
    /// Whether the database holds this position's value.
    pub covered: bool,
    /// The text drawing of `bawo query`.
    pub text: String,
    /// Game-specific fields (Bao's hands and houses).
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

pub(crate) fn position_json<G: Game>(d: &ServedDb, g: &G, pos: &G::Position) -> PositionJson {
    PositionJson {
        board: g.board_counts(pos),
        to_move: g.side_to_move(pos).letter(),
        covered: covered(d, g, pos).is_ok(),
        text: g.render(pos),
        extra: g.position_fields(pos),
    }
}

/// Refuses (400) a position the served database holds no table for, as `bawo query` does
/// ([`ensure_covered`]: an unfinished run says which tiers are finished), naming the database
/// by its served name.
pub fn covered<G: Game>(d: &ServedDb, g: &G, pos: &G::Position) -> Result<(), Error> {
    // An unfinished run's note names its directory; a client knows the database by name.
    let dir = d.db.dir().display().to_string();
    ensure_covered(&d.db, g, pos, Path::new(&d.name)).map_err(|e| match e {
        Error::Input(i) => Error::Input(InputError::new(i.0.replace(&dir, &d.name))),
        e => e,
    })
}

/// One database in `/api/dbs`.
#[derive(Debug, Clone, Serialize)]
pub struct DbJson {
    /// The database's short name.
    pub name: String,
    /// `bawo`, `kigogo` or `bao`.
    pub game: &'static str,
    /// The full descriptor line, e.g. `bawo n=2 lap-cap=64 kichwa=off capture=any`.
    pub descriptor: String,
    /// Bawo's half-width (4n pits); absent for the fixed boards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    /// Laps a move may sow (Bawo only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lap_cap: Option<u64>,
    /// The rules, as the descriptor names them.
    pub rules: String,
    /// Pits on the board.
    pub pits: usize,
    /// Seed budget of the solve.
    pub seeds: u32,
    /// Whether every tier is solved.
    pub complete: bool,
    /// Positions of both sides to move.
    pub states: u64,
    /// Positions won for the side to move.
    pub win: u64,
    /// Positions lost for the side to move.
    pub loss: u64,
    /// Drawn positions.
    pub draw: u64,
    /// Each tier's statistics.
    pub tiers: Vec<TierSummary>,
    /// The opening position, where the game has one.
    pub start: Option<PositionJson>,
    /// The position the page opens on: the opening where the database holds it, else a
    /// longest win among the first positions of its largest tier ([`position_to_open`]).
    pub open: Option<PositionJson>,
}

/// Positions of the largest tier searched for a long win to open on: a few blocks, so that
/// `/api/dbs` stays fast on a database of billions.
const OPEN_SEARCH: u64 = 1 << 14;

/// A position the database holds, to open the page on: the game's opening where the database
/// covers it, else the longest win among the first `OPEN_SEARCH` positions of the largest
/// tier (its first position if none of them wins).
pub fn position_to_open<G: Game>(d: &ServedDb, g: &G) -> Option<PositionJson> {
    if let Some(p) = g.start_position().filter(|p| covered(d, g, p).is_ok()) {
        return Some(position_json(d, g, &p));
    }
    let (tier, index) = d.open_at(|| longest_early_win(d))?;
    Some(position_json(d, g, &g.position(tier, index)))
}

/// The longest win among the first `OPEN_SEARCH` positions of the largest tier, or its
/// first position if none of them wins.
fn longest_early_win(d: &ServedDb) -> Option<(Tier, u64)> {
    let tiers = &d.db.manifest().tiers;
    let largest = tiers.iter().max_by_key(|r| r.counts.states)?;
    let mut best: Option<(u32, u64)> = None;
    for i in 0..largest.counts.states.min(OPEN_SEARCH) {
        let e = d.db.probe(largest.tier, i).ok()?;
        if let (Some(Value::Win), Some(depth)) = (e.value(), e.depth()) {
            if best.is_none_or(|(b, _)| depth > b) {
                best = Some((depth, i));
            }
        }
    }
    Some((largest.tier, best.map_or(0, |(_, i)| i)))
}

pub(crate) fn db_json(d: &ServedDb) -> DbJson {
    let m = d.db.manifest();
    let params = GameParams::from_descriptor(&m.game).unwrap_or_default();
    let tiers = d.db.tier_summaries();
    let n: Option<u32> = params.get("n").and_then(|v| v.parse().ok());
    let lap_cap: Option<u64> = params.get("lap-cap").and_then(|v| v.parse().ok());
    let pits = match d.db.game() {
        AnyGame::Bawo(_) => 4 * n.unwrap_or(0) as usize,
        AnyGame::Kigogo(_) => 48,
        AnyGame::Bao(_) => 32,
    };
    let (start, open) = bawo_games::with_game!(d.db.game(), g => (
        g.start_position().map(|p| position_json(d, g, &p)),
        position_to_open(d, g),
    ));
    DbJson {
        name: d.name.clone(),
        game: d.db.game().name(),
        descriptor: m.game.clone(),
        n,
        lap_cap,
        rules: params.rules.unwrap_or_default(),
        pits,
        seeds: m.seeds,
        complete: d.db.is_complete(),
        states: tiers.iter().map(|t| t.counts.states).sum(),
        win: tiers.iter().map(|t| t.counts.win).sum(),
        loss: tiers.iter().map(|t| t.counts.loss).sum(),
        draw: tiers.iter().map(|t| t.counts.draw).sum(),
        tiers,
        start,
        open,
    }
}

/// One ply of the perfect-play line: the move, its value for the player who made it, and
/// the position it leads to.
#[derive(Debug, Clone, Serialize)]
pub struct PlyJson {
    /// The move played (empty for the start).
    #[serde(rename = "move")]
    pub label: String,
    /// Value for the side to move.
    pub value: Value,
    /// Plies to the end (`None` for a draw).
    pub depth: Option<u32>,
    /// Seeds per pit.
    pub board: Vec<u32>,
    /// The side to move.
    pub to_move: &'static str,
    /// The move lost at once for its mover.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub mover_loses: bool,
    /// Game-specific fields (Bao's hands and houses).
    #[serde(flatten)]
    pub extra: Map<String, Json>,
}

/// Why the line stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineEnd {
    /// The side to move has no legal move: it has lost.
    NoLegalMove,
    /// The last move loses at once for the player who made it.
    MoverLoses,
    /// A drawn line came back to a position already on it.
    Cycle,
    /// The ply limit was reached.
    Limit,
}

/// `/api/line`.
#[derive(Debug, Clone, Serialize)]
pub struct LineJson {
    /// The start position's value and depth for its side to move.
    pub value: Value,
    /// Plies to the end (`None` for a draw).
    pub depth: Option<u32>,
    /// The positions of the line, the start first.
    pub plies: Vec<PlyJson>,
    /// How the line ends.
    pub end: LineEnd,
}
