//! The solver's checkpoint: what the manifest records of the tier in progress, and the clock
//! that decides when to take one.
//!
//! The store keeps these records without interpreting them ([`bawo_store::manifest`]); their
//! meaning is the solver's. [`Manifest`] and [`TierRecord`] name the store's generic manifest
//! with the solver's counts and checkpoint.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::counts::TierCounts;
use crate::work::{LogName, Slot};
use bawo_games::error::Result;
use bawo_store::append::Committed;
use bawo_store::Checksum;

/// A run directory's manifest as the solver writes it.
pub type Manifest = bawo_store::manifest::Manifest<TierCounts, TierState>;
/// A finished tier as the solver's manifest records it.
pub type TierRecord = bawo_store::manifest::TierRecord<TierCounts>;

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

impl Phase {
    /// Every phase, in order: a phase's place here is its index in
    /// [`crate::counts::TierTimings::checkpoints`].
    pub const ALL: [Phase; 3] = [Phase::Successors, Phase::Predecessors, Phase::Attractor];

    /// The phase's name, as reports and the manifest give it.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Successors => "successors",
            Phase::Predecessors => "predecessors",
            Phase::Attractor => "attractor",
        }
    }
}

/// Where one range's working cells live after the successor pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotRecord {
    /// Cells are copied to the other slot before the first change after a checkpoint, so the
    /// checkpointed slot is never modified; packed slots are written afresh at each
    /// checkpoint, into the slot the last one did not name.
    pub slot: Slot,
    /// Checksum of the slot file.
    pub checksum: Checksum,
    /// The slot is the range's packed file ([`crate::tier::packed`]), not its plain one: out
    /// of core, from the successor pass to the end of the attractor.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub packed: bool,
}

/// The checkpoint of the tier being solved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierState {
    /// The tier (its seeds).
    pub tier: u32,
    /// Positions in the tier.
    pub states: u64,
    /// Positions per range, as a power of two (fixed for the tier once chosen).
    pub range_bits: u32,
    /// Sources are stored in 40 bits ([`crate::work::graph::EdgeCodec`]); absent in checkpoints of
    /// versions that knew only 32-bit tiers.
    #[serde(default)]
    pub wide: bool,
    /// Bytes of a predecessor key where the lists store keys instead of sources
    /// ([`bawo_games::game::kept::KeptHalf`]): 1 or 2 for places in lists of moved halves, 3
    /// or 4 for ranks of mover halves (earlier builds); 0 (absent in checkpoints of earlier
    /// versions) where they store sources.
    #[serde(default)]
    pub keys: u8,
    /// Out of core, the plain cells are two bytes a position ([`crate::tier::cells`], a
    /// closed tier); absent (wide) in checkpoints of earlier versions.
    #[serde(default)]
    pub narrow_cells: bool,
    /// The pass the tier is in.
    pub phase: Phase,
    /// Successors: next block; predecessors: next range; attractor: next level.
    pub next: u64,
    /// Work directory of the tier: absolute in memory; in the file, relative to the run
    /// directory when it lies inside it.
    pub work: PathBuf,
    /// Append-only work files and their committed state.
    pub logs: BTreeMap<LogName, Committed>,
    /// Cell slots per range (from the predecessor phase on).
    pub slots: Vec<SlotRecord>,
    /// Checksums of the predecessor files built so far, by range.
    pub preds: Vec<Checksum>,
    /// Edges recorded by the successor pass so far.
    pub in_tier_edges: u64,
    /// Positions the attractor has decided by the checkpoint's level, so that a resumed
    /// run's progress counts them (0, absent, in checkpoints of earlier versions: the count
    /// then starts at the resume). Progress only: nothing is solved from it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub decided: u64,
    /// The work files' format ([`WORK_FORMAT`]); absent (0) in checkpoints of versions that
    /// wrote 8-byte edges, whose tier is solved again rather than misread.
    #[serde(default)]
    pub format: u32,
}

/// The format of the work files a checkpoint names: 1 since edge logs are compact pieces
/// ([`crate::work::edgelog`]), 2 since due logs are too ([`crate::work::duelog`]), 3 since
/// out-of-core cells are checkpointed packed ([`crate::tier::packed`]), 4 since a wide tier's
/// predecessor sources are five bytes ([`crate::work::graph::U40`]), 5 since lists may store
/// keys ([`TierState::keys`], which a version that reads format 4 would take for sources),
/// 6 since a closed tier's plain cells may be two bytes ([`TierState::narrow_cells`], which a
/// version that reads format 5 would take for four).
pub const WORK_FORMAT: u32 = 6;

/// Whether this version reads the work files of a checkpoint: those of [`WORK_FORMAT`], of
/// format 5 (four-byte cells), of format 4 (sources, never keys), and of format 3 in a narrow tier (only wide tiers' files
/// changed since).
pub fn readable_format(st: &TierState) -> bool {
    match st.format {
        WORK_FORMAT => true,
        5 => !st.narrow_cells,
        4 => st.keys == 0 && !st.narrow_cells,
        3 => st.keys == 0 && !st.wide && !st.narrow_cells,
        _ => false,
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl bawo_store::manifest::Checkpoint for TierState {
    fn work_dir_mut(&mut self) -> Option<&mut PathBuf> {
        Some(&mut self.work)
    }
}

/// Least time between checkpoints of an out-of-core attractor ([`Checkpoints::attractor_due`]):
/// a resume redoes at most this much of it.
pub const ATTRACTOR_CHECKPOINT_EVERY: Duration = Duration::from_secs(600);

/// The manifest and the clock of checkpoints, shared by the tiers of a run.
pub struct Checkpoints<'a> {
    /// The manifest checkpoints are saved to.
    pub manifest: &'a mut Manifest,
    /// The run directory.
    pub dir: &'a Path,
    /// Time between checkpoints.
    pub every: Duration,
    /// When the last checkpoint was taken.
    pub last: Instant,
    /// Checkpoints taken.
    pub taken: u64,
}

impl Checkpoints<'_> {
    /// The configured interval has passed since the last checkpoint.
    pub fn due(&self) -> bool {
        self.last.elapsed() >= self.every
    }

    /// Whether an out-of-core attractor checkpoints after a level. There a checkpoint costs
    /// more than its own writes: every range that changes after it is first copied (4 bytes
    /// per position, the largest share of a long tier's writes; only changed ranges are
    /// copied, so a checkpoint cannot write less), so checkpoints come at most every
    /// [`ATTRACTOR_CHECKPOINT_EVERY`], unless asked for at every opportunity (interval 0).
    pub fn attractor_due(&self) -> bool {
        self.every.is_zero() || self.last.elapsed() >= self.every.max(ATTRACTOR_CHECKPOINT_EVERY)
    }

    /// Saves `state` (or none, between tiers) to the manifest.
    pub fn save(&mut self, state: Option<TierState>) -> Result<()> {
        self.manifest.current = state;
        self.manifest.save(self.dir)?;
        self.last = Instant::now();
        self.taken += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_out_of_core_attractor_checkpoints_at_most_every_ten_minutes_unless_asked_always() {
        let mut manifest = Manifest::new("test", 1);
        let dir = Path::new("unused");
        let at = |every: u64, ago: u64| {
            Checkpoints {
                manifest: &mut Manifest::new("test", 1),
                dir,
                every: Duration::from_secs(every),
                last: Instant::now() - Duration::from_secs(ago),
                taken: 0,
            }
            .attractor_due()
        };
        // The default interval: due elsewhere after a minute, in the attractor after ten.
        assert!(!at(60, 61) && !at(60, 599) && at(60, 601));
        // A longer interval is kept; 0 still checkpoints at every level (the kill tests).
        assert!(!at(900, 700) && at(900, 901) && at(0, 0));
        let c = Checkpoints {
            manifest: &mut manifest,
            dir,
            every: Duration::from_secs(60),
            last: Instant::now() - Duration::from_secs(61),
            taken: 0,
        };
        assert!(c.due() && !c.attractor_due());
    }
}
