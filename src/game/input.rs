//! Positions and parameters as users type them, and the errors for text that is wrong.

use super::Side;
pub use crate::error::InputError;

/// A position as given on the command line, before a game interprets it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionSpec {
    /// Pit counts separated by `,` (rows may be separated by `/`).
    pub board: String,
    pub to_move: Side,
    /// Seeds in hand `a,b` (Bao only).
    pub hands: Option<String>,
    /// House status (Bao only).
    pub houses: Option<String>,
}

impl PositionSpec {
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

/// Parses comma-separated counts (with `/` allowed between rows) into exactly `pits` values.
pub fn parse_counts(text: &str, pits: usize, what: &str) -> Result<Vec<u8>, InputError> {
    if text.trim().is_empty() {
        return Err(InputError::new(format!("{what} is empty")));
    }
    let words: Vec<&str> = text.split([',', '/']).map(str::trim).collect();
    if words.iter().any(|w| w.is_empty()) {
        // "1,,2" is a typo, not a zero.
        return Err(InputError::new(format!("{what}: empty field in '{text}'")));
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
                    "{what}: negative seed count '{w}'"
                )));
            }
            let v: u32 = w
                .parse()
                .map_err(|_| InputError::new(format!("{what}: '{w}' is not a seed count")))?;
            if v > MAX_PIT {
                return Err(InputError::new(format!(
                    "{what}: a pit holds at most {MAX_PIT} seeds, not {v}"
                )));
            }
            Ok(v as u8)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_parse_with_row_separators() {
        assert_eq!(
            parse_counts("1,2/3,4", 4, "board").unwrap(),
            vec![1, 2, 3, 4]
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
}
