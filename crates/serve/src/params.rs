//! Query strings of the API turned into positions, with the errors the client sees.
//!
//! The parameters are those of the command line, spelled as URL keys: `board`, `to_move`,
//! `hands`, `houses`, `start` and `after` (moves played first, comma-separated). Unknown keys
//! are refused, so a typo is a 400 rather than a silently different position.

use std::path::Path;

use axum::http::StatusCode;
use serde::Deserialize;

use super::served::Lookup;
use bawo_games::error::Error;
use bawo_games::game::{Game, InputError, MoveOutcome, PositionSpec, Side};

/// Longest query string accepted; a board of 48 pits with 3-digit counts is under 200 bytes.
pub const MAX_QUERY: usize = 2048;
/// Most plies `/api/line` plays (and the default).
pub const MAX_LINE: usize = 1000;

/// An error as the API returns it: a status and a one-line message (`{"error": ...}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status to answer with.
    pub status: StatusCode,
    /// The error message, for the JSON body.
    pub message: String,
}

impl ApiError {
    pub(crate) fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    pub(crate) fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
        }
    }

    /// A 500 error.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: message.into(),
        }
    }
}

impl From<Error> for ApiError {
    /// Input errors are the client's (400); anything else is the server's (500), as the
    /// command line splits exit codes 2 and 1. A server error is logged whole on standard
    /// error; the client is told what failed without the server's paths.
    fn from(e: Error) -> ApiError {
        if e.is_input() {
            return ApiError::bad_request(api_words(&e.to_string()));
        }
        crate::note(format_args!("bawo serve: error: {e}"));
        let file = |p: &Path| {
            p.file_name()
                .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
        };
        ApiError::internal(match &e {
            Error::Corrupt { path, why } => format!("{} is damaged: {why}", file(path)),
            Error::Io { path, source } => format!("{} cannot be read: {source}", file(path)),
            Error::Missing(_) => {
                "a file of this database is missing (the server's log names it)".into()
            }
            _ => "the server failed to answer (its log says why)".into(),
        })
    }
}

impl From<InputError> for ApiError {
    fn from(e: InputError) -> ApiError {
        ApiError::bad_request(api_words(&e.0))
    }
}

/// The games' parsers are shared with the command line and name its flags (`--board`,
/// `--hands 22,22`); the API's keys are spelled without dashes (`board`, `hands=22,22`).
pub(crate) fn api_words(message: &str) -> String {
    const WORDS: [(&str, &str); 7] = [
        ("--hands 22,22", "hands=22,22"),
        ("--game bao", "a bao database"),
        ("--to-move", "to_move"),
        ("--board", "board"),
        ("--hands", "hands"),
        ("--houses", "houses"),
        ("--after", "after"),
    ];
    WORDS
        .iter()
        .fold(message.to_string(), |m, (flag, key)| m.replace(flag, key))
}

impl From<Lookup> for ApiError {
    fn from(l: Lookup) -> ApiError {
        match l {
            Lookup::Missing(names) => ApiError::bad_request(format!(
                "several databases are served: give db= (one of {})",
                names.join(", ")
            )),
            Lookup::Unknown(name, names) => ApiError::not_found(format!(
                "no database named '{name}' is served (served: {})",
                names.join(", ")
            )),
        }
    }
}

/// The query string of the position endpoints.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionQuery {
    /// The database's short name (may be left out when only one is served).
    pub db: Option<String>,
    /// The board, as pit counts (comma-separated).
    pub board: Option<String>,
    /// The side to move (`A` or `B`; `A` if absent).
    pub to_move: Option<String>,
    /// Bao only: the seeds in each side's hand.
    pub hands: Option<String>,
    /// Bao only: which houses still stand.
    pub houses: Option<String>,
    /// `1` or `true`: the game's opening position instead of `board`.
    pub start: Option<String>,
    /// Moves played from the position first, comma-separated.
    pub after: Option<String>,
    /// `/api/line` only: most plies to play.
    pub limit: Option<String>,
}

/// The query string of `/api/dbs`, which takes no key: an unknown key is refused, as by the
/// other endpoints.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoQuery {}

/// The query string of the database endpoints.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DbQuery {
    /// The database's short name (may be left out when only one is served).
    pub db: Option<String>,
}

fn flag(text: &Option<String>, key: &str) -> Result<bool, ApiError> {
    match text.as_deref().map(str::trim) {
        None | Some("0") | Some("false") => Ok(false),
        Some("") | Some("1") | Some("true") => Ok(true),
        Some(other) => Err(ApiError::bad_request(format!("{key}={other}: give 1 or 0"))),
    }
}

impl PositionQuery {
    /// The position these parameters describe in game `g`.
    pub fn position<G: Game>(&self, g: &G) -> Result<G::Position, ApiError> {
        let start = flag(&self.start, "start")?;
        let mut pos = if start {
            if self.board.is_some() || self.hands.is_some() || self.houses.is_some() {
                return Err(ApiError::bad_request(
                    "start=1 replaces board, hands and houses: give one or the other",
                ));
            }
            g.start_position().ok_or_else(|| {
                ApiError::bad_request(format!(
                    "{} has no standard opening position; give board=",
                    g.name()
                ))
            })?
        } else {
            let board = self.board.as_deref().ok_or_else(|| {
                ApiError::bad_request("give board= (pit counts, comma-separated) or start=1")
            })?;
            let spec = PositionSpec {
                board: board.to_string(),
                to_move: Side::parse(self.to_move.as_deref().unwrap_or("A"))?,
                hands: self.hands.clone(),
                houses: self.houses.clone(),
            };
            g.parse_position(&spec)?
        };
        for text in self
            .after
            .iter()
            .flat_map(|a| a.split(','))
            .filter(|t| !t.trim().is_empty())
        {
            let m = g.find_move(&pos, text)?;
            pos = match m.outcome {
                MoveOutcome::Position(q) => q,
                MoveOutcome::MoverLoses => {
                    return Err(ApiError::bad_request(format!(
                        "after: {} loses at once for the mover; no position follows",
                        m.label
                    )))
                }
            };
        }
        Ok(pos)
    }

    /// `limit` for `/api/line`: 1..=[`MAX_LINE`], default [`MAX_LINE`].
    pub fn line_limit(&self) -> Result<usize, ApiError> {
        match self.limit.as_deref() {
            None => Ok(MAX_LINE),
            Some(t) => match t.trim().parse::<usize>() {
                Ok(n) if (1..=MAX_LINE).contains(&n) => Ok(n),
                _ => Err(ApiError::bad_request(format!(
                    "limit={t}: give a number of plies from 1 to {MAX_LINE}"
                ))),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_parse() {
        assert!(!flag(&None, "start").unwrap());
        assert!(flag(&Some("1".into()), "start").unwrap());
        assert!(flag(&Some("".into()), "start").unwrap());
        assert!(!flag(&Some("0".into()), "start").unwrap());
        assert!(flag(&Some("yes please".into()), "start").is_err());
    }

    #[test]
    fn api_messages_name_keys_not_flags() {
        assert_eq!(
            api_words("--hands '1,x': give the seeds, e.g. --hands 22,22"),
            "hands '1,x': give the seeds, e.g. hands=22,22"
        );
        assert_eq!(
            api_words("--hands and --houses apply to --game bao only"),
            "hands and houses apply to a bao database only"
        );
    }

    #[test]
    fn line_limits_are_bounded() {
        let q = |l: &str| PositionQuery {
            limit: Some(l.into()),
            ..Default::default()
        };
        assert_eq!(PositionQuery::default().line_limit().unwrap(), MAX_LINE);
        assert_eq!(q("5").line_limit().unwrap(), 5);
        for bad in ["0", "1001", "-1", "x", ""] {
            assert!(q(bad).line_limit().is_err(), "{bad}");
        }
    }
}
