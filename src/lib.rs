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

pub mod db;
pub mod error;
pub mod game;
pub mod progress;
pub mod rank;
pub mod solve;
pub mod store;
pub mod value;

pub use error::{Error, Result};

// Files are little-endian and mapped directly as words (`store::bytes`).
#[cfg(not(target_endian = "little"))]
compile_error!("bawo maps its little-endian files directly and needs a little-endian host");
pub use value::{Entry, Value};
