//! The memory budget (`--mem`) of the commands that read a whole database, `verify` and
//! `stats`, and the block-by-block decoding that keeps them within it.
//!
//! | share            | bytes                                                            |
//! |------------------|------------------------------------------------------------------|
//! | fixed overhead   | [`READ_OVERHEAD`]: the binary, thread stacks, the allocator       |
//! | block cache      | [`ReadBudget::cache`]: decoded blocks kept for probes             |
//! | workers          | [`PER_WORKER`] per block decoded at once (at most one per thread) |
//! | decoded tiers    | [`ReadBudget::spare`]: what `verify` keeps decoded for lookups    |
//!
//! A compressed file's pages are mapped; they are dropped after every batch of blocks, so
//! they never pile up beyond a batch.

use rayon::prelude::*;

use super::format::BdbFile;
use bawo_games::error::{MemoryError, Result};

/// Bytes kept back for the binary, thread stacks and the allocator.
pub const READ_OVERHEAD: u64 = 64 << 20;

/// Bytes one worker holds while it decodes a block of the default size (2^21 positions): the
/// frame's mapped pages and zstd's output (1 MiB each at most), the decoded codes, and the
/// block's entries (4 MiB), with room for the allocator.
pub const PER_WORKER: u64 = 12 << 20;

/// Least bytes of decoded blocks the cache keeps (a few blocks).
const MIN_CACHE: u64 = 8 << 20;

/// How a reader divides its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadBudget {
    /// Bytes the reader may hold.
    pub budget: u64,
    /// Blocks decoded at once.
    pub workers: usize,
    /// Bytes of decoded blocks the probe cache keeps.
    pub cache: u64,
}

impl ReadBudget {
    /// Divides `budget` among `threads` workers (fewer where it holds fewer), the cache (an
    /// eighth, at least `MIN_CACHE`, at most the default cache) and what is left for
    /// decoded tiers. A budget that cannot hold the overhead, the least cache and one worker
    /// is refused, naming the least that does.
    pub fn new(budget: u64, threads: usize) -> Result<ReadBudget, MemoryError> {
        let least = READ_OVERHEAD + MIN_CACHE + PER_WORKER;
        if budget < least {
            return Err(MemoryError {
                budget,
                tier: 0,
                why: format!(
                    "cannot hold a reader's buffers (about {} MiB) and one block",
                    (READ_OVERHEAD + MIN_CACHE) >> 20
                ),
                least_mib: least.div_ceil(1 << 20),
            });
        }
        let cache = (budget / 8).clamp(MIN_CACHE, super::cache::DEFAULT_BUDGET as u64);
        let room = budget - READ_OVERHEAD - cache;
        let workers = (room / PER_WORKER).clamp(1, threads.max(1) as u64) as usize;
        Ok(ReadBudget {
            budget,
            workers,
            cache,
        })
    }

    /// No budget: a worker per thread, the default cache, every decoded tier kept.
    pub fn unbounded(threads: usize) -> ReadBudget {
        ReadBudget {
            budget: u64::MAX,
            workers: threads.max(1),
            cache: super::cache::DEFAULT_BUDGET as u64,
        }
    }

    /// Bytes left for decoded tiers.
    pub fn spare(&self) -> u64 {
        self.budget
            .saturating_sub(READ_OVERHEAD + self.cache + self.workers as u64 * PER_WORKER)
    }
}

/// Decodes `file`'s blocks `workers` at a time (in parallel within a batch) and hands each
/// block's entries to `f` in order with the index of its first position; the file's mapped
/// pages are dropped after every batch.
pub fn for_each_block(
    file: &BdbFile,
    workers: usize,
    mut f: impl FnMut(u64, Vec<u16>) -> Result<()>,
) -> Result<()> {
    let blocks: Vec<u32> = (0..file.blocks()).collect();
    let per_block = file.header().block_positions as u64;
    for batch in blocks.chunks(workers.max(1)) {
        let decoded: Vec<Result<Vec<u16>>> = batch
            .par_iter()
            .map(|&b| {
                let block = file.decode_block(b)?;
                let mut v = Vec::with_capacity(block.len());
                block.entries_into(file.symbols(), &mut v);
                Ok(v)
            })
            .collect();
        file.release();
        for (&b, entries) in batch.iter().zip(decoded) {
            f(b as u64 * per_block, entries?)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_divide_and_the_least_is_named() {
        let e = ReadBudget::new(32 << 20, 4).unwrap_err();
        let least = e.least_mib << 20;
        let b = ReadBudget::new(least, 4).expect("the least named fits");
        assert_eq!(b.workers, 1);
        assert!(ReadBudget::new(least - (1 << 20), 4).is_err());
        let b = ReadBudget::new(1 << 30, 4).unwrap();
        assert_eq!(b.workers, 4);
        assert!(b.spare() > 700 << 20 && b.spare() < 1 << 30);
        assert_eq!(ReadBudget::unbounded(2).workers, 2);
    }
}
