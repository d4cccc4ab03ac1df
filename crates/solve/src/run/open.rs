//! Opening a run directory: its manifest read and checked against what is asked, the tier in
//! progress's work folder checked against the only folders a run of this directory uses, and
//! the budget adopted once the finished tiers have passed their checks.
//!
//! Nothing a manifest says is trusted with a path: the work folder of a checkpoint must be one
//! the solver derives itself from the run directory and `--tmp` (`work/tier-KKKK`, or
//! `<tmp>/bawo-<run id>/tier-KKKK`); any other is refused as damaged before a file is touched.

use std::path::{Path, PathBuf};

use crate::counts::TierCounts;
use crate::run::config::{RunProgress, SolveConfig, Summary};
use crate::run::owned::{manifest_looks_like_ours, Owned};
use crate::tier::checkpoint::{readable_format, Manifest, TierState};
use crate::work::remove_work_dir;
use bawo_games::error::{Error, Result};
use bawo_games::game::{Game, InputError, Tier};

/// What opening a run directory found.
pub enum Opened {
    /// Every tier asked for is finished already: the summary of those tiers.
    Finished(Summary),
    /// The manifest to continue (new, resumed or extended).
    Run(Manifest),
}

/// The folder under which this run's tiers keep their work files: `work/` in the run
/// directory, or a folder of its own under `--tmp`, named for the run directory, so that runs
/// sharing a `--tmp` never touch each other's work files.
pub fn work_root(cfg: &SolveConfig) -> Result<PathBuf> {
    Ok(match &cfg.tmp {
        Some(t) => t.join(run_folder_name(&cfg.out)?),
        None => cfg.out.join("work"),
    })
}

/// `bawo-<id>`: the name of the run's folder under a `--tmp`, from its canonical path.
fn run_folder_name(out: &Path) -> Result<String> {
    let out = std::fs::canonicalize(out).map_err(|e| Error::io(out, e))?;
    let id = xxhash_rust::xxh3::xxh3_64(out.as_os_str().as_encoded_bytes());
    Ok(format!("bawo-{id:016x}"))
}

/// The manifest of the run directory, checked against the game, the budget and the flags
/// (`--resume`, `--force`); a checkpoint's work folder is checked before anything is touched.
pub fn open_run<G: Game>(
    game: &G,
    cfg: &SolveConfig,
    tiers: &[Tier],
    work_root: &Path,
    owned: &mut Owned,
    progress: &dyn RunProgress,
) -> Result<Opened> {
    let descriptor = game.descriptor();
    let loaded = match Manifest::load(&cfg.out) {
        Err(e @ (Error::Corrupt { .. } | Error::Mismatch(_)))
            if cfg.force && manifest_looks_like_ours(&cfg.out) =>
        {
            progress.notice(&format!(
                "discarding the run in {} ({e}); solving again",
                cfg.out.display()
            ));
            owned.discard(None, &|l| progress.notice(l))?;
            None
        }
        r => r?,
    };
    if let Some(c) = loaded.as_ref().and_then(|m| m.current.as_ref()) {
        check_work_dir(cfg, work_root, c)?;
    }
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
            owned.discard(Some(&m), &|l| progress.notice(l))?;
            Manifest::new(&descriptor, cfg.seeds)
        }
        Some(m) if m.complete && tiers.iter().all(|&t| m.record(t).is_some()) => {
            // Everything asked for is finished (possibly as part of a larger budget).
            let stored: Vec<TierCounts> = tiers
                .iter()
                .filter_map(|&t| m.record(t))
                .map(|r| r.counts.clone())
                .collect();
            return Ok(Opened::Finished(Summary::from_stored(&stored)));
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
        // Resume, or extend a finished solve to a larger budget ([`adopt_budget`]).
        Some(m) => m,
    };
    if cfg.budget_given {
        manifest.mem = Some(cfg.budget);
    }
    // The checkpoint of a tier already recorded as finished: the run was killed after
    // recording the tier and before its work files (perhaps under another --tmp) were removed.
    if let Some(c) = manifest
        .current
        .take_if(|c| manifest.tiers.iter().any(|r| r.tier == c.tier))
    {
        remove_work_dir(&c.work)?;
    }
    if let Some(c) = &manifest.current {
        if !tiers.contains(&c.tier) {
            return Err(Error::corrupt(
                Manifest::path(&cfg.out),
                format!(
                    "checkpoint of tier {} does not fit the finished tiers",
                    c.tier
                ),
            ));
        }
    }
    Ok(Opened::Run(manifest))
}

/// The run takes this run's budget (an extended finished solve is unfinished again) and the
/// manifest is saved, unless a checkpoint is in it (then it is saved at the next one).
pub fn adopt_budget(manifest: &mut Manifest, cfg: &SolveConfig) -> Result<()> {
    manifest.seeds = cfg.seeds;
    manifest.complete = false;
    if manifest.current.is_none() {
        manifest.save(&cfg.out)?;
    }
    Ok(())
}

/// Refuses a checkpoint whose work folder is not one this run directory's runs use: the run's
/// own `work/tier-KKKK`, or `<tmp>/bawo-<run id>/tier-KKKK` under this run's `--tmp`. A
/// checkpoint under a `--tmp` not given now is a usage error naming it (resume with it); any
/// other folder is damage, refused before any file is touched.
fn check_work_dir(cfg: &SolveConfig, work_root: &Path, c: &TierState) -> Result<()> {
    let tier_dir = format!("tier-{:04}", c.tier);
    let same = |a: &Path, b: &Path| canonical(a) == canonical(b);
    let named = c.work.file_name().is_some_and(|n| n == tier_dir.as_str());
    let parent = c.work.parent().unwrap_or(Path::new(""));
    if named && same(parent, &cfg.out.join("work")) {
        return Ok(());
    }
    if named && cfg.tmp.is_some() && same(parent, work_root) {
        return Ok(());
    }
    let run_folder = run_folder_name(&cfg.out)?;
    if named && parent.file_name().is_some_and(|n| n == run_folder.as_str()) {
        if let Some(tmp) = parent.parent().filter(|t| t.is_absolute()) {
            return Err(Error::Input(InputError::new(format!(
                "the tier in progress keeps its work files under --tmp {}; resume with that --tmp",
                tmp.display()
            ))));
        }
    }
    Err(Error::corrupt(
        Manifest::path(&cfg.out),
        format!(
            "the checkpoint of tier {} names a work folder this run does not use ({}); \
             refusing to touch it",
            c.tier,
            c.work.display()
        ),
    ))
}

/// `p` with its longest existing ancestor resolved (symlinks, `..`), so that a folder that
/// vanished still compares equal to the path it had.
fn canonical(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    match (p.parent(), p.file_name()) {
        (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => {
            canonical(parent).join(name)
        }
        _ => p.to_path_buf(),
    }
}

/// The checkpoint to continue tier `tier` from, if it is this tier's and still usable: one
/// whose work folder vanished (a --tmp cleared by a reboot) or was written by an earlier
/// version costs only its own tier, which starts again; finished tiers stay.
pub fn usable_checkpoint(
    current: Option<TierState>,
    tier: Tier,
    progress: &dyn RunProgress,
) -> Result<Option<TierState>> {
    Ok(match current.filter(|c| c.tier == tier) {
        Some(c) if !c.work.is_dir() => {
            progress.notice(&format!(
                "the work files of tier {tier} ({}) are gone; solving tier {tier} again, \
                 finished tiers are kept",
                c.work.display()
            ));
            None
        }
        Some(c) if !readable_format(&c) => {
            progress.notice(&format!(
                "the work files of tier {tier} were written by an earlier version; solving \
                 tier {tier} again, finished tiers are kept"
            ));
            remove_work_dir(&c.work)?;
            None
        }
        r => r,
    })
}
