//! The one error type of every bawo crate, split by whose fault it is: the caller's input, or a
//! failure while running. The command line maps the first to exit code 2, the rest to 1.

use std::path::PathBuf;

use thiserror::Error;

pub use crate::rank::TooLarge;

/// Input that cannot be used: a malformed board, an impossible parameter, an unknown rule.
/// The command line reports it in one line and exits with code 2. It lives here, below the
/// games that raise it, so that no module imports in a circle.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{0}")]
pub struct InputError(pub String);

impl InputError {
    /// An input error with this message (the command line prints it as it is).
    pub fn new(msg: impl Into<String>) -> Self {
        InputError(msg.into())
    }
}

/// Everything that can go wrong, split by whose fault it is: bad input (exit code 2) or a
/// failure while running (exit code 1).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// Malformed or impossible input.
    #[error("{0}")]
    Input(#[from] InputError),
    /// Parameters whose tiers do not fit the index type.
    #[error("{0}")]
    TooLarge(#[from] TooLarge),
    /// A memory budget (`--mem`) too small for the run, found before any work.
    #[error("{0}")]
    Memory(#[from] MemoryError),
    /// A depth beyond what a table entry can hold.
    #[error("tier {tier}: a depth exceeds {max} plies, more than tables can store", max = crate::value::MAX_DEPTH)]
    DepthOverflow {
        /// The tier being solved.
        tier: u32,
    },
    /// A file or folder that could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A file that exists but cannot be trusted: truncated, bad checksum, bad header.
    #[error("{}: corrupted: {why}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A database or run directory made for another game, other rules or other parameters.
    #[error("{0}")]
    Mismatch(String),
    /// Something the database does not hold (a tier beyond what was solved).
    #[error("{0}")]
    Missing(String),
    /// A configured limit was reached (e.g. too many reachable positions).
    #[error("{0}")]
    Limit(String),
    /// A broken invariant: a bug, never the caller's input.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// Whether the caller's input is at fault (a malformed position, impossible parameters,
    /// a budget too small), as opposed to a failure while running.
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            Error::Input(_) | Error::TooLarge(_) | Error::Memory(_)
        )
    }

    /// An [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// An [`Error::Corrupt`] for `path`.
    pub fn corrupt(path: impl Into<PathBuf>, why: impl Into<String>) -> Error {
        Error::Corrupt {
            path: path.into(),
            why: why.into(),
        }
    }
}

/// A budget in MiB, or in bytes when under one MiB (which would print as "0 MiB").
fn budget_text(bytes: u64) -> String {
    if bytes < 1 << 20 {
        format!("{bytes} bytes")
    } else {
        format!("{} MiB", bytes >> 20)
    }
}

/// A memory budget too small for a run (the solver's memory plan): the tier that needs the
/// most, what for, and the least budget that holds every tier.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("the memory budget ({}) {why}; give --mem at least {least_mib} MiB", budget_text(*.budget))]
pub struct MemoryError {
    /// The budget given, in bytes.
    pub budget: u64,
    /// The tier that needs the most.
    pub tier: u32,
    /// What that tier needs the memory for.
    pub why: String,
    /// The least budget that holds every tier, in MiB.
    pub least_mib: u64,
}

/// A result whose error is [`Error`](enum@Error) unless said otherwise.
pub type Result<T, E = Error> = std::result::Result<T, E>;
