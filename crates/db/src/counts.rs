//! What a solved tier counts (the manifest records it) and how long its phases took.

use std::time::Duration;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use bawo_games::game::POSITIONS_PER_ENTRY;
use bawo_games::value::{Entry, Value};

/// Counts of one solved tier (values for the side to move). The manifest records the counts
/// of the stored entries (`states` is the table's length); what users are shown counts the
/// positions of both sides, [`TierCounts::both_sides`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierCounts {
    /// Seeds on the board.
    pub seeds: u32,
    /// Positions of both sides to move.
    pub states: u64,
    /// Positions won for the side to move.
    pub win: u64,
    /// Positions lost for the side to move.
    pub loss: u64,
    /// Drawn positions.
    pub draw: u64,
    /// Longest win or loss, in plies.
    pub max_depth: u32,
}

/// One finished tier's counts as users see them (positions of both sides to move), with its
/// tier: a tier of `stats --json` without the depth histograms, as `bawo serve`'s `/api/dbs`
/// and the Python package's `db.tiers` give it, read from the manifest alone. In JSON the
/// counts' keys sit beside `tier`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TierSummary {
    /// The tier (its seeds).
    pub tier: u32,
    /// Its counts, positions of both sides to move.
    #[serde(flatten)]
    pub counts: TierCounts,
}

impl TierSummary {
    /// The summary of `tier` whose manifest counts (of stored entries) are `counts`.
    pub fn of(tier: u32, counts: &TierCounts) -> TierSummary {
        TierSummary {
            tier,
            counts: counts.both_sides(),
        }
    }
}

impl TierCounts {
    /// The counts of the positions the entries stand for, either side to move: each entry is
    /// a position with A to move and its mirror with B to move, which has the same value and
    /// depth, so every count but the longest depth is multiplied.
    pub fn both_sides(&self) -> TierCounts {
        TierCounts {
            seeds: self.seeds,
            states: self.states * POSITIONS_PER_ENTRY,
            win: self.win * POSITIONS_PER_ENTRY,
            loss: self.loss * POSITIONS_PER_ENTRY,
            draw: self.draw * POSITIONS_PER_ENTRY,
            max_depth: self.max_depth,
        }
    }

    /// Adds a run of final entries.
    pub fn add(&mut self, entries: &[u16]) {
        let part = entries
            .par_chunks(1 << 16)
            .map(TierCounts::of_entries)
            .reduce(TierCounts::default, TierCounts::merged);
        self.merge(&part);
    }

    /// The counts of a run of final entries, on the calling thread (one worker's share).
    pub fn of_entries(entries: &[u16]) -> TierCounts {
        let mut c = TierCounts {
            states: entries.len() as u64,
            ..TierCounts::default()
        };
        for &e in entries {
            let e = Entry(e);
            match e.value() {
                Some(Value::Win) => c.win += 1,
                Some(Value::Loss) => c.loss += 1,
                _ => c.draw += 1,
            }
            c.max_depth = c.max_depth.max(e.depth().unwrap_or(0));
        }
        c
    }

    /// [`TierCounts::merge`] by value, as a reduction takes it.
    pub fn merged(mut self, other: TierCounts) -> TierCounts {
        self.merge(&other);
        self
    }

    /// Adds another run's counts (the seeds stay this one's).
    pub fn merge(&mut self, other: &TierCounts) {
        self.states += other.states;
        self.win += other.win;
        self.loss += other.loss;
        self.draw += other.draw;
        self.max_depth = self.max_depth.max(other.max_depth);
    }
}

/// What solving one tier cost in disk, for reports and for cutting both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TierIo {
    /// Seeds on the board.
    pub seeds: u32,
    /// Bytes the process wrote while it solved the tier: work files (also those deleted before
    /// they reached the disk), raw table, compressed file.
    pub bytes_written: u64,
    /// The run's disk at the tier's end, before its work files are removed: finished tiers,
    /// this tier's work files, table and compressed file.
    pub peak_disk: u64,
}

/// A tier's disk by kind of file: where the bytes of its work files go, so that the largest
/// can be found and cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct WorkDisk {
    /// Plain working cells (4 bytes a position), both copies of a range where a checkpoint
    /// keeps one.
    pub cells: u64,
    /// Cells packed with zstd: out of core, what checkpoints name.
    pub packed: u64,
    /// In-tier edge logs of the successor pass.
    pub edges: u64,
    /// Predecessor lists.
    pub preds: u64,
    /// Due logs: positions queued for the attractor's levels.
    pub due: u64,
    /// Level messages spilled to disk.
    pub messages: u64,
    /// The tier's raw table (and flags), written at its end.
    pub table: u64,
}

impl WorkDisk {
    /// All of it.
    pub fn total(&self) -> u64 {
        self.cells + self.packed + self.edges + self.preds + self.due + self.messages + self.table
    }
}

/// Time and volume of each phase of a tier, for reports and benchmarks.
#[derive(Debug, Clone, Default)]
pub struct TierTimings {
    /// Time of the successor pass.
    pub successors: Duration,
    /// Time of the predecessor pass.
    pub predecessors: Duration,
    /// Time of the attractor.
    pub attractor: Duration,
    /// Time of finishing the table.
    pub finish: Duration,
    /// Process CPU time of each phase (successors, predecessors, attractor, finish): with
    /// the wall times above, how many cores each phase kept busy.
    pub cpu: [Duration; 4],
    /// Edges within the tier.
    pub in_tier_edges: u64,
    /// Levels of the attractor.
    pub levels: u32,
    /// Ranges the tier was split into.
    pub ranges: u64,
    /// Bytes of the tier's work files at their largest (sampled after each phase's units of
    /// work), with its raw table at the end: the tier's own part of the run's peak disk.
    pub peak_work_disk: u64,
    /// Where the bytes of that peak were, by kind of file.
    pub peak_work: WorkDisk,
    /// The phase at that peak: `successors`, `predecessors`, `attractor` or `finish`.
    pub peak_phase: &'static str,
    /// Bytes of the lower tiers' files the tier had deleted by then (the last tier retires
    /// their raw tables after its pass): the peak is the one of the whole disk, work files
    /// less these.
    pub peak_lower_freed: u64,
    /// Lower tiers held in memory during the successor pass.
    pub lower: CopySummary,
    /// Time compressing the tier's table into the database's file.
    pub compress: Duration,
    /// The tier was compressed on a thread of its own beside the next tier's solve (else
    /// before the next tier started).
    pub compressed_beside: bool,
    /// Ranges whose cells the attractor held in memory (out of core, `bawo_solve::tier::held`).
    pub held_ranges: u64,
    /// Checkpoints taken in each phase (successors, predecessors, attractor) and the wall
    /// time they took, the packing of the attractor's cells for them included: the workers
    /// wait for most of it.
    pub checkpoints: [(u32, Duration); 3],
}

/// How much of the lower tiers one pass holds in memory.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CopySummary {
    /// Bytes of lower tiers in all.
    pub lower_bytes: u64,
    /// Bytes of lower tiers' entries (2 each) that the pass finds in memory: copies and
    /// tables already in memory.
    pub in_memory: u64,
    /// Bytes those take in memory (copies coded in a byte an entry take half).
    pub held: u64,
    /// Share of the sampled lookups that the memory serves.
    pub sampled_hits: f64,
}
