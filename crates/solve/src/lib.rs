//! The tiered retrograde solver.
//!
//! | folder      | job                                                                      |
//! |-------------|--------------------------------------------------------------------------|
//! | [`work`]    | a tier's work files: names, edge and due logs, the predecessor graph and its files |
//! | [`plan`]    | sizing: the memory budget and plan, the disk model and check, the time sample |
//! | [`tier`]    | one tier end to end: successor pass, predecessor lists, attractor, finish, checkpoints |
//! | [`run`]     | a run directory: opened, tiers solved in order, recorded, compressed, resumed; the dry run |
//! | [`reach`]   | the positions reachable from one start, solved as one graph (the paper's experiments) |
//! | `cluster`   | the tiers shared across MPI ranks (feature `mpi`)                        |
//!
//! Each folder uses only those above it in this table (`scripts/check-layers.sh` checks that
//! no two folders name each other).
//!
//! The database layer's [`cell`], [`counts`], [`flags`] and [`sink`] are re-exported under
//! the names the solver's modules use for them.
//!
//! The solver writes raw tables only; what else a finished tier becomes (the database's
//! compressed file) is the business of the [`run::TierSink`] its caller hands in, so this layer
//! never imports the database layer above it.

#[cfg(feature = "mpi")]
pub mod cluster;
pub mod plan;
pub mod reach;
pub mod run;
pub mod tier;
pub mod work;

// The database layer's pieces the solver writes through, under the names the solver's modules
// use for them.
pub use bawo_db::{cell, counts, flags, sink};

pub use counts::TierCounts;
pub use plan::budget::{MemoryError, MemoryPlan};
pub use plan::mem_arg::{default_budget, parse_size};
pub use run::build::solve;
pub use run::{RunProgress, RunStart, SolveConfig, SolveReport, Summary, TierSink};
pub use tier::checkpoint::{Manifest, TierRecord};
pub use tier::{solve_tier, TierOptions};
pub use tier::{Silent, TierProgress};
