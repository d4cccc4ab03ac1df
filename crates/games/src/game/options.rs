//! Rule options shared by several games.

use super::input::short;
use super::{rule_pairs, InputError};

/// `never-ending` rule option of games whose relay sowing can go on forever (Kigogo, Bao).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NeverEnding {
    /// A start whose sowing never ends is not a legal move (default).
    #[default]
    Illegal,
    /// Playing a start whose sowing never ends loses at once for the mover.
    Loss,
}

impl NeverEnding {
    /// Parses `never-ending=illegal|loss` (empty text: the default), refusing anything else
    /// as a rule option of `game`.
    pub fn parse_rules(text: &str, game: &str) -> Result<NeverEnding, InputError> {
        let mut ne = NeverEnding::default();
        for (k, v) in rule_pairs(text)? {
            ne = match (k, v) {
                ("never-ending", "illegal") => NeverEnding::Illegal,
                ("never-ending", "loss") => NeverEnding::Loss,
                ("never-ending", _) => {
                    return Err(InputError::new(format!(
                        "rule option never-ending={}: never-ending takes illegal|loss",
                        short(v)
                    )))
                }
                _ => {
                    return Err(InputError::new(format!(
                        "unknown rule option '{}' for {game} (known: never-ending=illegal|loss)",
                        short(k)
                    )))
                }
            };
        }
        Ok(ne)
    }

    /// Canonical text, as in descriptors.
    pub fn canonical(self) -> &'static str {
        match self {
            NeverEnding::Illegal => "never-ending=illegal",
            NeverEnding::Loss => "never-ending=loss",
        }
    }
}
