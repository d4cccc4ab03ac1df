//! Fault injection for tests of checkpoints and failures, driven by environment variables,
//! in builds with the `fault-injection` feature only (the test suite's; `cargo build --release`
//! leaves it out, so a release binary reads none of these variables):
//!
//! | variable                         | effect                                                   |
//! |----------------------------------|----------------------------------------------------------|
//! | `BAWO_ABORT_AFTER_CHECKPOINTS=k` | the process aborts right after its k-th checkpoint write  |
//! | `BAWO_FAIL_WRITES_AFTER=bytes`   | work-file writes fail with "no space left" past that many bytes |
//! | `BAWO_MESSAGE_BUDGET=bytes`      | level messages spill to disk past that many bytes, whatever `--mem` allows |
//! | `BAWO_HELD_CELLS=bytes`          | an out-of-core attractor holds that many bytes of cells in memory, whatever `--mem` allows |
//! | `BAWO_WIDE_ABOVE=positions`      | tiers larger than that store 40-bit predecessor sources, as tiers of more than 2^32 positions do |
//! | `BAWO_FREE_DISK=bytes`           | the free disk the solver's check before a run sees, whatever the filesystem says |
//! | `BAWO_NO_KEYS=1`                 | predecessor lists store whole indices where the game would name sources by keys |
//! | `BAWO_OPEN_LOGS=n`               | append logs close their files between writes once more than n are open |
//! | `BAWO_RANK_KEYS=1`               | keys are ranks of mover halves (3 or 4 bytes), as earlier builds stored them, not places in lists of moved halves |
//! | `BAWO_WIDE_CELLS=1`              | a closed tier's cells take four bytes out of core, as earlier builds kept them, not two |
//!
//! The last eight reach, in a tier small enough for a test, paths that only large tiers or
//! full disks take otherwise. They are read once; without them nothing here costs more than a
//! relaxed atomic load.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use bawo_games::error::{Error, Result};

/// The variable's value as a number, in builds for tests; `None` in every other build.
fn env_u64(name: &str) -> Option<u64> {
    if cfg!(feature = "fault-injection") {
        std::env::var(name).ok().and_then(|v| v.parse().ok())
    } else {
        None
    }
}

fn abort_after() -> Option<u64> {
    static V: OnceLock<Option<u64>> = OnceLock::new();
    *V.get_or_init(|| env_u64("BAWO_ABORT_AFTER_CHECKPOINTS"))
}

fn fail_writes_after() -> Option<u64> {
    static V: OnceLock<Option<u64>> = OnceLock::new();
    *V.get_or_init(|| env_u64("BAWO_FAIL_WRITES_AFTER"))
}

/// The bytes of level messages held before they spill, if a test sets it (spilling is
/// otherwise reached only by tiers too large for a test).
pub fn message_budget() -> Option<u64> {
    static V: OnceLock<Option<u64>> = OnceLock::new();
    *V.get_or_init(|| env_u64("BAWO_MESSAGE_BUDGET"))
}

/// Open log files beyond which logs close their files between writes, if a test sets it
/// (so that a small solve reopens its logs as a large one does).
pub fn open_log_limit() -> Option<u64> {
    static V: OnceLock<Option<u64>> = OnceLock::new();
    *V.get_or_init(|| env_u64("BAWO_OPEN_LOGS"))
}

/// The bytes of cells an out-of-core attractor holds in memory, if a test sets it (so that
/// some ranges are held and others not in a tier small enough for a test).
pub fn held_cells() -> Option<u64> {
    static V: OnceLock<Option<u64>> = OnceLock::new();
    *V.get_or_init(|| env_u64("BAWO_HELD_CELLS"))
}

/// The bytes of a range's entries from which a tier's finish writes its table in place, if a
/// test sets it (0: every table; the path is otherwise reached only by ranges of megabytes).
pub fn in_place_from() -> Option<u64> {
    static V: OnceLock<Option<u64>> = OnceLock::new();
    *V.get_or_init(|| env_u64("BAWO_IN_PLACE_FROM"))
}

/// The tier size above which a solve takes the wide (40-bit source) path, if a test sets it
/// (the path is otherwise reached only by tiers of more than 2^32 positions).
pub fn wide_above() -> Option<u64> {
    static V: OnceLock<Option<u64>> = OnceLock::new();
    *V.get_or_init(|| env_u64("BAWO_WIDE_ABOVE"))
}

/// Whether a test asks predecessor lists to store whole indices instead of keys (to compare
/// the two).
pub fn no_keys() -> bool {
    static V: OnceLock<Option<u64>> = OnceLock::new();
    V.get_or_init(|| env_u64("BAWO_NO_KEYS"))
        .is_some_and(|v| v != 0)
}

/// Whether a test asks for keys that are ranks of mover halves, as earlier builds stored them,
/// instead of places in lists of moved halves (to resume such a checkpoint and compare).
pub fn rank_keys() -> bool {
    static V: OnceLock<Option<u64>> = OnceLock::new();
    V.get_or_init(|| env_u64("BAWO_RANK_KEYS"))
        .is_some_and(|v| v != 0)
}

/// Whether a test asks a closed tier's out-of-core cells to take four bytes, not two (to
/// compare the two, and to resume such a checkpoint).
pub fn wide_cells() -> bool {
    static V: OnceLock<Option<u64>> = OnceLock::new();
    V.get_or_init(|| env_u64("BAWO_WIDE_CELLS"))
        .is_some_and(|v| v != 0)
}

/// The free disk a test makes the solver's disk check see, if it sets one.
pub fn free_disk() -> Option<u64> {
    static V: OnceLock<Option<u64>> = OnceLock::new();
    *V.get_or_init(|| env_u64("BAWO_FREE_DISK"))
}

static CHECKPOINTS: AtomicU64 = AtomicU64::new(0);
static WRITTEN: AtomicU64 = AtomicU64::new(0);

/// Called after every checkpoint write; aborts the process at the configured count.
pub fn checkpoint_written() {
    let n = CHECKPOINTS.fetch_add(1, Ordering::SeqCst) + 1;
    if abort_after() == Some(n) {
        // A failed stderr must not turn the planned abort into a panic.
        let _ = writeln!(
            std::io::stderr(),
            "bawo: fault injection: aborting after checkpoint {n}"
        );
        std::process::abort();
    }
}

/// Called before writing `len` bytes of a work file; fails once the budget is spent.
pub fn check_write(len: usize, path: &Path) -> Result<()> {
    if let Some(limit) = fail_writes_after() {
        let before = WRITTEN.fetch_add(len as u64, Ordering::SeqCst);
        if before + len as u64 > limit {
            return Err(Error::io(
                path,
                std::io::Error::from_raw_os_error(28), // ENOSPC
            ));
        }
    }
    Ok(())
}
