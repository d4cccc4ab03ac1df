//! bawo: parallel, out-of-core retrograde analysis of four-row mancala games.
//!
//! # The public API
//!
//! What a program needs is re-exported here, flat; the modules below are the machinery.
//!
//! | task                                  | items                                                          |
//! |---------------------------------------|----------------------------------------------------------------|
//! | probe a position and its moves        | [`Probe::open`], [`Probe::probe`] → [`QueryAnswer`] (value, depth, every move's) |
//! | open a finished database              | [`Database::open`]; [`Database::game`] rebuilds its game        |
//! | name a position                       | [`PositionSpec`], [`Side`], [`Game::parse_position`]           |
//! | probe a position: value and depth     | [`Database::probe_position`] → [`Entry`] → [`Value`], depth     |
//! | list moves with their values          | [`query`] → [`QueryAnswer`] of [`MoveAnswer`]s, best first; [`Game::moves`] |
//! | check a database                      | [`verify()`] with [`VerifyOptions`] → [`VerifyReport`]          |
//! | pick and configure a game             | [`Bawo`], [`Kigogo`], [`Bao`] and their rules; [`AnyGame`], [`GameParams`], [`with_game!`] |
//! | configure and run a solve             | [`SolveConfig`], [`solve()`] → [`SolveReport`]; progress through [`RunProgress`] ([`Silent`]: none) |
//! | errors                                | [`Error`] (missing, corrupted, mismatched, bad input; [`Error::exit_code`]), [`Result`] |
//!
//! A database is a directory: `manifest.json` names the game with every parameter and rule
//! option, and one compressed `tier-KKKK.bdb` file per tier (seeds on the board). Values are
//! for the side to move; the depth is plies to the end under best play (the winner hurries,
//! the loser delays; draws have none). Only positions with A to move are stored: a position
//! with B to move is its [`Game::mirror`] with A to move, and [`Game::locate`] finds it there,
//! so every probe answers both sides.
//!
//! # Example
//!
//! Open the small database committed under `data/` (Generalized Bawo, n = 2, lap cap 64, every
//! position with up to 6 seeds), probe a position and list its moves. Then check the answer
//! against the database itself, probing where each move leads: a win in d plies has a move to
//! a position the opponent loses in d - 1, and none to one the opponent loses faster.
//!
//! ```
//! use std::path::Path;
//!
//! use bawo::{query, with_game, Database, Game, MoveOutcome, PositionSpec, Side, Value};
//!
//! let db = Database::open(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bawo-n2-s6"))?;
//! assert_eq!(db.game().descriptor(), "bawo n=2 lap-cap=64 kichwa=off capture=any");
//! // Every board of at most 6 seeds in 8 pits, C(6 + 8, 8) = 3003, stored with A to move;
//! // with B to move each is the mirror of one of them, answered from the same entry.
//! let stored: u64 = db.manifest().tiers.iter().map(|t| t.counts.states).sum();
//! assert_eq!(stored, 3003);
//! let positions: u64 = db.manifest().tiers.iter().map(|t| t.counts.both_sides().states).sum();
//! assert_eq!(positions, 2 * 3003);
//!
//! with_game!(db.game(), game => {
//!     // A's front row holds two seeds in pits 2 and 3, B's back row two in pit 7.
//!     let pos = game.parse_position(&PositionSpec::new("0,0,2,2,0,0,0,2", Side::A))?;
//!     let answer = query(&db, game, &pos)?;
//!     println!("{} in {:?} plies", answer.value, answer.depth);
//!     for m in &answer.moves {
//!         println!("  move {}: {} in {:?}", m.label, m.value, m.depth);
//!     }
//!     assert_eq!((answer.value, answer.depth), (Value::Win, Some(3)));
//!     // Best first: the first move keeps the position's value; the other one loses.
//!     assert_eq!((answer.moves[0].value, answer.moves[0].depth), (Value::Win, Some(3)));
//!     assert_eq!(answer.moves[1].value, Value::Loss);
//!
//!     // Independently of `query`: probe the position each legal move leads to.
//!     let mut fastest_loss = None;
//!     for m in game.moves(&pos) {
//!         if let MoveOutcome::Position(next) = m.outcome {
//!             let e = db.probe_position(game, &next)?;
//!             if e.value() == Some(Value::Loss) {
//!                 let d = e.depth().unwrap();
//!                 fastest_loss = Some(fastest_loss.map_or(d, |f: u32| f.min(d)));
//!             }
//!         }
//!     }
//!     assert_eq!(fastest_loss, Some(3 - 1));
//! });
//! # Ok::<(), bawo::Error>(())
//! ```
//!
//! `examples/probe.rs` does the same from the command line, for any position:
//! `cargo run --release --example probe -- data/bawo-n2-s6 0,0,2,2,0,0,0,2 A`.
//!
//! # Modules
//!
//! | module       | job                                                              |
//! |--------------|------------------------------------------------------------------|
//! | [`rank`]     | perfect hash of weak compositions: boards <-> dense indices       |
//! | [`game`]     | rule sets behind one [`Game`] trait                               |
//! | [`value`]    | WIN/LOSS/DRAW and depths, packed in 16-bit entries                |
//! | [`solve`](mod@solve) | tiered retrograde solver: successor pass, predecessors, attractor |
//! | [`store`]    | run directories: atomic files, tables, manifest                    |
//! | [`db`]       | finished databases: compressed tier files, probes, verify, stats, play, export |
//! | [`progress`] | progress bars and log lines                                       |
//! | [`serve`]    | `bawo serve`: the web explorer and its JSON API                   |
//! | [`clock`]    | CPU-time clocks: how many cores a phase kept busy                   |
//! | `cluster`    | one solve across MPI ranks (cargo feature `mpi`)                   |

pub mod clock;
#[cfg(feature = "mpi")]
pub mod cluster;
pub mod db;
pub mod error;
pub mod game;
pub mod progress;
pub mod rank;
pub mod serve;
pub mod solve;
pub mod store;
pub mod units;
pub mod value;

pub use db::verify::{verify, VerifyOptions, VerifyReport};
pub use db::{query, solve, Database, MoveAnswer, Probe, QueryAnswer};
pub use error::{Error, Result};
pub use game::bao::{Bao, BaoPosition, BaoRules};
pub use game::bawo::{Bawo, BawoPosition, BawoRules};
pub use game::kigogo::{Kigogo, KigogoPosition, KigogoRules};
pub use game::{
    AnyGame, Game, GameParams, InputError, LabelledMove, MoveOutcome, PositionSpec, Side, Tier,
};
pub use solve::run::RunProgress;
pub use solve::tier::{Silent, TierProgress};
pub use solve::{default_budget, parse_size, SolveConfig, SolveReport, Summary, TierCounts};
pub use value::{Entry, Value, MAX_DEPTH};

// Files are little-endian and mapped directly as words (`store::bytes`).
#[cfg(not(target_endian = "little"))]
compile_error!("bawo maps its little-endian files directly and needs a little-endian host");
