//! The per-tier count table that `solve` and `stats` print: one row per tier and a total.

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
        "{:>6} {:>14} {:>14} {:>14} {:>14} {:>9}",
        "seeds", "positions", "win", "loss", "draw", "max depth"
    )
}

/// One row, aligned under [`header`].
pub fn row(r: &Row) -> String {
    format!(
        "{:>6} {:>14} {:>14} {:>14} {:>14} {:>9}",
        r.label, r.states, r.win, r.loss, r.draw, r.max_depth
    )
}
