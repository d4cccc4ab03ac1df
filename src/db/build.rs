//! Building a database: the solver's run with each finished tier compressed into the `.bdb`
//! file a database ships.
//!
//! The solver writes raw tables and knows nothing of this layer; it hands every finished tier
//! to a [`TierSink`], and [`Compressor`] is the sink that writes the tier's `.bdb` file (and,
//! when a run resumes, checks the files it wrote before).

use std::path::Path;

use super::encode::{write_table_tier, DontCare};
use super::format::{BdbFile, EncodeOptions};
use crate::error::{Error, Result};
use crate::game::{Game, Tier};
use crate::solve::flags::TierFlags;
use crate::solve::run::{RunProgress, SolveConfig, SolveReport, TierSink};
use crate::store::manifest::FileRecord;
use crate::store::table::TableData;
use crate::value::Entry;

/// Writes each finished tier's compressed file.
#[derive(Clone, Copy, Debug, Default)]
pub struct Compressor {
    pub options: EncodeOptions,
    /// Store every entry as solved, even where the solver's flags say don't-care.
    pub plain: bool,
}

impl Compressor {
    /// The compressor for the game named `name`: don't-care entries are substituted where
    /// that was measured to pay (README, "Smaller databases"): not on Bao, where more than
    /// half the entries are don't-care and copying them breaks zstd's long matches.
    pub fn for_game(name: &str) -> Compressor {
        Compressor {
            plain: name == "bao",
            ..Compressor::default()
        }
    }
}

impl TierSink for Compressor {
    fn tier_finished(
        &self,
        dir: &Path,
        tier: Tier,
        fingerprint: u64,
        table: &TableData,
        flags: Option<&TierFlags>,
    ) -> Result<FileRecord> {
        match flags {
            Some(f) if !self.plain => {
                let dont_care = f.dont_care_test();
                write_table_tier(
                    dir,
                    tier,
                    fingerprint,
                    table,
                    Some(&dont_care),
                    &self.options,
                )
            }
            _ => write_table_tier(
                dir,
                tier,
                fingerprint,
                table,
                None::<DontCare<'_>>,
                &self.options,
            ),
        }
    }

    fn check(
        &self,
        dir: &Path,
        tier: Tier,
        states: u64,
        fingerprint: u64,
        file: &FileRecord,
    ) -> Result<()> {
        let path = dir.join(&file.file);
        let bdb = BdbFile::open(&path, tier, states, fingerprint)?;
        if bdb.check_file()? != file.checksum {
            return Err(Error::corrupt(&path, "checksum differs from the manifest"));
        }
        Ok(())
    }

    fn restore(
        &self,
        dir: &Path,
        tier: Tier,
        states: u64,
        fingerprint: u64,
        file: &FileRecord,
        put: &mut dyn FnMut(&[u16]) -> Result<()>,
    ) -> Result<()> {
        let bdb = BdbFile::open(&dir.join(&file.file), tier, states, fingerprint)?;
        if !bdb.header().dont_care {
            let mut buf = Vec::new();
            for b in 0..bdb.blocks() {
                buf.clear();
                bdb.decode_block(b)?.entries_into(bdb.symbols(), &mut buf);
                put(&buf)?;
            }
            return Ok(());
        }
        // Don't-care entries are recovered through their moves into the tiers below, which
        // the run directory's manifest records (they are finished before this one).
        let db = super::Database::open(dir)?;
        db.for_each_run(tier, |_, entries| put(entries))
    }
}

/// Decodes the `.bdb` file `file` of `tier` in `dir` into the tier's exact entries, block by
/// block, without a database around it: the don't-care entries of a file that substitutes
/// them are recovered through their moves from `lower(tier, index)`, the exact entries of the
/// tiers below (a cluster rank's raw tables of the finished tiers, [`super::dontcare`]).
#[allow(clippy::too_many_arguments)]
pub fn decode_with_lower<G: Game>(
    game: &G,
    dir: &Path,
    tier: Tier,
    states: u64,
    fingerprint: u64,
    file: &FileRecord,
    lower: &(dyn Fn(Tier, u64) -> Result<Entry> + Sync),
    put: &mut dyn FnMut(&[u16]) -> Result<()>,
) -> Result<()> {
    let bdb = BdbFile::open(&dir.join(&file.file), tier, states, fingerprint)?;
    let dont_care = bdb.header().dont_care;
    let mut buf = Vec::new();
    let mut first = 0u64;
    for b in 0..bdb.blocks() {
        buf.clear();
        bdb.decode_block(b)?.entries_into(bdb.symbols(), &mut buf);
        if dont_care {
            super::dontcare::resolve_run(game, tier, first, &mut buf, lower)?;
        }
        put(&buf)?;
        first += buf.len() as u64;
    }
    Ok(())
}

/// Solves every tier of `cfg.seeds` into the run directory `cfg.out` and compresses each
/// finished tier: a database that [`super::Database::open`] reads.
pub fn solve<G: Game>(
    game: &G,
    cfg: &SolveConfig,
    progress: &dyn RunProgress,
) -> Result<SolveReport> {
    crate::solve::run::solve(game, cfg, progress, &Compressor::for_game(game.name()))
}
