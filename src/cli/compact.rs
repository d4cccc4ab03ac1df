//! `compact`: a finished database re-encoded into a new directory with larger blocks and a
//! higher zstd level (smaller files, slower cold probes; [`bawo_db::compact`]).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use serde::Serialize;

use crate::progress::{human_bytes, Reporter};
use bawo_db::compact::{self, Compacted};
use bawo_db::format::EncodeOptions;
use bawo_games::error::{Error, InputError, Result};
use bawo_solve::plan::mem_arg;

use super::args::{print_json, threads_of, usage, with_threads};

#[derive(Args, Debug)]
pub struct CompactArgs {
    /// Database directory to read (only read, never changed).
    #[arg(long)]
    pub db: PathBuf,
    /// New directory for the compacted database (created; it must not hold a database).
    #[arg(long)]
    pub out: PathBuf,
    /// zstd level of the new files (1-22).
    #[arg(long, default_value_t = compact::small_options().level)]
    pub level: i32,
    /// Positions per block of the new files (a power of two, 4096 to 67108864); a cold probe
    /// decodes up to one block.
    #[arg(long, default_value_t = compact::small_options().block_positions)]
    pub block: u32,
    #[arg(long)]
    pub threads: Option<usize>,
    /// Memory budget, e.g. 1G, 512M: fewer blocks are encoded at once to stay within it
    /// [default: no limit].
    #[arg(long, value_name = "SIZE")]
    pub mem: Option<String>,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Bytes beside the encoding workers: the binary, thread stacks, the allocator, one decoded
/// source block and the buffered writer of the temporary file.
const OVERHEAD: u64 = 64 << 20;

#[derive(Serialize)]
struct CompactJson {
    tiers: usize,
    /// Positions of both sides to move.
    positions: u64,
    bytes_before: u64,
    bytes_after: u64,
    bits_per_position_before: f64,
    bits_per_position_after: f64,
    block_positions: u32,
    level: i32,
    workers: usize,
    seconds: f64,
}

/// Encoding workers that fit `--mem` (at most `threads`), or a usage error naming the least
/// budget that holds one.
fn workers_within(mem: Option<&str>, threads: usize, opts: &EncodeOptions) -> Result<usize> {
    let Some(m) = mem else {
        return Ok(threads);
    };
    let b = mem_arg::parse_budget(m)?;
    let per = compact::worker_bytes(opts);
    let fit = b.saturating_sub(OVERHEAD) / per;
    if fit == 0 {
        return Err(Error::Input(InputError::new(format!(
            "--mem {m} cannot hold one encoding worker for blocks of {} positions at level {} \
             (at least {}); give more memory, a smaller --block or a lower --level",
            opts.block_positions,
            opts.level,
            human_bytes(OVERHEAD + per)
        ))));
    }
    Ok((fit as usize).min(threads))
}

pub fn run(a: CompactArgs) -> Result<()> {
    let opts = EncodeOptions {
        block_positions: a.block,
        level: a.level,
    };
    compact::check_options(&opts)?;
    if a.threads == Some(0) {
        return Err(usage("--threads must be at least 1"));
    }
    let workers = workers_within(a.mem.as_deref(), threads_of(a.threads), &opts)?;
    let total: u64 = bawo_solve::Manifest::load(&a.db)?
        .map(|m| m.tiers.iter().map(|r| r.counts.states).sum())
        .unwrap_or(0);
    let report = Reporter::new(a.quiet || a.json);
    report.start_bar(total, "compacting".to_string());
    let start = Instant::now();
    let done: Compacted = with_threads(Some(workers), || {
        compact::compact(&a.db, &a.out, &opts, &mut |_, n| report.inc(n))
    })??;
    report.finish();
    let secs = start.elapsed().as_secs_f64();
    // Both sides to move: a stored entry answers a position and its mirror.
    let bits = |bytes: u64| bytes as f64 * 8.0 / (2 * done.positions).max(1) as f64;
    if a.json {
        print_json(&CompactJson {
            tiers: done.tiers,
            positions: 2 * done.positions,
            bytes_before: done.bytes_before,
            bytes_after: done.bytes_after,
            bits_per_position_before: bits(done.bytes_before),
            bits_per_position_after: bits(done.bytes_after),
            block_positions: opts.block_positions,
            level: opts.level,
            workers,
            seconds: secs,
        });
    } else {
        outln!(
            "{} tiers, {} positions: {} -> {} ({:.3} -> {:.3} bits per position), blocks of {} \
             positions at zstd level {}, {} worker(s), {:.1} s; database in {}",
            done.tiers,
            2 * done.positions,
            human_bytes(done.bytes_before),
            human_bytes(done.bytes_after),
            bits(done.bytes_before),
            bits(done.bytes_after),
            opts.block_positions,
            opts.level,
            workers,
            secs,
            a.out.display()
        );
    }
    Ok(())
}
