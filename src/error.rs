//! The library's error type and the exit code each kind maps to.

use std::path::PathBuf;

use thiserror::Error;

use crate::rank::TooLarge;

/// Input that cannot be used: a malformed board, an impossible parameter, an unknown rule.
/// The command line reports it in one line and exits with code 2. It lives here, below the
/// games that raise it, so that no module imports in a circle.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{0}")]
pub struct InputError(pub String);

impl InputError {
    pub fn new(msg: impl Into<String>) -> Self {
        InputError(msg.into())
    }
}

/// Everything that can go wrong, split by whose fault it is: bad input (exit code 2) or a
/// failure while running (exit code 1).
#[derive(Debug, Error)]
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
    #[error("tier {tier}: a depth exceeds {max} plies, more than tables can store", max = crate::value::MAX_DEPTH)]
    DepthOverflow { tier: u32 },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file that exists but cannot be trusted: truncated, bad checksum, bad header.
    #[error("{}: corrupted: {why}", path.display())]
    Corrupt { path: PathBuf, why: String },
    /// A database or run directory made for another game, other rules or other parameters.
    #[error("{0}")]
    Mismatch(String),
    /// Something the database does not hold (a tier beyond what was solved).
    #[error("{0}")]
    Missing(String),
    /// A configured limit was reached (e.g. too many reachable positions).
    #[error("{0}")]
    Limit(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// 2 for usage errors, 1 for failures.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) | Error::TooLarge(_) | Error::Memory(_) => 2,
            _ => 1,
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub fn corrupt(path: impl Into<PathBuf>, why: impl Into<String>) -> Error {
        Error::Corrupt {
            path: path.into(),
            why: why.into(),
        }
    }
}

/// A memory budget too small for a run (the solver's memory plan): the tier that needs the
/// most, what for, and the least budget that holds every tier.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("the memory budget ({} MiB) {why}; give --mem at least {least_mib} MiB", .budget >> 20)]
pub struct MemoryError {
    pub budget: u64,
    pub tier: u32,
    pub why: String,
    pub least_mib: u64,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
