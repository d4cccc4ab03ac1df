//! The manifest: the single source of truth for what a run directory holds.
//!
//! `manifest.json` names the game (its descriptor and fingerprint), the seed budget asked for,
//! and each finished tier with its counts, file and checksum. It is rewritten atomically after
//! every finished tier, so whatever it lists is complete on disk.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::solve::tier::TierCounts;

pub const FILE: &str = "manifest.json";
/// Version of the run-directory layout.
pub const FORMAT: u32 = 1;

/// One finished tier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierRecord {
    pub tier: u32,
    #[serde(flatten)]
    pub counts: TierCounts,
    /// Table file name inside the run directory.
    pub file: String,
    /// xxh3-64 of the table's entries, hex.
    pub checksum: String,
    /// The tier's compressed database file (`crate::db::format`); absent in directories
    /// written before such files existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bdb: Option<crate::db::format::BdbRecord>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    /// The game descriptor ([`crate::game::Game::descriptor`]).
    pub game: String,
    /// Fingerprint of the descriptor, hex.
    pub fingerprint: String,
    /// Seed budget the run was started with.
    pub seeds: u32,
    /// Finished tiers in solving order.
    pub tiers: Vec<TierRecord>,
    /// All tiers of the budget are finished.
    pub complete: bool,
}

impl Manifest {
    pub fn new(descriptor: &str, seeds: u32) -> Manifest {
        Manifest {
            format: FORMAT,
            game: descriptor.to_string(),
            fingerprint: format!("{:016x}", crate::store::fingerprint(descriptor)),
            seeds,
            tiers: Vec::new(),
            complete: false,
        }
    }

    pub fn path(dir: &Path) -> PathBuf {
        dir.join(FILE)
    }

    /// Reads the manifest of `dir`; `Ok(None)` when there is none.
    pub fn load(dir: &Path) -> Result<Option<Manifest>> {
        let path = Manifest::path(dir);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let m: Manifest = serde_json::from_str(&text)
            .map_err(|e| Error::corrupt(&path, format!("unreadable manifest: {e}")))?;
        if m.format != FORMAT {
            return Err(Error::Mismatch(format!(
                "{}: run directory format {}, this program reads format {FORMAT}",
                path.display(),
                m.format
            )));
        }
        if m.fingerprint != format!("{:016x}", crate::store::fingerprint(&m.game)) {
            return Err(Error::corrupt(
                &path,
                "fingerprint does not match the game descriptor",
            ));
        }
        Ok(Some(m))
    }

    /// Writes the manifest atomically.
    pub fn save(&self, dir: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("manifest serializes");
        super::write_atomic(&Manifest::path(dir), |w| {
            w.write_all(text.as_bytes())?;
            w.write_all(b"\n")
        })?;
        Ok(())
    }

    pub fn fingerprint_value(&self) -> u64 {
        crate::store::fingerprint(&self.game)
    }

    pub fn record(&self, tier: u32) -> Option<&TierRecord> {
        self.tiers.iter().find(|r| r.tier == tier)
    }
}

/// File name of a tier's raw table.
pub fn table_file(tier: u32) -> String {
    format!("tier-{tier:04}.tbl")
}
