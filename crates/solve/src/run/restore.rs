//! Finished tiers of a run directory brought back when a run resumes (or extends a finished
//! solve): each checked against its record, decoded from its compressed file where the raw
//! table is gone, compressed where a kill left it without its compressed file, and added to
//! the lookups of the tiers above with its anchored bits.

use std::path::Path;

use crate::flags::{flags_file, AnchoredBits, TierFlags};
use crate::run::owned::Owned;
use crate::sink::{StoredTier, TierSink};
use crate::tier::checkpoint::Manifest;
use crate::tier::tables::{resident_if_it_fits, Lookup, TableData, Tables};
use crate::tier::TierOptions;
use crate::work::remove_work_dir;
use bawo_games::error::{Error, Result};
use bawo_games::game::{Game, Tier};
use bawo_games::value::Entry;
use bawo_store::table;

/// What [`restore_finished`] brought back.
#[derive(Debug, Default)]
pub struct Restored {
    /// Finished tiers checked (those deferred included).
    pub count: usize,
    /// Tiers recorded without their compressed file
    /// ([`crate::run::compress::compress_missing`]).
    pub missing: Vec<Tier>,
    /// Tiers whose raw tables are gone and were left undecoded (their compressed files
    /// checked): the tier in progress needs no lower tier unless its pass runs again.
    pub deferred: Vec<Tier>,
}

/// Brings back every tier of `tiers` that the manifest of the run directory `dir` records
/// as finished into `tables`. With `defer` (the run's last tier is resumed past its
/// successor pass, and retired the lower raw tables: [`crate::tier::Lower::retiring`]), a
/// tier whose raw table is gone is not decoded again, only its compressed file checked.
#[allow(clippy::too_many_arguments)]
pub fn restore_finished<G: Game>(
    game: &G,
    dir: &Path,
    sink: &dyn TierSink,
    manifest: &Manifest,
    tiers: &[Tier],
    defer: bool,
    opts: &TierOptions,
    owned: &mut Owned<'_>,
    tables: &mut Tables,
    fp: u64,
    notice: &dyn Fn(&str),
) -> Result<Restored> {
    let mut restored = 0;
    let mut missing = Vec::new();
    let mut deferred = Vec::new();
    for rec in manifest.tiers.clone() {
        if !tiers.contains(&rec.tier) {
            continue;
        }
        // A tier recorded without its compressed file (the run was killed while it was
        // compressed beside the next tier) is compressed once the tier in progress is solved.
        if rec.bdb.is_none() {
            missing.push(rec.tier);
        }
        let path = dir.join(&rec.file);
        let states = rec.counts.states;
        // A run directory that is a database holds only the compressed files (a lean run, a
        // shipped database): the raw tables the solver looks lower tiers up in are decoded
        // from them again, into memory where they fit its share, else into their files.
        let decode = rec
            .bdb
            .as_ref()
            .filter(|_| std::fs::symlink_metadata(&path).is_err());
        let stored = |file| StoredTier {
            dir,
            tier: rec.tier,
            states,
            fingerprint: fp,
            file,
        };
        // Don't-care entries of a decoded file are recovered from the tiers restored before.
        let below: &Tables = tables;
        let lower = |t: Tier, i: u64| match below.entry(t, i) {
            Entry::UNSOLVED => Err(Error::Internal(format!(
                "tier {} moves into tier {t}, which is not restored before it",
                rec.tier
            ))),
            e => Ok(e),
        };
        // A file decoded is checked as it is read; one only kept is checked here.
        if let (Some(b), None) = (&rec.bdb, decode) {
            sink.check(&stored(b))?;
        }
        if let (Some(b), true) = (decode, defer) {
            sink.check(&stored(b))?;
            remove_work_dir(&opts.work_root.join(format!("tier-{:04}", rec.tier)))?;
            deferred.push(rec.tier);
            restored += 1;
            continue;
        }
        let data = match decode {
            Some(b) if opts.plan.keeps_lower() => {
                let mut entries = crate::work::huge::with_capacity(states as usize);
                sink.restore(&stored(b), &lower, &mut |e: &[u16]| {
                    entries.extend_from_slice(e);
                    Ok(())
                })?;
                let sum = bawo_store::Checksum::of(bawo_store::bytes::u16_bytes(&entries));
                if entries.len() as u64 != states || sum != rec.checksum {
                    return Err(Error::corrupt(
                        dir.join(&b.file),
                        "decodes to other entries than the manifest's table",
                    ));
                }
                TableData::Owned(entries)
            }
            _ => {
                if let Some(b) = decode {
                    owned.file(&rec.file)?;
                    table::write_table_streaming(&path, rec.tier, states, fp, |put| {
                        sink.restore(&stored(b), &lower, put)
                    })?;
                }
                let (header, data) = table::open_table(&path, rec.tier, states, fp, true)?;
                if header.checksum != rec.checksum {
                    return Err(Error::corrupt(&path, "checksum differs from the manifest"));
                }
                resident_if_it_fits(data, opts.plan.lower_bytes(), &opts.plan)?
            }
        };
        // The anchored bits of a finished tier: from its flags file while the run keeps it,
        // else (a finished run deleted it) from the tier's moves again.
        let bits = match TierFlags::open(&dir.join(flags_file(rec.tier)), states) {
            Ok(Some(f)) => f.anchored_bits(),
            Ok(None) => AnchoredBits::compute(game, rec.tier, states),
            Err(e) => {
                notice(&format!("{e}; recomputing its flags"));
                AnchoredBits::compute(game, rec.tier, states)
            }
        };
        tables.insert_anchored(rec.tier, bits);
        // A run killed between recording a finished tier and removing its work files left
        // them behind.
        remove_work_dir(&opts.work_root.join(format!("tier-{:04}", rec.tier)))?;
        tables.insert(rec.tier, data);
        restored += 1;
    }
    Ok(Restored {
        count: restored,
        missing,
        deferred,
    })
}
