//! `solve`: every position within a seed budget, tier by tier, into a run directory.

use std::path::PathBuf;

use clap::Args;

use crate::progress::{human_bytes, human_rate, Reporter};
use bawo_db::{with_game, AnyGame};
use bawo_games::error::Result;
use bawo_games::game::InputError;
use bawo_solve::plan::budget;
use bawo_solve::plan::mem_arg;
use bawo_solve::run::estimate::estimate_run;
use bawo_solve::run::request::SolveRequest;
use bawo_solve::run::{SolveConfig, SolveReport};
use bawo_solve::solve;
use bawo_solve::tier::checkpoint::Phase;

use super::args::{print_json, usage, with_threads, GameArgs};
use super::table;

#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Solve every position with at most this many seeds on the board [default: 12 for bawo,
    /// 5 for kigogo; bao: exactly this many seeds, default 5].
    #[arg(long)]
    pub seeds: Option<u32>,
    /// Run directory for the tables [default: bawo-db/<game>-<parameters>].
    #[allow(rustdoc::invalid_html_tags)]
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Worker threads [default: one per core].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Print only the result table: no progress bars, log lines or closing notes.
    #[arg(long, short)]
    pub quiet: bool,
    /// Discard whatever --out holds (finished or not) and solve again.
    #[arg(long, conflicts_with = "resume")]
    pub force: bool,
    /// Continue the unfinished run in --out; game, rules and parameters come from its
    /// manifest (flags given must agree). Also extends a finished solve to more --seeds.
    #[arg(long)]
    pub resume: bool,
    /// Memory budget, e.g. 1G or 512M: tiers larger than it are solved out of core
    /// [default: half of physical memory].
    #[arg(long)]
    pub mem: Option<String>,
    /// Directory for the work files of the tier in progress [default: OUT/work].
    #[arg(long)]
    pub tmp: Option<PathBuf>,
    /// Least seconds between checkpoints inside a tier (0: at every block, range and level);
    /// an out-of-core attractor checkpoints at most every 600 s unless this is 0.
    #[arg(long = "checkpoint-secs", default_value_t = 60)]
    pub checkpoint_secs: u64,
    /// Positions per range as a power of two, overriding the plan from --mem (testing aid).
    #[arg(long = "range-bits", hide = true)]
    pub range_bits: Option<u32>,
    /// Print each tier's phase timings on standard error at the end.
    #[arg(long)]
    pub timings: bool,
    /// Size the run without starting it: positions per tier, ranges under the budget, disk,
    /// bytes to be written and an estimated time. Writes nothing.
    #[arg(long = "dry-run", conflicts_with = "force")]
    pub dry_run: bool,
    /// Keep the raw tables (tier-KKKK.tbl, 2 bytes per position) of a finished run; by default
    /// it holds only the compressed database and its manifest.
    #[arg(long = "keep-tables")]
    pub keep_tables: bool,
    /// Start even when the run's estimated peak disk (as --dry-run prints it) exceeds the
    /// free space of --out or --tmp.
    #[arg(long = "no-disk-check")]
    pub no_disk_check: bool,
    /// Compress each finished tier on a thread of its own while the next tier is solved
    /// (where the memory budget holds both): auto (where the solver's threads leave a core
    /// idle), always or never. The files are the same either way.
    #[arg(long = "compress-beside", value_name = "WHEN", default_value = "auto",
          value_parser = ["auto", "always", "never"])]
    pub compress_beside: String,
}

pub fn run(a: SolveArgs) -> Result<()> {
    let threads = a.threads;
    run_with(a, &|game, cfg, reporter| {
        with_threads(threads, || with_game!(game, g => solve(g, cfg, reporter)))?
    })
}

/// Solves a game's tiers into a run directory (in this process, or across MPI ranks).
pub type SolveGame<'a> = dyn Fn(&AnyGame, &SolveConfig, &Reporter) -> Result<SolveReport> + 'a;

/// `solve` with the run itself made by `solve_game` (the dry run, the checks and the printing
/// are the same however the tiers are solved).
pub fn run_with(a: SolveArgs, solve_game: &SolveGame<'_>) -> Result<()> {
    let request = SolveRequest {
        params: a.game.params(None)?,
        game_given: a.game.game_given(),
        seeds: a.seeds,
        out: a.out.clone(),
        resume: a.resume,
    };
    let target = request.resolve()?;
    refuse_dangling_link(&target.out, "--out")?;
    if let Some(tmp) = &a.tmp {
        refuse_dangling_link(tmp, "--tmp")?;
    }
    let budget = match &a.mem {
        Some(m) => mem_arg::parse_budget(m)?,
        None if a.resume => match recorded_budget(&target.out)? {
            Some(b) => {
                if !a.quiet {
                    errln!(
                        "resuming with the run's memory budget, --mem {} (give --mem to change it)",
                        human_bytes(b)
                    );
                }
                b
            }
            None => mem_arg::default_budget(),
        },
        None => mem_arg::default_budget(),
    };
    if let Some(b) = a.range_bits {
        if !(1..=budget::MAX_RANGE_BITS).contains(&b) {
            return Err(usage(format!(
                "--range-bits must be between 1 and {}",
                budget::MAX_RANGE_BITS
            )));
        }
    }
    let cfg = SolveConfig {
        seeds: target.seeds,
        out: target.out.clone(),
        tmp: a.tmp.clone(),
        budget,
        budget_given: a.mem.is_some(),
        range_bits: a.range_bits,
        checkpoint_every: std::time::Duration::from_secs(a.checkpoint_secs),
        resume: a.resume,
        force: a.force,
        keep_tables: a.keep_tables,
        wide_above: bawo_solve::run::NARROW_LIMIT,
        disk_check: !a.no_disk_check,
        compress_beside: match a.compress_beside.as_str() {
            "always" => Some(true),
            "never" => Some(false),
            _ => None,
        },
        keys: true,
    };
    if a.dry_run {
        let estimate = with_threads(
            a.threads,
            || with_game!(&target.game, g => estimate_run(g, &cfg)),
        )??;
        super::dry_run::print(&target.game.descriptor(), &estimate, a.json);
        return Ok(());
    }
    let reporter = Reporter::new(a.quiet);
    let report = solve_game(&target.game, &cfg, &reporter)?;
    reporter.finish();
    if a.timings {
        print_timings(&report);
    }
    if a.json {
        print_json(&with_tier_io(&report));
        return Ok(());
    }
    // Even with --quiet: it says why nothing was done.
    if report.already_done {
        errln!(
            "{} already holds this solve (use --force to solve again)",
            target.out.display()
        );
    }
    print_summary(&target.game.descriptor(), &report);
    // --quiet: the result table and nothing else.
    if !report.already_done && !a.quiet {
        let wall = report.wall.as_secs_f64();
        outln!(
            "solved in {wall:.2}s ({}), {} written, {} left in {} ({})",
            human_rate(report.summary.states as f64 / wall).replace("/s", " positions/s"),
            human_bytes(report.bytes_written),
            human_bytes(report.final_disk),
            target.out.display(),
            if a.keep_tables {
                "compressed files, raw tables and manifest"
            } else {
                "compressed files and manifest"
            }
        );
        outln!(
            "compressed database files: {:.2}s of the solve's time ({:.1}%){}",
            report.compress.as_secs_f64(),
            100.0 * report.compress.as_secs_f64() / wall.max(1e-9),
            if report.compress_beside.is_zero() {
                String::new()
            } else {
                format!(
                    ", and {:.2}s on a thread beside the next tier's solve",
                    report.compress_beside.as_secs_f64()
                )
            }
        );
    }
    Ok(())
}

/// The memory budget the run in `out` was last given, which a resume without `--mem` keeps
/// (checked against this machine's memory like a given one). A manifest that cannot be read
/// gives none here: the solve itself says what is wrong with it.
fn recorded_budget(out: &std::path::Path) -> Result<Option<u64>> {
    let Ok(Some(m)) = bawo_solve::Manifest::load(out) else {
        return Ok(None);
    };
    let Some(b) = m.mem else {
        return Ok(None);
    };
    let b = mem_arg::within_machine(b).map_err(|e| {
        InputError::new(format!(
            "the run was started with a budget this machine cannot give: {e}"
        ))
    })?;
    Ok(Some(b))
}

/// A directory flag naming a symlink to nothing cannot be created ("File exists"): say so.
fn refuse_dangling_link(dir: &std::path::Path, flag: &str) -> Result<()> {
    let is_link = std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink());
    if is_link && !dir.exists() {
        let to = std::fs::read_link(dir)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        return Err(usage(format!(
            "{flag} {} is a symbolic link to {to}, which does not exist",
            dir.display()
        )));
    }
    Ok(())
}

/// Each tier's phase timings, on standard error.
fn print_timings(report: &SolveReport) {
    for (tier, t) in &report.timings {
        errln!(
            "tier {tier:>3}: successors {:.3}s{}  predecessors {:.3}s{}  attractor {:.3}s{} ({} levels)  finish {:.3}s{}  compress {:.3}s ({})  edges {}  ranges {} (cells of {} held)  lower in memory {} of {} (taking {}; {:.0}% of lookups)",
            t.successors.as_secs_f64(),
            cores(t.successors, t.cpu[0]),
            t.predecessors.as_secs_f64(),
            cores(t.predecessors, t.cpu[1]),
            t.attractor.as_secs_f64(),
            cores(t.attractor, t.cpu[2]),
            t.levels,
            t.finish.as_secs_f64(),
            cores(t.finish, t.cpu[3]),
            t.compress.as_secs_f64(),
            if t.compressed_beside {
                "beside the next tier"
            } else {
                "while the run waited"
            },
            t.in_tier_edges,
            t.ranges,
            t.held_ranges,
            bawo_games::units::human_bytes(t.lower.in_memory),
            bawo_games::units::human_bytes(t.lower.lower_bytes),
            bawo_games::units::human_bytes(t.lower.held),
            100.0 * t.lower.sampled_hits
        );
        let taken: Vec<String> = Phase::ALL
            .iter()
            .zip(&t.checkpoints)
            .filter(|(_, (n, _))| *n > 0)
            .map(|(phase, (n, wall))| format!("{} {n} in {:.3}s", phase.name(), wall.as_secs_f64()))
            .collect();
        if !taken.is_empty() {
            errln!("tier {tier:>3}: checkpoints: {}", taken.join(", "));
        }
        let w = &t.peak_work;
        if t.peak_work_disk > 0 {
            errln!(
                "tier {tier:>3}: peak work disk {} in {}: cells {}, packed cells {}, edge logs {}, predecessor lists {}, due logs {}, messages {}, raw table {}",
                human_bytes(t.peak_work_disk),
                t.peak_phase,
                human_bytes(w.cells),
                human_bytes(w.packed),
                human_bytes(w.edges),
                human_bytes(w.preds),
                human_bytes(w.due),
                human_bytes(w.messages),
                human_bytes(w.table),
            );
            if t.peak_lower_freed > 0 {
                errln!(
                    "tier {tier:>3}: lower tiers' raw tables and flags deleted after its pass: {}",
                    human_bytes(t.peak_lower_freed)
                );
            }
        }
    }
}

/// " (1.86 cores)": the CPU time a phase took over its wall time, where the phase took long
/// enough to say (at least 10 ms); two decimals, so that 1.75 is not read as 1.8.
fn cores(wall: std::time::Duration, cpu: std::time::Duration) -> String {
    if wall.as_secs_f64() < 0.01 {
        return String::new();
    }
    format!(" ({:.2} cores)", cpu.as_secs_f64() / wall.as_secs_f64())
}

/// The summary as `--json` prints it: each tier solved by this run also says what it wrote
/// and the run's disk at its end (`bytes_written`, `peak_disk`).
fn with_tier_io(report: &SolveReport) -> serde_json::Value {
    let mut v = serde_json::to_value(&report.summary).unwrap_or_default();
    if let Some(tiers) = v.get_mut("tiers").and_then(|t| t.as_array_mut()) {
        for t in tiers {
            let seeds = t.get("seeds").and_then(|s| s.as_u64());
            let io = report
                .tiers_io
                .iter()
                .find(|io| Some(u64::from(io.seeds)) == seeds);
            if let (Some(io), Some(obj)) = (io, t.as_object_mut()) {
                obj.insert("bytes_written".into(), io.bytes_written.into());
                obj.insert("peak_disk".into(), io.peak_disk.into());
            }
        }
    }
    v
}

fn print_summary(descriptor: &str, report: &SolveReport) {
    let s = &report.summary;
    // What each tier wrote and the run's disk at its end, for the tiers this run solved.
    let io = |seeds: u32| match report.tiers_io.iter().find(|t| t.seeds == seeds) {
        Some(t) => format!(
            " {:>10} {:>10}",
            human_bytes(t.bytes_written),
            human_bytes(t.peak_disk)
        ),
        None if report.tiers_io.is_empty() => String::new(),
        None => format!(" {:>10} {:>10}", "-", "-"),
    };
    outln!("{descriptor}");
    let io_header = if report.tiers_io.is_empty() {
        String::new()
    } else {
        format!(" {:>10} {:>10}", "written", "peak disk")
    };
    outln!("{}{io_header}", table::header());
    for t in &s.tiers {
        outln!("{}{}", table::tier_row(t, t.seeds), io(t.seeds));
    }
    let all_io = if report.tiers_io.is_empty() {
        String::new()
    } else {
        let written = report.tiers_io.iter().map(|t| t.bytes_written).sum();
        let peak = report.tiers_io.iter().map(|t| t.peak_disk).max();
        format!(
            " {:>10} {:>10}",
            human_bytes(written),
            human_bytes(peak.unwrap_or(0))
        )
    };
    outln!("{}{all_io}", table::total_row(s));
}
