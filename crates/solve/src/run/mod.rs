//! Solving every tier of a seed budget into a run directory, resumably.
//!
//! The run directory holds `manifest.json`, one finished table per tier (`tier-KKKK.tbl`) and its
//! compressed file (`tier-KKKK.bdb`), a `lock` file, and the work files of the tier in progress
//! (under `work/` unless `--tmp` puts them elsewhere). A finished run keeps only the compressed
//! files and the manifest (unless told to keep the raw tables): extending it to more seeds decodes
//! the raw tables of its tiers again. A run refuses a directory holding another game's solve,
//! refuses to start over an unfinished run unless told to resume it (`--resume`) or discard it
//! (`--force`), and resumes by skipping finished tiers and continuing the tier in progress from its
//! checkpoint.
//!
//! Its modules: `open` (a directory opened and checked), `request`, `config`, `restore`,
//! `tier_loop` (the tiers in order), `compress`, `owned` (the ledger), `build`, `estimate`.

pub mod build;
pub mod compress;
pub mod config;
pub mod estimate;
pub mod open;
pub mod owned;
pub mod request;
pub mod restore;
pub(crate) mod tier_loop;

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::counts::TierCounts;
use crate::flags::flags_file;
use crate::plan::budget::MemoryPlan;
use crate::plan::budget::EDGE_MARGIN;
use crate::plan::disk::dir_bytes;
use crate::plan::sample::{tier_time, time_sample, TierWork};
use crate::plan::shape::TierShape;
use crate::run::compress::beside_by_default;
use crate::run::open::{adopt_budget, open_run, work_root, Opened};
use crate::run::owned::{remove_raw_tables, Owned};
use crate::run::restore::restore_finished;
use crate::run::tier_loop::TierLoop;
pub use crate::sink::{StoredTier, TierSink};
use crate::tier::checkpoint::{Checkpoints, Manifest};
use crate::tier::pass::estimate_in_tier_degree;
use crate::tier::tables::Tables;
use crate::tier::{solve_tier, Lower, SolvedTier, TierOptions, TierProgress, TierTask};
use crate::work::graph::{key_bytes, moved_key_bytes};
pub use crate::work::graph::{NARROW_LIMIT, WIDE_LIMIT};
use crate::work::remove_file_if_present;
use bawo_games::error::{Error, Result};
use bawo_games::game::moved::MovedHalves;
use bawo_games::game::{Game, InputError, Tier, POSITIONS_PER_ENTRY};
use bawo_store::{fingerprint, lock};

pub use crate::run::config::{RunProgress, RunStart, SolveConfig, SolveReport, Summary};

/// Refuses to make a run directory of a directory that holds something else: the solver
/// later deletes what it created there, and must never mistake a user's files for its own.
fn refuse_foreign_dir(out: &Path) -> Result<()> {
    if !out.is_dir() || Manifest::path(out).exists() {
        return Ok(());
    }
    let entries = std::fs::read_dir(out).map_err(|e| Error::io(out, e))?;
    for e in entries {
        let e = e.map_err(|e| Error::io(out, e))?;
        // The lock (and ledger) of a run that stopped before writing its first manifest.
        if e.file_name() != "lock" && e.file_name() != bawo_store::ledger::FILE {
            return Err(Error::Input(InputError::new(format!(
                "{} is not empty and holds no bawo run; give --out a new or empty directory",
                out.display()
            ))));
        }
    }
    Ok(())
}

/// The memory plan of every tier of a run, made before any work: a budget too small for any
/// of them is refused here, not after the tiers below it were solved.
pub fn plan_run<G: Game>(game: &G, tiers: &[Tier], cfg: &SolveConfig) -> Result<MemoryPlan> {
    plan_shapes(&tier_shapes(game, tiers, cfg)?, cfg)
}

/// Each tier's size and estimated in-tier edges per position, as the planner sees them.
pub fn tier_shapes<G: Game>(game: &G, tiers: &[Tier], cfg: &SolveConfig) -> Result<Vec<TierShape>> {
    let mut shapes = Vec::with_capacity(tiers.len());
    let wide_above = bawo_store::fault::wide_above().unwrap_or(cfg.wide_above);
    // Every tier's size first: one beyond the index type is the clearer error for parameters
    // that far off.
    let sizes = tiers
        .iter()
        .map(|&t| game.tier_size(t))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    // The lists of moved halves, counted once for the largest tier (a tier's are those of
    // its halves, at most its seeds).
    let census = tiers
        .iter()
        .map(|&t| game.tier_seeds(t))
        .max()
        .filter(|_| cfg.keys && !bawo_store::fault::rank_keys())
        .filter(|_| sizes.iter().all(|&s| s <= WIDE_LIMIT))
        .and_then(|seeds| MovedHalves::census(game, seeds));
    for (&tier, &states) in tiers.iter().zip(&sizes) {
        if states > WIDE_LIMIT {
            return Err(Error::Input(InputError::new(format!(
                "tier {tier} has {states} positions; bawo solves tiers of at most 2^40 \
                 ({WIDE_LIMIT}) positions, whose predecessor lists take 5 bytes an edge"
            ))));
        }
        let kept = game
            .kept_half_shape(tier)
            .filter(|_| cfg.keys && !bawo_store::fault::no_keys());
        let seeds = game.tier_seeds(tier);
        let moved = kept
            .and(census.as_ref())
            .map(|c| (moved_key_bytes(c.widest(seeds)), c.bytes(seeds)))
            .filter(|&(bytes, _)| bytes > 0);
        let keys = match moved {
            Some((bytes, _)) => bytes,
            None => kept.map_or(0, |k| key_bytes(k.key_limit)),
        };
        let moved_table = moved.map_or(0, |(_, table)| table);
        shapes.push(TierShape {
            tier,
            states,
            // The sample's estimate with a margin: tiers vary within themselves.
            edges_per_position: estimate_in_tier_degree(game, tier, states) * EDGE_MARGIN,
            wide: states > wide_above.min(NARROW_LIMIT),
            keys,
            key_table: kept.filter(|_| keys > 0).map_or(0, |k| k.table_bytes) + moved_table,
            narrow_cells: game.closed_tier(tier) && !bawo_store::fault::wide_cells(),
        });
    }
    Ok(shapes)
}

/// The memory plan of tiers of the given shapes under `cfg`'s budget.
pub fn plan_shapes(shapes: &[TierShape], cfg: &SolveConfig) -> Result<MemoryPlan> {
    let threads = rayon::current_num_threads();
    Ok(MemoryPlan::new(
        cfg.budget,
        cfg.range_bits,
        threads,
        shapes,
    )?)
}

/// Solves one tier of a run and writes its table at the task's path: [`InProcess`] in this
/// process, or another solver that shares the work (the cluster's, across MPI ranks). The
/// run around it (manifest, ledger, lower tiers, compressed files) is the same for all.
pub trait TierSolver<G: Game> {
    /// Solves `task`'s tier.
    fn solve_tier(
        &self,
        game: &G,
        task: TierTask<'_>,
        lower: &mut Lower<'_>,
        opts: &TierOptions,
        ckpt: &mut Checkpoints<'_>,
        progress: &dyn TierProgress,
    ) -> Result<SolvedTier>;

    /// Whether a finished tier may be compressed while the next one is solved (where the
    /// memory plan holds both). A solver that needs every lower tier's compressed file
    /// before it starts the next tier says no.
    fn compresses_beside(&self) -> bool {
        true
    }

    /// Whether the solver drops the lower tiers [`Lower::retiring`] hands it once its
    /// successor pass is over, so that the run's last tier may have them deleted then.
    fn retires_lower(&self) -> bool {
        true
    }
}

/// The single-process tier solver, [`solve_tier`].
pub struct InProcess;

impl<G: Game> TierSolver<G> for InProcess {
    fn solve_tier(
        &self,
        game: &G,
        task: TierTask<'_>,
        lower: &mut Lower<'_>,
        opts: &TierOptions,
        ckpt: &mut Checkpoints<'_>,
        progress: &dyn TierProgress,
    ) -> Result<SolvedTier> {
        solve_tier(game, task, lower, opts, ckpt, progress)
    }
}

/// Solves every tier of `cfg.seeds` in order, writing each finished table, what `sink` makes
/// of it, and the manifest.
pub fn solve<G: Game>(
    game: &G,
    cfg: &SolveConfig,
    progress: &dyn RunProgress,
    sink: &dyn TierSink,
) -> Result<SolveReport> {
    solve_with(game, cfg, progress, sink, &InProcess)
}

/// [`solve`] with each unfinished tier solved by `solver`.
pub fn solve_with<G: Game>(
    game: &G,
    cfg: &SolveConfig,
    progress: &dyn RunProgress,
    sink: &dyn TierSink,
    solver: &dyn TierSolver<G>,
) -> Result<SolveReport> {
    let start = Instant::now();
    let tiers = game.tiers_up_to(cfg.seeds)?;
    let shapes = tier_shapes(game, &tiers, cfg)?;
    let plan = plan_shapes(&shapes, cfg)?;
    let fp = fingerprint(&game.descriptor());
    let last_retires = last_tier_retires(cfg, solver);
    if cfg.disk_check {
        check_disk(&shapes, &plan, cfg, last_retires)?;
    }
    let (_lock, mut owned, work_root, opened) = open_directory(game, cfg, &tiers, progress)?;
    let mut manifest = match opened {
        Opened::Finished(summary) => {
            return Ok(SolveReport {
                summary,
                already_done: true,
                wall: start.elapsed(),
                ..Default::default()
            })
        }
        Opened::Run(m) => m,
    };
    let opts = TierOptions {
        plan,
        checkpoint_every: cfg.checkpoint_every,
        work_root,
    };
    let mut tables = Tables::bounded(opts.plan.resident_lower);
    // The last tier resumed past its successor pass reads no lower tier: those whose raw
    // tables it retired are decoded again only if its pass has to run after all.
    let defer = last_retires
        && manifest.current.as_ref().is_some_and(|c| {
            Some(&c.tier) == tiers.last() && c.phase != crate::tier::checkpoint::Phase::Successors
        });
    let restored = restore_finished(
        game,
        &cfg.out,
        sink,
        &manifest,
        &tiers,
        defer,
        &opts,
        &mut owned,
        &mut tables,
        fp,
        &|l| progress.notice(l),
    )?;
    // Only now, with every finished tier checked, does the manifest take this run's budget:
    // a resume refused by those checks leaves the manifest as it was.
    adopt_budget(&mut manifest, cfg)?;
    announce_run(game, &shapes, &opts, &manifest, last_retires, progress);
    let mut run = TierLoop {
        game,
        cfg,
        progress,
        sink,
        solver,
        opts: &opts,
        fp,
        beside: solver.compresses_beside() && cfg.compress_beside.unwrap_or_else(beside_by_default),
        ckpt: Checkpoints {
            manifest: &mut manifest,
            dir: &cfg.out,
            every: cfg.checkpoint_every,
            last: Instant::now(),
            taken: 0,
        },
        owned: &mut owned,
        tables,
        missing: restored.missing,
        deferred: restored.deferred,
        report: SolveReport {
            resumed_tiers: restored.count,
            ..Default::default()
        },
    };
    run.run(&tiers)?;
    let TierLoop {
        tables, mut report, ..
    } = run;
    drop(tables);
    finish_run(cfg, &opts, &mut owned, &mut manifest, &tiers, &mut report)?;
    report.wall = start.elapsed();
    Ok(report)
}

/// The run directory made (or opened) and locked, its ledger of owned files opened, the work
/// root named, and the manifest opened and checked ([`open_run`]).
fn open_directory<'c, G: Game>(
    game: &G,
    cfg: &'c SolveConfig,
    tiers: &[Tier],
    progress: &dyn RunProgress,
) -> Result<(lock::RunLock, Owned<'c>, PathBuf, Opened)> {
    if !cfg.resume {
        refuse_foreign_dir(&cfg.out)?;
    }
    std::fs::create_dir_all(&cfg.out).map_err(|e| Error::io(&cfg.out, e))?;
    let lock = lock::acquire(&cfg.out)?;
    let mut owned = Owned::open(&cfg.out, &|l| progress.notice(l))?;
    let work_root = work_root(cfg)?;
    let opened = open_run(game, cfg, tiers, &work_root, &mut owned, progress)?;
    if let Opened::Run(_) = opened {
        owned.dir_if_new(&work_root)?;
    }
    Ok((lock, owned, work_root, opened))
}

/// Whether the run's last tier retires the lower tiers' raw tables once its pass is over: a
/// run that keeps no raw tables, with a solver that drops them (and only a tier planned out
/// of core, `TierLoop::retires`).
fn last_tier_retires<G: Game>(cfg: &SolveConfig, solver: &dyn TierSolver<G>) -> bool {
    solver.retires_lower() && !cfg.keep_tables
}

/// The run line announced: positions of the whole run and those already finished, both sides
/// counted as every count printed is, and the estimated time of what is left.
fn announce_run<G: Game>(
    game: &G,
    shapes: &[TierShape],
    opts: &TierOptions,
    manifest: &Manifest,
    last_retires: bool,
    progress: &dyn RunProgress,
) {
    let total: u64 = opts.plan.tiers.iter().map(|t| t.states).sum();
    let last = opts.plan.tiers.last().map(|t| t.tier);
    // The tiers still to solve, each with its shape (the plan has a tier for each shape).
    let left_tiers: Vec<_> = shapes
        .iter()
        .zip(&opts.plan.tiers)
        .filter(|(_, t)| manifest.record(t.tier).is_none())
        .collect();
    let to_solve: Vec<u64> = left_tiers.iter().map(|(_, t)| t.states).collect();
    // Each tier's work as the dry run models it: the last tier's attractor holds the lower
    // tiers' share too, where it retires them.
    let works: Vec<TierWork> = left_tiers
        .iter()
        .map(|&(shape, t)| TierWork::of(shape, t, last_retires && Some(t.tier) == last))
        .collect();
    let left: u64 = to_solve.iter().sum();
    let threads = rayon::current_num_threads();
    let sample = time_sample(game, &opts.plan);
    // Each tier's estimate as the dry run makes it, its out-of-core part included: the
    // clock corrects them by how the tiers before compared with theirs.
    let estimates = works
        .iter()
        .map(|work| tier_time(&sample, work, threads))
        .collect();
    let held = works.iter().map(|work| work.held).collect();
    progress.run_started(&RunStart {
        total: total * POSITIONS_PER_ENTRY,
        done: (total - left) * POSITIONS_PER_ENTRY,
        to_solve: to_solve.iter().map(|s| s * POSITIONS_PER_ENTRY).collect(),
        estimates,
        held,
    });
}

/// A finished run made lean and marked complete: its work folders, flags files and (unless
/// kept) raw tables removed, then the manifest saved complete.
fn finish_run(
    cfg: &SolveConfig,
    opts: &TierOptions,
    owned: &mut Owned,
    manifest: &mut Manifest,
    tiers: &[Tier],
    report: &mut SolveReport,
) -> Result<()> {
    if opts.work_root.is_dir() {
        let _ = std::fs::remove_dir(&opts.work_root);
    }
    // The flags files are work files of the run: a finished run holds none.
    for r in &manifest.tiers {
        remove_file_if_present(&cfg.out.join(flags_file(r.tier)))?;
    }
    // Before the run is marked complete: a run killed in between is resumed, and decodes the
    // tables it needs from the compressed files again.
    if !cfg.keep_tables {
        remove_raw_tables(&cfg.out, manifest)?;
    }
    // The work folders and a --tmp folder the run made, now empty.
    owned.remove_empty_dirs()?;
    manifest.complete = true;
    manifest.current = None;
    manifest.save(&cfg.out)?;
    report.final_disk = dir_bytes(&cfg.out);
    let stored: Vec<TierCounts> = manifest
        .tiers
        .iter()
        .filter(|r| tiers.contains(&r.tier))
        .map(|r| r.counts.clone())
        .collect();
    report.summary = Summary::from_stored(&stored);
    Ok(())
}

/// Refuses a run that the model says will not fit the free disk (before anything is
/// written). Tiers a manifest in `cfg.out` records as finished are on disk already and cost
/// nothing more (unless `--force` discards them first); `retires_last`: the run's last tier
/// retires the lower tiers' raw tables ([`last_tier_retires`]).
fn check_disk(
    shapes: &[TierShape],
    plan: &MemoryPlan,
    cfg: &SolveConfig,
    retires_last: bool,
) -> Result<()> {
    let manifest = match Manifest::load(&cfg.out) {
        Ok(Some(m)) if !cfg.force => Some(m),
        _ => None,
    };
    let finished: Vec<Tier> = manifest
        .iter()
        .flat_map(|m| m.tiers.iter().map(|r| r.tier))
        .collect();
    let mut need =
        crate::plan::space::disk_need(shapes, plan, &|t| finished.contains(&t), retires_last);
    // A resumed tier's work files are on disk already: the model counts them in its need, and
    // the free space no longer holds them.
    if manifest.is_some_and(|m| m.current.is_some()) {
        let held = dir_bytes(&work_root(cfg)?);
        need.out = need.out.saturating_sub(held);
        need.work = need.work.saturating_sub(held);
    }
    let work = cfg.tmp.clone().unwrap_or_else(|| cfg.out.join("work"));
    crate::plan::space::check(need, &cfg.out, &work)
}
