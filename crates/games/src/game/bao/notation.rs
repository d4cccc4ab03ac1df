//! Move notation: how a Bao player names a move, printed by `moves`, `query` and `play` and
//! read back from text.
//!
//! A move is written from the mover's own side of the board:
//!
//! | part      | text                 | meaning                                               |
//! |-----------|----------------------|-------------------------------------------------------|
//! | pit       | `a1`..`a8`, `b1`..`b8`| front (`a`) or back (`b`) row, counted from the mover's left; the house is `a5` |
//! | direction | `>` or `<`           | clockwise (rightward along the mover's front row) or anti-clockwise |
//! | house     | ` stop`, ` safari`   | only where a capture lap ended in the functional house |
//!
//! In the mtaji stage the pit is the start pit and the arrow the start direction. In the namua
//! stage the pit is where the hand seed is placed: for a takasa the arrow is the direction that
//! pit is sown in; for a capture it is the direction the captured seeds are sown from the
//! kichwa (`>` from the left kichwa, `<` from the right one; a kimbi capture allows only the
//! one toward the centre). A namua capture that empties the opponent's front row sows nothing
//! and has no arrow (`a3`). Examples: `a6<`, `b2>`, `a5> safari`.
//!
//! Reading is lenient: any case, spaces anywhere, `cw`/`acw` (or `ccw`) for the arrows.

use super::geometry::{pit_index, pit_name, Dir};
use crate::game::input::short;
use crate::game::InputError;

/// What the mover did at a house that offered stop or safari.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HouseChoice {
    /// The move never met the choice.
    None,
    /// Stop at the house.
    Stop,
    /// Go on sowing from the house (safari).
    Safari,
}

/// A move's name: pit, direction and house choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveName {
    /// Circuit index of the start or placement pit.
    pub pit: u8,
    /// `None` only for a namua capture that ends the game before any sowing.
    pub dir: Option<Dir>,
    /// What happens at the house, when the move reaches it.
    pub house: HouseChoice,
}

impl MoveName {
    /// The move from `pit` towards `dir`, with no house choice.
    pub fn new(pit: usize, dir: Dir) -> Self {
        MoveName {
            pit: pit as u8,
            dir: Some(dir),
            house: HouseChoice::None,
        }
    }

    pub(crate) fn with_house(self, house: HouseChoice) -> Self {
        MoveName { house, ..self }
    }
}

impl std::fmt::Display for MoveName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&pit_name(self.pit as usize))?;
        if let Some(d) = self.dir {
            write!(f, "{}", d.arrow())?;
        }
        match self.house {
            HouseChoice::None => Ok(()),
            HouseChoice::Stop => f.write_str(" stop"),
            HouseChoice::Safari => f.write_str(" safari"),
        }
    }
}

/// Reads a move written in the notation above.
pub fn parse(text: &str) -> Result<MoveName, InputError> {
    let bad = || {
        InputError::new(format!(
            "'{}' is not a Bao move: write the pit (a1..a8 front row, b1..b8 back row, counted \
             from the mover's left), then > (clockwise) or < (anti-clockwise), then 'stop' or \
             'safari' where the house offers the choice, e.g. a6> or a5< safari",
            short(text.trim())
        ))
    };
    let s: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    let mut chars = s.chars();
    let row = chars.next().ok_or_else(bad)?;
    let digit = chars.next().and_then(|c| c.to_digit(10)).ok_or_else(bad)?;
    let pit = pit_index(row, digit as usize).ok_or_else(bad)?;
    let mut rest = chars.as_str();
    let mut dir = None;
    for (word, d) in [
        (">", Dir::Clockwise),
        ("<", Dir::Anticlockwise),
        ("acw", Dir::Anticlockwise),
        ("ccw", Dir::Anticlockwise),
        ("cw", Dir::Clockwise),
    ] {
        if let Some(r) = rest.strip_prefix(word) {
            dir = Some(d);
            rest = r;
            break;
        }
    }
    let house = match rest {
        "" => HouseChoice::None,
        "stop" => HouseChoice::Stop,
        "safari" => HouseChoice::Safari,
        _ => return Err(bad()),
    };
    if dir.is_none() && house != HouseChoice::None {
        return Err(bad());
    }
    Ok(MoveName {
        pit: pit as u8,
        dir,
        house,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_print_and_read_back() {
        let names = [
            MoveName::new(5, Dir::Anticlockwise),
            MoveName::new(14, Dir::Clockwise),
            MoveName::new(4, Dir::Clockwise).with_house(HouseChoice::Safari),
            MoveName::new(4, Dir::Anticlockwise).with_house(HouseChoice::Stop),
            MoveName {
                pit: 2,
                dir: None,
                house: HouseChoice::None,
            },
        ];
        let texts = ["a6<", "b2>", "a5> safari", "a5< stop", "a3"];
        for (n, t) in names.iter().zip(texts) {
            assert_eq!(n.to_string(), t);
            assert_eq!(parse(t).unwrap(), *n);
        }
    }

    #[test]
    fn reading_is_lenient() {
        assert_eq!(
            parse(" A6 < ").unwrap(),
            MoveName::new(5, Dir::Anticlockwise)
        );
        assert_eq!(
            parse("a6acw").unwrap(),
            MoveName::new(5, Dir::Anticlockwise)
        );
        assert_eq!(
            parse("a6CCW").unwrap(),
            MoveName::new(5, Dir::Anticlockwise)
        );
        assert_eq!(parse("b1cw").unwrap(), MoveName::new(15, Dir::Clockwise));
        assert_eq!(
            parse("a5>SAFARI").unwrap(),
            MoveName::new(4, Dir::Clockwise).with_house(HouseChoice::Safari)
        );
    }

    #[test]
    fn malformed_moves_are_refused() {
        for t in [
            "", "a", "a0>", "a9>", "c1>", "a1>>", "a1 > go", "a1safari", "5>", "a12>",
        ] {
            assert!(parse(t).is_err(), "{t}");
        }
    }
}
