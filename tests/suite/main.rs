//! The test suite as one binary (one link instead of one per file): a module per subject.
//! Two stay apart: `tests/mpi.rs` runs only with the `mpi` feature, under `mpirun`, and
//! `tests/memory/` measures children's peak memory, which Linux reports as at least the
//! parent's own when the parent is large (its peak carries over `exec`).

mod common;
mod raw_support;
mod serve_support;

mod bao_cli;
mod bao_properties;
mod bao_rules;
mod bao_solver_vs_oracle;
mod bawo_properties;
mod bawo_rules;
mod bawo_solver_vs_oracle;
mod cli;
mod committed_db;
mod compact;
mod compress_beside;
mod conflicts;
mod db_cli;
mod db_format;
mod defaults;
mod dont_care;
mod foreign_dirs;
mod fuzz_corpus;
mod hardening_io;
mod hardening_runs;
mod kept_half;
mod kigogo_cli;
mod kigogo_moves_vs_oracle;
mod kigogo_rules;
mod kigogo_solver_vs_oracle;
mod lean_runs;
mod memory_plan;
mod paper_experiments;
mod resume;
mod serve_api;
mod serve_browser;
mod serve_trust;
mod symmetry;
mod trust;
mod wide_tiers;
