//! Building a database: the solver's run with each finished tier compressed into the `.bdb`
//! file a database ships.
//!
//! The solver writes raw tables and knows nothing of this layer; it hands every finished tier
//! to a [`TierSink`], and [`Compressor`] is the sink that writes the tier's `.bdb` file (and,
//! when a run resumes, checks the files it wrote before).

use std::path::Path;

use crate::flags::TierFlags;
use crate::run::{RunProgress, SolveConfig, SolveReport, StoredTier, TierSink};
use bawo_db::encode::{write_table_tier, DontCare};
use bawo_db::format::EncodeOptions;
use bawo_games::error::Result;
use bawo_games::game::{Game, Tier};
use bawo_games::value::Entry;
use bawo_store::manifest::FileRecord;
use bawo_store::table::TableData;

/// Writes each finished tier's compressed file.
#[derive(Clone, Copy, Debug, Default)]
pub struct Compressor {
    /// How blocks are encoded.
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
                    &|| f.release(),
                    &self.options,
                )
            }
            _ => write_table_tier(
                dir,
                tier,
                fingerprint,
                table,
                None::<DontCare<'_>>,
                &|| {},
                &self.options,
            ),
        }
    }

    fn check(&self, stored: &StoredTier<'_>) -> Result<()> {
        bawo_db::stored::check(stored)
    }

    fn restore(
        &self,
        stored: &StoredTier<'_>,
        lower: &(dyn Fn(Tier, u64) -> Result<Entry> + Sync),
        put: &mut dyn FnMut(&[u16]) -> Result<()>,
    ) -> Result<()> {
        bawo_db::stored::restore(stored, lower, put)
    }
}

/// Solves every tier of `cfg.seeds` into the run directory `cfg.out` and compresses each
/// finished tier: a database that [`bawo_db::Database::open`] reads.
pub fn solve<G: Game>(
    game: &G,
    cfg: &SolveConfig,
    progress: &dyn RunProgress,
) -> Result<SolveReport> {
    crate::run::solve(game, cfg, progress, &Compressor::for_game(game.name()))
}
