//! Compressing a finished tier through the run's [`TierSink`]: on the plan's workers while
//! the run waits ([`compress_within`]), or on a thread of its own while the next tier is
//! solved ([`Background`]).
//!
//! A tier handed to the background is recorded in the manifest without its compressed file
//! (`bdb` absent); the file is recorded only once the thread is joined, which is after it was
//! written, synced and renamed. A run killed in between finds the record without its file
//! and compresses the tier again when it resumes (the file, if it was already written, is
//! replaced by the same bytes). The thread compresses with one worker, the buffers the memory
//! plan counts beside the next tier ([`crate::plan::budget::TierPlan::compress_beside`]), and drops
//! the table's and flags' mapped pages batch by batch.

use std::path::Path;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

use crate::flags::{flags_file, TierFlags};
use crate::run::owned::Owned;
use crate::sink::TierSink;
use crate::tier::checkpoint::Manifest;
use crate::tier::tables::TableData;
use bawo_games::error::{Error, Result};
use bawo_games::game::Tier;
use bawo_store::manifest::FileRecord;
use bawo_store::table;

/// Runs `f` (a sink compressing a tier a block per worker thread) on `workers` threads, the
/// number of blocks the memory plan holds at once; on the current threads when they are no
/// more.
pub fn compress_within<T: Send>(workers: usize, f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    if workers >= rayon::current_num_threads() {
        return f();
    }
    pool(workers)?.install(f)
}

fn pool(workers: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .thread_name(|_| "bawo-compress".to_string())
        .build()
        .map_err(|e| Error::Internal(format!("cannot start compressing threads: {e}")))
}

/// Whether finished tiers are compressed beside the next tier's solve (where the memory plan
/// holds both): where the solver's threads leave a core of this machine to the compressing
/// thread. Where they take every core, the thread only competes with them: on the 2-core
/// development machine, shared with other jobs, compressing beside the next tier with both
/// cores solving was no faster than compressing before it (docs/performance.md). The solve
/// option `--compress-beside` ([`crate::run::SolveConfig::compress_beside`]) overrides it.
pub fn beside_by_default() -> bool {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    rayon::current_num_threads() < cores
}

/// Compresses a finished tier now, on `workers` threads; returns the file to record and the
/// time it took.
pub fn compress_now(
    sink: &dyn TierSink,
    dir: &Path,
    tier: Tier,
    fingerprint: u64,
    table: &TableData,
    flags: Option<&TierFlags>,
    workers: usize,
) -> Result<(FileRecord, Duration)> {
    let t = Instant::now();
    let file = compress_within(workers, || {
        sink.tier_finished(dir, tier, fingerprint, table, flags)
    })?;
    Ok((file, t.elapsed()))
}

/// A finished tier being compressed on a thread of its own.
pub struct Background<'scope> {
    /// The tier being compressed.
    pub tier: Tier,
    handle: ScopedJoinHandle<'scope, Result<(FileRecord, Duration)>>,
}

impl<'scope> Background<'scope> {
    /// Starts compressing `tier` (its table and flags, which the thread then owns) with one
    /// worker on a thread of `scope`.
    pub fn start<'env>(
        scope: &'scope Scope<'scope, 'env>,
        sink: &'env dyn TierSink,
        dir: &'env Path,
        tier: Tier,
        fingerprint: u64,
        table: TableData,
        flags: Option<TierFlags>,
    ) -> Result<Background<'scope>> {
        let handle = std::thread::Builder::new()
            .name(format!("bawo-compress-{tier}"))
            .spawn_scoped(scope, move || {
                let t = Instant::now();
                let file = pool(1)?.install(|| {
                    sink.tier_finished(dir, tier, fingerprint, &table, flags.as_ref())
                })?;
                Ok((file, t.elapsed()))
            })
            .map_err(|e| Error::Internal(format!("cannot start the compressing thread: {e}")))?;
        Ok(Background { tier, handle })
    }

    /// Waits for the compression to end; returns the file to record and the time the thread
    /// took (most of it beside the next tier's solve), or the thread's error.
    pub fn join(self) -> Result<(FileRecord, Duration)> {
        match self.handle.join() {
            Ok(r) => r,
            Err(panic) => {
                let why = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(Error::Internal(format!(
                    "the thread compressing tier {} failed: {why}",
                    self.tier
                )))
            }
        }
    }
}

/// Finished tiers recorded without their compressed files (the run was killed while each
/// was compressed beside the next one): compresses each now from its raw table, checked
/// against the record, and its flags, and records the file in the manifest (written with the
/// run's next manifest write) and the ledger; returns the time it took. A resumed run calls
/// it only once its tier in progress is solved, so that a resume refused on a damaged
/// checkpoint changes nothing in the run directory.
#[allow(clippy::too_many_arguments)]
pub fn compress_missing(
    sink: &dyn TierSink,
    dir: &Path,
    manifest: &mut Manifest,
    tiers: Vec<Tier>,
    fingerprint: u64,
    workers: usize,
    owned: &mut Owned<'_>,
    notice: &dyn Fn(&str),
) -> Result<Duration> {
    let mut total = Duration::ZERO;
    for tier in tiers {
        let rec = manifest
            .tiers
            .iter_mut()
            .find(|r| r.tier == tier)
            .ok_or_else(|| Error::Internal(format!("tier {tier} to compress is not recorded")))?;
        let path = dir.join(&rec.file);
        let states = rec.counts.states;
        let (header, data) = table::open_table(&path, tier, states, fingerprint, true)?;
        if header.checksum != rec.checksum {
            return Err(Error::corrupt(&path, "checksum differs from the manifest"));
        }
        // The flags stay until the run's end, after every compression: a tier without them
        // (a damaged file) is compressed without substituting don't-care entries.
        let flags = TierFlags::open(&dir.join(flags_file(tier)), states).unwrap_or_else(|e| {
            notice(&format!(
                "{e}; tier {tier} is compressed without its don't-care flags"
            ));
            None
        });
        let (bdb, took) =
            compress_now(sink, dir, tier, fingerprint, &data, flags.as_ref(), workers)?;
        owned.file(&bdb.file)?;
        rec.bdb = Some(bdb);
        total += took;
    }
    Ok(total)
}
