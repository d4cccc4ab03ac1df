//! [`Probe`]: the library's way into a finished database, the way `shakmaty-syzygy` serves
//! Syzygy tables: open a directory once, then ask for any position, typed as text or built by
//! the game, and get its value, its depth and every legal move with its value and depth.
//!
//! ```
//! use bawo_db::Probe;
//! use bawo_db::{with_game, Game, PositionSpec, Side, Value};
//!
//! let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/bawo-n2-s6");
//! let probe = Probe::open(&dir)?;
//! assert_eq!(probe.game().descriptor(), "bawo n=2 lap-cap=64 kichwa=off capture=any");
//!
//! // A's front row holds two seeds in pits 2 and 3, B's back row two in pit 7.
//! let spec = PositionSpec::new("0,0,2,2,0,0,0,2", Side::A);
//! let answer = probe.probe(&spec)?;
//! assert_eq!((answer.value, answer.depth), (Value::Win, Some(3)));
//! // Every legal move, best first, with its value and depth for the player who makes it.
//! let moves: Vec<_> = answer.moves.iter().map(|m| (m.value, m.depth)).collect();
//! assert_eq!(moves[0], (Value::Win, Some(3)));
//! assert_eq!(moves[1].0, Value::Loss);
//!
//! // Positions built with the game's own types: the same board seen from the other side of
//! // the table, B to move, has the same value and depth.
//! with_game!(probe.game(), g => {
//!     let mirrored = g.mirror(&g.parse_position(&spec)?);
//!     assert_eq!(g.side_to_move(&mirrored), Side::B);
//!     let b = probe.probe_position(g, &mirrored)?;
//!     assert_eq!((b.value, b.depth), (Value::Win, Some(3)));
//! });
//!
//! // A board the database does not cover is a usage error, not a panic.
//! let e = probe.probe(&PositionSpec::new("9,0,0,0,0,0,0,0", Side::A)).unwrap_err();
//! assert!(e.is_input());
//! # Ok::<(), bawo_db::Error>(())
//! ```

use std::path::Path;

use super::coverage::ensure_covered;
use super::{query, Database, QueryAnswer};
use bawo_games::error::Result;
use bawo_games::game::{AnyGame, Game, PositionSpec};
use bawo_games::value::Entry;
use bawo_games::with_game;

/// An opened database that answers positions: [`Probe::probe`] for positions typed as text,
/// [`Probe::probe_position`] for positions a program built with the game's own types.
pub struct Probe {
    db: Database,
}

impl Probe {
    /// Opens the database in `dir` (a solve's `--out`): reads its manifest and rebuilds the
    /// game it names. Tier files are opened, checked and kept on first use.
    pub fn open(dir: impl AsRef<Path>) -> Result<Probe> {
        Ok(Probe {
            db: Database::open(dir.as_ref())?,
        })
    }

    /// The game the database was solved for.
    pub fn game(&self) -> &AnyGame {
        self.db.game()
    }

    /// The underlying database (manifest, block cache, raw probes by tier and index).
    pub fn database(&self) -> &Database {
        &self.db
    }

    /// Value and depth of the position `spec` names (in the notation of `bawo query`), and
    /// every legal move's, best first. A malformed position or one the database does not
    /// cover is an [`crate::Error::Input`] (exit code 2).
    pub fn probe(&self, spec: &PositionSpec) -> Result<QueryAnswer> {
        with_game!(self.db.game(), g => {
            let pos = g.parse_position(spec)?;
            self.answer(g, &pos)
        })
    }

    /// Value and depth of `pos` and of every legal move, best first. `game` must be the
    /// database's game (see [`Probe::game`]); a position it does not cover is an input error.
    pub fn probe_position<G: Game>(&self, game: &G, pos: &G::Position) -> Result<QueryAnswer> {
        self.answer(game, pos)
    }

    /// Only the value and depth of `pos` (one lookup, no moves).
    pub fn entry<G: Game>(&self, game: &G, pos: &G::Position) -> Result<Entry> {
        ensure_covered(&self.db, game, pos, self.db.dir())?;
        self.db.probe_position(game, pos)
    }

    fn answer<G: Game>(&self, game: &G, pos: &G::Position) -> Result<QueryAnswer> {
        ensure_covered(&self.db, game, pos, self.db.dir())?;
        query(&self.db, game, pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bawo_games::game::Side;

    fn committed() -> Probe {
        Probe::open(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/bawo-n2-s6")).unwrap()
    }

    #[test]
    fn answers_agree_with_the_entries_of_the_moves() {
        let p = committed();
        let AnyGame::Bawo(g) = p.game() else {
            panic!("a Bawo database")
        };
        let mut checked = 0;
        for tier in 0..=6u32 {
            let size = g.tier_size(tier).unwrap();
            for i in (0..size).step_by(7) {
                let pos = g.position(tier, i);
                let a = p.probe_position(g, &pos).unwrap();
                let e = p.entry(g, &pos).unwrap();
                assert_eq!((Some(a.value), a.depth), (e.value(), e.depth()));
                assert_eq!(a.moves.len(), g.moves(&pos).len());
                // The best move carries the position's own value and depth.
                if let Some(best) = a.moves.first() {
                    assert_eq!((best.value, best.depth), (a.value, a.depth), "{pos:?}");
                }
                checked += 1;
            }
        }
        assert!(checked > 400);
    }

    #[test]
    fn bad_text_and_uncovered_boards_are_input_errors() {
        let p = committed();
        for board in ["1,2", "x,0,0,0,0,0,0,0", "7,0,0,0,0,0,0,0"] {
            let e = p.probe(&PositionSpec::new(board, Side::A)).unwrap_err();
            assert!(e.is_input(), "{board}: {e}");
        }
        assert!(Probe::open("/nonexistent/bawo-db").is_err());
    }
}
