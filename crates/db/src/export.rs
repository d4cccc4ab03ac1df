//! `bawo export`: one tier as CSV, for analysis elsewhere.
//!
//! One row per position of either side to move: `index`, one column per pit in the game's pit
//! order (`p0`, `p1`, ...), the game's extra position fields if it has any, `to_move`
//! (`A`/`B`), `value` (`WIN`/`LOSS`/`DRAW`) and `depth` (empty for draws). Rows come in index
//! order, two per stored entry: the stored position with A to move, then its mirror with B
//! to move, which has the same value and depth and shares the entry's `index` (the index
//! [`Game::locate`] gives both). The tier is read one block at a time, so the output streams.

use std::io::Write;

use super::Database;
use bawo_games::error::{Error, Result};
use bawo_games::game::{Game, Tier};
use bawo_games::value::Entry;

/// Export formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// Comma-separated values.
    Csv,
}

impl ExportFormat {
    /// Parses a format name.
    pub fn parse(s: &str) -> std::result::Result<ExportFormat, bawo_games::game::InputError> {
        match s {
            "csv" => Ok(ExportFormat::Csv),
            other => Err(bawo_games::game::InputError::new(format!(
                "unknown export format '{other}' (known: csv)"
            ))),
        }
    }
}

fn csv_field(v: &serde_json::Value) -> String {
    let s = match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// Writes tier `tier` as CSV to `out`; returns the rows written.
pub fn export_csv(db: &Database, tier: Tier, out: &mut dyn Write) -> Result<u64> {
    let io = |e: std::io::Error| Error::io("<export output>", e);
    db.record(tier)?;
    bawo_games::with_game!(db.game(), g => {
        let mut rows = 0u64;
        let mut header_done = false;
        let mut extra_keys: Vec<String> = Vec::new();
        db.for_each_run(tier, |start, entries| {
            let mut line = String::new();
            let mut failure: Option<std::io::Error> = None;
            g.visit(tier, start..start + entries.len() as u64, |i, stored| {
              for pos in [stored, &g.mirror(stored)] {
                let counts = g.board_counts(pos);
                let extra = g.position_fields(pos);
                if !header_done {
                    extra_keys = extra.keys().cloned().collect();
                    line.push_str("index");
                    for p in 0..counts.len() {
                        line.push_str(&format!(",p{p}"));
                    }
                    for k in &extra_keys {
                        line.push(',');
                        line.push_str(k);
                    }
                    line.push_str(",to_move,value,depth\n");
                    header_done = true;
                }
                let e = Entry(entries[(i - start) as usize]);
                line.push_str(&i.to_string());
                for c in counts {
                    line.push(',');
                    line.push_str(&c.to_string());
                }
                for k in &extra_keys {
                    line.push(',');
                    line.push_str(&extra.get(k).map(csv_field).unwrap_or_default());
                }
                line.push(',');
                line.push_str(g.side_to_move(pos).letter());
                line.push(',');
                line.push_str(e.value().map_or("?", |v| v.as_str()));
                line.push(',');
                if let Some(d) = e.depth() {
                    line.push_str(&d.to_string());
                }
                line.push('\n');
                rows += 1;
                if line.len() >= 1 << 16 && failure.is_none() {
                    failure = out.write_all(line.as_bytes()).err();
                    line.clear();
                }
              }
            });
            if let Some(e) = failure.take() {
                return Err(io(e));
            }
            out.write_all(line.as_bytes()).map_err(io)
        })?;
        out.flush().map_err(io)?;
        Ok(rows)
    })
}
