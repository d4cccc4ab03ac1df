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

/// Narrow cells: two bytes a position, for a tier closed under its moves (every move of its
/// positions leads into the tier itself: no lower tier, no move that loses at once, as in Bao's
/// one tier). There an open cell has no floor, nothing is a known win or cannot lose, every
/// position is anchored and only a position without moves is don't-care: the tag and either
/// the counter or the depth are all a cell holds. Out of core this halves the plain cells on
/// disk and doubles the ranges the attractor holds in memory.
///
/// | bits   | field                                                    |
/// |--------|----------------------------------------------------------|
/// | 0..14  | the counter of an open cell, else the depth ([`narrow::MAX_NARROW_DEPTH`]) |
/// | 14..16 | 0 open, 1 win, 2 loss, 3 draw                            |
pub mod narrow {
    use super::*;

    /// The largest depth a narrow cell holds: [`bawo_games::value::MAX_DEPTH`], the largest
    /// an entry holds.
    pub const MAX_NARROW_DEPTH: u32 = (1 << 14) - 1;
    const FIELD: u16 = (1 << 14) - 1;
    const SHIFT: u32 = 14;

    /// The narrow form of a working cell of a closed tier; `None` for a cell such a tier
    /// cannot have (a floor, a known win, flags other than its rule), which the caller
    /// reports rather than store something else.
    #[inline]
    pub fn narrow(cell: u32) -> Option<u16> {
        let (t, d) = (tag(cell), depth(cell));
        let flags = cell & FLAGS_MASK;
        let code = match t {
            OPEN if d == 0 => 0,
            WIN => 1,
            LOSS => 2,
            DRAW if d == 0 => 3,
            _ => return None,
        };
        let field = if t == OPEN { counter(cell) } else { d };
        if flags != closed_flags(t, d) || field > FIELD as u32 {
            return None;
        }
        Some((code << SHIFT) | field as u16)
    }

    /// The working cell of a narrow one (a decided cell's counter, which decides nothing any
    /// more, comes back as zero).
    #[inline]
    pub fn widen(n: u16) -> u32 {
        let field = (n & FIELD) as u32;
        let (t, c, d) = match n >> SHIFT {
            0 => (OPEN, field & MAX_COUNTER, 0),
            1 => (WIN, 0, field),
            2 => (LOSS, 0, field),
            _ => (DRAW, 0, 0),
        };
        make(t, c, d) | closed_flags(t, d)
    }

    /// The flags of a cell of a closed tier: anchored always (it has no move or one in the
    /// tier), don't-care only without moves, the one way to lose at depth 0.
    #[inline]
    fn closed_flags(t: u32, d: u32) -> u32 {
        if t == LOSS && d == 0 {
            ANCHORED | DONT_CARE
        } else {
            ANCHORED
        }
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

    #[test]
    fn narrow_cells_keep_what_a_closed_tier_needs_and_refuse_the_rest() {
        use narrow::{narrow, widen, MAX_NARROW_DEPTH};
        let closed = [
            make(OPEN, 0, 0) | ANCHORED,
            make(OPEN, MAX_COUNTER, 0) | ANCHORED,
            make(WIN, 0, 1) | ANCHORED,
            make(WIN, 0, MAX_NARROW_DEPTH) | ANCHORED,
            make(LOSS, 0, 0) | ANCHORED | DONT_CARE,
            make(LOSS, 0, 7) | ANCHORED,
            make(DRAW, 0, 0) | ANCHORED,
        ];
        let mut seen = std::collections::HashSet::new();
        for c in closed {
            let n = narrow(c).unwrap_or_else(|| panic!("{c:#x} is a closed tier's"));
            assert!(seen.insert(n), "{c:#x} shares its narrow form");
            assert_eq!(widen(n), c);
            assert_eq!(final_entry(widen(n)), final_entry(c));
        }
        // A decided cell's counter is dropped; its value, depth and flags are kept.
        let decided = retag(make(OPEN, 3, 0) | ANCHORED, WIN, 12);
        assert_eq!(widen(narrow(decided).unwrap()), make(WIN, 0, 12) | ANCHORED);
        // What only a tier with lower tiers (or moves that lose at once) has is refused.
        for c in [
            make(OPEN, 2, 1) | ANCHORED,
            make(OPEN_NO_LOSS, 2, 0) | ANCHORED,
            make(KNOWN_WIN, 2, 3) | ANCHORED,
            make(WIN, 0, 1) | DONT_CARE,
            make(WIN, 0, 1),
            make(LOSS, 0, 0) | ANCHORED,
            make(LOSS, 0, 3) | ANCHORED | DONT_CARE,
            make(WIN, 0, MAX_NARROW_DEPTH + 1) | ANCHORED,
            make(DRAW, 0, 2) | ANCHORED,
        ] {
            assert_eq!(narrow(c), None, "{c:#x}");
        }
        // Every narrow form `narrow` makes widens to a cell that narrows back to it.
        for n in 0..=u16::MAX {
            let field = u32::from(n) & MAX_NARROW_DEPTH;
            let made = match n >> 14 {
                0 => field <= MAX_COUNTER,
                3 => field == 0,
                _ => true,
            };
            if made {
                assert_eq!(narrow(widen(n)), Some(n), "{n:#x}");
            }
        }
    }
}
