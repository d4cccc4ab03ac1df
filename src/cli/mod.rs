//! The `bawo` command line: flag definitions (which also feed `--help`), one module per
//! command or command group, each parsing its flags, calling the library and printing.
//!
//! | module     | commands                                             |
//! |------------|------------------------------------------------------|
//! | [`args`]   | flags several commands share: game, position, threads |
//! | [`table`]  | the per-tier count table `solve` and `stats` print    |
//! | [`solve`]  | `solve`                                              |
//! | `cluster`  | `solve` under `mpirun` (cargo feature `mpi`)          |
//! | [`dry_run`] | `solve --dry-run`: the run sized before it starts   |
//! | [`reach`]  | `reach`                                              |
//! | [`query`]  | `query`, `moves`                                     |
//! | [`check`]  | `verify`, `stats`                                    |
//! | [`compact`] | `compact`                                           |
//! | [`play`]   | `play`                                               |
//! | [`export`] | `export`                                             |
//! | [`serve`]  | `serve`                                              |
//! | [`out`]    | writing output: a closed pipe ends quietly, never a panic |

#[macro_use]
mod out;

mod args;
mod check;
#[cfg(feature = "mpi")]
mod cluster;
mod compact;
mod dry_run;
mod export;
mod open;
mod play;
mod query;
mod reach;
mod serve;
mod solve;
mod table;

use clap::{Parser, Subcommand};

use bawo_games::error::{Error, Result};

#[derive(Parser, Debug)]
#[command(
    name = "bawo",
    version,
    about = "Parallel retrograde analysis of four-row mancala games",
    long_about = "Solves Generalized Bawo (and related four-row mancala games) completely: \
                  WIN, LOSS or DRAW with depth for every position within a seed budget."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Solve every position with at most --seeds seeds on the board, tier by tier.
    Solve(solve::SolveArgs),
    /// Solve only the positions reachable from one start position.
    Reach(reach::ReachArgs),
    /// Value and depth of one position in a database, with every legal move.
    Query(query::QueryArgs),
    /// The legal moves of a position and where each leads.
    Moves(query::MovesArgs),
    /// Check a database: every checksum, and every stored value recomputed from successors.
    Verify(check::VerifyArgs),
    /// WIN/LOSS/DRAW counts and depth histograms per tier, optionally as a plot.
    Stats(check::StatsArgs),
    /// Re-encode a finished database into a new directory: smaller files (zstd 19, blocks of
    /// 2^23 positions by default), slower cold probes.
    Compact(compact::CompactArgs),
    /// Play against perfect play in the terminal (moves read line by line from stdin).
    Play(play::PlayArgs),
    /// Write one tier as CSV: index, pit counts, side to move, value, depth.
    Export(export::ExportArgs),
    /// Explore databases in a web browser (read-only JSON API and page) until Ctrl-C.
    Serve(serve::ServeArgs),
}

/// The exit code of a failed command: 2 when the input was at fault (a usage error), 1 for a
/// failure while running.
pub fn exit_code(e: &Error) -> i32 {
    if e.is_input() {
        2
    } else {
        1
    }
}

/// Runs one command.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        #[cfg(feature = "mpi")]
        Command::Solve(a) if bawo_solve::cluster::launched_by_mpi() => cluster::run(a),
        Command::Solve(a) => solve::run(a),
        Command::Reach(a) => reach::run(a),
        Command::Query(a) => query::run_query(a),
        Command::Moves(a) => query::run_moves(a),
        Command::Verify(a) => check::run_verify(a),
        Command::Stats(a) => check::run_stats(a),
        Command::Compact(a) => compact::run(a),
        Command::Play(a) => play::run(a),
        Command::Export(a) => export::run(a),
        Command::Serve(a) => serve::run(a),
    }
}
