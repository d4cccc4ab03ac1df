//! What a tier's range holds in memory, per position, in each phase (the windows the memory
//! plan sizes its ranges by), and how far the attractor cuts a range below what its busiest
//! phase allows ([`crate::plan::budget::MemoryPlan`]).

use crate::plan::shape::TierShape;

/// Bytes per position of the busiest phase of a tier with about `edges` in-tier edges per
/// position and `source` bytes per stored predecessor: predecessor building holds 8 bytes per
/// edge of the range plus the result (4 bytes per position, `source` per edge); the attractor
/// holds cells (twice while copying), offsets, predecessor lists, the range's due positions
/// (4 bytes each) and the messages they emit before they go to the level's batches (4 bytes
/// per edge). The larger of the two.
pub(crate) fn per_position(edges: f64, source: f64) -> f64 {
    building_per_position(edges, source).max(attractor_per_position(edges, source))
}

/// Bytes per position of building a range's predecessor lists: the grouped edges (8 bytes
/// each) and the result ([`lists_per_position`]).
pub(crate) fn building_per_position(edges: f64, source: f64) -> f64 {
    8.0 * edges.max(0.25) + lists_per_position(edges, source)
}

/// Bytes per position of a range's predecessor lists: an offset and `source` bytes per edge.
pub(crate) fn lists_per_position(edges: f64, source: f64) -> f64 {
    4.0 + source * edges.max(0.25)
}

/// Bytes per position of the predecessor phase while the range before is still being
/// written ([`crate::work::predwrite`]): building plus that range's lists.
pub(crate) fn writing_per_position(edges: f64, source: f64) -> f64 {
    building_per_position(edges, source) + lists_per_position(edges, source)
}

/// Bytes per position of a range the attractor works on (see [`per_position`]).
pub(crate) fn attractor_per_position(edges: f64, source: f64) -> f64 {
    16.0 + (4.0 + source) * edges.max(0.25)
}

/// Bytes per position the attractor holds of the range it works on beside the held cells
/// of the others: its cells once (a checkpointed slot is copied by the kernel, not through
/// memory) and the rest as [`attractor_per_position`] counts it. (The next range's due
/// positions, decoded meanwhile, take only what the held cells leave of their share:
/// [`crate::tier::emit_level`].)
pub(crate) fn attractor_working(edges: f64, source: f64) -> f64 {
    const SECOND_CELL_COPY: f64 = 4.0;
    attractor_per_position(edges, source) - SECOND_CELL_COPY
}

/// A tier of several ranges takes ranges no larger than make the attractor's working window
/// (what it holds of the range it works on, [`attractor_per_position`] less the cells) at most
/// this share of what the budget leaves the attractor.
pub(crate) const ATTRACTOR_WINDOW_SHARE: u64 = 8;
/// Ranges are not cut below this for the attractor's sake (nor below what the budget planned).
pub(crate) const MIN_ATTRACTOR_BITS: u32 = 20;

/// The range bits of tier `t`, from the `bits` the busiest phase allows, for the attractor.
///
/// Out of core the attractor holds the cells of as many ranges as `room` (the budget less the
/// fixed shares) leaves beside the window of the range it works on ([`crate::tier::held`]); the cells
/// of the others are mapped, and once they pass the kernel's dirty threshold they are written
/// back at nearly every level. The busiest phase's range makes that window most of `room`
/// (n = 4, 18 seeds, `--mem 4G`: 2.4 of 3.4 GB, two of eight ranges held), so a tier that
/// needs several ranges takes smaller ones: halved while its cells are not all held and the
/// window is more than an [`ATTRACTOR_WINDOW_SHARE`]th of `room`.
pub(crate) fn attractor_bits(t: &TierShape, bits: u32, room: u64) -> u32 {
    let source = crate::work::graph::list_source_bytes(t.wide, t.keys) as f64;
    let working = attractor_working(t.edges_per_position, source);
    let cells = t.cell_bytes() * t.states;
    let mut b = bits;
    while b > MIN_ATTRACTOR_BITS && t.states > 1u64 << b {
        let window = working * (1u64 << b) as f64;
        let all_held = window + cells as f64 <= room as f64;
        if all_held || window <= (room / ATTRACTOR_WINDOW_SHARE) as f64 {
            break;
        }
        b -= 1;
    }
    b
}
