//! Solving every tier of a seed budget into a run directory.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::tables::Tables;
use super::tier::{solve_tier, TierCounts, TierOptions, TierProgress, TierTimings};
use crate::error::{Error, Result};
use crate::game::Game;
use crate::store::manifest::{table_file, Manifest, TierRecord};
use crate::store::{fingerprint, table};

/// What to solve and where.
#[derive(Clone, Debug)]
pub struct SolveConfig {
    /// Solve every position with at most this many seeds on the board.
    pub seeds: u32,
    pub out: PathBuf,
    pub tier: TierOptions,
    /// Solve again even when the directory already holds this finished solve.
    pub force: bool,
}

/// The counts of a solve, in the shape `solve --json` prints.
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
    /// Time spent writing the compressed `.bdb` files (included in `wall`).
    pub compress: Duration,
}

/// Progress of a whole solve: a tier starting, then the tier's own phases.
pub trait RunProgress: TierProgress {
    fn tier_started(&self, _tier: u32, _seeds: u32, _states: u64) {}
    fn tier_finished(&self, _counts: &TierCounts, _elapsed: Duration, _bytes: u64) {}
}

impl RunProgress for super::tier::Silent {}

/// Solves every tier of `cfg.seeds` in order, writing each finished table and the manifest.
pub fn solve<G: Game>(
    game: &G,
    cfg: &SolveConfig,
    progress: &dyn RunProgress,
) -> Result<SolveReport> {
    let start = Instant::now();
    let tiers = game.tiers_up_to(cfg.seeds)?;
    let mut sizes = Vec::with_capacity(tiers.len());
    for &t in &tiers {
        let size = game.tier_size(t)?;
        if size > u32::MAX as u64 {
            return Err(Error::TierTooLarge { tier: t, size });
        }
        sizes.push(size);
    }
    let descriptor = game.descriptor();
    let fp = fingerprint(&descriptor);
    std::fs::create_dir_all(&cfg.out).map_err(|e| Error::io(&cfg.out, e))?;

    if let Some(m) = Manifest::load(&cfg.out)? {
        if m.game != descriptor {
            return Err(Error::Mismatch(format!(
                "{} holds a solve of '{}', not '{descriptor}'; choose another --out",
                cfg.out.display(),
                m.game
            )));
        }
        if m.complete && m.seeds == cfg.seeds && !cfg.force {
            let summary = Summary::from_tiers(m.tiers.iter().map(|r| r.counts.clone()).collect());
            return Ok(SolveReport {
                summary,
                already_done: true,
                wall: start.elapsed(),
                ..Default::default()
            });
        }
    }

    let mut manifest = Manifest::new(&descriptor, cfg.seeds);
    manifest.save(&cfg.out)?;
    let mut tables = Tables::default();
    let mut report = SolveReport::default();
    for (&tier, &size) in tiers.iter().zip(&sizes) {
        let t0 = Instant::now();
        progress.tier_started(tier, game.tier_seeds(tier), size);
        let solved = solve_tier(game, tier, &tables, cfg.tier, progress)?;
        let file = table_file(tier);
        let path = cfg.out.join(&file);
        let (header, bytes) = table::write_table(&path, tier, fp, &solved.entries)?;
        let tc = Instant::now();
        let bdb = crate::db::format::write_tier(
            &cfg.out,
            tier,
            fp,
            &solved.entries,
            &Default::default(),
        )?;
        report.compress += tc.elapsed();
        let bytes = bytes + bdb.bytes;
        report.bytes_written += bytes;
        tables.insert(tier, super::tables::TableData::Owned(solved.entries));
        manifest.tiers.push(TierRecord {
            tier,
            counts: solved.counts.clone(),
            file,
            checksum: format!("{:016x}", header.checksum),
            bdb: Some(bdb),
        });
        manifest.save(&cfg.out)?;
        progress.tier_finished(&solved.counts, t0.elapsed(), bytes);
        report.timings.push((tier, solved.timings));
    }
    manifest.complete = true;
    manifest.save(&cfg.out)?;
    report.summary = Summary::from_tiers(manifest.tiers.iter().map(|r| r.counts.clone()).collect());
    report.wall = start.elapsed();
    Ok(report)
}
