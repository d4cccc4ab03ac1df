//! The games bawo solves, and the plain types every layer above shares.
//!
//! | module     | job                                                              |
//! |------------|------------------------------------------------------------------|
//! | [`game`]   | the three rule sets behind one [`Game`] trait: positions, moves, tiers |
//! | [`rank`]   | perfect hash of weak compositions: boards <-> dense indices       |
//! | [`value`]  | WIN/LOSS/DRAW and depths, packed in 16-bit entries                |
//! | [`error`]  | the one error type of every bawo crate                             |
//! | [`units`]  | numbers for people: thousands separators, sizes                    |
//! | [`clock`]  | CPU-time clocks: how many cores a phase kept busy                   |
//!
//! # Example
//!
//! ```
//! use bawo_games::{Bawo, BawoRules, Game, MoveOutcome, PositionSpec, Side};
//!
//! let game = Bawo::new(2, 64, BawoRules::default())?;
//! let pos = game.parse_position(&PositionSpec::new("0,0,2,2,0,0,0,2", Side::A))?;
//! let moves = game.moves(&pos);
//! assert!(!moves.is_empty());
//! for m in &moves {
//!     // Seeds are conserved: a move never makes or loses one on the way to a position.
//!     if let MoveOutcome::Position(_) = m.outcome {}
//! }
//! # Ok::<(), bawo_games::Error>(())
//! ```

pub mod clock;
pub mod error;
pub mod game;
pub mod rank;
pub mod units;
pub mod value;

pub use error::{Error, InputError, MemoryError, Result};
pub use game::bao::{Bao, BaoPosition, BaoRules};
pub use game::bawo::{Bawo, BawoPosition, BawoRules};
pub use game::kigogo::{Kigogo, KigogoPosition, KigogoRules};
pub use game::{AnyGame, Game, GameParams, LabelledMove, MoveOutcome, PositionSpec, Side, Tier};
pub use value::{Entry, Value, MAX_DEPTH};

// Files are little-endian and mapped directly as words.
#[cfg(not(target_endian = "little"))]
compile_error!("bawo maps its little-endian files directly and needs a little-endian host");
