//! One tier end to end, in phases that checkpoint and resume.
//!
//! | phase          | unit of work (checkpoint opportunity) | writes                                   |
//! |----------------|---------------------------------------|------------------------------------------|
//! | successors     | a block of positions                  | cell logs, edge logs by target range, due logs by level and range |
//! | predecessors   | a range                               | the range's predecessor file             |
//! | attractor      | a level                               | cells in place (copy-on-write per checkpoint), due logs |
//! | finish         | the tier                              | the tier's table                          |
//!
//! A tier is cut into ranges of `2^range_bits` positions sized by the memory budget; every
//! phase holds at most one range's data (plus buffers) at a time, and reads and writes its
//! files sequentially. Append-only files are committed at checkpoints (length and CRC in the
//! manifest) and cut back to that length on resume. Cells are changed in place during the
//! attractor, but the first change to a range after a checkpoint happens in a copy (the other
//! slot), so the checkpointed slot is never modified. Checkpoints are taken when the configured
//! interval has passed since the last one, at the end of a unit of work; out of core also after
//! every range of the predecessor phase and once the attractor is done.
//!
//! Work files go as soon as no checkpoint needs them, so that a tier's disk peaks at the
//! larger of its two busiest moments rather than at their sum: a checkpoint deletes what it no
//! longer names (edge logs of ranges whose predecessor lists are built, due logs of finished
//! levels, each range's other cell slot, and after the attractor the predecessor files).
//!
//! Its modules: `pass` and `pass_tables` (successors), `blocksink`, `attractor`,
//! `emit_level` and `levels` (the attractor's loop), `messages`, `held`, `finish`,
//! `checkpoint`, `slots`, `resume`, `tables`, `lower`.

pub mod attractor;
pub(crate) mod blocksink;
pub mod cells;
pub(crate) mod cells_io;
pub mod checkpoint;
pub(crate) mod emit_level;
pub mod finish;
pub mod held;
pub(crate) mod levels;
pub mod lower;
pub mod messages;
pub mod packed;
pub mod pass;
pub mod pass_tables;
pub(crate) mod peak;
pub mod resume;
pub(crate) mod shared;
pub mod slots;
pub mod tables;
pub use lower::Lower;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::counts::{TierCounts, TierTimings};
use crate::plan::budget::{MemoryPlan, TierPlan};
use crate::tier::blocksink::{cell_log, BlockSink, Logged};
use crate::tier::cells::CellWidth;
use crate::tier::checkpoint::{Checkpoints, Phase, SlotRecord, TierState};
use crate::tier::held::HeldCells;
use crate::tier::pass::{pass_block, EdgesOut};
use crate::tier::pass_tables::PassTables;
use crate::work::edgelog;
use crate::work::graph::{key_bytes, moved_key_bytes, BuildSpare, EdgeCodec, PackedEdge, Preds};
use crate::work::predwrite::PredWriter;
use crate::work::{LogName, Slot, WorkFile};
use bawo_games::clock::{Spent, Stopwatch};
use bawo_games::error::{Error, Result};
use bawo_games::game::kept::KeptHalf;
use bawo_games::game::moved::MovedHalves;
use bawo_games::game::{Game, Tier};
use bawo_store::append::AppendLog;
use bawo_store::table;
use bawo_store::Checksum;

/// A solved tier: its table is on disk.
pub struct SolvedTier {
    /// The tier's counts.
    pub counts: TierCounts,
    /// Time of each pass.
    pub timings: TierTimings,
    /// The header of the tier's table.
    pub header: table::TableHeader,
    /// Bytes of the table file.
    pub bytes: u64,
}

/// Progress hooks for the phases of a tier.
pub trait TierProgress: Sync {
    /// A phase starts with `total` units of work (`done` of them already done, on resume;
    /// the attractor, of unknown length, gives 0 and the positions decided before the
    /// resume).
    fn phase(&self, _name: &str, _total: u64, _done: u64) {}
    /// `units` of work are done.
    fn advance(&self, _units: u64) {}
    /// Attractor level `level` decided `decided` positions.
    fn level_done(&self, _level: u32, _decided: u64) {}
}

/// Progress reports that go nowhere.
pub struct Silent;
impl TierProgress for Silent {}

/// How tiers are solved.
#[derive(Clone, Debug)]
pub struct TierOptions {
    /// The run's memory plan: each tier's ranges, the message budget.
    pub plan: MemoryPlan,
    /// Least time between checkpoints inside a tier (zero: at every opportunity).
    pub checkpoint_every: Duration,
    /// Where tiers keep their work files (a `tier-K` folder each).
    pub work_root: PathBuf,
}

/// One tier to solve: where its table goes and, when resuming, its checkpoint.
pub struct TierTask<'a> {
    /// The tier to solve.
    pub tier: Tier,
    /// The checkpoint to resume from, if any.
    pub resume: Option<TierState>,
    pub(crate) table_path: &'a Path,
}

/// Solves a tier (resuming from its checkpoint when given) and writes its table.
pub fn solve_tier<G: Game>(
    game: &G,
    task: TierTask<'_>,
    lower: &mut Lower<'_>,
    opts: &TierOptions,
    ckpt: &mut Checkpoints<'_>,
    progress: &dyn TierProgress,
) -> Result<SolvedTier> {
    let TierTask {
        tier,
        resume,
        table_path,
    } = task;
    let mut job = match resume {
        Some(st) => Job::resume(game, tier, st, opts)?,
        None => Job::start(game, tier, opts)?,
    };
    // Each phase starts with what the allocator kept of the last one's small buffers handed
    // back: the successor pass fills the budget with lower tiers' copies, the attractor with
    // held cells, and freed arena memory would count on top of them.
    bawo_store::heap::trim();
    if job.st.phase == Phase::Successors {
        let t = Stopwatch::start();
        let share = opts.plan.tier(tier).map_or(0, |t| t.pass_share);
        job.successors(lower, share, ckpt, progress)?;
        (job.timings.successors, job.timings.cpu[0]) = split(t.spent());
        bawo_store::heap::trim();
    }
    if job.st.phase == Phase::Predecessors {
        let t = Stopwatch::start();
        // The plan's overlap holds for the ranges it planned (a resumed tier keeps its own).
        let beside = opts.plan.tier(tier).is_some_and(|p| {
            p.write_beside && p.range_bits == job.st.range_bits && p.wide == job.st.wide
        });
        job.predecessors(beside, ckpt, progress)?;
        (job.timings.predecessors, job.timings.cpu[1]) = split(t.spent());
    }
    // Out of core the predecessor phase ends with a checkpoint: the pass is never run again
    // (a resident tier's lists may be in memory only, and the tier is small).
    if !job.resident {
        job.lower_freed = lower.retire()?;
    }
    bawo_store::heap::trim();
    let t = Stopwatch::start();
    // A tier that retired the lower tiers holds their share of the budget in cells too.
    let retired = lower.holds_nothing();
    let held_bytes = bawo_store::fault::held_cells()
        .unwrap_or_else(|| opts.plan.tier(tier).map_or(0, |t| t.held_cells(retired)));
    job.attract(held_bytes, ckpt, progress)?;
    (job.timings.attractor, job.timings.cpu[2]) = split(t.spent());
    bawo_store::heap::trim();
    let t = Stopwatch::start();
    progress.phase("finish", job.ranges as u64, 0);
    let fp = ckpt.manifest.fingerprint_value();
    let (counts, header, bytes) = job.finish(table_path, fp, progress)?;
    (job.timings.finish, job.timings.cpu[3]) = split(t.spent());
    job.timings.in_tier_edges = job.st.in_tier_edges;
    job.timings.ranges = job.ranges as u64;
    Ok(SolvedTier {
        counts,
        timings: job.timings,
        header,
        bytes,
    })
}

/// A phase's wall and CPU time, as [`TierTimings`] keeps them.
fn split(s: Spent) -> (Duration, Duration) {
    (s.wall, s.cpu)
}

/// What turns the keys of tier `tier`'s lists back into sources, where they store keys of
/// `keys` bytes: places in lists of moved halves in one or two bytes, ranks of mover halves in
/// three or four (as earlier builds wrote them); refused where the game offers none of that
/// width (a checkpoint of other rules).
pub(super) fn key_frames<G: Game>(game: &G, tier: Tier, keys: u8) -> Result<Option<KeptHalf>> {
    if keys == 0 {
        return Ok(None);
    }
    let mismatch = || {
        Error::Mismatch(format!(
            "tier {tier}'s predecessor lists store {keys}-byte keys, which these rules do not name"
        ))
    };
    let kept = game.kept_half(tier).ok_or_else(mismatch)?;
    if keys >= 3 {
        // Ranks of the sources' mover halves (checkpoints of earlier builds).
        return (key_bytes(kept.key_limit()) == keys)
            .then_some(Some(kept))
            .ok_or_else(mismatch);
    }
    let moves = MovedHalves::build(game, game.tier_seeds(tier)).ok_or_else(mismatch)?;
    if moved_key_bytes(moves.widest()) != keys {
        return Err(mismatch());
    }
    Ok(Some(kept.with_moves(std::sync::Arc::new(moves))))
}

/// A tier being solved: its checkpoint state and open work files. (Resuming one is in
/// [`crate::tier::resume`].)
pub(super) struct Job<'g, G: Game> {
    pub(super) game: &'g G,
    pub(super) tier: Tier,
    pub(super) st: TierState,
    pub(super) ranges: usize,
    pub(super) cell_logs: Vec<Option<AppendLog>>,
    pub(super) edge_logs: Vec<AppendLog>,
    pub(super) due: BTreeMap<(u32, usize), AppendLog>,
    /// Slot holding each range's current cells.
    pub(super) slot: Vec<Slot>,
    /// The current slot is referenced by the last checkpoint: copy before changing it.
    pub(super) pinned: Vec<bool>,
    /// Changed since the last checkpoint (its checksum must be taken again).
    pub(super) dirty: Vec<bool>,
    /// Out of core, where a range's current cells are packed while they have no plain file:
    /// from the successor pass until the attractor unpacks them (the slot of the packed file).
    pub(super) packed_now: Vec<Option<Slot>>,
    /// Predecessor files written since the last checkpoint (not yet synced).
    pub(super) unsynced_preds: Vec<usize>,
    /// Cells' checksums being taken for the next checkpoint ([`Job::start_settling`]).
    pub(super) settling: Option<slots::Settling>,
    /// Deletes the edge logs the predecessor phase's checkpoints let go.
    pub(super) deleter: crate::work::deleter::Deleter,
    /// One range: logs and predecessor lists stay in memory until a checkpoint needs them.
    pub(super) resident: bool,
    /// Out of core, the cells the attractor held in memory ([`crate::tier::held`]), kept for the
    /// table.
    pub(super) held: HeldCells,
    /// Predecessor lists held in memory (resident tiers), with whether this run has written
    /// them to their file yet (a checkpoint writes them; a stale file of a killed run is not
    /// theirs).
    pub(super) preds_mem: Vec<Option<(Preds, bool)>>,
    pub(super) message_budget: u64,
    pub(super) timings: TierTimings,
    /// Files of consumed logs (due logs of finished levels): deleted once a checkpoint that
    /// no longer names them is saved.
    pub(super) consumed: Vec<PathBuf>,
    /// Bytes of the lower tiers' files deleted once the pass was over ([`Lower::retire`]).
    pub(super) lower_freed: u64,
    /// Where the predecessor lists store keys ([`TierState::keys`]), what turns them back
    /// into sources.
    pub(super) keys: Option<KeptHalf>,
    /// The work folder's disk, sampled after ranges and levels ([`Job::note_disk`]).
    pub(super) gauge: crate::plan::disk::DiskGauge<(Phase, u64)>,
    /// The width of the cells the attractor works on out of core ([`TierState::narrow_cells`]).
    pub(super) width: CellWidth,
}

impl<'g, G: Game> Job<'g, G> {
    pub(super) fn range_len(&self, r: usize) -> usize {
        let start = (r as u64) << self.st.range_bits;
        (self.st.states - start).min(1u64 << self.st.range_bits) as usize
    }

    /// How this tier's indices split into ranges and its edges are packed.
    pub(super) fn codec(&self) -> EdgeCodec {
        EdgeCodec::new(self.st.wide, self.st.range_bits).with_keys(self.st.keys)
    }

    pub(super) fn path(&self, file: WorkFile) -> PathBuf {
        self.st.work.join(file.name())
    }

    pub(super) fn cells_path(&self, r: usize) -> PathBuf {
        self.path(WorkFile::Cells {
            range: r,
            slot: self.slot[r],
        })
    }

    pub(super) fn packed_path(&self, r: usize, slot: Slot) -> PathBuf {
        self.path(WorkFile::Packed { range: r, slot })
    }

    /// The file holding range `r`'s current cells, when they are in one: packed or plain.
    pub(super) fn current_cells_path(&self, r: usize) -> PathBuf {
        match self.packed_now[r] {
            Some(s) => self.packed_path(r, s),
            None => self.cells_path(r),
        }
    }

    fn start(game: &'g G, tier: Tier, opts: &TierOptions) -> Result<Self> {
        let states = game.tier_size(tier)?;
        let &TierPlan {
            range_bits,
            wide,
            keys,
            narrow_cells,
            ..
        } = opts
            .plan
            .tier(tier)
            .ok_or_else(|| Error::Internal(format!("tier {tier} is not in the memory plan")))?;
        if !EdgeCodec::new(wide, range_bits).fits(states) {
            return Err(Error::Internal(format!(
                "the plan's indices do not fit tier {tier} of {states} positions"
            )));
        }
        let work = opts.work_root.join(format!("tier-{tier:04}"));
        // Left over from an earlier start of this tier: only the solver's own files go.
        crate::work::remove_work_dir(&work)?;
        std::fs::create_dir_all(&work).map_err(|e| Error::io(&work, e))?;
        let work = std::fs::canonicalize(&work).map_err(|e| Error::io(&work, e))?;
        let ranges = states.div_ceil(1u64 << range_bits).max(1) as usize;
        let st = TierState {
            tier,
            states,
            range_bits,
            wide,
            keys,
            narrow_cells,
            phase: Phase::Successors,
            next: 0,
            work,
            logs: BTreeMap::new(),
            slots: Vec::new(),
            preds: Vec::new(),
            in_tier_edges: 0,
            decided: 0,
            format: crate::tier::checkpoint::WORK_FORMAT,
        };
        let mut job = Job::empty(game, tier, st, ranges, opts.plan.messages);
        job.keys = key_frames(game, tier, keys)?;
        for r in 0..ranges {
            let p = job.path(WorkFile::Edges(r));
            let log = AppendLog::create(&p)?;
            job.edge_logs
                .push(if job.resident { log.hold() } else { log });
        }
        Ok(job)
    }

    pub(super) fn empty(
        game: &'g G,
        tier: Tier,
        st: TierState,
        ranges: usize,
        message_budget: u64,
    ) -> Self {
        let width = CellWidth::narrow_if(st.narrow_cells);
        Job {
            game,
            tier,
            st,
            ranges,
            cell_logs: (0..ranges).map(|_| None).collect(),
            edge_logs: Vec::new(),
            due: BTreeMap::new(),
            slot: vec![Slot::A; ranges],
            pinned: vec![false; ranges],
            dirty: vec![false; ranges],
            packed_now: vec![None; ranges],
            unsynced_preds: Vec::new(),
            settling: None,
            deleter: Default::default(),
            resident: ranges == 1,
            preds_mem: (0..ranges).map(|_| None).collect(),
            held: HeldCells::default(),
            message_budget,
            timings: TierTimings::default(),
            consumed: Vec::new(),
            lower_freed: 0,
            keys: None,
            gauge: Default::default(),
            width,
        }
    }

    /// What logs a passed block and queues due positions: the job's logs of cells and due
    /// positions, borrowed apart from the edge logs the next block's pass appends to.
    fn block_sink(&mut self) -> BlockSink<'_> {
        BlockSink {
            work: &self.st.work,
            range_bits: self.st.range_bits,
            resident: self.resident,
            cell_logs: &mut self.cell_logs,
            due: &mut self.due,
        }
    }

    fn successors(
        &mut self,
        lower: &Lower<'_>,
        share: u64,
        ckpt: &mut Checkpoints<'_>,
        progress: &dyn TierProgress,
    ) -> Result<()> {
        let block = 1u64 << self.st.range_bits.min(20);
        let blocks = self.st.states.div_ceil(block);
        progress.phase(
            "successors",
            self.st.states,
            (self.st.next * block).min(self.st.states),
        );
        // A block logged beside the next one's pass is a second block's cells (4 bytes a
        // position) and due pieces (under 8 bytes a position) beside the one the fixed
        // overhead counts: they come out of the share for lower tiers, and a share too small
        // for them logs each block before the next is passed.
        let second_block = 12 * block;
        let pipelined = share >= 4 * second_block;
        let share = if pipelined {
            share - second_block
        } else {
            share
        };
        // Lower tiers in memory for this pass only (freed at its end, below).
        let pass_tables = PassTables::new(self.game, self.tier, lower.tables(), share)?;
        self.timings.lower = pass_tables.summary();
        // A block's cells are logged and its due positions queued while the next block is
        // passed (`rayon::join`): that serial work would otherwise leave a core idle between
        // blocks. A checkpoint is taken only once no block is pending, so the logs it records
        // (edges, cells, due lists) always cover the same blocks.
        let mut pending: Option<Logged> = None;
        let mut spare = Vec::new();
        let mut passed = self.st.next;
        while passed < blocks {
            let start = passed * block;
            let end = (start + block).min(self.st.states);
            let mut cells = std::mem::take(&mut spare);
            cells.clear();
            cells.resize((end - start) as usize, 0u32);
            let codec = self.codec();
            let (game, tier, edge_logs) = (self.game, self.tier, &self.edge_logs);
            let keys = self.keys.as_ref();
            let mut sink = BlockSink {
                work: &self.st.work,
                range_bits: self.st.range_bits,
                resident: self.resident,
                cell_logs: &mut self.cell_logs,
                due: &mut self.due,
            };
            let (logged, out) = rayon::join(
                || pending.take().map(|p| sink.log(p)).transpose(),
                || {
                    pass_block(
                        game,
                        tier,
                        &pass_tables,
                        start,
                        &mut cells,
                        EdgesOut {
                            codec,
                            keys,
                            logs: edge_logs,
                        },
                    )
                },
            );
            // A lower tier's file that could not be read looks unsolved to the pass.
            let out = out.map_err(|e| pass_tables.take_failure().unwrap_or(e))?;
            if let Some(buf) = logged? {
                spare = buf;
                self.st.next += 1;
            }
            self.st.in_tier_edges += out.edges;
            passed += 1;
            progress.advance(end - start);
            pending = Some(Logged {
                start,
                cells,
                due: out.due,
            });
            let due = ckpt.due();
            if due || !pipelined {
                if let Some(p) = pending.take() {
                    spare = self.block_sink().log(p)?;
                    self.st.next += 1;
                }
            }
            if due {
                self.checkpoint(ckpt)?;
            }
        }
        if let Some(p) = pending.take() {
            self.block_sink().log(p)?;
            self.st.next += 1;
        }
        drop(pass_tables);
        // The cell logs are complete: from here on they are the ranges' slot-a cells (out of
        // core, packed: the attractor unpacks them).
        for log in self.cell_logs.iter_mut() {
            if let Some(l) = log.take() {
                l.flush()?;
            }
        }
        let packed = !self.resident;
        for r in 0..self.ranges {
            let path = self.path(cell_log(self.resident, r).file());
            if !path.exists() {
                return Err(Error::Internal(format!("range {r} has no cells")));
            }
        }
        // The checksums are taken by the next checkpoint (every range is dirty).
        self.st.slots = (0..self.ranges)
            .map(|_| SlotRecord {
                slot: Slot::A,
                checksum: Default::default(),
                packed,
            })
            .collect();
        self.slot = vec![Slot::A; self.ranges];
        self.packed_now = vec![packed.then_some(Slot::A); self.ranges];
        self.dirty = vec![true; self.ranges];
        // A checkpoint taken during the pass refers to these files (a packed file is never
        // changed: the plain cells unpacked from it are).
        let pinned = self.st.logs.keys().any(|k| matches!(k, LogName::Cells(_)));
        self.pinned = vec![pinned; self.ranges];
        self.st.phase = Phase::Predecessors;
        self.st.next = 0;
        self.note_disk_now();
        Ok(())
    }

    /// Builds every range's predecessor lists; out of core with `write_beside`, each range's
    /// file is written while the next range is built ([`crate::work::predwrite`]).
    fn predecessors(
        &mut self,
        write_beside: bool,
        ckpt: &mut Checkpoints<'_>,
        progress: &dyn TierProgress,
    ) -> Result<()> {
        progress.phase("predecessors", self.ranges as u64, self.st.next);
        // Out of core, a checkpoint deletes the edge logs of the ranges built before it; one
        // after every range would wait for the disk (syncing the range's predecessor file and
        // the manifest) as often as there are ranges, with a core idle. So one is taken once
        // the built ranges' logs reach a share
        // of the tier's ([`crate::plan::space::LOG_SHARE_PER_CHECKPOINT`]) and after the last
        // range: the disk holds at most that share beside the predecessor files
        // ([`crate::plan::space::tier_disk`] counts it).
        //
        // With a writer beside, the checkpoint is taken when range `r` is handed to it, the
        // ranges before synced first: it names the ranges before `r` and keeps `r`'s
        // edge log, so `r`'s file is written while the next range is built. (Taken after
        // `r`'s file was done, it made every build wait for the disk in tiers of a few
        // ranges, where each range's logs pass the share.)
        let all_edges: u64 = self.edge_logs.iter().map(AppendLog::len).sum();
        let share = all_edges.div_ceil(crate::plan::space::LOG_SHARE_PER_CHECKPOINT);
        let beside = write_beside && !self.resident;
        let mut built_edges = 0u64;
        let mut writer = PredWriter::default();
        let mut spare = BuildSpare::default();
        self.start_settling();
        while (self.st.next as usize) < self.ranges {
            let r = self.st.next as usize;
            let log = &self.edge_logs[r];
            let log_bytes = log.len();
            let path = log.path().to_path_buf();
            let len = self.range_len(r);
            let codec = self.codec();
            // Read twice, never decoded into memory whole: building holds the grouped edges
            // and the result, what the memory plan counts. Every worker reads a run of the
            // log's pieces: cut at pieces from memory (a resident tier's log), or at the
            // appends the log marked in its file (each append is one piece), each run read
            // with its own buffer.
            let parts = 4 * rayon::current_num_threads();
            if let Some(lists) = writer.take_written() {
                spare.give(lists);
            }
            let held = log.with_memory(|bytes| -> Result<Preds> {
                let runs = edgelog::split(&path, bytes, parts)?;
                let read = |k: usize, f: &mut dyn FnMut(&[PackedEdge])| {
                    edgelog::for_each(codec, len, &path, &mut &bytes[runs[k].clone()], f)
                };
                Preds::build_parts(len, codec, runs.len(), &read, &mut spare)
            });
            let preds = match held {
                Some(preds) => preds?,
                None => log
                    .with_runs(parts, |file, runs| {
                        let read = |k: usize, f: &mut dyn FnMut(&[PackedEdge])| {
                            let mut rd = bawo_store::append::reader_at(file, runs[k].clone());
                            edgelog::for_each(codec, len, &path, &mut rd, f)
                        };
                        Preds::build_parts(len, codec, runs.len(), &read, &mut spare)
                    })?
                    .ok_or_else(|| {
                        Error::Internal(format!("range {r}'s edge log is neither held nor written"))
                    })??,
            };
            let sum = if self.resident {
                // Checksummed only if a checkpoint writes the file (most resident tiers
                // finish without one): hashing the lists costs a tenth of building them.
                self.preds_mem[r] = Some((preds, false));
                Checksum(0)
            } else if beside {
                // Its checksum is filled in when the writer is done, before any checkpoint
                // names it.
                let done = writer.start(r, preds, self.path(WorkFile::Preds(r)))?;
                self.written_preds(done);
                if built_edges >= share || ckpt.due() {
                    let done = writer.settle_older()?;
                    self.written_preds(done);
                    self.checkpoint(ckpt)?;
                    built_edges = 0;
                }
                Checksum(0)
            } else {
                let sum = preds.write(&self.path(WorkFile::Preds(r)), false)?;
                self.unsynced_preds.push(r);
                sum
            };
            self.st.preds.truncate(r);
            self.st.preds.push(sum);
            self.st.next += 1;
            progress.advance(1);
            built_edges += log_bytes;
            let last = self.st.next as usize == self.ranges;
            if last {
                self.note_disk_now();
            } else {
                self.note_disk();
            }
            let now = if beside {
                last
            } else {
                (!self.resident && (last || built_edges >= share)) || ckpt.due()
            };
            if now {
                let done = writer.finish()?;
                self.written_preds(done);
                self.checkpoint(ckpt)?;
                built_edges = 0;
            }
        }
        // The edge logs its checkpoints let go are gone before the phase ends.
        self.deleter.wait()?;
        // The checksums started with the phase, where no checkpoint came to take them.
        self.settle_ahead()?;
        self.st.phase = Phase::Attractor;
        self.st.next = 0;
        // Edge logs are not needed any more; files left are deleted by the next checkpoint
        // or with the work directory.
        self.edge_logs.clear();
        Ok(())
    }

    /// Records the checksums of ranges whose files the writer finished (written and synced).
    fn written_preds(&mut self, done: Vec<(usize, Checksum)>) {
        for (r, sum) in done {
            self.st.preds[r] = sum;
        }
    }
}
