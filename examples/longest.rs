//! Longest win and longest loss of each tier of a finished database, with the draw share:
//! the numbers the README's result tables quote beside the solve summary (which only gives
//! the largest depth of any kind).
//!
//! `cargo run --release --example longest -- /tmp/bao-7`

use bawo_db::Database;
use bawo_games::Value;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .ok_or("usage: longest <database directory>")?;
    let db = Database::open(std::path::Path::new(&dir))?;
    println!("{}", db.manifest().game);
    println!(
        "{:>6} {:>12} {:>12} {:>12} {:>9}",
        "tier", "positions", "longest win", "longest loss", "draw %"
    );
    for r in &db.manifest().tiers {
        let (mut win, mut loss, mut draws) = (0u32, 0u32, 0u64);
        for i in 0..r.counts.states {
            let e = db.probe(r.tier, i)?;
            match (e.value(), e.depth()) {
                (Some(Value::Win), Some(d)) => win = win.max(d),
                (Some(Value::Loss), Some(d)) => loss = loss.max(d),
                _ => draws += 1,
            }
        }
        println!(
            "{:>6} {:>12} {:>12} {:>12} {:>9.3}",
            r.tier,
            r.counts.states,
            win,
            loss,
            100.0 * draws as f64 / r.counts.states as f64
        );
    }
    Ok(())
}
