//! What a run is asked (`SolveConfig`), what it reports (`SolveReport`, `Summary`) and how it
//! shows progress (`RunProgress`): the solver's vocabulary, apart from the run that uses it.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::counts::{TierCounts, TierIo, TierTimings};
use crate::tier::TierProgress;
pub use crate::work::graph::NARROW_LIMIT;

/// What to solve and where.
#[derive(Clone, Debug)]
pub struct SolveConfig {
    /// Solve every position with at most this many seeds on the board.
    pub seeds: u32,
    /// The run directory.
    pub out: PathBuf,
    /// Where work files go (default `out/work`; under a given folder, in a `bawo-<id>` folder
    /// of this run's own).
    pub tmp: Option<PathBuf>,
    /// Memory budget in bytes.
    pub budget: u64,
    /// The budget was given (`--mem`): the manifest records it, for a resume that gives none.
    pub budget_given: bool,
    /// Positions per range as a power of two, overriding the budget's plan.
    pub range_bits: Option<u32>,
    /// Least time between checkpoints inside a tier.
    pub checkpoint_every: Duration,
    /// Continue the unfinished run in `out`.
    pub resume: bool,
    /// Discard whatever `out` holds and solve again.
    pub force: bool,
    /// Keep the raw tables (`tier-KKKK.tbl`) of a finished run; by default a finished run
    /// holds only its compressed files and manifest (`--resume` decodes what it needs).
    pub keep_tables: bool,
    /// Tiers of more positions than this store 64-bit predecessor sources (default
    /// [`NARROW_LIMIT`], the most that 32-bit indices hold; tests lower it to run the wide
    /// path on small instances, results are the same).
    pub wide_above: u64,
    /// Refuse to start when the model's peak disk exceeds the free space of the run
    /// directory or work folder (`--no-disk-check` turns it off).
    pub disk_check: bool,
    /// Whether a finished tier is compressed on a thread of its own beside the next tier's
    /// solve (where the memory plan holds both): `None` decides by the cores
    /// ([`crate::run::compress::beside_by_default`]), `Some` always or never (`--compress-beside`).
    pub compress_beside: Option<bool>,
    /// Predecessor lists store keys where the game names in-tier sources by them
    /// ([`bawo_games::game::Game::kept_half`]): 3 or 4 bytes an edge instead of 4 or 5, the
    /// same tables. `false` stores whole indices (the cluster's slices do).
    pub keys: bool,
}

impl SolveConfig {
    /// A configuration with the defaults of the command line.
    pub fn new(seeds: u32, out: impl Into<PathBuf>) -> SolveConfig {
        SolveConfig {
            seeds,
            out: out.into(),
            tmp: None,
            budget: crate::plan::mem_arg::default_budget(),
            budget_given: false,
            range_bits: None,
            checkpoint_every: Duration::from_secs(60),
            resume: false,
            force: false,
            keep_tables: false,
            wide_above: NARROW_LIMIT,
            disk_check: true,
            compress_beside: None,
            keys: true,
        }
    }
}

/// The counts of a solve, in the shape `solve --json` prints: positions of both sides to
/// move, though only one side is stored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Positions of both sides to move.
    pub states: u64,
    /// Positions won for the side to move.
    pub win: u64,
    /// Positions lost for the side to move.
    pub loss: u64,
    /// Drawn positions.
    pub draw: u64,
    /// Longest win or loss, in plies.
    pub max_depth: u32,
    /// Each tier's counts.
    pub tiers: Vec<TierCounts>,
}

impl Summary {
    /// The summary of finished tiers from their stored counts (the manifest's records).
    pub fn from_stored(stored: &[TierCounts]) -> Summary {
        Summary::from_tiers(stored.iter().map(TierCounts::both_sides).collect())
    }

    /// The summary of tiers whose counts already count both sides.
    pub fn from_tiers(tiers: Vec<TierCounts>) -> Summary {
        Summary {
            states: tiers.iter().map(|t| t.states).sum(),
            win: tiers.iter().map(|t| t.win).sum(),
            loss: tiers.iter().map(|t| t.loss).sum(),
            draw: tiers.iter().map(|t| t.draw).sum(),
            max_depth: tiers.iter().map(|t| t.max_depth).max().unwrap_or(0),
            tiers,
        }
    }
}

/// A finished solve.
#[derive(Debug, Clone, Default)]
pub struct SolveReport {
    /// The totals.
    pub summary: Summary,
    /// Each tier solved by this run, with its timings.
    pub timings: Vec<(u32, TierTimings)>,
    /// Wall-clock time of the run.
    pub wall: Duration,
    /// Bytes written by the tiers this run solved (the sum of `tiers_io`).
    pub bytes_written: u64,
    /// The directory already held this finished solve; nothing was computed.
    pub already_done: bool,
    /// Tiers found finished in the directory and skipped.
    pub resumed_tiers: usize,
    /// Time the run spent on compressed `.bdb` files while no tier was solved (included in
    /// `wall`): tiers compressed before the next one started, and waits for a tier's
    /// compression beside the next one to end.
    pub compress: Duration,
    /// Time of the compressions that ran on a thread of their own beside the next tier's
    /// solve ([`crate::plan::budget::TierPlan::compress_beside`]).
    pub compress_beside: Duration,
    /// Bytes written and peak disk of each tier solved by this run (not of tiers skipped).
    pub tiers_io: Vec<TierIo>,
    /// The run directory's bytes at the end: manifest and compressed files (raw tables too
    /// with `keep_tables`).
    pub final_disk: u64,
}

/// What a run knows as it starts, for its progress line. Positions count both sides to move,
/// as every count printed does.
#[derive(Debug, Clone, Default)]
pub struct RunStart {
    /// Positions in all the run's tiers.
    pub total: u64,
    /// Positions in tiers already finished.
    pub done: u64,
    /// Positions of each tier still to solve, in the order they will be solved.
    pub to_solve: Vec<u64>,
    /// The estimated time of each tier still to solve, as the dry run makes it (its
    /// out-of-core part included): the clock corrects them by how the tiers before compared
    /// with theirs.
    pub estimates: Vec<Duration>,
    /// For each tier still to solve, the share of its cells its attractor holds in memory
    /// (1 for a tier of one range): the rest it changes on disk at each level, which makes
    /// the phases after its successor pass slower beside the pass (the clock foresees the
    /// tier's end from its pass's pace by it).
    pub held: Vec<f64>,
}

/// Progress of a whole solve: a tier starting, then the tier's own phases.
pub trait RunProgress: TierProgress {
    /// The run starts, with what is left of it and an estimate of its time.
    fn run_started(&self, _start: &RunStart) {}
    /// A tier of `states` positions with `seeds` seeds is starting.
    fn tier_started(&self, _tier: u32, _seeds: u32, _states: u64) {}
    /// A tier is finished, in `elapsed`, its file of `bytes` bytes.
    fn tier_finished(&self, _counts: &TierCounts, _elapsed: Duration, _bytes: u64) {}
    /// Something the user should know that does not stop the run (a discarded checkpoint).
    fn notice(&self, _line: &str) {}
}

impl RunProgress for crate::tier::Silent {}
