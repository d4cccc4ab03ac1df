//! Positions and parameters as users type them, and the errors for text that is wrong.

use super::Side;
pub use crate::error::InputError;

/// A position as given on the command line, before a game interprets it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionSpec {
    /// Pit counts separated by `,` (rows may be separated by `/`).
    pub board: String,
    /// The side to move.
    pub to_move: Side,
    /// Seeds in hand `a,b` (Bao only).
    pub hands: Option<String>,
    /// House status (Bao only).
    pub houses: Option<String>,
}

impl PositionSpec {
    /// A position from its board text and side to move.
    pub fn new(board: &str, to_move: Side) -> Self {
        PositionSpec {
            board: board.to_string(),
            to_move,
            hands: None,
            houses: None,
        }
    }
}

/// The largest number of seeds one pit may hold (pits are stored in a byte).
pub const MAX_PIT: u32 = 255;

/// Rows of every board here (all four-row games); `/` in a typed board separates them.
pub const ROWS: usize = 4;

/// At most this many characters of the user's text are echoed in an error message.
pub const ECHO_MAX: usize = 80;

/// `text` cut to its first [`ECHO_MAX`] characters (with "..." after) and with control
/// characters escaped (a line break shows as `\n`), for echoing input in a one-line error: a
/// 10 MB argument must not become a 10 MB message, nor a line break in it a second line.
pub fn short(text: &str) -> String {
    cut_to(text, ECHO_MAX)
}

/// [`short`] with room for `max` characters: for messages that quote some input among words
/// of their own (a JSON parser's).
pub fn cut_to(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Parses comma-separated counts into exactly `pits` values. When `/` appears, it must
/// separate exactly [`ROWS`] rows of `pits / ROWS` counts each: a board typed in rows of the
/// wrong length is refused, naming the row, rather than read as another position.
pub fn parse_counts(text: &str, pits: usize, what: &str) -> Result<Vec<u8>, InputError> {
    if text.trim().is_empty() {
        return Err(InputError::new(format!("{what} is empty")));
    }
    if text.contains('/') {
        check_rows(text, pits, what)?;
    }
    check_separators(text, what)?;
    let words: Vec<&str> = text.split([',', '/']).map(str::trim).collect();
    if words.iter().any(|w| w.is_empty()) {
        // "1,,2" is a typo, not a zero.
        return Err(InputError::new(format!(
            "{what}: empty field in '{}'",
            short(text)
        )));
    }
    if words.len() != pits {
        return Err(InputError::new(format!(
            "{what} has {} pit counts, this game needs {pits}",
            words.len()
        )));
    }
    words
        .iter()
        .map(|w| {
            if w.starts_with('-') {
                return Err(InputError::new(format!(
                    "{what}: negative seed count '{}'",
                    short(w)
                )));
            }
            let v: u32 = w.parse().map_err(|_| {
                InputError::new(format!("{what}: '{}' is not a seed count", short(w)))
            })?;
            if v > MAX_PIT {
                return Err(InputError::new(format!(
                    "{what}: a pit holds at most {MAX_PIT} seeds, not {v}"
                )));
            }
            Ok(v as u8)
        })
        .collect()
}

/// Refuses counts separated by anything but `,` and `/`: "0;0;1" or "0 0 1" would otherwise
/// read as one count and be reported as a wrong number of pits.
pub fn check_separators(text: &str, what: &str) -> Result<(), InputError> {
    let foreign = text
        .chars()
        .find(|c| c.is_ascii_punctuation() && !matches!(c, ',' | '/' | '-' | '+' | '.'))
        .or_else(|| {
            text.split([',', '/'])
                .any(|w| w.trim().contains(char::is_whitespace))
                .then_some(' ')
        });
    match foreign {
        Some(c) => Err(InputError::new(format!(
            "{what}: pit counts are separated by ',' (rows by '/'), not '{c}'"
        ))),
        None => Ok(()),
    }
}

/// Refuses `/`-separated text unless it has [`ROWS`] rows of `pits / ROWS` counts.
fn check_rows(text: &str, pits: usize, what: &str) -> Result<(), InputError> {
    let rows: Vec<&str> = text.split('/').collect();
    let per_row = pits / ROWS;
    if rows.len() != ROWS {
        return Err(InputError::new(format!(
            "{what} has {} rows separated by '/', this game has {ROWS} rows of {per_row} pits",
            rows.len()
        )));
    }
    for (i, row) in rows.iter().enumerate() {
        let counts = row.split(',').count();
        if counts != per_row {
            return Err(InputError::new(format!(
                "{what}: row {} has {counts} pit counts, each row of this game has {per_row}",
                i + 1
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_parse_with_row_separators() {
        assert_eq!(
            parse_counts("1/2/3/4", 4, "board").unwrap(),
            vec![1, 2, 3, 4]
        );
        assert_eq!(
            parse_counts("1,2/3,4/5,6/7,8", 8, "board").unwrap(),
            vec![1, 2, 3, 4, 5, 6, 7, 8]
        );
        assert_eq!(parse_counts(" 0, 0 ,2", 3, "board").unwrap(), vec![0, 0, 2]);
    }

    #[test]
    fn bad_counts_are_refused() {
        assert!(parse_counts("1,2,3", 4, "board").is_err());
        assert!(parse_counts("1,-2,3", 3, "board").is_err());
        assert!(parse_counts("1,x,3", 3, "board").is_err());
        assert!(parse_counts("1,,3", 3, "board").is_err());
        assert!(parse_counts("1,256,3", 3, "board").is_err());
        assert!(parse_counts("", 3, "board").is_err());
    }

    #[test]
    fn echoed_text_is_one_short_line() {
        assert_eq!(short("a,b"), "a,b");
        assert_eq!(short("a\nb\r\t\u{1b}"), "a\\nb\\r\\t\\u{1b}");
        let long = "x".repeat(10 * ECHO_MAX);
        assert_eq!(short(&long), format!("{}...", &long[..ECHO_MAX]));
        assert_eq!(short(&"é".repeat(ECHO_MAX)), "é".repeat(ECHO_MAX));
    }

    #[test]
    fn rows_must_have_the_games_shape() {
        // Eight counts in rows of 1, 3, 2, 2: the right total, the wrong rows.
        let err = parse_counts("1/2,3,4/5,6/7,8", 8, "board").unwrap_err();
        assert!(err.0.contains("row 1 has 1"), "{err}");
        assert!(parse_counts("1,2,3,4/5,6,7,8", 8, "board").is_err());
        assert!(parse_counts("1,2/3,4/5,6/7,8/", 8, "board").is_err());
    }
}
