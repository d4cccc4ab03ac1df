//! Solving only the positions reachable from one start (the paper's experiments).
//!
//! The reachable set is found by breadth-first search with the game's labelled moves, numbered
//! in discovery order, and solved as a single graph by the same attractor the tier solver uses
//! (here there are no lower tiers: every edge is an in-graph edge).

use std::collections::HashMap;

use serde::Serialize;

use crate::cell::{self, Outlook, MAX_COUNTER};
use crate::tier::attractor::{attract_in_memory, LevelQueue};
use crate::work::graph::{EdgeCodec, PredRange};
use bawo_games::error::{Error, Result};
use bawo_games::game::{Game, MoveOutcome, Side};
use bawo_games::value::{Entry, Value};

/// Counts over the reachable positions, from A's point of view as the paper counts them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReachSummary {
    /// Positions reached.
    pub states: u64,
    /// Reached positions won for the side to move.
    pub win: u64,
    /// Reached positions lost for the side to move.
    pub loss: u64,
    /// Reached drawn positions.
    pub draw: u64,
    /// Whose values these are.
    pub perspective: &'static str,
    /// Value of the initial position.
    pub initial: Value,
    /// Plies to the end from the initial position (`None` for a draw).
    pub initial_depth: Option<u32>,
    /// Reachable states counted with both players' reserves (captured seeds) as part of the
    /// state, as the paper's Definition 1 has it; `None` above the exploration limit.
    pub states_with_reserves: Option<u64>,
}

/// The solved reachable graph.
pub struct Reached<P> {
    /// Positions in discovery order; index 0 is the start.
    pub positions: Vec<P>,
    /// Entry of each position for its side to move.
    pub entries: Vec<Entry>,
    /// The totals.
    pub summary: ReachSummary,
}

/// A reachable graph is one range of 32-bit indices, held in memory.
fn one_range() -> EdgeCodec {
    EdgeCodec::narrow(32)
}

/// Finds and solves every position reachable from `start`; refuses more than `max_states`.
pub fn reach<G: Game>(
    game: &G,
    start: G::Position,
    max_states: usize,
) -> Result<Reached<G::Position>> {
    let mut ids: HashMap<G::Position, u32> = HashMap::new();
    let mut positions = vec![start.clone()];
    ids.insert(start, 0);
    let mut outlooks: Vec<Outlook> = Vec::new();
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut next = 0usize;
    let mut targets = Vec::new();
    while next < positions.len() {
        let pos = positions[next].clone();
        let moves = game.moves(&pos);
        let mut o = Outlook {
            terminal: moves.is_empty(),
            ..Default::default()
        };
        targets.clear();
        for m in moves {
            match m.outcome {
                MoveOutcome::MoverLoses => o.floor = o.floor.max(1),
                MoveOutcome::Position(q) => {
                    let id = match ids.get(&q) {
                        Some(&id) => id,
                        None => {
                            if positions.len() >= max_states {
                                return Err(Error::Limit(format!(
                                    "more than {max_states} positions are reachable; raise --max-states"
                                )));
                            }
                            let id = positions.len() as u32;
                            ids.insert(q.clone(), id);
                            positions.push(q);
                            id
                        }
                    };
                    targets.push(id);
                }
            }
        }
        targets.sort_unstable();
        targets.dedup();
        if targets.len() as u32 > MAX_COUNTER {
            return Err(Error::Internal(
                "too many distinct moves from one position".into(),
            ));
        }
        o.in_tier = targets.len() as u32;
        edges.extend(targets.iter().map(|&t| (next as u32, t)));
        outlooks.push(o);
        next += 1;
    }
    drop(ids);

    let n = positions.len() as u64;
    if n > crate::tier::attractor::LOCAL_MASK as u64 {
        return Err(Error::Limit(format!(
            "{n} reachable positions are more than one graph can index"
        )));
    }
    let mut queue = LevelQueue::default();
    let mut cells = Vec::with_capacity(positions.len());
    for (i, o) in outlooks.iter().enumerate() {
        let (c, level) = o.initial_cell();
        cells.push(std::sync::atomic::AtomicU32::new(c));
        if let Some(l) = level {
            queue.push(l, i as u32);
        }
    }
    // Only undecided positions need to hear from their successors.
    let packed: Vec<u64> = edges
        .iter()
        .filter(|&&(s, _)| {
            !cell::is_final(cells[s as usize].load(std::sync::atomic::Ordering::Relaxed))
        })
        .map(|&(s, t)| one_range().pack(t as u64, s as u64))
        .collect();
    let preds = PredRange::<u32>::build(positions.len(), &packed, one_range())?;
    attract_in_memory(&cells, &preds.view(), queue)
        .map_err(|_| Error::DepthOverflow { tier: 0 })?;
    let entries: Vec<Entry> = cells
        .into_iter()
        .map(|c| cell::final_entry(c.into_inner()))
        .collect();

    let mut summary = ReachSummary {
        states: n,
        win: 0,
        loss: 0,
        draw: 0,
        perspective: "A",
        initial: Value::Draw,
        initial_depth: None,
        states_with_reserves: None,
    };
    for (i, (p, e)) in positions.iter().zip(&entries).enumerate() {
        let v = e.value().expect("every reached position is solved");
        let for_a = if game.side_to_move(p) == Side::A {
            v
        } else {
            v.flip()
        };
        match for_a {
            Value::Win => summary.win += 1,
            Value::Loss => summary.loss += 1,
            Value::Draw => summary.draw += 1,
        }
        if i == 0 {
            summary.initial = for_a;
            summary.initial_depth = e.depth();
        }
    }
    summary.states_with_reserves = count_with_reserves(game, &positions[0], max_states);
    Ok(Reached {
        positions,
        entries,
        summary,
    })
}

/// Counts the states reachable from `start` when each player's reserve (the seeds they have
/// captured) is part of the state. Reserves never change play, so this only counts; `None`
/// when more than `max_states` such states exist.
fn count_with_reserves<G: Game>(game: &G, start: &G::Position, max_states: usize) -> Option<u64> {
    let mut seen: std::collections::HashSet<(G::Position, [u32; 2])> = Default::default();
    let mut stack = vec![(start.clone(), [0u32; 2])];
    seen.insert((start.clone(), [0, 0]));
    while let Some((pos, reserves)) = stack.pop() {
        let mover = game.side_to_move(&pos).index();
        for m in game.moves(&pos) {
            if let MoveOutcome::Position(q) = m.outcome {
                let mut r = reserves;
                r[mover] += m.captured;
                if seen.insert((q.clone(), r)) {
                    if seen.len() > max_states {
                        return None;
                    }
                    stack.push((q, r));
                }
            }
        }
    }
    Some(seen.len() as u64)
}
