//! A database directory's manifest as the database layer reads it: the game descriptor, the
//! seed budget, every finished tier's counts and files. The solver's checkpoint of a tier in
//! progress is kept as written ([`Unfinished`]): readers only need to know there is one.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::counts::TierCounts;
pub use bawo_store::manifest::{FileRecord, FILE, FORMAT};

/// The manifest of a database: finished tiers with their counts and files.
pub type Manifest = bawo_store::manifest::Manifest<TierCounts, Unfinished>;

/// One finished tier of a [`Manifest`].
pub type TierRecord = bawo_store::manifest::TierRecord<TierCounts>;

/// The solver's checkpoint of the tier in progress, kept as written: a database reader never
/// looks inside it, and nothing in it names a file the reader opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Unfinished(serde_json::Value);

impl bawo_store::manifest::Checkpoint for Unfinished {
    fn work_dir_mut(&mut self) -> Option<&mut PathBuf> {
        None
    }
}
