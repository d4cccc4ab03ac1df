//! One tier as the planner sees it: what the memory plan, the per-position windows and the
//! disk model all start from.

/// One tier as the planner sees it.
#[derive(Debug, Clone, Copy)]
pub struct TierShape {
    /// The tier (its seeds).
    pub tier: u32,
    /// Positions in the tier.
    pub states: u64,
    /// Estimated in-tier edges per position.
    pub edges_per_position: f64,
    /// Indices need more than 32 bits (or a test forces the wide path): 40-bit sources.
    pub wide: bool,
    /// Bytes of a predecessor key where lists store keys ([`crate::work::graph::key_bytes`]),
    /// else 0.
    pub keys: u8,
    /// Bytes of memory the keys' table takes beside the tier.
    pub key_table: u64,
    /// Out of core the attractor's cells take two bytes a position, not four (a closed tier,
    /// [`crate::tier::cells`]).
    pub narrow_cells: bool,
}

impl TierShape {
    /// Bytes a position of the attractor's cells out of core.
    pub fn cell_bytes(&self) -> u64 {
        if self.narrow_cells {
            2
        } else {
            4
        }
    }
}
