//! Hidden developer commands, not part of the user interface: `pack` (re-encode a
//! database's compressed tier files from its raw tables, for size experiments) and
//! `bench-pass` (the bare successor pass that `scripts/bench-solve.sh` measures a solve
//! against).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use rayon::prelude::*;

use bawo::db;
use bawo::error::{Error, Result};
use bawo::game::Game;
use bawo::with_game;

use super::args::{print_json, usage, with_threads, GameArgs};

#[derive(Args, Debug)]
pub struct PackArgs {
    /// Run directory holding raw tables (`tier-KKKK.tbl`).
    #[arg(long)]
    pub db: PathBuf,
    /// Positions per block.
    #[arg(long, default_value_t = db::format::EncodeOptions::default().block_positions)]
    pub block: u32,
    /// zstd level.
    #[arg(long, default_value_t = db::format::EncodeOptions::default().level)]
    pub level: i32,
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(Args, Debug)]
pub struct BenchPassArgs {
    #[command(flatten)]
    pub game: GameArgs,
    #[arg(long)]
    pub seeds: u32,
    #[arg(long)]
    pub threads: Option<usize>,
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
struct BenchPassJson {
    states: u64,
    successors: u64,
    seconds: f64,
    states_per_second: f64,
}

pub fn run_bench_pass(a: BenchPassArgs) -> Result<()> {
    let game = a.game.build(None)?;
    let (states, successors, secs) =
        with_threads(a.threads, || with_game!(&game, g => bare_pass(g, a.seeds)))??;
    let rate = states as f64 / secs;
    if a.json {
        print_json(&BenchPassJson {
            states,
            successors,
            seconds: secs,
            states_per_second: rate,
        });
    } else {
        outln!(
            "bare successor pass: {states} positions, {successors} successors in {secs:.2}s ({:.2} M positions/s)",
            rate / 1e6
        );
    }
    Ok(())
}

/// Visits every position of every tier once, either side to move, and generates its
/// successors (ranked), with no lookups or bookkeeping: what a solve of both sides could not
/// go below. A solve stores one side to move and answers the other by the mirror, so it
/// visits half of these positions.
fn bare_pass<G: Game>(g: &G, seeds: u32) -> Result<(u64, u64, f64)> {
    let tiers = g.tiers_up_to(seeds)?;
    let start = Instant::now();
    let mut states = 0u64;
    let mut successors = 0u64;
    for t in tiers {
        let size = g.tier_size(t)?;
        let chunk = bawo::solve::pass::PASS_CHUNK as u64;
        let n = size.div_ceil(chunk);
        successors += (0..n)
            .into_par_iter()
            .map_init(Vec::new, |succ, c| {
                let mut count = 0u64;
                let lo = c * chunk;
                g.visit(t, lo..(lo + chunk).min(size), |_, pos| {
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

pub fn run_pack(a: PackArgs) -> Result<()> {
    let m = bawo::solve::Manifest::load(&a.db)?
        .ok_or_else(|| Error::Missing(format!("{} holds no manifest", a.db.display())))?;
    let opts = db::format::EncodeOptions {
        block_positions: a.block,
        level: a.level,
    };
    if opts.block_positions == 0 {
        return Err(usage("--block must be positive"));
    }
    let mut m2 = m.clone();
    let (mut states, mut bytes, mut secs) = (0u64, 0u64, 0f64);
    for r in m2.tiers.iter_mut() {
        let (_, data) = bawo::store::table::open_table(
            &a.db.join(&r.file),
            r.tier,
            r.counts.states,
            m.fingerprint_value(),
            true,
        )?;
        let t = Instant::now();
        let rec = with_threads(a.threads, || {
            db::format::write_tier(&a.db, r.tier, m.fingerprint_value(), data.entries(), &opts)
        })??;
        secs += t.elapsed().as_secs_f64();
        states += r.counts.states;
        bytes += rec.bytes;
        r.bdb = Some(rec);
    }
    m2.save(&a.db)?;
    outln!(
        "block {} level {}: {} positions, {} bytes, {:.3} bits/position, {:.2}s encoding",
        a.block,
        a.level,
        states,
        bytes,
        bytes as f64 * 8.0 / states.max(1) as f64,
        secs
    );
    Ok(())
}
