//! `verify` (checksums and every stored value recomputed) and `stats` (counts and depth
//! histograms per tier, optionally plotted).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use crate::progress::human_bytes;
use bawo_db::{self, coverage::unfinished_note, memory::ReadBudget, Database};
use bawo_games::error::{Error, Result};
use bawo_solve::plan::mem_arg;

use super::args::{print_json, threads_of, with_threads};
use super::table;

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Database directory.
    #[arg(long)]
    pub db: PathBuf,
    /// Recompute only this many random positions (checksums are still all checked).
    #[arg(long)]
    pub sample: Option<u64>,
    /// Seed of --sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long)]
    pub threads: Option<usize>,
    #[arg(long)]
    pub json: bool,
    /// Check only the finished tiers of an unfinished run (without it, an unfinished run
    /// fails verification).
    #[arg(long)]
    pub partial: bool,
    /// Memory budget, e.g. 1G, 512M: peak memory stays within it (decoded tiers beyond it
    /// are probed block by block, more slowly) [default: no limit].
    #[arg(long, value_name = "SIZE")]
    pub mem: Option<String>,
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Database directory.
    #[arg(long)]
    pub db: PathBuf,
    /// Print one JSON object (the keys of `solve --json` plus depth histograms).
    #[arg(long)]
    pub json: bool,
    /// Draw value shares per tier and the depth histogram into FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Memory budget, e.g. 1G, 512M: fewer blocks are decoded at once to stay within it
    /// [default: no limit].
    #[arg(long, value_name = "SIZE")]
    pub mem: Option<String>,
}

/// The budget `--mem` gives a reader with `threads` workers (none: no limit), refused
/// (exit code 2) when it cannot hold one block, naming the least that can.
fn read_budget(mem: Option<&str>, threads: usize) -> Result<ReadBudget> {
    let Some(m) = mem else {
        return Ok(ReadBudget::unbounded(threads));
    };
    let b = mem_arg::parse_budget(m)?;
    Ok(ReadBudget::new(b, threads)?)
}

pub fn run_verify(a: VerifyArgs) -> Result<()> {
    let mem = read_budget(a.mem.as_deref(), threads_of(a.threads))?;
    let db = Database::open_with_cache(&a.db, mem.cache as usize)?;
    if let Some(note) = unfinished_note(&db).filter(|_| !a.partial) {
        return Err(Error::Missing(format!(
            "{note}; pass --partial to verify the finished tiers only"
        )));
    }
    super::open::warn_if_unfinished(&db);
    let opts = bawo_db::verify::VerifyOptions {
        sample: a.sample,
        seed: a.seed,
    };
    let start = Instant::now();
    let report = with_threads(a.threads, || {
        bawo_db::verify::verify_within(&db, &opts, &mem)
    })??;
    if !report.ok() {
        super::out::fail_even_if_closed(1);
    }
    if a.json {
        print_json(&report);
    } else {
        outln!("{}", db.manifest().game);
        outln!(
            "{} files, {} blocks: {}",
            report.files,
            report.blocks,
            if report.bad_blocks.is_empty() {
                "every checksum matches"
            } else {
                "DAMAGED"
            }
        );
        for b in &report.bad_blocks {
            outln!("  damaged: {b}");
        }
        let unnamed = report
            .damaged
            .saturating_sub(report.bad_blocks.len() as u64);
        if unnamed > 0 {
            outln!("  ... and {unnamed} more");
        }
        if report.bad_blocks.is_empty() {
            let secs = start.elapsed().as_secs_f64();
            outln!(
                "{} stored positions (A to move; B to move is their mirror) recomputed from their successors in {:.2}s ({:.2} M positions/s): {} disagree",
                report.checked,
                secs,
                report.checked as f64 / secs.max(1e-9) / 1e6,
                report.mismatches
            );
        }
        for b in &report.bad_positions {
            let board: Vec<String> = b.board.iter().map(u32::to_string).collect();
            outln!(
                "  bad: --board {} --to-move {} (tier {}, index {}): stored {}, successors say {}",
                board.join(","),
                b.to_move,
                b.tier,
                b.index,
                b.stored,
                b.expected
            );
        }
    }
    if report.ok() {
        Ok(())
    } else if !report.bad_blocks.is_empty() {
        Err(Error::corrupt(
            &a.db,
            format!(
                "verify failed: {} damaged files or blocks",
                report.damaged.max(report.bad_blocks.len() as u64)
            ),
        ))
    } else {
        Err(Error::corrupt(
            &a.db,
            format!(
                "verify failed: {} positions disagree with their successors",
                report.mismatches
            ),
        ))
    }
}

pub fn run_stats(a: StatsArgs) -> Result<()> {
    if let Some(p) = &a.plot {
        crate::plot::PlotKind::of(p)?;
    }
    let mem = read_budget(a.mem.as_deref(), threads_of(None))?;
    let db = Database::open_with_cache(&a.db, mem.cache as usize)?;
    super::open::warn_if_unfinished(&db);
    let s = bawo_db::stats::stats_within(&db, &mem)?;
    if let Some(p) = &a.plot {
        crate::plot::plot(&s, p)?;
    }
    if a.json {
        print_json(&s);
        return Ok(());
    }
    outln!("{}", s.game);
    if let Some(note) = unfinished_note(&db) {
        outln!("{note}");
    }
    outln!("{}  positions at depth 0, 1, 2, ...", table::header());
    for t in &s.tiers {
        let depths: Vec<String> = (0..t.win_depths.len().max(t.loss_depths.len()))
            .map(|d| {
                let w = t.win_depths.get(d).copied().unwrap_or(0);
                let l = t.loss_depths.get(d).copied().unwrap_or(0);
                match (w, l) {
                    (0, 0) => "-".to_string(),
                    (w, 0) => format!("{w}"),
                    (0, l) => format!("{l}"),
                    (w, l) => format!("{w}w+{l}l"),
                }
            })
            .collect();
        let row = table::tier_row(t, t.seeds);
        outln!("{row}  {}", depths.join(" "));
    }
    outln!("{}", table::total_row(&s));
    outln!(
        "{} in tier files, {:.3} bits per position",
        human_bytes(s.file_bytes),
        s.file_bytes as f64 * 8.0 / s.states.max(1) as f64
    );
    if let Some(p) = &a.plot {
        outln!("plot written to {}", p.display());
    }
    Ok(())
}
