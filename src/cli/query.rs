//! `query` (a position's value in a database, with every move's) and `moves` (a position's
//! legal moves and where each leads, no database needed).

use std::path::PathBuf;

use clap::Args;

use bawo_db::{self, coverage::ensure_covered, Database};
use bawo_games::error::Result;
use bawo_games::game::{Game, MoveOutcome};
use bawo_games::with_game;

use super::args::{print_json, GameArgs, PositionArgs};

#[derive(Args, Debug)]
pub struct QueryArgs {
    /// Database directory (the --out of a solve).
    #[arg(long)]
    pub db: PathBuf,
    #[command(flatten)]
    pub position: PositionArgs,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct MovesArgs {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub position: PositionArgs,
    #[arg(long)]
    pub json: bool,
}

pub fn run_query(a: QueryArgs) -> Result<()> {
    let db = Database::open(&a.db)?;
    with_game!(db.game(), g => {
        let pos = a.position.position(g)?;
        ensure_covered(&db, g, &pos, &a.db)?;
        super::open::warn_if_unfinished(&db);
        let ans = bawo_db::query(&db, g, &pos)?;
        if a.json {
            print_json(&ans);
        } else {
            outln!("{}", g.render(&pos));
            match ans.depth {
                Some(d) => outln!("{} for the side to move in {d} plies", ans.value),
                None => outln!("{} for the side to move", ans.value),
            }
            if ans.moves.is_empty() {
                outln!("no legal move");
            }
            for m in &ans.moves {
                match m.depth {
                    Some(d) => outln!("  move {:>6}: {} in {d}", m.label, m.value),
                    None => outln!("  move {:>6}: {}", m.label, m.value),
                }
            }
        }
        Ok(())
    })
}

/// One legal move as `moves --json` prints it.
#[derive(serde::Serialize)]
struct MoveJson {
    #[serde(rename = "move")]
    label: String,
    board: Vec<u32>,
    to_move: &'static str,
    captured: u32,
    discarded: u32,
    /// Set when playing the move loses at once (no board follows).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    mover_loses: bool,
    /// Game-specific fields of the resulting position (Bao: hands, houses).
    #[serde(flatten)]
    extra: serde_json::Map<String, serde_json::Value>,
}

#[derive(serde::Serialize)]
struct MovesJson {
    moves: Vec<MoveJson>,
}

/// The legal moves of `pos` as printed.
fn move_list<G: Game>(g: &G, pos: &G::Position) -> Vec<MoveJson> {
    g.moves(pos)
        .iter()
        .map(|m| match &m.outcome {
            MoveOutcome::Position(q) => MoveJson {
                label: m.label.clone(),
                board: g.board_counts(q),
                to_move: g.side_to_move(q).letter(),
                captured: m.captured,
                discarded: m.discarded,
                mover_loses: false,
                extra: g.position_fields(q),
            },
            MoveOutcome::MoverLoses => MoveJson {
                label: m.label.clone(),
                board: g.board_counts(pos),
                to_move: g.side_to_move(pos).other().letter(),
                captured: m.captured,
                discarded: m.discarded,
                mover_loses: true,
                extra: serde_json::Map::new(),
            },
        })
        .collect()
}

pub fn run_moves(a: MovesArgs) -> Result<()> {
    let game = a.game.build(a.position.board.as_deref())?;
    with_game!(&game, g => {
        let pos = a.position.position(g)?;
        let list = move_list(g, &pos);
        if a.json {
            print_json(&MovesJson { moves: list });
            return Ok(());
        }
        outln!("{}", g.render(&pos));
        if list.is_empty() {
            outln!("no legal move: {} loses", g.side_to_move(&pos).letter());
        }
        for m in &list {
            let board: Vec<String> = m.board.iter().map(u32::to_string).collect();
            out!("  move {:>6} -> {}  {} to move", m.label, board.join(","), m.to_move);
            if m.captured > 0 {
                out!("  captured {}", m.captured);
            }
            if m.discarded > 0 {
                out!("  discarded {}", m.discarded);
            }
            if m.mover_loses {
                out!("  (loses at once)");
            }
            outln!();
        }
        Ok(())
    })
}
