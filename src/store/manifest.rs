//! The manifest: the single source of truth for what a run directory holds.
//!
//! `manifest.json` names the game (its descriptor and fingerprint), the seed budget asked for,
//! each finished tier with its counts, file and checksum, and the checkpoint of the tier in
//! progress ([`TierState`]). It is rewritten atomically after every finished tier and every
//! checkpoint inside a tier, so whatever it lists is complete on disk.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::append::Committed;
use crate::error::{Error, Result};
use crate::solve::tier::TierCounts;

pub const FILE: &str = "manifest.json";
/// Version of the run-directory layout (3: the manifest carries its own checksum).
pub const FORMAT: u32 = 3;

/// Phases of a tier, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Generating successors, block by block.
    Successors,
    /// Building predecessor lists, range by range.
    Predecessors,
    /// Propagating values, level by level.
    Attractor,
}

/// Where one range's working cells live after the successor pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotRecord {
    /// `a` or `b`: cells are copied to the other slot before the first change after a
    /// checkpoint, so the checkpointed slot is never modified.
    pub slot: String,
    /// xxh3-64 of the slot file, hex.
    pub checksum: String,
}

/// The checkpoint of the tier being solved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierState {
    pub tier: u32,
    pub states: u64,
    /// Positions per range, as a power of two (fixed for the tier once chosen).
    pub range_bits: u32,
    pub phase: Phase,
    /// Successors: next block; predecessors: next range; attractor: next level.
    pub next: u64,
    /// Work directory of the tier: absolute in memory; in the file, relative to the run
    /// directory when it lies inside it (so that a moved or copied run directory resumes on
    /// its own work files).
    pub work: PathBuf,
    /// Append-only work files (relative to `work`) and their committed state.
    pub logs: BTreeMap<String, Committed>,
    /// Cell slots per range (from the predecessor phase on).
    pub slots: Vec<SlotRecord>,
    /// Checksums (xxh3-64, hex) of the predecessor files built so far, by range.
    pub preds: Vec<String>,
    /// Edges recorded by the successor pass so far.
    pub in_tier_edges: u64,
}

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
    /// Checkpoint of the tier in progress, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<TierState>,
    /// xxh3-64 (hex) of the manifest as written with this field empty: a hand edit that
    /// still parses (a checkpoint level, a count) is refused instead of trusted.
    #[serde(default)]
    pub checksum: String,
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
            current: None,
            checksum: String::new(),
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
        let mut m: Manifest = serde_json::from_str(&text)
            .map_err(|e| Error::corrupt(&path, format!("unreadable manifest: {e}")))?;
        if m.format == FORMAT && m.checksum != m.content_checksum() {
            return Err(Error::corrupt(
                &path,
                "manifest does not match its checksum",
            ));
        }
        if m.format != FORMAT {
            return Err(Error::Mismatch(format!(
                "{}: run directory format {}, this program reads format {FORMAT}; solve again \
                 into a new directory",
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
        if let Some(c) = &mut m.current {
            if c.work.is_relative() {
                let base = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
                c.work = base.join(&c.work);
            }
        }
        Ok(Some(m))
    }

    /// Writes the manifest atomically. Every save is a checkpoint (for fault injection).
    pub fn save(&self, dir: &Path) -> Result<()> {
        let inside = self.current.as_ref().and_then(|c| {
            let base = std::fs::canonicalize(dir).ok()?;
            c.work.strip_prefix(base).ok().map(Path::to_path_buf)
        });
        let mut m = self.clone();
        if let Some(rel) = inside {
            m.current.as_mut().expect("checked above").work = rel;
        }
        m.checksum = m.content_checksum();
        let text = serde_json::to_string_pretty(&m).expect("manifest serializes");
        super::write_atomic(&Manifest::path(dir), |w| {
            w.write_all(text.as_bytes())?;
            w.write_all(b"\n")
        })?;
        super::fault::checkpoint_written();
        Ok(())
    }

    /// Checksum of the manifest's content with the checksum field empty.
    fn content_checksum(&self) -> String {
        let mut m = self.clone();
        m.checksum = String::new();
        let text = serde_json::to_string(&m).expect("manifest serializes");
        format!("{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
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
