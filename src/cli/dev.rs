//! Hidden developer commands, not part of the user interface: `pack` (re-encode a
//! database's compressed tier files from its raw tables, for size experiments) and
//! `bench-pass` (the bare successor pass that `scripts/bench-solve.sh` measures a solve
//! against).

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use rayon::prelude::*;

use bawo::db;
use bawo::error::{Error, Result};
use bawo::game::Game;
use bawo::with_game;

use super::args::{print_json, usage, with_threads, GameArgs};
use super::composition::CompositionOrder;

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
    /// Substitute don't-care entries (found by two plies of moves from every position).
    #[arg(long)]
    pub dont_care: bool,
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(Args, Debug)]
pub struct MeasureArgs {
    /// Run directory holding raw tables (`tier-KKKK.tbl`, a solve with `--keep-tables`).
    #[arg(long)]
    pub db: PathBuf,
    /// zstd level of the trial encodings.
    #[arg(long, default_value_t = db::format::EncodeOptions::default().level)]
    pub level: i32,
    /// Also the entropy given earlier neighbours in the composition order of the whole board
    /// ([`CompositionOrder`]): each value is a
    /// set of pits `j+k+...` whose one seed moved to the next pit names a neighbour.
    #[arg(long)]
    pub neighbours: Vec<String>,
    /// Also the size of the entries as differences from their neighbour through pit J.
    #[arg(long)]
    pub residual: Vec<usize>,
    /// Only this tier.
    #[arg(long)]
    pub tier: Option<u32>,
    /// Order of a tier's entries before encoding (size experiment; `orders.rs`): `tier` (as
    /// stored), `composition` (of the whole board, the order before run-directory format
    /// 5), `split:MOVER/OPPONENT` or `lex:DIGITS`.
    #[arg(long, default_value = "tier")]
    pub order: String,
    /// Also the size with don't-care entries at each of these block sizes (powers of two).
    #[arg(long, value_delimiter = ',')]
    pub block_bits: Vec<u32>,
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

/// The manifest of the run directory `db`, which must have one.
fn finished_manifest(db: &Path) -> Result<bawo::solve::Manifest> {
    bawo::solve::Manifest::load(db)?
        .ok_or_else(|| Error::Missing(format!("{} holds no manifest", db.display())))
}

/// The raw table of tier record `r` (kept by `solve --keep-tables`), checksum checked.
fn raw_table(
    db: &Path,
    m: &bawo::solve::Manifest,
    r: &bawo::solve::TierRecord,
) -> Result<bawo::store::table::TableData> {
    let (_, data) = bawo::store::table::open_table(
        &db.join(&r.file),
        r.tier,
        r.counts.states,
        m.fingerprint_value(),
        true,
    )?;
    Ok(data)
}

pub fn run_pack(a: PackArgs) -> Result<()> {
    let m = finished_manifest(&a.db)?;
    let opts = db::format::EncodeOptions {
        block_positions: a.block,
        level: a.level,
    };
    if opts.block_positions == 0 {
        return Err(usage("--block must be positive"));
    }
    let mut m2 = m.clone();
    let game = bawo::game::AnyGame::from_descriptor(&m.game)
        .map_err(|e| Error::Mismatch(format!("{}: {e}", a.db.display())))?;
    let (mut states, mut bytes, mut secs) = (0u64, 0u64, 0f64);
    for r in m2.tiers.iter_mut() {
        let data = raw_table(&a.db, &m, r)?;
        let mask = if a.dont_care {
            with_threads(
                a.threads,
                || with_game!(&game, g => db::dontcare::mask(g, r.tier, 0, data.entries().len())),
            )?
        } else {
            Vec::new()
        };
        let dont_care = |i: u64| mask[i as usize];
        let t = Instant::now();
        let rec = with_threads(a.threads, || {
            db::format::write_tier_with(
                &a.db,
                r.tier,
                m.fingerprint_value(),
                data.entries(),
                a.dont_care
                    .then_some(&dont_care as db::format::DontCare<'_>),
                &opts,
            )
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

/// Order-0 and order-1 (previous entry as context) empirical entropy of `entries`, in bits
/// per entry.
fn entropies(entries: &[u16]) -> (f64, f64) {
    use std::collections::HashMap;
    let n = entries.len().max(1) as f64;
    let mut c0: HashMap<u16, u64> = HashMap::new();
    let mut c1: HashMap<(u16, u16), u64> = HashMap::new();
    let mut prev = 0u16;
    for &e in entries {
        *c0.entry(e).or_default() += 1;
        *c1.entry((prev, e)).or_default() += 1;
        prev = e;
    }
    let h = |counts: &mut dyn Iterator<Item = u64>| -> f64 {
        counts
            .map(|c| c as f64)
            .map(|c| -c * (c / n).log2())
            .sum::<f64>()
    };
    let h0 = h(&mut c0.values().copied()) / n;
    let mut ctx: HashMap<u16, u64> = HashMap::new();
    for (&(p, _), &c) in &c1 {
        *ctx.entry(p).or_default() += c;
    }
    let joint = h(&mut c1.values().copied());
    let context = h(&mut ctx.values().copied());
    (h0, (joint - context) / n)
}

/// Conditional entropy (bits per entry) of each entry given the entries of its earlier
/// neighbours in the composition order: the boards with one seed moved from pit `j` to pit
/// `j + 1`, for `j < contexts` (a sentinel where pit `j` is empty).
fn neighbour_entropy<G: Game>(
    g: &G,
    co: &CompositionOrder,
    tier: u32,
    entries: &[u16],
    contexts: &[usize],
) -> f64 {
    use std::collections::HashMap;
    let mut joint: HashMap<(Vec<u16>, u16), u64> = HashMap::new();
    co.visit(g, tier, 0..entries.len() as u64, |i, pos| {
        let pits = g.board_counts(pos);
        let mut ctx = Vec::with_capacity(contexts.len());
        for &j in contexts {
            // The bar position b_j = j + seeds in pits 0..=j.
            let b = j as u64 + pits[..=j].iter().map(|&p| p as u64).sum::<u64>();
            if pits[j] == 0 {
                ctx.push(u16::MAX);
            } else {
                let delta = bawo::rank::binomial(b - 1, j as u64).unwrap() as u64;
                ctx.push(entries[(i - delta) as usize]);
            }
        }
        *joint.entry((ctx, entries[i as usize])).or_default() += 1;
    });
    let mut ctx: HashMap<Vec<u16>, u64> = HashMap::new();
    for ((c, _), &n) in &joint {
        *ctx.entry(c.clone()).or_default() += n;
    }
    let n = entries.len().max(1) as f64;
    let h = |it: &mut dyn Iterator<Item = u64>| -> f64 {
        it.map(|c| c as f64)
            .map(|c| -c * (c / n).log2())
            .sum::<f64>()
    };
    (h(&mut joint.values().copied()) - h(&mut ctx.values().copied())) / n
}

/// Each entry replaced by its difference (mod 2^16) from its earlier neighbour through pit
/// `j` (the previous entry where pit `j` is empty): what a predicting coder would compress.
fn residuals<G: Game>(
    g: &G,
    co: &CompositionOrder,
    tier: u32,
    entries: &[u16],
    j: usize,
) -> Vec<u16> {
    let mut out = vec![0u16; entries.len()];
    co.visit(g, tier, 0..entries.len() as u64, |i, pos| {
        let pits = g.board_counts(pos);
        let b = j as u64 + pits[..=j].iter().map(|&p| p as u64).sum::<u64>();
        let nb = if pits[j] > 0 {
            Some(i - bawo::rank::binomial(b - 1, j as u64).unwrap() as u64)
        } else {
            i.checked_sub(1)
        };
        let e = entries[i as usize];
        out[i as usize] = nb.map_or(e, |n| e.wrapping_sub(entries[n as usize]));
    });
    out
}

pub fn run_measure(a: MeasureArgs) -> Result<()> {
    let m = finished_manifest(&a.db)?;
    let game = bawo::game::AnyGame::from_descriptor(&m.game)?;
    let opts = db::format::EncodeOptions {
        level: a.level,
        ..Default::default()
    };
    outln!("tier    stored  dontcare%   h0    h1  h0dc  h1dc   zstd bits  zstd-dc bits  mask s");
    let (mut stored, mut before, mut after, mut mask_secs) = (0u64, 0u64, 0u64, 0f64);
    let mut by_block: Vec<u64> = Vec::new();
    for r in m
        .tiers
        .iter()
        .filter(|r| a.tier.is_none_or(|t| t == r.tier))
    {
        let data = raw_table(&a.db, &m, r)?;
        let raw = data.entries().to_vec();
        let t = Instant::now();
        let mask = with_threads(
            a.threads,
            || with_game!(&game, g => db::dontcare::mask(g, r.tier, 0, raw.len())),
        )?;
        let secs = t.elapsed().as_secs_f64();
        let co = (!a.residual.is_empty() || !a.neighbours.is_empty())
            .then(|| with_game!(&game, g => CompositionOrder::new(g, r.tier, raw.len())));
        let perm =
            with_game!(&game, g => super::orders::storage_order(g, r.tier, raw.len(), &a.order))?;
        let (raw, mask, as_stored) = match perm {
            Some(p) => (
                p.iter().map(|&i| raw[i as usize]).collect(),
                p.iter().map(|&i| mask[i as usize]).collect(),
                raw,
            ),
            None => (raw.clone(), mask, raw),
        };
        let mut sub = raw.clone();
        db::dontcare::substitute(&mut sub, &mask);
        let (h0, h1) = entropies(&raw);
        let (g0, g1) = entropies(&sub);
        let composed = co.as_ref().map(|co| co.entries(&as_stored));
        for &j in &a.residual {
            let (co, comp) = (co.as_ref().unwrap(), composed.as_deref().unwrap());
            let res = with_game!(&game, g => residuals(g, co, r.tier, comp, j));
            let (r0, r1) = entropies(&res);
            let fp = m.fingerprint_value();
            let b = with_threads(a.threads, || db::format::encode(r.tier, fp, &res, &opts))??;
            outln!(
                "tier {} residual through pit {j}: h0 {r0:.3} h1 {r1:.3} zstd {:.3} bits",
                r.tier,
                b.len() as f64 * 8.0 / raw.len().max(1) as f64
            );
        }
        for set in &a.neighbours {
            let js: Vec<usize> = set.split('+').filter_map(|w| w.parse().ok()).collect();
            let (co, comp) = (co.as_ref().unwrap(), composed.as_deref().unwrap());
            let h = with_game!(&game, g => neighbour_entropy(g, co, r.tier, comp, &js));
            outln!("tier {} neighbour pits {set}: {h:.3}", r.tier);
        }
        let fp = m.fingerprint_value();
        for (k, &bits) in a.block_bits.iter().enumerate() {
            let o = db::format::EncodeOptions {
                block_positions: 1u32
                    .checked_shl(bits)
                    .filter(|&b| b > 1)
                    .ok_or_else(|| usage("--block-bits takes powers of two between 1 and 31"))?,
                level: a.level,
            };
            let b = with_threads(a.threads, || db::format::encode(r.tier, fp, &sub, &o))??;
            if by_block.len() <= k {
                by_block.push(0);
            }
            by_block[k] += b.len() as u64;
        }
        let b0 = with_threads(a.threads, || db::format::encode(r.tier, fp, &raw, &opts))??;
        let b1 = with_threads(a.threads, || db::format::encode(r.tier, fp, &sub, &opts))??;
        let n = raw.len().max(1) as f64;
        let dc = mask.iter().filter(|&&x| x).count() as f64;
        outln!(
            "{:4} {:9} {:9.1} {:5.2} {:5.2} {:5.2} {:5.2} {:11.3} {:13.3} {:7.2}",
            r.tier,
            raw.len(),
            100.0 * dc / n,
            h0,
            h1,
            g0,
            g1,
            b0.len() as f64 * 8.0 / n,
            b1.len() as f64 * 8.0 / n,
            secs
        );
        stored += raw.len() as u64;
        before += b0.len() as u64;
        after += b1.len() as u64;
        mask_secs += secs;
    }
    let both = (2 * stored).max(1) as f64;
    outln!(
        "all: {} positions (both sides): {} bytes = {:.3} bits/position; with don't-care {} bytes = {:.3}; mask {:.2}s",
        2 * stored,
        before,
        before as f64 * 8.0 / both,
        after,
        after as f64 * 8.0 / both,
        mask_secs
    );
    for (bits, bytes) in a.block_bits.iter().zip(&by_block) {
        outln!(
            "with don't-care, 2^{bits}-position blocks: {bytes} bytes = {:.3} bits/position",
            *bytes as f64 * 8.0 / both
        );
    }
    Ok(())
}
