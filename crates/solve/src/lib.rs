//! The tiered retrograde solver.
//!
//! | module        | job                                                                  |
//! |---------------|----------------------------------------------------------------------|
//! | [`cell`]      | the per-position working cell and what lower tiers say about it       |
//! | [`graph`]     | edges bucketed by target range, predecessor lists per range           |
//! | [`edgelog`]   | edge logs in compact pieces of varints                                |
//! | [`predfile`]  | a range's predecessor lists as a file, offsets in blocks              |
//! | [`huge`]      | large vectors in huge pages where the kernel gives them               |
//! | [`pass`]      | the successor pass over a block of positions                          |
//! | [`attractor`] | level-ordered WIN/LOSS propagation; what stays open is a draw          |
//! | [`held`]      | out of core, cells the attractor holds in memory from level to level  |
//! | [`messages`]  | one level's messages per range, spilled to disk beyond the budget     |
//! | [`budget`]    | the memory budget and the run's plan: ranges, messages, lower tiers   |
//! | [`mem_arg`]   | the `--mem` argument: sizes, physical memory, the default budget      |
//! | [`tier`]      | one tier end to end in checkpointed phases                            |
//! | [`restore`]   | finished tiers brought back when a run resumes or is extended          |
//! | [`slots`]     | a tier's checkpoints: logs and cell slots committed, the rest let go  |
//! | [`resume`]    | reopening a tier from its checkpoint, every file checked              |
//! | [`work`]      | names of a tier's work files, as types                                |
//! | [`owned`]     | what a run created (its ledger), the only files `--force` deletes      |
//! | [`checkpoint`]| what the manifest records of the tier in progress                     |
//! | [`compress`]  | a finished tier into the sink: now, or on a thread beside the next tier |
//! | [`counts`]    | what a solved tier counts, how long its phases took, what it wrote     |
//! | [`disk`]      | bytes written by the process, bytes held by a directory               |
//! | [`flags`]     | per-position anchored/don't-care flags handed to the database writer |
//! | [`estimate`]  | a run sized before it starts (`--dry-run`): tiers, ranges, disk, time |
//! | [`sample`]    | a solve's time from a timed sample of its largest tier                |
//! | [`space`]     | free disk checked against the model before a solve starts             |
//! | [`tables`]    | finished tiers for lookups                                            |
//! | [`pass_tables`] | the lower tiers one successor pass looks up: copies that fit its share, reads beyond |
//! | [`reach`]     | the positions reachable from one start, solved as one graph           |
//! | [`config`]    | what a run is asked, what it reports, how it shows progress          |
//! | [`open`]      | a run directory opened: manifest, budget, the checkpoint's work folder checked |
//! | [`run`]       | tiers in order into a run directory; finished tiers go to a [`run::TierSink`] |
//! | [`sink`]      | the [`sink::TierSink`] interface and a finished tier's stored file     |
//!
//! The solver writes raw tables only; what else a finished tier becomes (the database's
//! compressed file) is the business of the [`run::TierSink`] its caller hands in, so this layer
//! never imports the database layer above it.

pub mod attractor;
mod blocksink;
pub mod budget;
pub mod build;
pub mod checkpoint;
#[cfg(feature = "mpi")]
pub mod cluster;
pub mod compress;
pub mod config;
pub mod disk;
pub mod duelog;
pub mod edgecodec;
pub mod edgelog;
mod emit_level;
pub mod estimate;
pub mod finish;
pub mod graph;
pub mod held;
pub mod huge;
pub mod mem_arg;
pub mod messages;
pub mod open;
pub mod owned;
pub mod pass;
pub mod pass_tables;
pub mod predfile;
pub mod predwrite;
pub mod reach;
pub mod request;
pub mod restore;
pub mod resume;
pub mod run;
pub mod sample;
pub mod slots;
pub mod space;
pub mod tables;
pub mod tier;
mod tier_loop;
pub mod work;

// The database layer's pieces the solver writes through, under the names the solver's modules
// use for them.
pub use bawo_db::{cell, counts, flags, sink};

pub use budget::{MemoryError, MemoryPlan};
pub use build::solve;
pub use checkpoint::{Manifest, TierRecord};
pub use counts::TierCounts;
pub use mem_arg::{default_budget, parse_size};
pub use run::{RunProgress, RunStart, SolveConfig, SolveReport, Summary, TierSink};
pub use tier::{solve_tier, TierOptions};
pub use tier::{Silent, TierProgress};
