//! Positions as people type and read them: `--hands`, `--houses`, and the board drawing.

use super::geometry::house_pit;
use super::{BaoPosition, MAX_SEEDS};
use crate::game::input::short;
use crate::game::{InputError, Side};

/// Parses `--hands a,b`.
pub fn parse_hands(text: &str) -> Result<[u8; 2], InputError> {
    let words: Vec<&str> = text.split(',').map(str::trim).collect();
    let bad = || {
        InputError::new(format!(
            "--hands '{}': give the seeds in A's and B's hands as two counts, e.g. --hands 22,22",
            short(text)
        ))
    };
    if words.len() != 2 {
        return Err(bad());
    }
    let mut hands = [0u8; 2];
    for (h, w) in hands.iter_mut().zip(&words) {
        let v: u32 = w.parse().map_err(|_| bad())?;
        *h = u8::try_from(v)
            .ok()
            .filter(|&v| v as u32 <= MAX_SEEDS)
            .ok_or_else(|| {
                InputError::new(format!(
                    "--hands: a hand holds at most {MAX_SEEDS} seeds, not {v}"
                ))
            })?;
    }
    Ok(hands)
}

/// Parses `--houses`: the players whose house still stands, `A`, `B`, `A,B`, or `none`.
pub fn parse_houses(text: &str) -> Result<[bool; 2], InputError> {
    let mut houses = [false, false];
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(houses);
    }
    for w in t.split(',').map(str::trim) {
        let side = match w {
            "A" | "a" => Side::A,
            "B" | "b" => Side::B,
            _ => {
                return Err(InputError::new(format!(
                    "--houses '{}': list the players whose house still stands: A, B, A,B or none",
                    short(text)
                )))
            }
        };
        if houses[side.index()] {
            return Err(InputError::new(format!(
                "--houses '{}' names {} twice",
                short(text),
                side.letter()
            )));
        }
        houses[side.index()] = true;
    }
    Ok(houses)
}

/// The board as South sees it, North's rows on top, each row labelled in its owner's
/// notation (both count from their owner's left, so North's run right to left here); a
/// standing house is bracketed.
pub fn render(pos: &BaoPosition) -> String {
    let cell = |pit: usize| {
        let v = pos.board[pit];
        let standing = |s: Side| pos.houses[s.index()] && house_pit(s) == pit;
        if standing(Side::A) || standing(Side::B) {
            format!("{:>4}", format!("[{v}]"))
        } else {
            format!("{v:>4}")
        }
    };
    let row = |r: usize| (0..8).map(|c| cell(8 * r + c)).collect::<String>();
    let names = |prefix: char, south: bool| {
        (0..8)
            .map(|c| {
                let n = if south { c + 1 } else { 8 - c };
                format!("{:>4}", format!("{prefix}{n}"))
            })
            .collect::<String>()
    };
    let hand = |s: Side| {
        let h = pos.hands[s.index()];
        if h > 0 {
            format!("   hand {h}")
        } else {
            String::new()
        }
    };
    let stage = if pos.namua() { "namua" } else { "mtaji" };
    [
        format!("         {}   B (North)", names('b', false)),
        format!("B back   {}{}", row(0), hand(Side::B)),
        format!("B front  {}", row(1)),
        format!("         {}", names('a', false)),
        format!("         {}", "-".repeat(32)),
        format!("         {}", names('a', true)),
        format!("A front  {}", row(2)),
        format!("A back   {}{}", row(3), hand(Side::A)),
        format!("         {}   A (South)", names('b', true)),
        format!("{} to move ({stage})", pos.side.letter()),
    ]
    .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_and_houses_parse_and_refuse() {
        assert_eq!(parse_hands("22,21").unwrap(), [22, 21]);
        assert_eq!(parse_hands(" 0 , 3 ").unwrap(), [0, 3]);
        for bad in ["3", "1,2,3", "x,1", "-1,2", "65,0", ""] {
            assert!(parse_hands(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_houses("A,B").unwrap(), [true, true]);
        assert_eq!(parse_houses("b").unwrap(), [false, true]);
        assert_eq!(parse_houses("none").unwrap(), [false, false]);
        for bad in ["C", "A,,B", "", "AB", "A,A", "b,B"] {
            assert!(parse_houses(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn long_inputs_are_not_echoed_whole() {
        let long = "9,".repeat(5000);
        for e in [
            parse_hands(&long).unwrap_err(),
            parse_houses(&long).unwrap_err(),
        ] {
            assert!(e.0.len() < 300, "echoed {} bytes", e.0.len());
            assert!(e.0.contains("..."), "{}", e.0);
        }
    }
}
