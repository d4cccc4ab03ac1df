//! Game values and the packed entry stored per position.
//!
//! | type      | meaning                                                              |
//! |-----------|----------------------------------------------------------------------|
//! | [`Value`] | WIN, LOSS or DRAW for the side to move                               |
//! | [`Entry`] | a value and its depth packed in 16 bits, the unit of every table     |
//!
//! Depth is the number of plies to the end under best play: the winner hurries, the loser
//! delays, terminal positions have depth 0 and draws have none. An [`Entry`] keeps the value
//! in the top two bits and the depth in the low fourteen, so depths up to [`MAX_DEPTH`] fit.

use std::fmt;

/// Largest depth an [`Entry`] can hold.
pub const MAX_DEPTH: u32 = (1 << 14) - 1;

/// Value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// The side to move wins.
    Win,
    /// The side to move loses.
    Loss,
    /// Neither side can force a win.
    Draw,
}

impl Value {
    /// `"WIN"`, `"LOSS"` or `"DRAW"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Value::Win => "WIN",
            Value::Loss => "LOSS",
            Value::Draw => "DRAW",
        }
    }

    /// The value for the other player.
    pub fn flip(self) -> Value {
        match self {
            Value::Win => Value::Loss,
            Value::Loss => Value::Win,
            Value::Draw => Value::Draw,
        }
    }
}

impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A value with its depth (none for draws), packed in a `u16`.
///
/// | bits 15..14 | meaning                  | bits 13..0 |
/// |-------------|--------------------------|------------|
/// | `00`        | not solved (never stored in a finished table) | 0 |
/// | `01`        | WIN                      | depth      |
/// | `10`        | LOSS                     | depth      |
/// | `11`        | DRAW                     | 0          |
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entry(pub u16);

impl Entry {
    /// A position not solved yet.
    pub const UNSOLVED: Entry = Entry(0);
    /// A draw.
    pub const DRAW: Entry = Entry(3 << 14);

    /// A WIN or LOSS with `depth`; panics on a draw or an out-of-range depth (callers check
    /// depth against [`MAX_DEPTH`] first).
    pub fn decided(value: Value, depth: u32) -> Entry {
        assert!(depth <= MAX_DEPTH, "depth {depth} exceeds {MAX_DEPTH}");
        match value {
            Value::Win => Entry((1 << 14) | depth as u16),
            Value::Loss => Entry((2 << 14) | depth as u16),
            Value::Draw => panic!("draws have no depth"),
        }
    }

    /// The entry for `value` in `depth` plies (`None` for a draw).
    pub fn new(value: Value, depth: Option<u32>) -> Entry {
        match (value, depth) {
            (Value::Draw, _) => Entry::DRAW,
            (v, Some(d)) => Entry::decided(v, d),
            (v, None) => panic!("{v} needs a depth"),
        }
    }

    /// `None` for an unsolved entry.
    #[inline]
    pub fn value(self) -> Option<Value> {
        match self.0 >> 14 {
            1 => Some(Value::Win),
            2 => Some(Value::Loss),
            3 => Some(Value::Draw),
            _ => None,
        }
    }

    /// Depth of a WIN or LOSS.
    #[inline]
    pub fn depth(self) -> Option<u32> {
        match self.0 >> 14 {
            1 | 2 => Some((self.0 & MAX_DEPTH as u16) as u32),
            _ => None,
        }
    }

    /// Whether the bit pattern is one a finished table may hold.
    pub fn is_valid_solved(self) -> bool {
        match self.0 >> 14 {
            1 | 2 => true,
            3 => self.0 & MAX_DEPTH as u16 == 0,
            _ => false,
        }
    }
}

impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.value(), self.depth()) {
            (None, _) => write!(f, "UNSOLVED"),
            (Some(v), Some(d)) => write!(f, "{v}({d})"),
            (Some(v), None) => write!(f, "{v}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        for d in [0, 1, 77, MAX_DEPTH] {
            for v in [Value::Win, Value::Loss] {
                let e = Entry::decided(v, d);
                assert_eq!(e.value(), Some(v));
                assert_eq!(e.depth(), Some(d));
                assert!(e.is_valid_solved());
            }
        }
        assert_eq!(Entry::DRAW.value(), Some(Value::Draw));
        assert_eq!(Entry::DRAW.depth(), None);
        assert_eq!(Entry::UNSOLVED.value(), None);
        assert!(!Entry::UNSOLVED.is_valid_solved());
    }
}
