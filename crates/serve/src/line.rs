//! The perfect-play line from a position: each side plays its best move until the game ends.
//!
//! "Best" is the order of [`bawo_db::query`]'s answer: the winner plays the WIN move of
//! least depth, the loser the LOSS move of greatest depth, a drawn side the first DRAW move.
//! Won and lost lines end within their depth; a drawn line goes on for ever, so it stops when
//! it comes back to a position already on it, or at the ply limit.

use std::collections::HashSet;

use super::served::ServedDb;
use super::shapes::{covered, LineEnd, LineJson, PlyJson};
use bawo_db::query;
use bawo_games::error::{Error, Result};
use bawo_games::game::{find_labelled, Game, MoveOutcome};

/// Plays at most `limit` plies of perfect play from `start`.
pub fn perfect_line<G: Game>(
    d: &ServedDb,
    g: &G,
    start: G::Position,
    limit: usize,
) -> Result<LineJson> {
    covered(d, g, &start)?;
    let db = &d.db;
    let first = query(db, g, &start)?;
    let mut seen: HashSet<G::Position> = HashSet::new();
    let mut pos = start;
    let mut plies = Vec::new();
    let mut answer = first.clone();
    let end = loop {
        if plies.len() >= limit {
            break LineEnd::Limit;
        }
        let Some(best) = answer.moves.first().cloned() else {
            break LineEnd::NoLegalMove;
        };
        let m = find_labelled(g.moves(&pos), &best.label)
            .map_err(|e| Error::Internal(format!("best move vanished: {e}")))?;
        match m.outcome {
            MoveOutcome::MoverLoses => {
                plies.push(PlyJson {
                    label: best.label,
                    value: best.value,
                    depth: best.depth,
                    board: g.board_counts(&pos),
                    to_move: g.side_to_move(&pos).other().letter(),
                    mover_loses: true,
                    extra: serde_json::Map::new(),
                });
                break LineEnd::MoverLoses;
            }
            MoveOutcome::Position(q) => {
                plies.push(PlyJson {
                    label: best.label,
                    value: best.value,
                    depth: best.depth,
                    board: g.board_counts(&q),
                    to_move: g.side_to_move(&q).letter(),
                    mover_loses: false,
                    extra: g.position_fields(&q),
                });
                seen.insert(pos);
                pos = q;
                if seen.contains(&pos) {
                    break LineEnd::Cycle;
                }
                answer = query(db, g, &pos)?;
            }
        }
    };
    Ok(LineJson {
        value: first.value,
        depth: first.depth,
        plies,
        end,
    })
}
