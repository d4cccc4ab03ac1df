//! Where the pits of the 4 x 8 Bao board are, seen from each player.
//!
//! The board is stored in `RULES.md` order: pit `8 * row + column`, rows 0 North back,
//! 1 North front, 2 South front, 3 South back, columns 0..7 from South's left. The move
//! engine never works on that order; it works on the mover's **circuit**, the mover's 16 pits
//! numbered clockwise (seen from above) starting at the mover's left kichwa:
//!
//! | circuit index | pit                                                          | notation |
//! |---------------|--------------------------------------------------------------|----------|
//! | `0..8`        | front row, column `i` counted from the mover's own left       | `a{i+1}` |
//! | `8..16`       | back row, column `15 - i` counted from the mover's own left   | `b{16-i}`|
//!
//! Clockwise is `i -> i + 1 (mod 16)`: along the front row from the mover's left to right,
//! then back along the back row. Index 0 is the left kichwa, 7 the right kichwa, `{0, 1}` and
//! `{6, 7}` the two kimbi, 4 the nyumba (house): the fifth front pit from the owner's left,
//! which is South's row 2 column 4 and North's row 1 column 3 as `RULES.md` places them.
//! Front pit `i` of the mover faces the opponent's front pit `7 - i` (the same board column).

use crate::game::Side;

/// Pits on the board.
pub const PITS: usize = 32;
/// Pits in one player's circuit.
pub const CIRCUIT: usize = 16;
/// Pits in one front row.
pub const FRONT: usize = 8;
/// Circuit index of the left kichwa.
pub const LEFT_KICHWA: usize = 0;
/// Circuit index of the right kichwa.
pub const RIGHT_KICHWA: usize = 7;
/// Circuit index of the house (nyumba).
pub const HOUSE: usize = 4;
/// The mover's front pit facing the opponent's house (`7 - HOUSE`).
pub const FACING_OPPONENT_HOUSE: usize = FRONT - 1 - HOUSE;

/// Sowing direction round the mover's circuit, seen from above.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Along the mover's front row from the mover's left to right (`>` in the notation).
    Clockwise,
    /// Along the mover's front row from right to left (`<`).
    Anticlockwise,
}

impl Dir {
    /// The next circuit index after `i` in this direction.
    #[inline]
    pub fn step(self, i: usize) -> usize {
        match self {
            Dir::Clockwise => (i + 1) % CIRCUIT,
            Dir::Anticlockwise => (i + CIRCUIT - 1) % CIRCUIT,
        }
    }

    /// The circuit index `n` steps after `i`.
    #[inline]
    pub fn advance(self, i: usize, n: usize) -> usize {
        let n = n % CIRCUIT;
        match self {
            Dir::Clockwise => (i + n) % CIRCUIT,
            Dir::Anticlockwise => (i + CIRCUIT - n) % CIRCUIT,
        }
    }

    /// The arrow that shows this direction in move names.
    pub fn arrow(self) -> char {
        match self {
            Dir::Clockwise => '>',
            Dir::Anticlockwise => '<',
        }
    }
}

/// Board pit of circuit index `i` of `side`.
pub const fn circuit_pit(side: Side, i: usize) -> usize {
    match side {
        // Front row 2 left to right, then back row 3 right to left.
        Side::A => {
            if i < FRONT {
                16 + i
            } else {
                24 + (CIRCUIT - 1 - i)
            }
        }
        // North's left is column 7: front row 1 from column 7 down to 0, then back row 0
        // from column 0 up to 7.
        Side::B => {
            if i < FRONT {
                15 - i
            } else {
                i - FRONT
            }
        }
    }
}

/// Board pit of the opponent's front pit facing the mover's front pit `i` (same column).
pub const fn facing_pit(side: Side, i: usize) -> usize {
    circuit_pit(opponent(side), FRONT - 1 - i)
}

/// Tables of board pits for both sides, so the hot path indexes instead of branching.
pub struct Geometry {
    /// `own[side][i]`: board pit of circuit index `i`.
    pub own: [[u8; CIRCUIT]; 2],
    /// `facing[side][i]`: board pit of the opponent's front pit facing front index `i`.
    pub facing: [[u8; FRONT]; 2],
}

pub(crate) const GEOMETRY: Geometry = {
    let mut g = Geometry {
        own: [[0; CIRCUIT]; 2],
        facing: [[0; FRONT]; 2],
    };
    let mut s = 0;
    while s < 2 {
        let side = if s == 0 { Side::A } else { Side::B };
        let mut i = 0;
        while i < CIRCUIT {
            g.own[s][i] = circuit_pit(side, i) as u8;
            if i < FRONT {
                g.facing[s][i] = facing_pit(side, i) as u8;
            }
            i += 1;
        }
        s += 1;
    }
    g
};

/// Board pit of `side`'s house.
pub const fn house_pit(side: Side) -> usize {
    circuit_pit(side, HOUSE)
}

/// The notation name of circuit index `i`: `a1`..`a8` front, `b1`..`b8` back, both counted
/// from the owner's left.
pub fn pit_name(i: usize) -> String {
    if i < FRONT {
        format!("a{}", i + 1)
    } else {
        format!("b{}", CIRCUIT - i)
    }
}

/// The circuit index a notation name denotes (the inverse of [`pit_name`]).
pub fn pit_index(row: char, number: usize) -> Option<usize> {
    if !(1..=FRONT).contains(&number) {
        return None;
    }
    match row {
        'a' => Some(number - 1),
        'b' => Some(CIRCUIT - number),
        _ => None,
    }
}

/// [`Side::other`] usable in constant tables.
const fn opponent(side: Side) -> Side {
    match side {
        Side::A => Side::B,
        Side::B => Side::A,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circuits_cover_each_side_once() {
        let mut seen = [0u8; PITS];
        for side in [Side::A, Side::B] {
            for i in 0..CIRCUIT {
                seen[circuit_pit(side, i)] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c == 1));
        // South owns rows 2-3 (pits 16..32), North rows 0-1.
        assert!((0..CIRCUIT).all(|i| circuit_pit(Side::A, i) >= 16));
        assert!((0..CIRCUIT).all(|i| circuit_pit(Side::B, i) < 16));
    }

    #[test]
    fn named_pits_are_where_rules_put_them() {
        // Houses: South row 2 column 4, North row 1 column 3.
        assert_eq!(house_pit(Side::A), 2 * 8 + 4);
        assert_eq!(house_pit(Side::B), 8 + 3);
        // Kichwa: South's left is column 0, North's left is column 7.
        assert_eq!(circuit_pit(Side::A, LEFT_KICHWA), 16);
        assert_eq!(circuit_pit(Side::A, RIGHT_KICHWA), 23);
        assert_eq!(circuit_pit(Side::B, LEFT_KICHWA), 15);
        assert_eq!(circuit_pit(Side::B, RIGHT_KICHWA), 8);
        // Clockwise from a kichwa's back neighbour enters the kichwa: South b1 = row 3 col 0.
        assert_eq!(circuit_pit(Side::A, 15), 24);
        assert_eq!(circuit_pit(Side::B, 15), 7);
        // Facing pits share a column.
        for i in 0..FRONT {
            assert_eq!(facing_pit(Side::A, i), 8 + i);
            assert_eq!(facing_pit(Side::B, i), 16 + (7 - i));
            assert_eq!(facing_pit(Side::A, i) % 8, circuit_pit(Side::A, i) % 8);
        }
        assert_eq!(
            facing_pit(Side::A, FACING_OPPONENT_HOUSE),
            house_pit(Side::B)
        );
        assert_eq!(
            facing_pit(Side::B, FACING_OPPONENT_HOUSE),
            house_pit(Side::A)
        );
    }

    #[test]
    fn names_round_trip() {
        for i in 0..CIRCUIT {
            let name = pit_name(i);
            let mut c = name.chars();
            let row = c.next().unwrap();
            let n: usize = c.as_str().parse().unwrap();
            assert_eq!(pit_index(row, n), Some(i));
        }
        assert_eq!(pit_name(15), "b1");
        assert_eq!(pit_name(8), "b8");
        assert_eq!(pit_index('a', 9), None);
        assert_eq!(pit_index('c', 1), None);
    }
}
