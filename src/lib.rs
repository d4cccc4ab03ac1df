//! bawo: parallel, out-of-core retrograde analysis of four-row mancala games.
//!
//! | module       | job                                                              |
//! |--------------|------------------------------------------------------------------|
//! | [`rank`]     | perfect hash of weak compositions: boards <-> dense indices       |
//! | [`game`]     | rule sets behind one [`game::Game`] trait                         |
//! | [`value`]    | WIN/LOSS/DRAW and depths, packed in 16-bit entries                |
//! | [`solve`]    | tiered retrograde solver: successor pass, predecessors, attractor |
//! | [`store`]    | run directories: atomic files, tables, manifest                    |
//! | [`db`]       | finished databases: compressed tier files, probes, verify, stats, play, export |
//! | [`progress`] | progress bars and log lines                                       |
//! | [`serve`]    | `bawo serve`: the web explorer and its JSON API                   |

pub mod db;
pub mod error;
pub mod game;
pub mod progress;
pub mod rank;
pub mod serve;
pub mod solve;
pub mod store;
pub mod value;

pub use error::{Error, Result};
pub use value::{Entry, Value};
