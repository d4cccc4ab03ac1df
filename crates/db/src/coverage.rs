//! Whether a database holds the table a position needs, and a usage error saying what it
//! does hold when not; which tiers of an unfinished run are finished, so that no command
//! presents a run killed part-way as a finished database.

use std::path::Path;

use super::Database;
use bawo_games::error::{Error, InputError, Result};
use bawo_games::game::{Game, Tier};
use bawo_games::with_game;

/// Refuses (as a usage error) a position the database holds no table for, saying what it
/// does hold; errors that are not about coverage (e.g. a Bao position with seeds in hand) pass.
pub fn ensure_covered<G: Game>(db: &Database, g: &G, pos: &G::Position, dir: &Path) -> Result<()> {
    // A board far beyond the database may not even have an index: that is a board the
    // database does not cover, not an overflow to report.
    let tier = match g.locate(pos) {
        Ok((t, _)) => Some(t),
        Err(Error::TooLarge(_)) => None,
        Err(e) => return Err(e),
    };
    if tier.is_some_and(|t| db.manifest().record(t).is_some()) {
        return Ok(());
    }
    if let (Some(t), Some(note)) = (tier, unfinished_note(db)) {
        if db.finishing().planned.contains(&t) {
            return Err(Error::Input(InputError::new(format!(
                "{note}; this board's tier {t} is not"
            ))));
        }
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

/// The tiers a run set out to solve and those it finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finishing {
    /// Every tier of the run's seed budget.
    pub planned: Vec<Tier>,
    /// The tiers with a finished table, in solving order.
    pub finished: Vec<Tier>,
    /// The manifest marks the whole budget finished.
    pub complete: bool,
}

impl Database {
    /// Which tiers of the run's budget are finished.
    pub fn finishing(&self) -> Finishing {
        let m = self.manifest();
        let planned = with_game!(self.game(), g => g.tiers_up_to(m.seeds)).unwrap_or_default();
        let finished: Vec<Tier> = m.tiers.iter().map(|r| r.tier).collect();
        let complete = m.complete && planned.iter().all(|t| finished.contains(t));
        Finishing {
            planned,
            finished,
            complete,
        }
    }

    /// The run was stopped before its last tier: not every position of its budget has a value.
    pub fn is_complete(&self) -> bool {
        self.finishing().complete
    }
}

/// `None` for a finished database; for an unfinished run, a sentence like "the run in DIR is
/// unfinished: tiers 0-7 of 0-12 are finished".
pub fn unfinished_note(db: &Database) -> Option<String> {
    let f = db.finishing();
    if f.complete {
        return None;
    }
    let finished = if f.finished.is_empty() {
        "no tier is finished".to_string()
    } else {
        format!(
            "tier{} {} of {} {} finished",
            if f.finished.len() == 1 { "" } else { "s" },
            tier_ranges(&f.finished),
            tier_ranges(&f.planned),
            if f.finished.len() == 1 { "is" } else { "are" },
        )
    };
    Some(format!(
        "the run in {} is unfinished: {finished}",
        db.dir().display()
    ))
}

/// Tiers as ranges of consecutive ids: `0-7,9`.
pub fn tier_ranges(tiers: &[Tier]) -> String {
    let mut sorted = tiers.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            sorted[i].to_string()
        } else {
            format!("{}-{}", sorted[i], sorted[j])
        });
        i = j + 1;
    }
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(",")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn tier_ranges_join_consecutive_ids() {
        assert_eq!(super::tier_ranges(&[3, 0, 1, 2, 7, 9, 10]), "0-3,7,9-10");
        assert_eq!(super::tier_ranges(&[5]), "5");
        assert_eq!(super::tier_ranges(&[]), "none");
    }
}
