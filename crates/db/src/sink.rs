//! What becomes of a finished tier beyond its raw table: the [`TierSink`] a solve's caller
//! hands in, and [`StoredTier`], a finished tier's file as the manifest records it.

use std::path::{Path, PathBuf};

use super::flags::TierFlags;
use bawo_games::error::Result;
use bawo_games::game::Tier;
use bawo_games::value::Entry;
use bawo_store::manifest::FileRecord;
use bawo_store::table::TableData;

/// A file a sink made for a finished tier, where it lies and what it must hold: the tier,
/// its positions, the game's fingerprint, and the name, size and checksum the manifest
/// records.
#[derive(Debug, Clone, Copy)]
pub struct StoredTier<'a> {
    /// The run directory.
    pub dir: &'a Path,
    /// The tier.
    pub tier: Tier,
    /// Positions of the tier as stored.
    pub states: u64,
    /// Fingerprint of the game and ranking.
    pub fingerprint: u64,
    /// The tier's file record.
    pub file: &'a FileRecord,
}

impl StoredTier<'_> {
    /// Where the file lies.
    pub fn path(&self) -> PathBuf {
        self.dir.join(&self.file.file)
    }
}

/// What becomes of a finished tier beyond its raw table. The database layer provides the
/// sink that compresses a tier into the file a database ships
/// (the database layer's compressor); the solver records the file the sink returns in the
/// manifest, and asks the sink to check it, or to decode it, when a run resumes.
pub trait TierSink: Sync {
    /// Makes what a finished tier's table makes, in `dir`; returns the file to record. A
    /// mapped table's pages count toward the memory budget: read it in pieces and
    /// [`TableData::release`] them as you go. `flags`, when the successor pass's flags of the
    /// tier are known, says which positions are don't-care ([`super::flags`]).
    fn tier_finished(
        &self,
        dir: &Path,
        tier: Tier,
        fingerprint: u64,
        table: &TableData,
        flags: Option<&TierFlags>,
    ) -> Result<FileRecord>;

    /// Checks all of a file this sink made against its record.
    fn check(&self, stored: &StoredTier<'_>) -> Result<()>;

    /// Decodes a file this sink made back into the tier's entries, handed to `put` in index
    /// order (in pieces), for a run directory that holds no raw table of the tier. The file
    /// is checked against its record in the same read ([`TierSink::check`] need not come
    /// first); the check ends only with the last piece, so a caller keeps what `put` got
    /// only when `restore` returns `Ok`. `lower(tier, index)` gives the exact entries of the
    /// tiers below, restored before this one (entries a file stores as anything are recovered
    /// from them: a lookup in a table, where a probe of the lower files decoded a block).
    fn restore(
        &self,
        stored: &StoredTier<'_>,
        lower: &(dyn Fn(Tier, u64) -> Result<Entry> + Sync),
        put: &mut dyn FnMut(&[u16]) -> Result<()>,
    ) -> Result<()>;
}
