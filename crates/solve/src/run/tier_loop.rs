//! The tier loop of a run: each unfinished tier solved, recorded and compressed in order,
//! with a finished tier compressed on a thread of its own beside the next one where the
//! memory plan holds both ([`crate::run::solve_with`] opens the run around it).

use std::path::{Path, PathBuf};
use std::thread::Scope;
use std::time::Instant;

use crate::counts::TierIo;
use crate::flags::{flags_file, AnchoredBits, TierFlags};
use crate::plan::disk::{dir_bytes, is_under, process_bytes_written};
use crate::run::compress::{compress_missing, compress_now, Background};
use crate::run::owned::Owned;
use crate::run::{RunProgress, SolveConfig, SolveReport, TierSink, TierSolver};
use crate::tier::checkpoint::{Checkpoints, TierRecord};
use crate::tier::tables::{resident_if_it_fits, Tables};
use crate::tier::{Lower, SolvedTier, TierOptions, TierTask};
use crate::work::remove_work_dir;
use bawo_games::error::{Error, Result};
use bawo_games::game::{Game, Tier};
use bawo_store::manifest::{table_file, FileRecord};
use bawo_store::table::{self, TableData};

/// What the loop needs of the run around it, and what it builds up: the lower tiers' tables,
/// the report, and the finished tiers a killed run left without compressed files.
pub struct TierLoop<'r, 'm, G: Game> {
    pub(crate) game: &'r G,
    pub(crate) cfg: &'r SolveConfig,
    pub(crate) progress: &'r dyn RunProgress,
    pub(crate) sink: &'r dyn TierSink,
    pub(crate) solver: &'r dyn TierSolver<G>,
    pub(crate) opts: &'r TierOptions,
    /// The rules' fingerprint, stamped on every file.
    pub(crate) fp: u64,
    /// Whether a finished tier may be compressed beside the next one at all.
    pub(crate) beside: bool,
    pub(crate) ckpt: Checkpoints<'m>,
    pub(crate) owned: &'m mut Owned<'r>,
    pub(crate) tables: Tables,
    /// Finished tiers without their compressed files, compressed once a tier has been solved.
    pub(crate) missing: Vec<Tier>,
    /// Finished tiers left undecoded by the restore (their raw tables retired by the last
    /// tier, resumed past its pass): decoded if that pass has to run again.
    pub(crate) deferred: Vec<Tier>,
    pub(crate) report: SolveReport,
}

impl<'r, G: Game> TierLoop<'r, '_, G> {
    /// Solves every tier of `tiers` the manifest does not record as finished, then settles
    /// the compressions still open.
    pub fn run(&mut self, tiers: &[Tier]) -> Result<()> {
        std::thread::scope(|scope| -> Result<()> {
            // The tier being compressed on a thread of its own while the next one is solved.
            // A run stopped by an error waits for it at the scope's end; its file, if written,
            // stays unrecorded, and a resumed run compresses that tier again.
            let mut pending: Option<Background<'_>> = None;
            for (i, &tier) in tiers.iter().enumerate() {
                if self.ckpt.manifest.record(tier).is_none() {
                    let next = tiers.get(i + 1).copied();
                    let at = Placed {
                        lower: &tiers[..i],
                        next,
                        retires: self.retires(tier, i + 1 == tiers.len()),
                        next_retires: next.is_some_and(|t| self.retires(t, i + 2 == tiers.len())),
                    };
                    self.solve_one(scope, tier, at, &mut pending)?;
                }
            }
            // Never left over where the last tier was solved by this run (it is compressed
            // at once), but a finished run records every tier with its file.
            self.settle_lower(pending.take())?;
            Ok(())
        })
    }

    /// Whether `tier` (`last`: the run's last) retires the lower tiers' raw tables once its
    /// pass is over ([`Lower::retiring`]): the last tier of a run that keeps no raw tables,
    /// planned out of core (a tier of one range is small), with a solver that drops them.
    fn retires(&self, tier: Tier, last: bool) -> bool {
        last && crate::run::last_tier_retires(self.cfg, self.solver)
            && self.opts.plan.tier(tier).is_some_and(|p| p.ranges > 1)
    }

    /// The raw tables and flags files of the finished tiers of `lower` that have compressed
    /// files: what a retiring tier deletes.
    fn retiring_files(&self, lower: &[Tier]) -> Vec<PathBuf> {
        let out = &self.cfg.out;
        self.ckpt
            .manifest
            .tiers
            .iter()
            .filter(|r| r.bdb.is_some() && lower.contains(&r.tier))
            .flat_map(|r| [out.join(&r.file), out.join(flags_file(r.tier))])
            .collect()
    }

    /// The lower tiers a restore left undecoded, decoded now: the tier about to be solved
    /// runs its successor pass after all.
    fn restore_deferred(&mut self) -> Result<()> {
        let deferred = std::mem::take(&mut self.deferred);
        let progress = self.progress;
        crate::run::restore::restore_finished(
            self.game,
            &self.cfg.out,
            self.sink,
            self.ckpt.manifest,
            &deferred,
            false,
            self.opts,
            self.owned,
            &mut self.tables,
            self.fp,
            &|l| progress.notice(l),
        )?;
        Ok(())
    }

    /// One tier solved and recorded; its compression started beside the next tier
    /// (`at.next`) where the plan holds both, else done now.
    fn solve_one<'s>(
        &mut self,
        scope: &'s Scope<'s, 'r>,
        tier: Tier,
        at: Placed<'_>,
        pending: &mut Option<Background<'s>>,
    ) -> Result<()> {
        let next = at.next;
        let (cfg, game) = (self.cfg, self.game);
        let t0 = Instant::now();
        let written0 = process_bytes_written();
        // The finished tiers' files (the run directory without work files), which the
        // tier's work files add to.
        let base_disk = dir_bytes(&cfg.out).saturating_sub(dir_bytes(&cfg.out.join("work")));
        let size = game.tier_size(tier)?;
        self.progress
            .tier_started(tier, game.tier_seeds(tier), size);
        let resume = crate::run::open::usable_checkpoint(
            self.ckpt.manifest.current.take(),
            tier,
            self.progress,
        )?;
        let passes = resume
            .as_ref()
            .is_none_or(|c| c.phase == crate::tier::checkpoint::Phase::Successors);
        if !self.deferred.is_empty() && (passes || !at.retires) {
            self.restore_deferred()?;
        }
        let work = self.claim_tier_files(tier, resume.as_ref())?;
        let file = table_file(tier);
        let path = cfg.out.join(&file);
        let task = TierTask {
            tier,
            resume,
            table_path: &path,
        };
        let mut lower = if at.retires {
            let files = self.retiring_files(at.lower);
            Lower::retiring(std::mem::take(&mut self.tables), files)
        } else {
            Lower::shared(&self.tables)
        };
        let solved = self.solver.solve_tier(
            game,
            task,
            &mut lower,
            self.opts,
            &mut self.ckpt,
            self.progress,
        );
        if let Some(tables) = lower.into_tables() {
            self.tables = tables;
        }
        let mut solved = solved?;
        // The tier below, compressed meanwhile, and tiers a killed run left without their
        // compressed files (now that the resumed tier has passed its checks): recorded with
        // this tier's record.
        let below_bytes = self.settle_lower(pending.take())?;
        // The distributable, compressed copy of the finished table: now, or on a thread of
        // its own beside the next tier where the plan holds both (never the last tier).
        let (_, data) = table::open_table(&path, tier, size, self.fp, false)?;
        // A tier solved elsewhere (a cluster's workers) may come without flags.
        let flags = TierFlags::open(&cfg.out.join(flags_file(tier)), size)?;
        // The tiers above look this one up; the run's last tier is read by none, and its
        // table (which may be far larger than the lower tiers' share) is never copied.
        let bits = match (next, &flags) {
            (None, _) => None,
            (Some(_), Some(f)) => Some(f.anchored_bits()),
            (Some(_), None) => Some(AnchoredBits::compute(game, tier, size)),
        };
        // Never beside a tier that retires this one's raw table: it is deleted once that
        // tier's pass is over, and only with its compressed file recorded.
        let next_beside = self.beside
            && !at.next_retires
            && next
                .and_then(|t| self.opts.plan.tier(t))
                .is_some_and(|t| t.compress_beside);
        let (bdb, bytes) = if next_beside {
            (None, solved.bytes)
        } else {
            let bdb = self.compress_tier(tier, &data, &flags, &mut solved)?;
            self.owned.file(&bdb.file)?;
            self.report.compress += solved.timings.compress;
            let bytes = solved.bytes + bdb.bytes;
            (Some(bdb), bytes)
        };
        let record = TierRecord {
            tier,
            counts: solved.counts.clone(),
            file,
            checksum: solved.header.checksum,
            bdb,
        };
        let written = TierWrites {
            base_disk,
            written0,
            below_bytes,
            bytes,
        };
        let io = self.record_tier(record, &work, written, &solved)?;
        self.report.bytes_written += io.bytes_written;
        let bytes_written = io.bytes_written;
        self.report.tiers_io.push(io);
        if next_beside {
            *pending = Some(Background::start(
                scope, self.sink, &cfg.out, tier, self.fp, data, flags,
            )?);
        }
        if let Some(bits) = bits {
            let (_, data) = table::open_table(&path, tier, size, self.fp, false)?;
            let plan = &self.opts.plan;
            self.tables
                .insert(tier, resident_if_it_fits(data, plan.lower_bytes(), plan)?);
            self.tables.insert_anchored(tier, bits);
        }
        self.progress
            .tier_finished(&solved.counts.both_sides(), t0.elapsed(), bytes_written);
        self.report.timings.push((tier, solved.timings));
        Ok(())
    }

    /// The tier compressed beside this one joined and recorded, then the finished tiers still
    /// without compressed files compressed; returns the bytes of the first, which the process
    /// wrote while this tier was solved.
    fn settle_lower(&mut self, pending: Option<Background<'_>>) -> Result<u64> {
        let mut below_bytes = 0;
        if let Some(p) = pending {
            let tw = Instant::now();
            below_bytes = self.join_beside(p)?;
            self.report.compress += tw.elapsed();
        }
        let progress = self.progress;
        self.report.compress += compress_missing(
            self.sink,
            &self.cfg.out,
            self.ckpt.manifest,
            std::mem::take(&mut self.missing),
            self.fp,
            self.opts.plan.compress_workers,
            self.owned,
            &|l| progress.notice(l),
        )?;
        Ok(below_bytes)
    }

    /// The files a tier will write, recorded in the run's ledger before they exist, and its
    /// work folder: a checkpoint's own (checked when the run was opened: this run's, or one
    /// under the --tmp it was started with), or a new one under this run's work root.
    fn claim_tier_files(
        &mut self,
        tier: Tier,
        resume: Option<&crate::tier::checkpoint::TierState>,
    ) -> Result<PathBuf> {
        self.owned.file(&table_file(tier))?;
        self.owned.file(&flags_file(tier))?;
        Ok(match resume {
            Some(c) => c.work.clone(),
            None => {
                let work = self.opts.work_root.join(format!("tier-{tier:04}"));
                self.owned.claim_work_dir(&work)?;
                work
            }
        })
    }

    /// The distributable, compressed copy of a finished table, made now; its time goes into
    /// the tier's timings.
    fn compress_tier(
        &self,
        tier: Tier,
        data: &TableData,
        flags: &Option<TierFlags>,
        solved: &mut SolvedTier,
    ) -> Result<FileRecord> {
        let (bdb, took) = compress_now(
            self.sink,
            &self.cfg.out,
            tier,
            self.fp,
            data,
            flags.as_ref(),
            self.opts.plan.compress_workers,
        )?;
        solved.timings.compress = took;
        Ok(bdb)
    }

    /// A solved tier recorded in the manifest and its work files removed: the tier's last
    /// checkpoint stays in the manifest until then, so that a run killed in between finds
    /// them by it, wherever they are. Returns the tier's bytes written and peak disk.
    fn record_tier(
        &mut self,
        record: TierRecord,
        work: &Path,
        written: TierWrites,
        solved: &SolvedTier,
    ) -> Result<TierIo> {
        let tier = record.tier;
        self.ckpt.manifest.tiers.push(record);
        let last = self.ckpt.manifest.current.take().filter(|c| c.tier == tier);
        self.ckpt.save(last)?;
        let io = tier_io(self.cfg, work, written, solved);
        remove_work_dir(work)?;
        self.ckpt.manifest.current = None;
        Ok(io)
    }

    /// Waits for the tier compressed beside the next tier's solve and records its file in its
    /// manifest record (saved with the next tier's), in the ledger, and in the tier's report:
    /// its time, and its bytes written, which the process wrote while the next tier was solved
    /// (the disk they take is the next tier's: [`tier_io`]). Returns those bytes.
    fn join_beside(&mut self, pending: Background<'_>) -> Result<u64> {
        let tier = pending.tier;
        let (bdb, took) = pending.join()?;
        let report = &mut self.report;
        report.compress_beside += took;
        let bytes = bdb.bytes;
        self.owned.file(&bdb.file)?;
        if let Some((_, t)) = report.timings.iter_mut().find(|(t, _)| *t == tier) {
            t.compress = took;
            t.compressed_beside = true;
        }
        if let Some(io) = report.tiers_io.last_mut() {
            io.bytes_written += bdb.bytes;
        }
        report.bytes_written += bdb.bytes;
        let rec = self
            .ckpt
            .manifest
            .tiers
            .iter_mut()
            .find(|r| r.tier == tier)
            .ok_or_else(|| Error::Internal(format!("tier {tier} compressed but not recorded")))?;
        rec.bdb = Some(bdb);
        Ok(bytes)
    }
}

/// What a tier's disk and writes are measured from.
struct TierWrites {
    /// The finished tiers' files when the tier started.
    base_disk: u64,
    /// The process's bytes written when the tier started, where the kernel says.
    written0: Option<u64>,
    /// Bytes of the tier below's compressed file, written meanwhile (that tier's).
    below_bytes: u64,
    /// The tier's own files' bytes, the figure used where the kernel does not count.
    bytes: u64,
}

/// The tier's bytes written and peak disk: the run's disk now (its work files are still
/// there), or while the tier's work files were at their largest beside the finished tiers
/// and the tier below's compressed file, written meanwhile (early: beside the successor
/// pass), whichever is more.
fn tier_io(cfg: &SolveConfig, work: &Path, w: TierWrites, solved: &SolvedTier) -> TierIo {
    let outside = if is_under(work, &cfg.out) {
        0
    } else {
        dir_bytes(work)
    };
    let t = &solved.timings;
    let at_peak =
        (w.base_disk + w.below_bytes + t.peak_work_disk).saturating_sub(t.peak_lower_freed);
    let peak_disk = (dir_bytes(&cfg.out) + outside).max(at_peak);
    // The compressed file of the tier below, written meanwhile, is that tier's.
    let bytes_written = match (w.written0, process_bytes_written()) {
        (Some(a), Some(b)) => b.saturating_sub(a).saturating_sub(w.below_bytes),
        _ => w.bytes,
    };
    TierIo {
        seeds: solved.counts.seeds,
        bytes_written,
        peak_disk,
    }
}

/// Where a tier stands in the run: the tiers solved before it, the next one, and whether it
/// or the next one retires the lower tiers' raw tables ([`TierLoop::retires`]).
struct Placed<'t> {
    lower: &'t [Tier],
    next: Option<Tier>,
    retires: bool,
    next_retires: bool,
}
