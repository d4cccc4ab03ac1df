//! A finished tier's `.bdb` file when a run resumes or a cluster rank receives it: checked
//! against its manifest record, or decoded back into the tier's exact entries with that
//! check made in the same read (the work of the compressor's `bawo_solve::TierSink` methods).

use super::format::BdbFile;
use super::Database;
use crate::sink::StoredTier;
use bawo_games::error::{Error, Result};
use bawo_games::game::{Game, Tier};
use bawo_games::value::Entry;

/// Opens the file, its header and index checked (not yet its blocks).
fn open(stored: &StoredTier<'_>) -> Result<BdbFile> {
    BdbFile::open(
        &stored.path(),
        stored.tier,
        stored.states,
        stored.fingerprint,
    )
}

/// Checks the whole file against its trailer and the manifest's checksum.
pub fn check(stored: &StoredTier<'_>) -> Result<()> {
    let bdb = open(stored)?;
    if bdb.check_file()? != stored.file.checksum {
        return Err(Error::corrupt(
            stored.path(),
            "checksum differs from the manifest",
        ));
    }
    Ok(())
}

/// Hands the exact entries of `bdb` to `put` block by block, the don't-care entries of a
/// file that substitutes them replaced by `resolve(first, entries)`, and checks the whole
/// file as it goes.
fn decode(
    bdb: &BdbFile,
    stored: &StoredTier<'_>,
    mut resolve: impl FnMut(u64, &mut [u16]) -> Result<()>,
    put: &mut dyn FnMut(&[u16]) -> Result<()>,
) -> Result<()> {
    let dont_care = bdb.header().dont_care;
    let mut buf = Vec::new();
    bdb.for_each_block_checked(stored.file.checksum, |first, block| {
        buf.clear();
        block.entries_into(bdb.symbols(), &mut buf);
        if dont_care {
            resolve(first, &mut buf)?;
        }
        put(&buf)
    })
}

/// Decodes the file into the tier's exact entries, checking it in the same read. Don't-care
/// entries are recovered through their moves from `lower(tier, index)`, the exact entries of
/// the tiers below (finished before this one), in the game the run directory's manifest
/// names.
pub fn restore(
    stored: &StoredTier<'_>,
    lower: &(dyn Fn(Tier, u64) -> Result<Entry> + Sync),
    put: &mut dyn FnMut(&[u16]) -> Result<()>,
) -> Result<()> {
    let bdb = open(stored)?;
    if !bdb.header().dont_care {
        return decode(&bdb, stored, |_, _| Ok(()), put);
    }
    let db = Database::open(stored.dir)?;
    bawo_games::with_game!(db.game(), g => decode(
        &bdb,
        stored,
        |first, entries| super::dontcare::resolve_run(g, stored.tier, first, entries, lower),
        put,
    ))
}

/// Decodes the file into the tier's exact entries without a database around it, checking
/// it in the same read: the don't-care entries of a file that substitutes them are
/// recovered through their moves from `lower(tier, index)`, the exact entries of the tiers
/// below (a cluster rank's raw tables of the finished tiers, [`super::dontcare`]).
pub fn restore_with_lower<G: Game>(
    game: &G,
    stored: &StoredTier<'_>,
    lower: &(dyn Fn(Tier, u64) -> Result<Entry> + Sync),
    put: &mut dyn FnMut(&[u16]) -> Result<()>,
) -> Result<()> {
    let bdb = open(stored)?;
    decode(
        &bdb,
        stored,
        |first, entries| super::dontcare::resolve_run(game, stored.tier, first, entries, lower),
        put,
    )
}
