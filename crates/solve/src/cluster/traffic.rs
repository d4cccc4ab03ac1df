//! What a tier cost the cluster: bytes between ranks, per phase and per attractor level, the
//! share of the ranks' time spent in MPI calls (transfers and waiting for the slowest), how
//! evenly the work was spread, and each rank's peak resident memory.

use std::time::Duration;

use serde::Serialize;

use super::comm::Comm;
use super::memory::peak_rss;
use super::slice::SliceOutcome;
use super::slices::imbalance;

/// One tier's traffic, summed over the ranks.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TierTraffic {
    /// The tier (its seeds).
    pub tier: u32,
    /// Seeds on the board.
    pub seeds: u32,
    /// Positions in the tier.
    pub states: u64,
    /// Ranks that solved it.
    pub ranks: usize,
    /// Seconds rank 0 spent on the tier, gathering and writing its table included.
    pub seconds: f64,
    /// Edges within the tier.
    pub in_tier_edges: u64,
    /// Bytes of `(target, source)` edges sent to other ranks.
    pub edge_bytes: u64,
    /// Bytes of messages sent to other ranks at each attractor level with work.
    pub level_bytes: Vec<u64>,
    /// Bytes of lower tiers' compressed files and of the entries gathered to rank 0.
    pub other_bytes: u64,
    /// Time in MPI calls over time on the tier, all ranks together.
    pub wait_share: f64,
    /// The busiest rank's time on its slice outside MPI calls over the mean of all ranks'
    /// (rank 0's writing of the table after the slices are solved is not counted).
    pub busy_imbalance: f64,
    /// The same for CPU time outside MPI calls (all threads of a rank).
    pub cpu_imbalance: f64,
    /// The largest slice's work (successors generated and in-tier edges, counted) over the
    /// mean.
    pub work_imbalance: f64,
    /// Each rank's peak resident memory so far (bytes, `VmHWM`; 0 where unknown).
    pub peak_rss: Vec<u64>,
}

impl TierTraffic {
    /// Every rank's figures summed (every rank calls it at once, rank 0 with its own
    /// `other_bytes`); meaningful on rank 0.
    pub fn gather(
        comm: &mut Comm,
        tier: u32,
        seeds: u32,
        states: u64,
        wall: Duration,
        out: &SliceOutcome,
        other_bytes: u64,
    ) -> TierTraffic {
        let wait = comm.take_wait();
        let sums = comm.sum_u64s(&[
            out.edges,
            out.edge_bytes,
            other_bytes,
            wait.as_nanos() as u64,
            wall.as_nanos() as u64,
        ]);
        let levels = comm.sum_u64s(&out.level_bytes);
        let as_f64 = |v: Vec<u64>| v.into_iter().map(|x| x as f64).collect::<Vec<_>>();
        let busy = as_f64(comm.per_rank(out.busy.as_nanos() as u64));
        let cpu = as_f64(comm.per_rank(out.busy_cpu.as_nanos() as u64));
        let work = as_f64(comm.per_rank(out.work));
        let peak_rss = comm.per_rank(peak_rss().unwrap_or(0));
        TierTraffic {
            tier,
            seeds,
            states,
            ranks: comm.size,
            seconds: wall.as_secs_f64(),
            in_tier_edges: sums[0],
            edge_bytes: sums[1],
            level_bytes: levels,
            other_bytes: sums[2],
            wait_share: sums[3] as f64 / (sums[4] as f64).max(1.0),
            busy_imbalance: imbalance(&busy),
            cpu_imbalance: imbalance(&cpu),
            work_imbalance: imbalance(&work),
            peak_rss,
        }
    }

    /// All bytes between ranks.
    pub fn total_bytes(&self) -> u64 {
        self.edge_bytes + self.level_bytes.iter().sum::<u64>() + self.other_bytes
    }
}
