//! One solve split across MPI ranks (`mpirun -np K bawo solve ...`, cargo feature `mpi`),
//! with a database byte-identical to one process's.
//!
//! | module       | job                                                                   |
//! |--------------|-----------------------------------------------------------------------|
//! | [`comm`]     | the collectives used, over rsmpi: chunked all-to-all, broadcast, reductions |
//! | [`slices`]   | which rank owns which positions of a tier: slices of equal estimated work |
//! | [`memory`]   | what a rank holds, checked against its `--mem` before any work; peak RSS |
//! | [`slice`]    | one rank's part of a tier: successors, edge exchange, attractor levels |
//! | [`protocol`] | rank 0's commands to the others                                        |
//! | [`root`]     | rank 0: the single-process run with each tier solved across the ranks   |
//! | [`worker`]   | every other rank: lower tiers in its own `--tmp`, its slice of each tier |
//! | [`traffic`]  | bytes between ranks per tier and level, time in MPI calls, balance, memory |
//!
//! Lower tiers are replicated: every finished tier's compressed file (about 0.7 bits per
//! position) is broadcast once and decoded into a raw table on every rank, so the successor
//! pass looks values up locally, within the rank's own `--mem` as one process does
//! (copied into memory while they fit the plan's share, else mapped); its anchored bits
//! follow it, so each rank's pass sets the don't-care flags of its slice as one process
//! does, and rank 0 gathers them with the entries (`crate::flags`).
//!
//! Checkpoints are per tier: rank 0's manifest records a tier once every rank has contributed
//! its slice and the table and compressed file are written, so `--resume` (with any number of
//! ranks) continues from the next tier.

pub mod comm;
pub mod memory;
pub mod protocol;
pub mod root;
pub mod slice;
pub mod slices;
pub mod traffic;
pub mod worker;

use std::path::Path;

pub use comm::Comm;
pub use root::solve_root;
pub use traffic::TierTraffic;

use bawo_games::error::{Error, Result};

/// Environment variables an MPI launcher sets in every rank (Open MPI, MPICH's Hydra, PMIx,
/// Slurm's PMI).
const LAUNCHER_ENV: [&str; 4] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"];

/// Whether this process was started by an MPI launcher (`mpirun`, `srun`).
pub fn launched_by_mpi() -> bool {
    LAUNCHER_ENV.iter().any(|v| std::env::var_os(v).is_some())
}

/// An initialized MPI job: this rank's communicator, then the universe (finalized when
/// dropped, after the communicator).
pub struct Cluster {
    /// This rank's communicator.
    pub comm: Comm,
    _universe: ::mpi::environment::Universe,
}

impl Cluster {
    /// Initializes MPI (once per process).
    pub fn start() -> Result<Cluster> {
        let universe = ::mpi::initialize()
            .ok_or_else(|| Error::Internal("MPI is already initialized".into()))?;
        let comm = Comm::new(universe.world());
        Ok(Cluster {
            comm,
            _universe: universe,
        })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.comm.rank
    }

    /// Ranks in the job.
    pub fn size(&self) -> usize {
        self.comm.size
    }

    /// On every rank but 0: serves rank 0 until the run is over, within `budget` bytes
    /// (this rank's own `--mem`).
    pub fn serve(&mut self, tmp: &Path, budget: u64) -> Result<()> {
        worker::serve(&mut self.comm, tmp, budget)
    }

    /// On rank 0, when it will not solve (an error, a dry run): lets the others go.
    pub fn release(&mut self) -> Result<()> {
        if self.comm.released {
            return Ok(());
        }
        protocol::send(&mut self.comm, &protocol::Command::Done)
    }

    /// Ends every rank with `code`.
    pub fn abort(&self, code: i32) -> ! {
        self.comm.abort(code)
    }
}
