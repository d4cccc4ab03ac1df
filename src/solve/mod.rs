//! The tiered retrograde solver.
//!
//! | module        | job                                                                  |
//! |---------------|----------------------------------------------------------------------|
//! | [`cell`]      | the per-position working cell and what lower tiers say about it       |
//! | [`graph`]     | edges bucketed by target range, predecessor lists per range           |
//! | [`pass`]      | the successor pass over a block of positions                          |
//! | [`attractor`] | level-ordered WIN/LOSS propagation; what stays open is a draw          |
//! | [`messages`]  | one level's messages per range, spilled to disk beyond the budget     |
//! | [`budget`]    | the memory budget and how it cuts a tier into ranges                  |
//! | [`tier`]      | one tier end to end in checkpointed phases                            |
//! | [`tables`]    | finished tiers for lookups                                            |
//! | [`reach`]     | the positions reachable from one start, solved as one graph           |
//! | [`run`]       | tiers in order into a run directory                                   |

pub mod attractor;
pub mod budget;
pub mod cell;
pub mod graph;
pub mod messages;
pub mod pass;
pub mod reach;
pub mod request;
pub mod run;
pub mod tables;
pub mod tier;

pub use crate::error::Error as SolveError;
pub use budget::{default_budget, parse_size};
pub use run::{solve, SolveConfig, SolveReport, Summary};
pub use tier::{solve_tier, TierCounts, TierOptions};
