//! Compressing a finished tier through the run's [`TierSink`]: on the plan's workers while
//! the run waits ([`compress_within`]), or on a thread of its own while the next tier is
//! solved ([`Background`]).
//!
//! A tier handed to the background is recorded in the manifest without its compressed file
//! (`bdb` absent); the file is recorded only once the thread is joined, which is after it was
//! written, synced and renamed. A run killed in between finds the record without its file
//! and compresses the tier again when it resumes (the file, if it was already written, is
//! replaced by the same bytes). The thread compresses with one worker, the buffers the memory
//! plan counts beside the next tier ([`super::budget::TierPlan::compress_beside`]), and drops
//! the table's and flags' mapped pages batch by batch.

use std::path::Path;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

use super::checkpoint::{Manifest, TierRecord};
use super::flags::{flags_file, TierFlags};
use super::owned::Owned;
use super::sink::TierSink;
use super::tables::TableData;
use crate::error::{Error, Result};
use crate::game::Tier;
use crate::store::manifest::FileRecord;
use crate::store::table;

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

/// A finished tier recorded without its compressed file (the run was killed while the tier
/// was compressed beside the next one): compresses it now from its raw table, checked
/// against the record, and its flags, records the file in the manifest (saved) and the
/// ledger, and returns the updated record.
#[allow(clippy::too_many_arguments)]
pub fn compress_missing(
    sink: &dyn TierSink,
    dir: &Path,
    manifest: &mut Manifest,
    mut rec: TierRecord,
    fingerprint: u64,
    workers: usize,
    owned: &mut Owned<'_>,
    notice: &dyn Fn(&str),
) -> Result<TierRecord> {
    let path = dir.join(&rec.file);
    let (header, data) = table::open_table(&path, rec.tier, rec.counts.states, fingerprint, true)?;
    if header.checksum != rec.checksum {
        return Err(Error::corrupt(&path, "checksum differs from the manifest"));
    }
    // The flags stay until the run's end, after every compression: a tier without them
    // (a damaged file) is compressed without substituting don't-care entries.
    let flags =
        TierFlags::open(&dir.join(flags_file(rec.tier)), rec.counts.states).unwrap_or_else(|e| {
            notice(&format!(
                "{e}; tier {} is compressed without its don't-care flags",
                rec.tier
            ));
            None
        });
    let (bdb, _) = compress_now(
        sink,
        dir,
        rec.tier,
        fingerprint,
        &data,
        flags.as_ref(),
        workers,
    )?;
    owned.file(&bdb.file)?;
    if let Some(r) = manifest.tiers.iter_mut().find(|r| r.tier == rec.tier) {
        r.bdb = Some(bdb.clone());
    }
    manifest.save(dir)?;
    rec.bdb = Some(bdb);
    Ok(rec)
}
