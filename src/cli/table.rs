//! The per-tier count table that `solve` and `stats` print: one row per tier and a total,
//! counts with thousands separators as the docs write them.

use bawo_games::units::separated;

/// One row's counts.
pub struct Row<'a> {
    pub label: &'a str,
    pub states: u64,
    pub win: u64,
    pub loss: u64,
    pub draw: u64,
    pub max_depth: u32,
}

/// The header line.
pub fn header() -> String {
    format!(
        "{:>6} {:>17} {:>17} {:>17} {:>17} {:>9}",
        "seeds", "positions", "win", "loss", "draw", "max depth"
    )
}

/// One row, aligned under [`header`].
pub fn row(r: &Row) -> String {
    format!(
        "{:>6} {:>17} {:>17} {:>17} {:>17} {:>9}",
        r.label,
        separated(r.states),
        separated(r.win),
        separated(r.loss),
        separated(r.draw),
        r.max_depth
    )
}

/// Whatever a row counts: a tier or a whole run, of a solve or of `stats`. The row is built
/// from it in one place, so the tier rows and the "all" row of every table agree.
pub trait Counted {
    fn row<'a>(&self, label: &'a str) -> Row<'a>;
}

macro_rules! counted {
    ($($t:ty),*) => {$(
        impl Counted for $t {
            fn row<'a>(&self, label: &'a str) -> Row<'a> {
                Row {
                    label,
                    states: self.states,
                    win: self.win,
                    loss: self.loss,
                    draw: self.draw,
                    max_depth: self.max_depth,
                }
            }
        }
    )*};
}

counted!(
    bawo_solve::Summary,
    bawo_solve::TierCounts,
    bawo_db::stats::Stats,
    bawo_db::stats::TierStats
);

/// The row of one tier, labelled with its seeds.
pub fn tier_row(t: &impl Counted, seeds: u32) -> String {
    row(&t.row(&seeds.to_string()))
}

/// The "all" row: the whole run's counts.
pub fn total_row(c: &impl Counted) -> String {
    row(&c.row("all"))
}
