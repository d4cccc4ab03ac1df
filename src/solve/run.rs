//! Solving every tier of a seed budget into a run directory, resumably.
//!
//! The run directory holds `manifest.json`, one finished table per tier (`tier-KKKK.tbl`), a
//! `lock` file, and the work files of the tier in progress (under `work/` unless `--tmp` puts
//! them elsewhere). A run refuses a directory holding another game's solve, refuses to start
//! over an unfinished run unless told to resume it (`--resume`) or discard it (`--force`), and
//! resumes by skipping finished tiers and continuing the tier in progress from its checkpoint.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::budget::{MemoryPlan, TierShape};
use super::checkpoint::{Checkpoints, Manifest, TierRecord};
use super::counts::{TierCounts, TierTimings};
use super::pass::estimate_in_tier_degree;
use super::tables::{TableData, Tables};
use super::tier::{solve_tier, Lower, TierOptions, TierProgress, TierTask};
use super::work::remove_work_dir;
use crate::error::{Error, Result};
use crate::game::{Game, InputError, Tier};
use crate::store::manifest::{table_file, FileRecord};
use crate::store::{fingerprint, lock, table};

/// What becomes of a finished tier beyond its raw table. The database layer provides the
/// sink that compresses a tier into the file a database ships
/// (the database layer's compressor); the solver records the file the sink returns in the
/// manifest, and asks the sink to check it when a run resumes.
pub trait TierSink: Sync {
    /// Makes what a finished tier's entries make, in `dir`; returns the file to record.
    fn tier_finished(
        &self,
        dir: &Path,
        tier: Tier,
        fingerprint: u64,
        entries: &[u16],
    ) -> Result<FileRecord>;

    /// Checks a file this sink made, named in the record of a finished tier.
    fn check(
        &self,
        dir: &Path,
        tier: Tier,
        states: u64,
        fingerprint: u64,
        file: &FileRecord,
    ) -> Result<()>;

    /// Decodes a file this sink made back into the tier's entries, handed to `put` in index
    /// order (in pieces), for a run directory that holds no raw table of the tier.
    fn restore(
        &self,
        dir: &Path,
        tier: Tier,
        states: u64,
        fingerprint: u64,
        file: &FileRecord,
        put: &mut dyn FnMut(&[u16]) -> Result<()>,
    ) -> Result<()>;
}

/// What to solve and where.
#[derive(Clone, Debug)]
pub struct SolveConfig {
    /// Solve every position with at most this many seeds on the board.
    pub seeds: u32,
    pub out: PathBuf,
    /// Where work files go (default `out/work`; under a given folder, in a `bawo-<id>` folder
    /// of this run's own).
    pub tmp: Option<PathBuf>,
    /// Memory budget in bytes.
    pub budget: u64,
    /// Positions per range as a power of two, overriding the budget's plan.
    pub range_bits: Option<u32>,
    /// Least time between checkpoints inside a tier.
    pub checkpoint_every: Duration,
    /// Continue the unfinished run in `out`.
    pub resume: bool,
    /// Discard whatever `out` holds and solve again.
    pub force: bool,
}

impl SolveConfig {
    /// A configuration with the defaults of the command line.
    pub fn new(seeds: u32, out: impl Into<PathBuf>) -> SolveConfig {
        SolveConfig {
            seeds,
            out: out.into(),
            tmp: None,
            budget: super::budget::default_budget(),
            range_bits: None,
            checkpoint_every: Duration::from_secs(60),
            resume: false,
            force: false,
        }
    }
}

/// The counts of a solve, in the shape `solve --json` prints: positions of both sides to
/// move, though only one side is stored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub states: u64,
    pub win: u64,
    pub loss: u64,
    pub draw: u64,
    pub max_depth: u32,
    pub tiers: Vec<TierCounts>,
}

impl Summary {
    /// The summary of finished tiers from their stored counts (the manifest's records).
    pub fn from_stored(stored: &[TierCounts]) -> Summary {
        Summary::from_tiers(stored.iter().map(TierCounts::both_sides).collect())
    }

    /// The summary of tiers whose counts already count both sides.
    pub fn from_tiers(tiers: Vec<TierCounts>) -> Summary {
        Summary {
            states: tiers.iter().map(|t| t.states).sum(),
            win: tiers.iter().map(|t| t.win).sum(),
            loss: tiers.iter().map(|t| t.loss).sum(),
            draw: tiers.iter().map(|t| t.draw).sum(),
            max_depth: tiers.iter().map(|t| t.max_depth).max().unwrap_or(0),
            tiers,
        }
    }
}

/// A finished solve.
#[derive(Debug, Clone, Default)]
pub struct SolveReport {
    pub summary: Summary,
    pub timings: Vec<(u32, TierTimings)>,
    pub wall: Duration,
    pub bytes_written: u64,
    /// The directory already held this finished solve; nothing was computed.
    pub already_done: bool,
    /// Tiers found finished in the directory and skipped.
    pub resumed_tiers: usize,
    /// Time spent writing the compressed `.bdb` files (included in `wall`).
    pub compress: Duration,
}

/// Progress of a whole solve: a tier starting, then the tier's own phases.
pub trait RunProgress: TierProgress {
    fn tier_started(&self, _tier: u32, _seeds: u32, _states: u64) {}
    fn tier_finished(&self, _counts: &TierCounts, _elapsed: Duration, _bytes: u64) {}
    /// Something the user should know that does not stop the run (a discarded checkpoint).
    fn notice(&self, _line: &str) {}
}

impl RunProgress for super::tier::Silent {}

/// Removes what an earlier solve left in `dir`: the files its manifest names, and in the work
/// folders only the solver's own files (a folder that holds anything else stays).
fn discard_run(dir: &Path, m: &Manifest) -> Result<()> {
    for r in &m.tiers {
        let files = std::iter::once(&r.file).chain(r.bdb.as_ref().map(|b| &b.file));
        for f in files {
            remove_file_if_present(&dir.join(f))?;
        }
    }
    if let Some(c) = &m.current {
        remove_work_dir(&c.work)?;
    }
    discard_work_folders(dir)
}

/// Removes what a run whose manifest cannot be read left in `dir`: the manifest, and the
/// files and work folders named as only the solver names them (`tier-KKKK.tbl`,
/// `tier-KKKK.bdb`, `work/tier-KKKK/`). A damaged manifest is this program's own file in a
/// directory that holds its files; discarding it is what `--force` is for.
fn discard_unreadable_run(dir: &Path) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for e in entries {
        let e = e.map_err(|e| Error::io(dir, e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = name
            .strip_suffix(".tbl")
            .or_else(|| name.strip_suffix(".bdb"))
            .is_some_and(is_tier_work_dir);
        if ours && e.file_type().is_ok_and(|t| t.is_file()) {
            remove_file_if_present(&e.path())?;
        }
    }
    discard_work_folders(dir)?;
    remove_file_if_present(&Manifest::path(dir))
}

/// Of `dir/work/`, only the tiers' folders this program names (and of those only its own
/// files), and `work/` itself once empty: anything else found there is not ours to delete.
fn discard_work_folders(dir: &Path) -> Result<()> {
    let work = dir.join("work");
    if work.is_dir() {
        let entries = std::fs::read_dir(&work).map_err(|e| Error::io(&work, e))?;
        for e in entries {
            let e = e.map_err(|e| Error::io(&work, e))?;
            let ours = is_tier_work_dir(&e.file_name().to_string_lossy());
            if ours && e.file_type().is_ok_and(|t| t.is_dir()) {
                remove_work_dir(&e.path())?;
            }
        }
        let _ = std::fs::remove_dir(&work);
    }
    Ok(())
}

/// Whether the manifest that failed to load is this program's (damaged, or of an older
/// layout) rather than some other tool's `manifest.json`: only then may `--force` discard it.
fn manifest_looks_like_ours(dir: &Path) -> bool {
    std::fs::read_to_string(Manifest::path(dir))
        .is_ok_and(|t| t.contains("\"fingerprint\"") && t.contains("\"game\""))
}

fn remove_file_if_present(p: &Path) -> Result<()> {
    match std::fs::remove_file(p) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(p, e)),
        _ => Ok(()),
    }
}

/// `tier-KKKK`: the name of a tier's work folder.
fn is_tier_work_dir(name: &str) -> bool {
    name.strip_prefix("tier-")
        .is_some_and(|k| k.len() == 4 && k.bytes().all(|b| b.is_ascii_digit()))
}

/// Refuses to make a run directory of a directory that holds something else: the solver
/// later deletes what it created there, and must never mistake a user's files for its own.
fn refuse_foreign_dir(out: &Path) -> Result<()> {
    if !out.is_dir() || Manifest::path(out).exists() {
        return Ok(());
    }
    let entries = std::fs::read_dir(out).map_err(|e| Error::io(out, e))?;
    for e in entries {
        let e = e.map_err(|e| Error::io(out, e))?;
        // The lock of a run that stopped before writing its first manifest.
        if e.file_name() != "lock" {
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
    let mut shapes = Vec::with_capacity(tiers.len());
    for &tier in tiers {
        let states = game.tier_size(tier)?;
        if states > u32::MAX as u64 {
            return Err(Error::TierTooLarge { tier, size: states });
        }
        shapes.push(TierShape {
            tier,
            states,
            // The sample's estimate with a margin: tiers vary within themselves.
            edges_per_position: estimate_in_tier_degree(game, tier, states) * 1.25,
        });
    }
    let threads = rayon::current_num_threads();
    Ok(MemoryPlan::new(
        cfg.budget,
        cfg.range_bits,
        threads,
        &shapes,
    )?)
}

/// Solves every tier of `cfg.seeds` in order, writing each finished table, what `sink` makes
/// of it, and the manifest.
pub fn solve<G: Game>(
    game: &G,
    cfg: &SolveConfig,
    progress: &dyn RunProgress,
    sink: &dyn TierSink,
) -> Result<SolveReport> {
    let start = Instant::now();
    let tiers = game.tiers_up_to(cfg.seeds)?;
    let plan = plan_run(game, &tiers, cfg)?;
    let descriptor = game.descriptor();
    let fp = fingerprint(&descriptor);
    if !cfg.resume {
        refuse_foreign_dir(&cfg.out)?;
    }
    std::fs::create_dir_all(&cfg.out).map_err(|e| Error::io(&cfg.out, e))?;
    let _lock = lock::acquire(&cfg.out)?;

    let loaded = match Manifest::load(&cfg.out) {
        Err(e @ (Error::Corrupt { .. } | Error::Mismatch(_)))
            if cfg.force && manifest_looks_like_ours(&cfg.out) =>
        {
            progress.notice(&format!(
                "discarding the run in {} ({e}); solving again",
                cfg.out.display()
            ));
            discard_unreadable_run(&cfg.out)?;
            None
        }
        r => r?,
    };
    let mut manifest = match loaded {
        None if cfg.resume => {
            return Err(Error::Missing(format!(
                "nothing to resume: {} holds no run",
                cfg.out.display()
            )))
        }
        None => Manifest::new(&descriptor, cfg.seeds),
        Some(m) if m.game != descriptor => {
            return Err(Error::Mismatch(format!(
                "{} holds a solve of '{}', not '{descriptor}'; choose another --out",
                cfg.out.display(),
                m.game
            )))
        }
        Some(m) if cfg.force => {
            discard_run(&cfg.out, &m)?;
            Manifest::new(&descriptor, cfg.seeds)
        }
        Some(m) if m.complete && tiers.iter().all(|&t| m.record(t).is_some()) => {
            // Everything asked for is finished (possibly as part of a larger budget).
            let stored: Vec<TierCounts> = tiers
                .iter()
                .filter_map(|&t| m.record(t))
                .map(|r| r.counts.clone())
                .collect();
            let summary = Summary::from_stored(&stored);
            return Ok(SolveReport {
                summary,
                already_done: true,
                wall: start.elapsed(),
                ..Default::default()
            });
        }
        Some(m) if !cfg.resume => {
            let what = if m.complete {
                format!("a finished solve up to {} seeds", m.seeds)
            } else {
                format!("an unfinished run up to {} seeds", m.seeds)
            };
            return Err(Error::Input(InputError::new(format!(
                "{} holds {what}; pass --resume to continue it or --force to start over",
                cfg.out.display()
            ))));
        }
        Some(m) if !m.complete && m.seeds != cfg.seeds => {
            return Err(Error::Mismatch(format!(
                "the run in {} was started with --seeds {}, not {}",
                cfg.out.display(),
                m.seeds,
                cfg.seeds
            )))
        }
        Some(mut m) => {
            // Resume (or extend a finished solve to a larger budget).
            m.seeds = cfg.seeds;
            m.complete = false;
            m
        }
    };
    if let Some(c) = &manifest.current {
        if manifest.record(c.tier).is_some() || !tiers.contains(&c.tier) {
            return Err(Error::corrupt(
                Manifest::path(&cfg.out),
                format!(
                    "checkpoint of tier {} does not fit the finished tiers",
                    c.tier
                ),
            ));
        }
    }
    if manifest.current.is_none() {
        manifest.save(&cfg.out)?;
    }

    let work_root = match &cfg.tmp {
        // A folder of its own under --tmp, named for the run directory, so that runs sharing
        // a --tmp never touch each other's work files.
        Some(t) => {
            let out = std::fs::canonicalize(&cfg.out).map_err(|e| Error::io(&cfg.out, e))?;
            let id = xxhash_rust::xxh3::xxh3_64(out.as_os_str().as_encoded_bytes());
            t.join(format!("bawo-{id:016x}"))
        }
        None => cfg.out.join("work"),
    };
    let opts = TierOptions {
        plan,
        checkpoint_every: cfg.checkpoint_every,
        work_root,
    };
    let mut tables = Tables::default();
    let mut lower_bytes = 0u64;
    let mut report = SolveReport::default();
    for rec in manifest.tiers.clone() {
        if !tiers.contains(&rec.tier) {
            continue;
        }
        let path = cfg.out.join(&rec.file);
        if let Some(b) = &rec.bdb {
            sink.check(&cfg.out, rec.tier, rec.counts.states, fp, b)?;
            // A shipped database holds only the compressed files: the raw table the solver
            // looks lower tiers up in is decoded from them again.
            if std::fs::symlink_metadata(&path).is_err() {
                table::write_table_streaming(&path, rec.tier, rec.counts.states, fp, |put| {
                    sink.restore(&cfg.out, rec.tier, rec.counts.states, fp, b, put)
                })?;
            }
        }
        let (header, data) = table::open_table(&path, rec.tier, rec.counts.states, fp, true)?;
        if header.checksum != rec.checksum {
            return Err(Error::corrupt(&path, "checksum differs from the manifest"));
        }
        // A run killed between recording a finished tier and removing its work files left
        // them behind.
        remove_work_dir(&opts.work_root.join(format!("tier-{:04}", rec.tier)))?;
        lower_bytes += 2 * rec.counts.states;
        tables.insert(rec.tier, resident_if_it_fits(data, lower_bytes, &opts.plan));
        report.resumed_tiers += 1;
    }
    let mut ckpt = Checkpoints {
        manifest: &mut manifest,
        dir: &cfg.out,
        every: cfg.checkpoint_every,
        last: Instant::now(),
        taken: 0,
    };
    for &tier in &tiers {
        if ckpt.manifest.record(tier).is_some() {
            continue;
        }
        let t0 = Instant::now();
        let size = game.tier_size(tier)?;
        progress.tier_started(tier, game.tier_seeds(tier), size);
        let resume = ckpt.manifest.current.take().filter(|c| c.tier == tier);
        // A checkpoint whose work folder vanished (a --tmp cleared by a reboot) costs only
        // its own tier: the finished tiers below stay, and this tier starts again.
        let resume = match resume {
            Some(c) if !c.work.is_dir() => {
                progress.notice(&format!(
                    "the work files of tier {tier} ({}) are gone; solving tier {tier} again, \
                     finished tiers are kept",
                    c.work.display()
                ));
                None
            }
            r => r,
        };
        // Where the tier's work files are: a checkpoint's own folder (which may lie under
        // another --tmp than this run's), or this run's.
        let work = match &resume {
            Some(c) => c.work.clone(),
            None => opts.work_root.join(format!("tier-{tier:04}")),
        };
        let file = table_file(tier);
        let path = cfg.out.join(&file);
        let release = || tables.release();
        let lower = Lower {
            lookup: &tables,
            release: &release,
        };
        let task = TierTask {
            tier,
            resume,
            table_path: &path,
        };
        let solved = solve_tier(game, task, &lower, &opts, &mut ckpt, progress)?;
        // The distributable, compressed copy of the finished table.
        let (_, data) = table::open_table(&path, tier, size, fp, false)?;
        let tc = Instant::now();
        let bdb = sink.tier_finished(&cfg.out, tier, fp, data.entries())?;
        report.compress += tc.elapsed();
        let bytes = solved.bytes + bdb.bytes;
        report.bytes_written += bytes;
        ckpt.manifest.tiers.push(TierRecord {
            tier,
            counts: solved.counts.clone(),
            file,
            checksum: solved.header.checksum,
            bdb: Some(bdb),
        });
        ckpt.save(None)?;
        remove_work_dir(&work)?;
        let (_, data) = table::open_table(&path, tier, size, fp, false)?;
        tables.insert(
            tier,
            resident_if_it_fits(data, lower_bytes + 2 * size, &opts.plan),
        );
        lower_bytes += 2 * size;
        progress.tier_finished(&solved.counts.both_sides(), t0.elapsed(), bytes);
        report.timings.push((tier, solved.timings));
    }
    if opts.work_root.is_dir() {
        let _ = std::fs::remove_dir(&opts.work_root);
    }
    manifest.complete = true;
    manifest.current = None;
    manifest.save(&cfg.out)?;
    let stored: Vec<TierCounts> = manifest
        .tiers
        .iter()
        .filter(|r| tiers.contains(&r.tier))
        .map(|r| r.counts.clone())
        .collect();
    report.summary = Summary::from_stored(&stored);
    report.wall = start.elapsed();
    Ok(report)
}

/// Lower tiers are looked up at random. While they fit the plan's share for them they are
/// copied into anonymous memory, which the kernel backs with huge pages (far fewer TLB misses
/// than a file map of 4 KiB pages); beyond that they stay mapped and are released between
/// blocks.
fn resident_if_it_fits(data: TableData, lower_bytes: u64, plan: &MemoryPlan) -> TableData {
    if plan.lower_resident(lower_bytes) {
        TableData::Owned(data.entries().to_vec())
    } else {
        data
    }
}
