//! Whether a database holds the table a position needs, and a usage error saying what it
//! does hold when not.

use std::path::Path;

use super::Database;
use crate::error::{Error, InputError, Result};
use crate::game::Game;

/// Refuses (as a usage error) a position the database holds no table for, saying what it
/// does hold; errors that are not about coverage (e.g. a Bao position with seeds in hand) pass.
pub fn ensure_covered<G: Game>(db: &Database, g: &G, pos: &G::Position, dir: &Path) -> Result<()> {
    // A board far beyond the database may not even have an index: that is a board the
    // database does not cover, not an overflow to report.
    let tier = match g.locate(pos) {
        Ok((t, _)) => Some(t),
        Err(Error::TooLarge(_)) | Err(Error::TierTooLarge { .. }) => None,
        Err(e) => return Err(e),
    };
    if tier.is_some_and(|t| db.manifest().record(t).is_some()) {
        return Ok(());
    }
    let seeds: u32 = g.board_counts(pos).iter().sum();
    let held: Vec<u32> = db.manifest().tiers.iter().map(|r| r.counts.seeds).collect();
    let covers = if held.len() == 1 && held[0] > 0 {
        format!("holds only positions with exactly {} seeds", held[0])
    } else {
        format!("covers at most {}", db.manifest().seeds)
    };
    Err(Error::Input(InputError::new(format!(
        "the board holds {seeds} seeds; the database at {} {covers}",
        dir.display()
    ))))
}
