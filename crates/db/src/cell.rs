//! The working cell of a position while its tier is being solved.
//!
//! One `u32` per position holds everything the attractor needs, so that one atomic operation
//! updates it:
//!
//! | bits   | field   | meaning                                                            |
//! |--------|---------|--------------------------------------------------------------------|
//! | 0..16  | depth   | final depth; for open cells the loss floor; for known wins the best win found so far in lower tiers |
//! | 16..24 | counter | in-tier successors not yet known to be WIN for the opponent         |
//! | 24..27 | tag     | [`OPEN`], [`OPEN_NO_LOSS`], [`KNOWN_WIN`], [`WIN`], [`LOSS`], [`DRAW`] |
//! | 27..29 | flags   | [`ANCHORED`], [`DONT_CARE`]: set by the successor pass, never changed after |
//!
//! The counter is exact while the cell is [`OPEN`] (each in-tier edge is decremented once,
//! when its target is finalized as WIN). Once the cell has another tag its counter decides
//! nothing and is no longer decremented (a decrement racing with the change of tag may still
//! land); either way an edge decrements at most once, so the counter never borrows into the
//! tag.

use bawo_games::value::{Entry, Value};

pub(crate) const DEPTH_MASK: u32 = 0xFFFF;
pub(crate) const COUNTER_SHIFT: u32 = 16;
/// One step of the counter.
pub const COUNTER_ONE: u32 = 1 << COUNTER_SHIFT;
pub(crate) const COUNTER_MASK: u32 = 0xFF << COUNTER_SHIFT;
/// The largest counter.
pub const MAX_COUNTER: u32 = 0xFF;
pub(crate) const TAG_SHIFT: u32 = 24;
const TAG_MASK: u32 = 7;

/// Flag: the position has no move or a move that stays in its tier, so it is never a
/// don't-care position and a position above may rely on its stored entry (see
/// `db::dontcare`).
pub const ANCHORED: u32 = 1 << 27;
/// Flag: the position is don't-care (`db::dontcare`): its entry follows from its moves.
pub const DONT_CARE: u32 = 1 << 28;
/// The flag bits, which the attractor carries through every update.
pub const FLAGS_MASK: u32 = ANCHORED | DONT_CARE;

/// Undecided; loses with depth `max(floor, level)` if every in-tier successor turns out WIN.
pub const OPEN: u32 = 0;
/// Undecided, but a successor in a lower tier is a DRAW, so it cannot lose.
pub const OPEN_NO_LOSS: u32 = 1;
/// A WIN (a lower-tier successor loses); the depth is the best so far, an in-tier
/// successor may still give a faster win.
pub const KNOWN_WIN: u32 = 2;
/// Tag: won for the side to move.
pub const WIN: u32 = 3;
/// Tag: lost for the side to move.
pub const LOSS: u32 = 4;
/// Tag: a draw.
pub const DRAW: u32 = 5;

/// A cell of `tag`, `counter` and `depth`.
#[inline]
pub fn make(tag: u32, counter: u32, depth: u32) -> u32 {
    debug_assert!(counter <= MAX_COUNTER && depth <= DEPTH_MASK);
    (tag << TAG_SHIFT) | (counter << COUNTER_SHIFT) | depth
}

/// The cell's tag.
#[inline]
pub fn tag(cell: u32) -> u32 {
    (cell >> TAG_SHIFT) & TAG_MASK
}

/// The cell's depth.
#[inline]
pub fn depth(cell: u32) -> u32 {
    cell & DEPTH_MASK
}

/// The cell's counter.
#[inline]
pub fn counter(cell: u32) -> u32 {
    (cell & COUNTER_MASK) >> COUNTER_SHIFT
}

/// Whether the cell's value is decided.
#[inline]
pub fn is_final(cell: u32) -> bool {
    tag(cell) >= WIN
}

/// The same cell with a new tag and depth, keeping the counter and the flags.
#[inline]
pub fn retag(cell: u32, tag: u32, depth: u32) -> u32 {
    (cell & (COUNTER_MASK | FLAGS_MASK)) | (tag << TAG_SHIFT) | depth
}

/// What lower tiers (and immediate losses) say about a position, gathered in the successor
/// pass, plus how many distinct successors stay inside the tier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outlook {
    /// Distinct successors in the tier being solved.
    pub in_tier: u32,
    /// Fastest win through a lower-tier successor that loses (`1 + its depth`).
    pub win: Option<u32>,
    /// Slowest loss through lower-tier successors that win (`1 + the largest depth`).
    pub floor: u32,
    /// A lower-tier successor is a draw.
    pub draw: bool,
    /// The position has no legal move.
    pub terminal: bool,
}

impl Outlook {
    /// Records a successor outside the tier whose entry (for the opponent) is `e`.
    #[inline]
    pub fn add_resolved(&mut self, e: Entry) {
        match e.value() {
            Some(Value::Loss) => {
                let d = e.depth().unwrap_or(0) + 1;
                self.win = Some(self.win.map_or(d, |w| w.min(d)));
            }
            Some(Value::Win) => self.floor = self.floor.max(e.depth().unwrap_or(0) + 1),
            Some(Value::Draw) => self.draw = true,
            None => unreachable!("lower tiers are finished"),
        }
    }

    /// The initial cell, and the level at which the attractor must look at the position
    /// (`None`: it waits for in-tier successors). A position decided here needs no edges.
    pub fn initial_cell(&self) -> (u32, Option<u32>) {
        let n = self.in_tier;
        if self.terminal {
            return (make(LOSS, 0, 0), Some(0));
        }
        if let Some(w) = self.win {
            // A win of depth 1 cannot be beaten; without in-tier successors nothing can beat it.
            if n == 0 || w == 1 {
                return (make(WIN, n, w), Some(w));
            }
            return (make(KNOWN_WIN, n, w), Some(w));
        }
        if n == 0 {
            if self.draw {
                return (make(DRAW, 0, 0), None);
            }
            return (make(LOSS, 0, self.floor), Some(self.floor));
        }
        let tag = if self.draw { OPEN_NO_LOSS } else { OPEN };
        (make(tag, n, self.floor), None)
    }
}

/// The stored entry of a cell once the attractor has finished (undecided cells are draws).
#[inline]
pub fn final_entry(cell: u32) -> Entry {
    match tag(cell) {
        WIN => Entry::decided(Value::Win, depth(cell)),
        LOSS => Entry::decided(Value::Loss, depth(cell)),
        KNOWN_WIN => unreachable!("known wins are decided when their level is reached"),
        _ => Entry::DRAW,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_independent() {
        let c = make(KNOWN_WIN, 200, 65535);
        assert_eq!(tag(c), KNOWN_WIN);
        assert_eq!(counter(c), 200);
        assert_eq!(depth(c), 65535);
        let d = retag(c - COUNTER_ONE, WIN, 3);
        assert_eq!((tag(d), counter(d), depth(d)), (WIN, 199, 3));
        // The flags survive every update and change no field.
        let f = make(OPEN, 2, 9) | FLAGS_MASK;
        assert_eq!((tag(f), counter(f), depth(f)), (OPEN, 2, 9));
        let g = retag(f - COUNTER_ONE, LOSS, 4);
        assert_eq!((tag(g), counter(g), depth(g)), (LOSS, 1, 4));
        assert_eq!(g & FLAGS_MASK, FLAGS_MASK);
        assert_eq!(final_entry(g), final_entry(make(LOSS, 1, 4)));
    }

    #[test]
    fn outlook_decides_what_it_can() {
        let terminal = Outlook {
            terminal: true,
            ..Default::default()
        };
        assert_eq!(terminal.initial_cell(), (make(LOSS, 0, 0), Some(0)));
        let lower_only = Outlook {
            floor: 5,
            ..Default::default()
        };
        assert_eq!(lower_only.initial_cell(), (make(LOSS, 0, 5), Some(5)));
        let open = Outlook {
            in_tier: 2,
            win: Some(4),
            ..Default::default()
        };
        assert_eq!(open.initial_cell(), (make(KNOWN_WIN, 2, 4), Some(4)));
    }
}
