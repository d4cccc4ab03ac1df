//! Probes one position of a finished database through the library's public API: its value and
//! depth, its moves with their values, and a check of the answer against the positions the
//! moves lead to, each probed on its own.
//!
//! `cargo run --release --example probe -- data/bawo-n2-s6 0,0,2,2,0,0,0,2 A`
//!
//! Exit codes as for `bawo`: 0 ok, 1 failure (including an answer its successors contradict),
//! 2 usage error.

use std::path::Path;
use std::process::ExitCode;

use bawo_db::{query, with_game, Database, Entry, Game, MoveOutcome, PositionSpec, Side, Value};

const USAGE: &str = "usage: probe <database directory> <board> <side to move: A or B>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, board, side] = args.as_slice() else {
        eprintln!("probe: {USAGE}");
        return ExitCode::from(2);
    };
    match run(Path::new(dir), board, side) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("probe: {e}");
            ExitCode::from(if e.is_input() { 2 } else { 1 })
        }
    }
}

/// Prints the answer; false when the successors contradict it.
fn run(dir: &Path, board: &str, side: &str) -> bawo_games::Result<bool> {
    let db = Database::open(dir)?;
    println!("{}", db.game().descriptor());
    with_game!(db.game(), game => {
        let pos = game.parse_position(&PositionSpec::new(board, Side::parse(side)?))?;
        println!("{}", game.render(&pos));
        let answer = query(&db, game, &pos)?;
        println!("{}", outcome(answer.value, answer.depth));
        for m in &answer.moves {
            println!("  move {:>6}: {}", m.label, outcome(m.value, m.depth));
        }
        let mut successors = Vec::new();
        for m in game.moves(&pos) {
            successors.push(match m.outcome {
                MoveOutcome::Position(next) => Some(db.probe_position(game, &next)?),
                MoveOutcome::MoverLoses => None,
            });
        }
        let expected = from_successors(&successors);
        let stored = (answer.value, answer.depth);
        if stored == expected {
            println!("agrees with its {} successors, probed one by one", successors.len());
            Ok(true)
        } else {
            println!(
                "DISAGREES: its successors make it {}",
                outcome(expected.0, expected.1)
            );
            Ok(false)
        }
    })
}

/// The value and depth a position must have, given its successors' entries (`None`: the move
/// loses at once for the mover): a win in 1 + the fastest loss among them; else a draw if
/// any is a draw; else a loss in 1 + the slowest win (0 without moves).
fn from_successors(successors: &[Option<Entry>]) -> (Value, Option<u32>) {
    let mut fastest_loss: Option<u32> = None;
    let mut slowest_win = 0u32;
    let mut draw = false;
    for s in successors {
        let (value, depth) = match s {
            Some(e) => (e.value().expect("a finished entry"), e.depth()),
            None => (Value::Win, Some(0)),
        };
        match (value, depth) {
            (Value::Loss, Some(d)) => fastest_loss = Some(fastest_loss.map_or(d, |f| f.min(d))),
            (Value::Win, Some(d)) => slowest_win = slowest_win.max(d + 1),
            _ => draw = true,
        }
    }
    match fastest_loss {
        Some(d) => (Value::Win, Some(d + 1)),
        None if draw => (Value::Draw, None),
        None => (Value::Loss, Some(slowest_win)),
    }
}

fn outcome(value: Value, depth: Option<u32>) -> String {
    match depth {
        Some(d) => format!("{value} in {d}"),
        None => value.to_string(),
    }
}
