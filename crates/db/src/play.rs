//! `bawo play`: a game in the terminal against perfect play.
//!
//! Each turn prints the board ([`Game::render`]), the value and depth for the side to move,
//! and on the human's turn the legal moves in the game's order (with `--hints`, each move's
//! outcome too). The human types a move label; the engine answers with its best move:
//! fastest win, else a draw, else the slowest loss ([`super::outcome_rank`]). Input is read
//! line by line, so a pipe can drive a game: `q` or the end of input quits.

use std::io::{BufRead, Write};

use super::{query, Database};
use bawo_games::error::{Error, Result};
use bawo_games::game::{Game, MoveOutcome, Side};

/// A small deterministic generator (SplitMix64) for picking positions; no dependency needed
/// for a handful of random numbers.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), by rejection so no value is favoured.
    pub fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }
}

/// The position `play` starts from when none is given: the game's opening if the database
/// holds its tier, otherwise a random position of the largest tier that has a legal move
/// (drawn with `seed`, so a game can be replayed).
pub fn default_position<G: Game>(db: &Database, g: &G, seed: u64) -> Result<G::Position> {
    if let Some(p) = g.start_position() {
        if let Ok((tier, _)) = g.locate(&p) {
            if db.manifest().record(tier).is_some() {
                return Ok(p);
            }
        }
    }
    let largest = db
        .manifest()
        .tiers
        .iter()
        .max_by_key(|r| (r.counts.states, r.tier))
        .ok_or_else(|| Error::Missing(format!("{} holds no tiers", db.dir().display())))?;
    let mut rng = SplitMix64::new(seed);
    let mut first = None;
    for _ in 0..1000 {
        let p = g.position(largest.tier, rng.below(largest.counts.states));
        if !g.moves(&p).is_empty() {
            return Ok(p);
        }
        first.get_or_insert(p);
    }
    Ok(first.expect("at least one draw"))
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayEnd {
    /// The side to move had no legal move, or played a move that loses at once.
    Finished {
        /// The side that lost.
        loser: Side,
    },
    /// The human typed `q` or the input ended.
    Quit,
}

fn outcome_text(value: bawo_games::value::Value, depth: Option<u32>) -> String {
    match depth {
        Some(1) => format!("{value} in 1 ply"),
        Some(d) => format!("{value} in {d} plies"),
        None => value.to_string(),
    }
}

/// The longest line `play` reads as a move; a longer one is refused without being kept.
pub const MAX_LINE: usize = 4096;

/// Reads one line of at most [`MAX_LINE`] bytes: `None` at the end of input, `Some(Err(why))`
/// for a line that is too long (the rest of it read and dropped, never held) or not UTF-8.
fn read_line_bounded(input: &mut dyn BufRead) -> std::io::Result<Option<Result<String, String>>> {
    let mut buf = Vec::new();
    let n = std::io::Read::take(&mut *input, MAX_LINE as u64 + 1).read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() > MAX_LINE && buf.last() != Some(&b'\n') {
        // Drop the rest of the line a buffer at a time.
        loop {
            let chunk = input.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    input.consume(i + 1);
                    break;
                }
                None => {
                    let len = chunk.len();
                    input.consume(len);
                }
            }
        }
        return Ok(Some(Err(format!(
            "a line of more than {MAX_LINE} bytes is not a move"
        ))));
    }
    Ok(Some(String::from_utf8(buf).map_err(|_| {
        "the line is not UTF-8 text, so not a move".to_string()
    })))
}

/// Plays from `start`; the human plays `human`, the engine the other side.
pub fn play<G: Game>(
    db: &Database,
    g: &G,
    start: G::Position,
    human: Side,
    hints: bool,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(PlayEnd, u32)> {
    let io = |e: std::io::Error| Error::io("<terminal>", e);
    let mut pos = start;
    let mut plies = 0u32;
    loop {
        let side = g.side_to_move(&pos);
        let ans = query(db, g, &pos)?;
        writeln!(out, "\n{}", g.render(&pos)).map_err(io)?;
        writeln!(
            out,
            "{} to move: {}",
            side.letter(),
            outcome_text(ans.value, ans.depth)
        )
        .map_err(io)?;
        let moves = g.moves(&pos);
        if moves.is_empty() {
            writeln!(out, "{} has no legal move and loses.", side.letter()).map_err(io)?;
            return Ok((PlayEnd::Finished { loser: side }, plies));
        }
        let label = if side == human {
            let labels: Vec<&str> = moves.iter().map(|m| m.label.as_str()).collect();
            writeln!(out, "legal moves: {}", labels.join(" ")).map_err(io)?;
            if hints {
                for m in &ans.moves {
                    writeln!(out, "  {:>6}: {}", m.label, outcome_text(m.value, m.depth))
                        .map_err(io)?;
                }
            }
            loop {
                write!(out, "your move (or q to quit)> ").map_err(io)?;
                out.flush().map_err(io)?;
                let line = match read_line_bounded(input).map_err(io)? {
                    None => {
                        writeln!(out, "\nend of input: game left unfinished.").map_err(io)?;
                        return Ok((PlayEnd::Quit, plies));
                    }
                    Some(Err(why)) => {
                        writeln!(out, "{why}; choose one of: {}", labels.join(" ")).map_err(io)?;
                        continue;
                    }
                    Some(Ok(line)) => line,
                };
                let word = line.trim();
                match word {
                    "" => continue,
                    "q" | "quit" => {
                        writeln!(out, "game left unfinished.").map_err(io)?;
                        return Ok((PlayEnd::Quit, plies));
                    }
                    // The game reads its own notation (Bao accepts looser spellings).
                    w => match g.find_move(&pos, w) {
                        Ok(m) => break m.label,
                        Err(e) => {
                            writeln!(out, "{e}; choose one of: {}", labels.join(" ")).map_err(io)?
                        }
                    },
                }
            }
        } else {
            let best = &ans.moves[0];
            writeln!(
                out,
                "engine ({}) plays {}: {}",
                side.letter(),
                best.label,
                outcome_text(best.value, best.depth)
            )
            .map_err(io)?;
            best.label.clone()
        };
        let chosen = moves
            .into_iter()
            .find(|m| m.label == label)
            .expect("label of a legal move");
        plies += 1;
        match chosen.outcome {
            MoveOutcome::Position(q) => pos = q,
            MoveOutcome::MoverLoses => {
                writeln!(out, "{} played a move that loses at once.", side.letter()).map_err(io)?;
                return Ok((PlayEnd::Finished { loser: side }, plies));
            }
        }
    }
}
