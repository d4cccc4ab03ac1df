//! The memory budget (`--mem`) and the run's [`MemoryPlan`]: how each tier is cut into ranges
//! that fit it, and what the rest of the budget goes to.
//!
//! Everything a tier needs per position lives in range-sized windows: working cells (4 bytes),
//! predecessor offsets (4 bytes) and lists (4 bytes per edge, 5 in a tier of more than 2^32
//! positions), edges while predecessors are built (8 bytes per edge), and a second copy of the
//! cells while a checkpointed range is copied before its first change. The planner estimates edges per position from a sample,
//! sizes the window so the busiest phase fits the budget after the reserve for lower tiers'
//! maps, the level messages and a fixed overhead, and rounds it down to a power of two.

use crate::plan::shape::TierShape;
use crate::plan::window::{attractor_bits, attractor_working, per_position, writing_per_position};
use crate::work::graph::max_wide_range_bits;

/// Bytes kept back for the binary itself, thread stacks, the allocator, the work logs'
/// buffers (at most [`bawo_store::append::ALL_BUFFERS`] together), a block of the
/// successor pass and the least room for mapped lower-tier pages
/// ([`crate::tier::tables::MIN_MAPPED`]).
pub const FIXED_OVERHEAD: u64 = 96 << 20;

/// Smallest range worth planning for.
pub const MIN_RANGE_BITS: u32 = 10;
/// Largest range: messages carry a range-local index in 30 bits.
pub const MAX_RANGE_BITS: u32 = 30;
/// Most in-tier edges planned into one range: predecessor offsets inside a range are `u32`,
/// and this leaves a factor of two for tiers whose degree the sample underestimates.
pub const MAX_RANGE_EDGES: f64 = (1u64 << 31) as f64;

/// Level messages kept in memory before they spill to disk: an eighth of the budget.
const MESSAGE_SHARE: u64 = 8;
/// Lower tiers are copied into memory while they take at most a quarter of the budget.
const RESIDENT_SHARE: u64 = 4;

/// The largest range a tier's indices allow: messages' 30-bit offsets, `u32` predecessor
/// offsets (at most [`MAX_RANGE_EDGES`] edges), and in a wide tier the bits its sources leave
/// in a packed edge.
fn index_range_bits(t: &TierShape) -> u32 {
    let by_edges = fitting_bits(MAX_RANGE_EDGES as u64, t.edges_per_position.max(1.0));
    let by_sources = if t.wide {
        max_wide_range_bits(t.states)
    } else {
        MAX_RANGE_BITS
    };
    MAX_RANGE_BITS.min(by_edges).min(by_sources)
}

pub use bawo_games::error::MemoryError;

/// How one tier is cut into ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TierPlan {
    /// The tier (its seeds).
    pub tier: u32,
    /// Positions in the tier.
    pub states: u64,
    /// Positions per range, as a power of two.
    pub range_bits: u32,
    /// Ranges the tier is split into.
    pub ranges: u64,
    /// Predecessor sources are 40-bit ([`crate::work::graph::EdgeCodec`]).
    pub wide: bool,
    /// Bytes of a predecessor key, 0 where lists store sources ([`TierShape::keys`]).
    pub keys: u8,
    /// Cells of two bytes ([`TierShape::narrow_cells`]), out of core only: a tier of one
    /// range keeps its four-byte cells mapped.
    pub narrow_cells: bool,
    /// Bytes the tier's successor pass may hold lower tiers in (copies, tables kept in
    /// memory, anchored bits): the budget less the fixed overhead, and in a tier of one
    /// range less that range's window too, whose logs stay in memory during the pass. The
    /// pass needs no range window out of core, nor level messages, and lower tiers are
    /// freed before the phases that do ([`crate::tier::pass_tables`]). Less one compressing
    /// worker's buffers where the tier below is compressed meanwhile (`compress_beside`).
    pub pass_share: u64,
    /// The tier below may be compressed while this one is solved: one compressing worker's
    /// buffers ([`compression_bytes`]) fit beside this tier's busiest phase. Where they do
    /// not, the tier below is compressed before this one starts, as the last tier always is.
    pub compress_beside: bool,
    /// Out of core, a range's predecessor lists are written while the next range's are built
    /// ([`crate::work::predwrite`]): both ranges' lists, the grouped edges and the worker
    /// compressing the tier below fit the budget (`writing_per_position`).
    pub write_beside: bool,
    /// Bytes of cells the attractor may hold in memory from level to level
    /// ([`crate::tier::held`]): out of core, what the budget leaves beside the fixed overhead, the
    /// lower tiers' share, the level messages, the range being worked on and the worker
    /// compressing the tier below where it may run meanwhile.
    pub attractor_cells: u64,
    /// Bytes of the budget kept for the lower tiers beside this tier (their anchored bits, and
    /// their tables where the run keeps them in memory): free in the attractor of a tier that
    /// has retired them ([`crate::tier::Lower::retire`]), whose held cells take them
    /// ([`TierPlan::held_cells`]).
    pub lower_reserve: u64,
}

impl TierPlan {
    /// Bytes of cells the attractor holds: [`TierPlan::attractor_cells`], and out of core in a
    /// tier that has `retired` the lower tiers, their share too (Bawo `n = 4`, 20 seeds,
    /// `--mem 4G`: 0.5 GB of anchored bits, 50 ranges held of 194 instead of 42).
    pub fn held_cells(&self, retired: bool) -> u64 {
        if retired && self.ranges > 1 {
            self.attractor_cells + self.lower_reserve
        } else {
            self.attractor_cells
        }
    }

    /// The share of the tier's cells ([`TierPlan::cell_bytes`] a position) its attractor
    /// holds in memory ([`TierPlan::held_cells`]): all of them in a tier of one range.
    pub fn held_share(&self, retired: bool) -> f64 {
        if self.ranges == 1 {
            return 1.0;
        }
        let all = self.cell_bytes() * self.states;
        (self.held_cells(retired) as f64 / all.max(1) as f64).min(1.0)
    }

    /// Bytes a position of the attractor's cells out of core: 2 where they are narrow.
    pub fn cell_bytes(&self) -> u64 {
        if self.narrow_cells {
            2
        } else {
            4
        }
    }
}

/// The memory plan of a run, computed once from `--mem` before any work: every tier's ranges
/// and the shares of the budget that the rest takes. Every use of the budget reads it here.
///
/// | share                | bytes                                                         |
/// |----------------------|---------------------------------------------------------------|
/// | fixed overhead       | [`FIXED_OVERHEAD`]: buffers, thread stacks, allocator, binary  |
/// | level messages       | an eighth of the budget (at least 1 MiB), then they spill     |
/// | lower tiers          | a quarter of the budget: copied tiers and mapped pages together (during a successor pass: what the pass does not need, [`TierPlan::pass_share`]) |
/// | a tier's range       | the rest: the largest power-of-two range whose windows fit    |
/// | compression          | after a tier's work is freed: a block per worker, streamed; as many workers as fit (up to the threads) |
/// | compression beside   | one worker's buffers, while the next tier is solved, where they fit beside its busiest phase ([`TierPlan::compress_beside`]) |
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryPlan {
    /// The memory budget, in bytes.
    pub budget: u64,
    /// Bytes of level messages held in memory before they spill to disk.
    pub messages: u64,
    /// Lower tiers are copied into memory while all of them take at most this many bytes.
    pub resident_lower: u64,
    /// Whether the run keeps its finished tiers in memory: where all of them fit
    /// [`MemoryPlan::resident_lower`] and the budget still holds every tier's ranges beside
    /// them (else a budget that holds a run would refuse it for being larger).
    keep_lower: bool,
    /// Every tier of the run, in solving order.
    pub tiers: Vec<TierPlan>,
    /// Blocks compressed at once when a tier is finished (a worker thread each).
    pub compress_workers: usize,
}

/// The margin on a sample's in-tier edges per position that the memory plan takes
/// ([`TierShape::edges_per_position`]): tiers vary within themselves, and a range with more
/// edges than planned would pass the memory cap. The disk model takes the sample as it is
/// ([`crate::plan::space`]): it is an estimate, not a cap.
pub const EDGE_MARGIN: f64 = 1.25;

impl MemoryPlan {
    /// Plans `tiers` (in solving order) within `budget`. `range_bits` overrides the planned
    /// range size (tests, benchmarks) where the override fits the budget too; compression
    /// buffers for one worker must fit beside the fixed overhead (up to `threads` are used where
    /// they fit).
    pub fn new(
        budget: u64,
        range_bits: Option<u32>,
        threads: usize,
        tiers: &[TierShape],
    ) -> Result<MemoryPlan, MemoryError> {
        // Raw bytes of every tier below the last: whether the run keeps them in memory.
        let all_lower: u64 = tiers.iter().rev().skip(1).map(|t| 2 * t.states).sum();
        let keep = all_lower <= budget / RESIDENT_SHARE;
        match Self::plan(budget, range_bits, threads, tiers, keep) {
            // Kept tiers take room the ranges need: the run reads them from their files.
            Err(_) if keep => Self::plan(budget, range_bits, threads, tiers, false),
            planned => planned,
        }
    }

    /// [`MemoryPlan::new`], keeping the lower tiers in memory or not as `keep` says.
    fn plan(
        budget: u64,
        range_bits: Option<u32>,
        threads: usize,
        tiers: &[TierShape],
        keep: bool,
    ) -> Result<MemoryPlan, MemoryError> {
        let messages = message_budget(budget);
        let resident_lower = budget / RESIDENT_SHARE;
        let mut lower = 0u64;
        let mut planned = Vec::with_capacity(tiers.len());
        // The tier that needs the largest budget, what for, and that budget in MiB.
        let mut hardest: Option<(u32, u64, &str, u64)> = None;
        let mut refused = false;
        for t in tiers {
            let reserve = lower_reserve(lower, keep);
            let fixed = FIXED_OVERHEAD + reserve + messages + t.key_table;
            let source = crate::work::graph::list_source_bytes(t.wide, t.keys) as f64;
            let per = per_position(t.edges_per_position, source);
            let need_bits = t.states.max(1).next_power_of_two().trailing_zeros();
            let max_bits = index_range_bits(t);
            // The range the budget must hold: the override's, or the smallest worth planning.
            let (bits, window_bits) = match range_bits {
                Some(b) => {
                    let b = b.min(max_bits);
                    (b, b.min(need_bits))
                }
                None => {
                    let fit = fitting_bits(budget.saturating_sub(fixed), per)
                        .min(need_bits)
                        .min(max_bits);
                    let least = MIN_RANGE_BITS.min(need_bits).min(max_bits);
                    (fit.max(least), least)
                }
            };
            let window = per * (1u64 << window_bits) as f64;
            // One compressing worker at least; more where the budget holds them.
            let compress = compression_bytes(1) as f64;
            let ranges_mib = least_budget(lower, |b| {
                message_budget(b) as f64 + window + t.key_table as f64
            });
            let compress_mib = least_budget(lower, |_| compress);
            refused |= fixed as f64 + window > budget as f64
                || (FIXED_OVERHEAD + reserve) as f64 + compress > budget as f64;
            for (what, mib) in [("ranges", ranges_mib), ("compression", compress_mib)] {
                if hardest.is_none_or(|h| mib > h.3) {
                    hardest = Some((t.tier, t.states, what, mib));
                }
            }
            let bits = match range_bits {
                Some(_) => bits,
                None => {
                    attractor_bits(t, bits, budget.saturating_sub(fixed + compression_bytes(1)))
                }
            };
            let ranges = t.states.div_ceil(1u64 << bits).max(1);
            let held = if ranges == 1 {
                (per * t.states as f64) as u64
            } else {
                0
            };
            // The busiest phase with the range planned (a power of two below what fits, so
            // often with room to spare): the tier below is compressed meanwhile only where a
            // worker's buffers fit that room too, and never below the first tier.
            let busiest = fixed as f64 + per * (1u64 << bits.min(need_bits)) as f64;
            let beside = compression_bytes(1);
            let compress_beside = !planned.is_empty() && busiest + beside as f64 <= budget as f64;
            let writing = fixed as f64
                + writing_per_position(t.edges_per_position, source)
                    * (1u64 << bits.min(need_bits)) as f64
                + if compress_beside { beside as f64 } else { 0.0 };
            let write_beside = ranges > 1 && writing <= budget as f64;
            // The range worked on beside the held cells ([`attractor_working`]), and the
            // worker compressing the tier below, which may still run during the attractor.
            let working = attractor_working(t.edges_per_position, source) * (1u64 << bits) as f64;
            let attractor_cells = if ranges == 1 {
                0
            } else {
                budget.saturating_sub(
                    fixed + working as u64 + if compress_beside { beside } else { 0 },
                )
            };
            planned.push(TierPlan {
                tier: t.tier,
                states: t.states,
                range_bits: bits,
                ranges,
                wide: t.wide,
                keys: t.keys,
                narrow_cells: t.narrow_cells && ranges > 1,
                pass_share: budget.saturating_sub(
                    FIXED_OVERHEAD + held + if compress_beside { beside } else { 0 },
                ),
                compress_beside,
                write_beside,
                attractor_cells,
                lower_reserve: reserve,
            });
            lower += 2 * t.states;
        }
        if let Some((tier, states, what, least_mib)) = hardest {
            if refused {
                let why = if budget <= FIXED_OVERHEAD + messages {
                    format!(
                        "leaves no room beside the solver's buffers (about {} MiB)",
                        (FIXED_OVERHEAD + messages) >> 20
                    )
                } else if what == "ranges" {
                    format!("is too small for tier {tier} of {states} positions")
                } else {
                    "cannot hold the buffers that compress a tier".to_string()
                };
                return Err(MemoryError {
                    budget,
                    tier,
                    why,
                    least_mib,
                });
            }
        }
        Ok(MemoryPlan {
            budget,
            messages,
            resident_lower,
            keep_lower: keep,
            tiers: planned,
            compress_workers: compress_workers(budget, lower_reserve(lower, keep), threads),
        })
    }

    /// The plan of `tier`.
    pub fn tier(&self, tier: u32) -> Option<&TierPlan> {
        self.tiers.iter().find(|t| t.tier == tier)
    }

    /// Whether lower tiers of `lower_bytes` in all are copied into memory.
    pub fn lower_resident(&self, lower_bytes: u64) -> bool {
        self.keep_lower && lower_bytes <= self.resident_lower
    }

    /// Raw-table bytes of every tier below the run's last: what its passes look up.
    pub fn lower_bytes(&self) -> u64 {
        let n = self.tiers.len().saturating_sub(1);
        self.tiers[..n].iter().map(|t| 2 * t.states).sum()
    }

    /// Whether a run keeps its finished tiers in memory from one tier to the next: when all
    /// of them fit the lower tiers' share. Otherwise it keeps none, and each successor pass
    /// copies for itself what its own share holds ([`TierPlan::pass_share`]), chosen for
    /// that pass, rather than the tiers that happened to come first.
    pub fn keeps_lower(&self) -> bool {
        self.lower_resident(self.lower_bytes())
    }
}

/// Level messages held in memory: an eighth of the budget, at least 1 MiB (or what the
/// `BAWO_MESSAGE_BUDGET` test knob says, [`bawo_store::fault`]).
pub fn message_budget(budget: u64) -> u64 {
    bawo_store::fault::message_budget().unwrap_or((budget / MESSAGE_SHARE).max(1 << 20))
}

/// The largest range, as a power of two, whose windows of `per` bytes per position fit in
/// `usable` bytes (capped at [`MAX_RANGE_BITS`]; 0 when nothing fits).
fn fitting_bits(usable: u64, per: f64) -> u32 {
    let fit = (usable as f64 / per) as u64;
    (63 - fit.max(1).leading_zeros()).min(MAX_RANGE_BITS)
}

/// What lower tiers of `lower` raw bytes hold beside a tier's ranges and compression: their
/// anchored bits (a bit per entry), and the tables themselves where the run `keep`s them in
/// memory ([`MemoryPlan::keeps_lower`]; else each successor pass copies its own and frees them
/// before the ranges are worked on).
fn lower_reserve(lower: u64, keep: bool) -> u64 {
    let anchored = lower / 16;
    if keep {
        lower + anchored
    } else {
        anchored
    }
}

/// The least budget, in MiB, that holds the fixed overhead, the anchored bits of `lower` bytes
/// of lower tiers and `other(budget)` bytes: a plan that would keep the lower tiers in memory
/// and not fit falls back to reading them from their files ([`MemoryPlan::new`]), so this
/// budget and every larger one hold the run. The shares grow with the budget, so the answer is
/// found by doubling and bisection.
fn least_budget(lower: u64, other: impl Fn(u64) -> f64) -> u64 {
    let reserve = lower_reserve(lower, false);
    let fits = |b: u64| (FIXED_OVERHEAD + reserve) as f64 + other(b) <= b as f64;
    let mut hi = FIXED_OVERHEAD;
    while !fits(hi) {
        hi *= 2;
    }
    let mut lo = 0;
    while hi - lo > (1 << 20) {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    // Whole MiB, rounded up so the named budget fits.
    let mut mib = hi.div_ceil(1 << 20);
    while !fits(mib << 20) {
        mib += 1;
    }
    // Bisection stops within a MiB of the threshold: the whole MiB below may fit too.
    while mib > 1 && fits((mib - 1) << 20) {
        mib -= 1;
    }
    mib
}

/// Bytes one compressing worker holds: the block's entries (mapped pages, dropped after each
/// batch; 4 MiB), its codes, its compressed frame and zstd's working memory
/// (`db/encode.rs` streams a block per worker at a time, whatever the tier's size; the block
/// index, 24 bytes per 2^21 positions, is noise).
pub const COMPRESS_PER_WORKER: u64 = (2 << 21) + (16 << 20);

/// Bytes that `workers` compressing workers hold at once.
pub fn compression_bytes(workers: usize) -> u64 {
    workers as u64 * COMPRESS_PER_WORKER
}

/// Compressing workers that fit `budget` beside the fixed overhead and lower tiers' share
/// (at least one: the plan refuses a budget that does not hold one), at most `threads`.
fn compress_workers(budget: u64, lower_share: u64, threads: usize) -> usize {
    let room = budget.saturating_sub(FIXED_OVERHEAD + lower_share);
    ((room / COMPRESS_PER_WORKER) as usize).clamp(1, threads.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::window::MIN_ATTRACTOR_BITS;

    fn shape(tier: u32, states: u64) -> TierShape {
        TierShape {
            tier,
            states,
            edges_per_position: 1.5,
            wide: states > crate::work::graph::NARROW_LIMIT,
            keys: 0,
            key_table: 0,
            narrow_cells: false,
        }
    }

    #[test]
    fn plans_fit_the_budget() {
        let tiers = [shape(0, 128 << 20), shape(1, 155_117_520)];
        let p = MemoryPlan::new(1 << 30, None, 2, &tiers).unwrap();
        let t = p.tier(1).unwrap();
        assert!(t.ranges > 1);
        let per = per_position(1.5, 4.0);
        let reserve = (2u64 * (128 << 20)).min(p.resident_lower);
        let used = FIXED_OVERHEAD + reserve + p.messages;
        assert!(((1u64 << t.range_bits) as f64) * per + used as f64 <= (1u64 << 30) as f64);
        // Out of core the successor pass needs no range window: lower tiers may take the
        // rest of the budget for it, but for the worker compressing tier 0 meanwhile.
        assert!(t.compress_beside);
        assert_eq!(
            t.pass_share,
            (1 << 30) - FIXED_OVERHEAD - compression_bytes(1)
        );
        // The attractor holds cells in what its range, the shares and that worker leave (the
        // run keeps its lower tier of 256 MiB, and its anchored bits, in memory).
        let working = (12.0 + 8.0 * 1.5) * (1u64 << t.range_bits) as f64;
        let shares = FIXED_OVERHEAD + (256 << 20) + (16 << 20) + p.messages;
        assert_eq!(
            t.attractor_cells,
            (1u64 << 30) - shares - working as u64 - compression_bytes(1),
            "{t:?}"
        );
        assert!(t.attractor_cells > 0);
        // Once the tier has retired its lower tier, the attractor holds their share too.
        assert_eq!(t.lower_reserve, (256 << 20) + (16 << 20));
        assert_eq!(t.held_cells(false), t.attractor_cells);
        assert_eq!(t.held_cells(true), t.attractor_cells + t.lower_reserve);
        // A small tier in a large budget is one range, whose logs stay in memory during the
        // pass beside the lower tiers.
        let p = MemoryPlan::new(1 << 30, None, 2, &[shape(0, 1000)]).unwrap();
        assert_eq!(p.tiers[0].ranges, 1);
        let window = (per * 1000.0) as u64;
        assert_eq!(p.tiers[0].pass_share, (1 << 30) - FIXED_OVERHEAD - window);
        assert_eq!(p.tiers[0].attractor_cells, 0);
        assert_eq!(
            p.tiers[0].held_cells(true),
            0,
            "one range holds no cells apart"
        );
        assert!(MemoryPlan::new(64 << 20, None, 2, &[shape(0, 1 << 30)]).is_err());
    }

    #[test]
    fn predecessor_files_are_written_beside_the_next_build_only_where_both_fit() {
        // One range: its lists stay in memory, nothing to write beside.
        let p = MemoryPlan::new(1 << 30, None, 2, &[shape(0, 1000)]).unwrap();
        assert!(!p.tiers[0].write_beside);
        // A tier in ranges of 2^20 under budgets rising a MiB at a time: written beside
        // exactly where the fixed shares, both ranges' lists, the grouped edges and the
        // compressing worker fit, and both outcomes occur.
        let tiers = [shape(0, 1000), shape(1, 3_000_000)];
        let mut seen = [false; 2];
        for mib in 160..400u64 {
            let budget = mib << 20;
            let Ok(p) = MemoryPlan::new(budget, Some(20), 2, &tiers) else {
                continue;
            };
            let t = &p.tiers[1];
            assert_eq!(t.ranges, 3);
            let reserve = lower_reserve(2000, p.keeps_lower());
            let need = (FIXED_OVERHEAD + reserve + p.messages) as f64
                + (8.0 + 16.0 * 1.5) * (1u64 << 20) as f64
                + if t.compress_beside {
                    compression_bytes(1) as f64
                } else {
                    0.0
                };
            assert_eq!(t.write_beside, need <= budget as f64, "{mib} MiB: {t:?}");
            seen[t.write_beside as usize] = true;
        }
        assert_eq!(seen, [true, true]);
    }

    #[test]
    fn the_tier_below_is_compressed_beside_a_tier_only_where_its_worker_fits() {
        let tiers = [shape(0, 1000), shape(1, 1 << 20), shape(2, 3_000_000)];
        let beside = compression_bytes(1);
        // Room to spare: beside every tier but the first, and the successor pass's share
        // leaves the worker's buffers.
        let p = MemoryPlan::new(1 << 30, None, 2, &tiers).unwrap();
        let flags: Vec<bool> = p.tiers.iter().map(|t| t.compress_beside).collect();
        assert_eq!(flags, [false, true, true]);
        let held = (per_position(1.5, 4.0) * 3_000_000.0) as u64;
        assert_eq!(p.tiers[2].ranges, 1);
        assert_eq!(
            p.tiers[2].pass_share,
            (1 << 30) - FIXED_OVERHEAD - held - beside
        );
        // Tier 2 in ranges of 2^20 under budgets rising a MiB at a time: compressed beside it
        // exactly where its busiest phase and the worker fit, and both outcomes occur.
        let (mut yes, mut no) = (0, 0);
        for mib in 64..1024u64 {
            let budget = mib << 20;
            let Ok(p) = MemoryPlan::new(budget, Some(20), 2, &tiers) else {
                continue;
            };
            let t = p.tiers[2];
            let reserve = lower_reserve(2 * (1000 + (1 << 20)), p.keeps_lower());
            let busiest = FIXED_OVERHEAD as f64
                + reserve as f64
                + p.messages as f64
                + per_position(1.5, 4.0) * (1u64 << 20) as f64;
            assert_eq!(
                t.compress_beside,
                busiest + beside as f64 <= budget as f64,
                "{mib} MiB"
            );
            if t.compress_beside {
                yes += 1;
            } else {
                no += 1;
            }
        }
        assert!(yes > 0 && no > 0, "beside {yes} times, before {no} times");
    }

    #[test]
    fn out_of_core_ranges_are_cut_so_that_the_attractor_holds_most_cells() {
        // n = 4, 18 seeds under 4 GiB: the busiest phase allows ranges of 2^27 (8 ranges),
        // whose attractor window left room for the cells of two; ranges of 2^24 leave room
        // for three quarters of them, the window is at most an eighth of the attractor's room.
        let shape = |tier, states| TierShape {
            edges_per_position: 0.78,
            ..shape(tier, states)
        };
        let tiers = [shape(17, 565_722_720), shape(18, 1_037_158_320)];
        let p = MemoryPlan::new(4 << 30, None, 2, &tiers).unwrap();
        let t = p.tier(18).unwrap();
        assert_eq!((t.range_bits, t.ranges), (24, 62));
        let cells = 4 * t.states;
        assert!(t.attractor_cells as f64 > 0.7 * cells as f64, "{t:?}");
        let window = attractor_working(0.78, 4.0) * (1u64 << 24) as f64;
        assert!(window <= t.attractor_cells as f64 / 7.0);
        // Not below what the budget itself plans, nor below 2^20 for the attractor's sake.
        let p = MemoryPlan::new(256 << 20, None, 2, &tiers[..1]).unwrap();
        assert_eq!(p.tiers[0].range_bits, MIN_ATTRACTOR_BITS);
        // A tier whose cells all fit beside its range keeps the range the budget allows.
        let p = MemoryPlan::new(1 << 30, None, 2, &[shape(14, 77_558_760)]).unwrap();
        let t = p.tiers[0];
        assert_eq!((t.range_bits, t.ranges), (24, 5));
        assert!(t.attractor_cells >= 4 * t.states);
        // An override is kept as given.
        let p = MemoryPlan::new(4 << 30, Some(27), 2, &tiers).unwrap();
        assert_eq!(p.tier(18).unwrap().range_bits, 27);
    }

    #[test]
    fn a_closed_tier_plans_two_byte_cells_only_out_of_core() {
        let closed = |states| TierShape {
            narrow_cells: true,
            ..shape(11, states)
        };
        // Out of core: two bytes a cell, so the same bytes hold twice the share.
        let p = MemoryPlan::new(1 << 30, None, 2, &[closed(4_280_561_376)]).unwrap();
        let t = p.tiers[0];
        assert!(
            t.ranges > 1 && t.narrow_cells && t.cell_bytes() == 2,
            "{t:?}"
        );
        let wide = TierPlan {
            narrow_cells: false,
            ..t
        };
        assert!((t.held_share(false) - 2.0 * wide.held_share(false)).abs() < 1e-12);
        // A tier of one range keeps its cells mapped, four bytes.
        let p = MemoryPlan::new(1 << 30, None, 2, &[closed(1_000_000)]).unwrap();
        let t = p.tiers[0];
        assert!(
            t.ranges == 1 && !t.narrow_cells && t.cell_bytes() == 4,
            "{t:?}"
        );
    }

    #[test]
    fn every_budget_above_the_least_named_is_accepted() {
        // Lower tiers that fit a quarter of budgets near the least (46 MB raw), and a keys'
        // table beside the top tier: keeping the lower tiers in memory must not make a larger
        // budget refuse what a smaller one planned.
        let top = TierShape {
            key_table: 30 << 20,
            ..shape(7, 177_100_560)
        };
        let tiers = [shape(5, 6_000_000), shape(6, 17_000_000), top];
        let mut least = None;
        for mib in 64..1024u64 {
            match MemoryPlan::new(mib << 20, None, 2, &tiers) {
                Ok(p) => {
                    least.get_or_insert(mib);
                    let kept = p.keeps_lower();
                    assert!(
                        !kept || 2 * 23_000_000 <= (mib << 20) / RESIDENT_SHARE,
                        "{mib}"
                    );
                }
                Err(e) => {
                    assert!(least.is_none(), "{mib} MiB refused above {least:?}: {e}");
                    assert!(
                        e.least_mib > mib,
                        "{mib} MiB refused naming {}",
                        e.least_mib
                    );
                }
            }
        }
        let least = least.expect("some budget plans the run");
        let e = MemoryPlan::new((least - 1) << 20, None, 2, &tiers).unwrap_err();
        assert_eq!(e.least_mib, least);
        // Both ways of holding the lower tiers occur above the least.
        assert!(!MemoryPlan::new(least << 20, None, 2, &tiers)
            .unwrap()
            .keeps_lower());
        assert!(MemoryPlan::new(1 << 30, None, 2, &tiers)
            .unwrap()
            .keeps_lower());
    }

    #[test]
    fn an_override_is_refused_where_it_does_not_fit_and_the_minimum_suffices() {
        let tiers = [shape(0, 1000), shape(1, 3_000_000)];
        // The plan and an override agree on what a budget allows.
        assert!(MemoryPlan::new(8 << 20, None, 2, &tiers).is_err());
        let e = MemoryPlan::new(8 << 20, Some(20), 2, &tiers).unwrap_err();
        // The error names the tier that needs the most, and a budget that holds every tier.
        assert_eq!(e.tier, 1);
        let least = e.least_mib << 20;
        MemoryPlan::new(least, Some(20), 2, &tiers).expect("the minimum named fits");
        assert!(MemoryPlan::new(least - (2 << 20), Some(20), 2, &tiers).is_err());
        let e = MemoryPlan::new(8 << 20, None, 2, &tiers).unwrap_err();
        MemoryPlan::new(e.least_mib << 20, None, 2, &tiers).expect("the minimum named fits");
    }

    #[test]
    fn tiers_beyond_2_32_plan_ranges_their_indices_can_address() {
        // Bawo n = 5, 16 seeds: tier 16 alone has 8,119,857,900 positions.
        let top = shape(16, 8_119_857_900);
        assert!(top.wide);
        let p = MemoryPlan::new(64 << 30, None, 2, &[shape(15, 3_711_935_040), top]).unwrap();
        let t = p.tier(16).unwrap();
        assert!(t.wide && !p.tier(15).unwrap().wide);
        assert!(t.range_bits <= MAX_RANGE_BITS && t.ranges << t.range_bits >= t.states);
        // Bao mtaji, 12 seeds (30.7 billion, 35 index bits): ranges of at most 2^29.
        let mtaji = shape(12, 30_700_000_000);
        let p = MemoryPlan::new(1 << 40, None, 2, &[mtaji]).unwrap();
        assert_eq!(p.tiers[0].range_bits, 29);
        // 2^40 positions: an override beyond what 24 offset bits allow is cut down to them.
        let huge = shape(40, 1 << 40);
        let p = MemoryPlan::new(1 << 44, Some(30), 2, &[huge]).unwrap();
        assert_eq!((p.tiers[0].range_bits, p.tiers[0].ranges), (24, 1 << 16));
        // Many edges per position: a range never plans more than 2^31 of them.
        let dense = TierShape {
            edges_per_position: 10.0,
            ..shape(1, 1 << 33)
        };
        let p = MemoryPlan::new(1 << 40, None, 2, &[dense]).unwrap();
        assert_eq!(p.tiers[0].range_bits, 27);
    }
}
