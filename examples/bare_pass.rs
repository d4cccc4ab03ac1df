//! The bare successor pass: every position of every tier visited once, either side to move,
//! and its successors generated (ranked), with no lookups or bookkeeping. It is the floor a
//! solve is measured against (`scripts/bench-solve.sh`): a solve stores one side to move and
//! answers the other by the mirror, so it visits half of these positions but must also look
//! up, log and propagate.
//!
//! `cargo run --release --example bare_pass -- "bawo n=3 lap-cap=64" 16 [threads]`
//! prints one JSON line: states, successors, seconds, states_per_second.

use std::time::Instant;

use bawo_db::{with_game, AnyGame, Game, GameParams};
use rayon::prelude::*;

/// Positions a worker takes at a time.
const CHUNK: u64 = 1 << 14;

fn bare_pass<G: Game>(g: &G, seeds: u32) -> bawo_games::Result<(u64, u64, f64)> {
    let start = Instant::now();
    let (mut states, mut successors) = (0u64, 0u64);
    for t in g.tiers_up_to(seeds)? {
        let size = g.tier_size(t)?;
        successors += (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .map_init(Vec::new, |succ, c| {
                let mut count = 0u64;
                let lo = c * CHUNK;
                g.visit(t, lo..(lo + CHUNK).min(size), |_, pos| {
                    for side in [pos, &g.mirror(pos)] {
                        succ.clear();
                        g.successors(side, succ);
                        count += succ.len() as u64;
                    }
                });
                count
            })
            .sum::<u64>();
        states += g.tier_positions(t)?;
    }
    Ok((states, successors, start.elapsed().as_secs_f64()))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: bare_pass \"<game descriptor>\" <seeds> [threads]";
    let (descriptor, seeds) = match args.as_slice() {
        [d, s, ..] => (d, s.parse::<u32>()?),
        _ => return Err(usage.into()),
    };
    if let Some(t) = args.get(2) {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t.parse()?)
            .build_global()?;
    }
    let game = AnyGame::from_params(&GameParams::from_descriptor(descriptor)?)?;
    let (states, successors, seconds) = with_game!(&game, g => bare_pass(g, seeds))?;
    println!(
        "{{\"states\":{states},\"successors\":{successors},\"seconds\":{seconds},\"states_per_second\":{}}}",
        states as f64 / seconds
    );
    Ok(())
}
