//! Each rank within its own `--mem`: what a rank holds while it solves its slice of a tier,
//! checked for every tier before any work, and each rank's peak resident memory measured.
//!
//! A rank's slice of the tier in progress stays in memory (the out-of-core ranges of one
//! process are not used under MPI), so the slice must fit: a budget too small for the largest
//! slice of any tier is refused up front (exit 2, like the single-process plan), naming the
//! least `--mem` per rank and the least number of ranks that would do. Lower tiers are looked
//! up through [`crate::tier::tables::Tables`] within the plan's share (a quarter of the
//! budget: copied into memory while they fit, else mapped with their resident pages bounded),
//! as in one process.
//!
//! | what a rank holds                        | bytes                                       |
//! |------------------------------------------|---------------------------------------------|
//! | the binary, threads, allocator, MPI      | [`FIXED_OVERHEAD`] + [`MPI_OVERHEAD`]        |
//! | lower tiers                              | the plan's share, at most a quarter of the budget |
//! | lower tiers' anchored bits               | 1 bit a position ([`ANCHORED_BITS_PER_BYTE`]), always in memory |
//! | exchange buffers                         | a round of an all-to-all, a block of the successor pass |
//! | the slice, per position                  | [`PER_POSITION`]                             |
//! | the slice, per in-tier edge              | [`PER_EDGE`] (edges sent or received, the larger) |

use super::slices::{Load, Slices, TierSample};
use crate::plan::budget::{MemoryPlan, FIXED_OVERHEAD};
use crate::tier::pass::PASS_CHUNK;
use bawo_games::error::MemoryError;

/// The MPI library's own memory in a rank: its code, buffers and shared-memory segments
/// (Open MPI 4 on one machine: 8 MB more peak resident memory than the same small solve
/// without MPI), with room for network transports' registered buffers.
pub const MPI_OVERHEAD: u64 = 32 << 20;

/// Bytes per position of a slice, in its busiest phase: the working cell (4), the positions
/// due at a later level (4 each, in lists that grow by doubling: 8) and the predecessor
/// offsets (8).
pub const PER_POSITION: f64 = 20.0;

/// Bytes per in-tier edge of a slice, in its busiest phase: while predecessor lists are built,
/// the received `(target, source)` pairs (16) and the lists (8); in the attractor the lists
/// (8) and, at a level where every edge carries a message, the messages sent (8), received
/// (8) and applied (4).
pub const PER_EDGE: f64 = 28.0;

/// The sample's estimate of a slice's edges with a margin: tiers vary within themselves.
/// (The sample counts the in-tier successors of every position, also of those decided by
/// their lower successors alone, which send none: it is above the edges exchanged already.)
const EDGE_MARGIN: f64 = 1.1;

/// Positions of one block of the successor pass: its edges are exchanged before the next
/// block is generated. Two chunks per thread.
pub fn block_len(threads: usize) -> usize {
    PASS_CHUNK * 2 * threads.max(1)
}

/// Bytes of the exchange buffers: a round of an all-to-all (its send buffer is a copy) and a
/// block's edges (16 bytes each, in buckets that grow by doubling, then merged: 48).
fn buffers(threads: usize, edges_per_position: f64) -> f64 {
    let round = 8 * super::comm::ROUND_ELEMENTS;
    round as f64 + block_len(threads) as f64 * (8.0 + 48.0 * edges_per_position)
}

/// Bytes a rank needs for its slice of a tier beside the fixed overhead and lower tiers.
pub fn slice_bytes(load: &Load, threads: usize) -> u64 {
    let edges = load.edges_out.max(load.edges_in) * EDGE_MARGIN;
    let per = edges / (load.positions.max(1) as f64);
    (PER_POSITION * load.positions as f64 + PER_EDGE * edges + buffers(threads, per)) as u64
}

/// Bytes of lower tiers' raw tables (2 a position) per byte of their anchored bits (1 bit a
/// position), which every rank keeps in memory for the don't-care flags of the tiers above.
pub const ANCHORED_BITS_PER_BYTE: u64 = 16;

/// The least budget holding `need` bytes beside the fixed overheads and lower tiers of
/// `lower` bytes in all (which take at most the plan's share of the budget, a quarter, and
/// their anchored bits beside).
fn least_budget(need: u64, lower: u64) -> u64 {
    let bits = lower.div_ceil(ANCHORED_BITS_PER_BYTE);
    let fixed = FIXED_OVERHEAD + MPI_OVERHEAD + need + bits;
    // Lower tiers take min(lower, share(b)); the share grows with the budget.
    let share = |b: u64| MemoryPlan::new(b, None, 1, &[]).map_or(b / 4, |p| p.resident_lower);
    let fits = |b: u64| fixed + lower.min(share(b)) <= b;
    let mut mib = fixed.div_ceil(1 << 20);
    let mut step = 1u64 << 10;
    // Coarse steps up, then back down by MiB: `fits` is monotone in the budget.
    while !fits(mib << 20) {
        mib += step;
    }
    while step > 1 {
        step /= 2;
        while mib > step && fits((mib - step) << 20) {
            mib -= step;
        }
    }
    mib
}

/// One tier as the check sees it: its sample and its size.
pub struct TierCheck<'a> {
    /// The tier (its seeds).
    pub tier: u32,
    /// Positions in the tier.
    pub states: u64,
    /// The planner's sample of the tier.
    pub sample: &'a TierSample,
    /// Which rank owns which positions.
    pub slices: &'a Slices,
}

/// Most ranks tried when naming how many would do: slices are cut at sampled positions, so
/// more ranks than samples make no slice smaller.
const MOST_RANKS: usize = super::slices::SAMPLES as usize;

/// The least `k >= from` (up to [`MOST_RANKS`]) for which `fits(k)`, taken as monotone: by
/// doubling, then bisection.
fn least_count(from: usize, fits: impl Fn(usize) -> bool) -> Option<usize> {
    let mut hi = from;
    while !fits(hi) {
        if hi >= MOST_RANKS {
            return None;
        }
        hi = (hi * 2).min(MOST_RANKS);
    }
    let mut lo = from - 1; // fits(lo) is false or lo is below `from`
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if mid >= from && fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// Refuses a per-rank budget (the smallest of the ranks') that does not hold the largest
/// slice of some tier, naming the least budget per rank and, where more ranks would do, the
/// least number of ranks. `tiers` in solving order.
pub fn check(
    budget: u64,
    ranks: usize,
    threads: usize,
    tiers: &[TierCheck<'_>],
) -> Result<(), MemoryError> {
    let mut lower = 0u64;
    // The tier needing the most: (least budget in MiB, tier, states, largest slice's load).
    let mut hardest: Option<(u64, u32, u64, Load)> = None;
    let mut refused = false;
    let mut least_ranks = ranks;
    for t in tiers {
        let fits = |slices: &Slices| -> bool {
            t.sample
                .loads(slices)
                .iter()
                .all(|l| least_budget(slice_bytes(l, threads), lower) << 20 <= budget)
        };
        let loads = t.sample.loads(t.slices);
        let (need, load) = loads
            .iter()
            .map(|l| (slice_bytes(l, threads), *l))
            .max_by_key(|&(n, _)| n)
            .unwrap_or_default();
        let mib = least_budget(need, lower);
        if hardest.is_none_or(|h| mib > h.0) {
            hardest = Some((mib, t.tier, t.states, load));
        }
        if mib << 20 > budget {
            refused = true;
            // More ranks: the smallest count whose slices all fit, if any does.
            let more = least_count(ranks + 1, |k| fits(&t.sample.balanced(k)));
            least_ranks = least_ranks.max(more.unwrap_or(usize::MAX));
        }
        lower += 2 * t.states;
    }
    match hardest {
        Some((least_mib, tier, states, load)) if refused => {
            let more = match least_ranks {
                usize::MAX => String::new(),
                k => format!(", or run on at least {k} ranks"),
            };
            Err(MemoryError {
                budget,
                tier,
                why: format!(
                    "per rank is too small for tier {tier} ({states} positions) on {ranks} \
                     ranks: its largest slice holds {} positions and about {:.0} in-tier \
                     edges{more}",
                    load.positions,
                    load.edges_out.max(load.edges_in)
                ),
                least_mib,
            })
        }
        _ => Ok(()),
    }
}

/// This process's peak resident memory so far (`VmHWM` of `/proc/self/status`), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_budget_holds_what_it_must() {
        let need = 300 << 20;
        for lower in [0u64, 10 << 20, 1 << 30] {
            let mib = least_budget(need, lower);
            let b = mib << 20;
            let share = MemoryPlan::new(b, None, 1, &[]).unwrap().resident_lower;
            let fixed = FIXED_OVERHEAD + MPI_OVERHEAD + need + lower / ANCHORED_BITS_PER_BYTE;
            assert!(fixed + lower.min(share) <= b);
            let b = (mib - 1) << 20;
            let share = MemoryPlan::new(b, None, 1, &[]).unwrap().resident_lower;
            assert!(fixed + lower.min(share) > b);
        }
    }

    #[test]
    fn the_least_count_is_found() {
        assert_eq!(least_count(3, |k| k >= 37), Some(37));
        assert_eq!(least_count(3, |k| k >= 3), Some(3));
        assert_eq!(least_count(3, |_| false), None);
    }

    #[test]
    fn slices_grow_with_positions_and_edges() {
        let l = Load {
            positions: 1 << 20,
            edges_out: 1.0 * (1 << 20) as f64,
            edges_in: 0.5 * (1 << 20) as f64,
            cost: 0.0,
        };
        let a = slice_bytes(&l, 1);
        let b = slice_bytes(
            &Load {
                positions: 2 << 20,
                ..l
            },
            1,
        );
        assert!(b > a && a > (PER_POSITION + PER_EDGE) as u64 * (1 << 20));
        assert!(peak_rss().is_some_and(|p| p > 0));
    }
}
