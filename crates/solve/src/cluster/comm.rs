//! The few collective operations the cluster solver needs, over rsmpi, each timed and its
//! bytes counted: one all-to-all with counts (chunked so that no count or displacement passes
//! MPI's 32-bit limit), a broadcast of bytes from rank 0, global reductions, and streaming a
//! slice of entries (and its flags) to rank 0.

use std::time::{Duration, Instant};

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;

/// Elements one round of an all-to-all carries at most, summed over the senders to one rank:
/// MPI counts and displacements are `int`.
pub const MAX_ROUND: usize = i32::MAX as usize;

/// Elements one round of an all-to-all carries by default, summed over the destinations of
/// one rank (32 MiB of `u64`): the round's send buffer is a copy, so its size counts against
/// `--mem` ([`super::memory`]); more rounds cost only a few collectives each.
pub const ROUND_ELEMENTS: usize = 1 << 22;

/// Bytes of one broadcast message at most.
const MAX_MESSAGE: usize = 1 << 30;

/// Entries of one message of a slice sent to rank 0 (8 MiB): rank 0's receive buffer.
pub const GATHER_PIECE: usize = 1 << 22;

/// Overrides [`ROUND_ELEMENTS`], up to [`MAX_ROUND`] (tests set it tiny to run the chunked
/// path on small instances).
pub const ROUND_ENV: &str = "BAWO_MPI_ROUND";

/// The world communicator with a clock for the time spent in collectives (transfer and
/// waiting for the slowest rank together) and a count of the bytes this rank sent.
pub struct Comm {
    /// The world communicator.
    pub world: SimpleCommunicator,
    /// This process's rank.
    pub rank: usize,
    /// Ranks in the job.
    pub size: usize,
    /// Time inside MPI calls since the last [`Comm::take_wait`].
    wait: Duration,
    /// CPU time inside MPI calls (they spin while they wait), for ever.
    wait_cpu: Duration,
    /// Elements per destination per round of an all-to-all.
    round: usize,
    /// Rank 0 has started a tier with the others: an error now must abort them all, since
    /// they wait in a collective; otherwise they wait for a command and can be let go.
    pub busy: bool,
    /// Rank 0 has told the others the run is over: nothing more may be sent.
    pub released: bool,
}

impl Comm {
    /// Wraps `world`, reading the round size from [`ROUND_ENV`].
    pub fn new(world: SimpleCommunicator) -> Comm {
        let rank = world.rank() as usize;
        let size = world.size() as usize;
        let limit = std::env::var(ROUND_ENV)
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&v| v > 0)
            .unwrap_or(ROUND_ELEMENTS)
            .min(MAX_ROUND);
        Comm {
            world,
            rank,
            size,
            wait: Duration::ZERO,
            wait_cpu: Duration::ZERO,
            round: (limit / size).max(1),
            busy: false,
            released: false,
        }
    }

    /// Time spent in MPI calls since the last [`Comm::take_wait`], without resetting it.
    pub fn waited(&self) -> Duration {
        self.wait
    }

    /// Time spent in MPI calls since the last call, and resets the clock.
    pub fn take_wait(&mut self) -> Duration {
        std::mem::take(&mut self.wait)
    }

    /// CPU time this rank spent in MPI calls so far (every call is made from one thread).
    pub fn cpu_waited(&self) -> Duration {
        self.wait_cpu
    }

    fn timed<T>(&mut self, f: impl FnOnce(&SimpleCommunicator) -> T) -> T {
        let t = Instant::now();
        let c = cpu_time(libc::CLOCK_THREAD_CPUTIME_ID);
        let r = f(&self.world);
        self.wait += t.elapsed();
        self.wait_cpu += cpu_time(libc::CLOCK_THREAD_CPUTIME_ID).saturating_sub(c);
        r
    }

    /// Sends `send[d]` to rank `d`, for every `d`, and returns what every rank sent to this
    /// one, in rank order (within a rank, in its order). Runs in as many rounds as the
    /// largest bucket of any rank needs; every rank takes part in every round. Buckets are
    /// records of `unit` elements, never cut between rounds.
    pub fn all_to_all(&mut self, send: &[Vec<u64>], unit: usize) -> Vec<u64> {
        debug_assert_eq!(send.len(), self.size);
        let round = (self.round / unit).max(1) * unit;
        let mine = send
            .iter()
            .map(|b| b.len().div_ceil(round))
            .max()
            .unwrap_or(0) as u64;
        let rounds = self.max_u64(mine);
        let mut recv = Vec::new();
        let mut sent = vec![0usize; self.size];
        for _ in 0..rounds {
            let counts: Vec<Count> = send
                .iter()
                .zip(&sent)
                .map(|(b, &s)| (b.len() - s).min(round) as Count)
                .collect();
            let mut buf = Vec::with_capacity(counts.iter().map(|&c| c as usize).sum());
            for (d, b) in send.iter().enumerate() {
                buf.extend_from_slice(&b[sent[d]..sent[d] + counts[d] as usize]);
                sent[d] += counts[d] as usize;
            }
            let mut rcounts = vec![0 as Count; self.size];
            self.timed(|w| w.all_to_all_into(&counts[..], &mut rcounts[..]));
            let sdispls = displacements(&counts);
            let rdispls = displacements(&rcounts);
            let total: usize = rcounts.iter().map(|&c| c as usize).sum();
            let at = recv.len();
            recv.resize(at + total, 0u64);
            self.timed(|w| {
                let s = Partition::new(&buf[..], &counts[..], &sdispls[..]);
                let mut r = PartitionMut::new(&mut recv[at..], &rcounts[..], &rdispls[..]);
                w.all_to_all_varcount_into(&s, &mut r);
            });
        }
        recv
    }

    /// The largest of every rank's `x`.
    pub fn max_u64(&mut self, x: u64) -> u64 {
        let mut out = 0u64;
        self.timed(|w| w.all_reduce_into(&x, &mut out, SystemOperation::max()));
        out
    }

    /// The smallest of every rank's `x`.
    pub fn min_u64(&mut self, x: u64) -> u64 {
        let mut out = 0u64;
        self.timed(|w| w.all_reduce_into(&x, &mut out, SystemOperation::min()));
        out
    }

    /// The element-wise sums of every rank's `xs` (all ranks give as many).
    pub fn sum_u64s(&mut self, xs: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; xs.len()];
        self.timed(|w| w.all_reduce_into(xs, &mut out[..], SystemOperation::sum()));
        out
    }

    /// Every rank's `x`, in rank order (on every rank).
    pub fn per_rank(&mut self, x: u64) -> Vec<u64> {
        let mut mine = vec![0u64; self.size];
        mine[self.rank] = x;
        self.sum_u64s(&mine)
    }

    /// Rank 0's `bytes` on every rank (others pass anything; it is replaced).
    pub fn broadcast_bytes(&mut self, bytes: &mut Vec<u8>) {
        let mut len = bytes.len() as u64;
        self.timed(|w| w.process_at_rank(0).broadcast_into(&mut len));
        bytes.resize(len as usize, 0);
        for piece in bytes.chunks_mut(MAX_MESSAGE) {
            self.timed(|w| w.process_at_rank(0).broadcast_into(piece));
        }
    }

    /// Sends `items` (a slice's entries, or its packed flags) to rank 0, in messages of at
    /// most [`GATHER_PIECE`] items.
    pub fn send_to_root<T: Equivalence>(&mut self, items: &[T]) {
        for piece in items.chunks(GATHER_PIECE) {
            self.timed(|w| w.process_at_rank(0).send(piece));
        }
    }

    /// On rank 0: receives the `len` items rank `from` sends with [`Comm::send_to_root`],
    /// handing each message to `put`.
    pub fn receive_from<T: Equivalence + Copy + Default, E>(
        &mut self,
        from: usize,
        len: u64,
        put: &mut dyn FnMut(&[T]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut buf = vec![T::default(); (len as usize).min(GATHER_PIECE)];
        let mut left = len as usize;
        while left > 0 {
            let n = left.min(GATHER_PIECE);
            self.timed(|w| w.process_at_rank(from as i32).receive_into(&mut buf[..n]));
            put(&buf[..n])?;
            left -= n;
        }
        Ok(())
    }

    /// Ends every rank of the job with `code` (mpirun stops the others).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }
}

pub use bawo_games::clock::cpu_time;

/// Where each rank's part starts in a buffer of parts of `counts` elements.
fn displacements(counts: &[Count]) -> Vec<Count> {
    let mut at = 0 as Count;
    counts
        .iter()
        .map(|&c| {
            let d = at;
            at += c;
            d
        })
        .collect()
}
