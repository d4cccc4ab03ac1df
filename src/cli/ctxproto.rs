//! `measure-ctx --code` (hidden): the prototype coders of issue 12 run over a tier, each
//! block coded, decoded again and compared, with their sizes and the decoder's CPU time
//! ([`bawo::db::ctxcode`], [`bawo::db::ctxstatic`]). The context measurements themselves are
//! in [`super::ctxmeasure`].

use std::collections::HashMap;

use rayon::prelude::*;

use bawo::db;
use bawo::error::{Error, Result};
use bawo::game::Game;

use super::args::{usage, with_threads};
use super::composition::CompositionOrder;
use super::ctxmeasure::MeasureCtxArgs;

/// `--code`: the prototype coder over the whole tier, block by block.
/// `raw` is the tier's entries in composition order (`co`).
pub fn prototype<G: Game>(
    g: &G,
    co: &CompositionOrder,
    tier: u32,
    raw: &[u16],
    a: &MeasureCtxArgs,
) -> Result<()> {
    use std::time::Instant;
    let mask = co.entries(&with_threads(a.threads, || {
        db::dontcare::mask(g, tier, 0, raw.len())
    })?);
    let mut freq: HashMap<u16, u64> = HashMap::new();
    for &e in raw {
        *freq.entry(e).or_default() += 1;
    }
    let mut order: Vec<(u16, u64)> = freq.into_iter().collect();
    order.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    if order.len() > 256 {
        return Err(usage("--code codes at most 256 distinct entries per tier"));
    }
    let rank: HashMap<u16, u8> = order
        .iter()
        .enumerate()
        .map(|(i, &(e, _))| (e, i as u8))
        .collect();
    let mut ranks: Vec<u8> = raw.iter().map(|e| rank[e]).collect();
    let probe = g.position(tier, 0);
    let pits = g.board_counts(&probe).len();
    let seeds = g.tier_seeds(tier);
    let ranker = bawo::rank::Ranker::new(pits, seeds);
    // The prototype walks boards with the ranker: check that it is the tier's order.
    let mut counts = vec![0u8; pits];
    for i in (0..raw.len() as u64).step_by(9973) {
        ranker.unrank(seeds, i, &mut counts);
        let want: Vec<u8> = g
            .board_counts(&g.position(tier, co.index[i as usize]))
            .iter()
            .map(|&c| c as u8)
            .collect();
        if want != counts {
            return Err(usage("--code works on Bawo tiers only"));
        }
    }
    let block = 1usize << a.block;
    if a.stat {
        return static_proto(&ranker, pits, seeds, tier, &mut ranks, &mask, a);
    }
    let t = Instant::now();
    let mut proto = db::ctxcode::CtxCoder::new(pits, seeds);
    if a.prime {
        proto.frozen = a.frozen;
        let (used, nodes) = proto.train(
            &ranker,
            seeds,
            &mut ranks
                .chunks(block)
                .enumerate()
                .map(|(b, part)| ((b * block) as u64, part.to_vec())),
            &|i| mask[i as usize],
        );
        outln!(
            "primed: {used} slots used, {nodes} (slot, node) counters; training {:.1} ns/entry",
            t.elapsed().as_secs_f64() * 1e9 / raw.len() as f64
        );
    }
    if let Some(tile) = &a.tile {
        return tiles(
            &mut proto, &ranker, pits, seeds, tier, &mut ranks, &mask, tile,
        );
    }
    if a.far {
        // Every block codes with all earlier entries of the tier as neighbours.
        let t = Instant::now();
        let mut bytes = 0usize;
        for b in 0..ranks.len().div_ceil(block) {
            let end = ((b + 1) * block).min(ranks.len());
            bytes += proto
                .encode_span(&ranker, seeds, 0, &mut ranks[..end], b * block, &|i| {
                    mask[i as usize]
                })
                .len();
        }
        outln!(
            "tier {tier}: {} entries, blocks of 2^{}, every neighbour known: {} bytes = {:.3} bits per stored entry (encoded only); encode {:.1} ns/entry",
            raw.len(),
            a.block,
            bytes,
            bytes as f64 * 8.0 / raw.len() as f64,
            t.elapsed().as_secs_f64() * 1e9 / raw.len() as f64
        );
        return Ok(());
    }
    let t = Instant::now();
    let coded: Vec<Vec<u8>> = with_threads(a.threads, || {
        ranks
            .par_chunks_mut(block)
            .enumerate()
            .map_init(
                || proto.clone(),
                |c, (b, part)| {
                    let first = (b * block) as u64;
                    c.encode(&ranker, seeds, first, part, &|i| mask[i as usize])
                },
            )
            .collect()
    })?;
    let enc = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let cpu0 = thread_cpu();
    let mut c = proto.clone();
    let mut out = Vec::new();
    for (b, bytes) in coded.iter().enumerate() {
        let first = b * block;
        let n = block.min(ranks.len() - first);
        c.decode(&ranker, seeds, first as u64, n, bytes, &mut out);
        if out[..] != ranks[first..first + n] {
            return Err(Error::Mismatch(format!(
                "block {b} does not decode to what was coded"
            )));
        }
    }
    let dec = t.elapsed().as_secs_f64();
    let dec_cpu = thread_cpu() - cpu0;
    let bytes: usize = coded.iter().map(|b| b.len()).sum();
    let n = raw.len() as f64;
    outln!(
        "tier {tier}: {} entries, blocks of 2^{}: {} bytes = {:.3} bits per stored entry; encode {:.1} ns/entry (all threads), decode {:.1} ns/entry (one thread; CPU time {:.1} ns/entry)",
        raw.len(),
        a.block,
        bytes,
        bytes as f64 * 8.0 / n,
        enc * 1e9 / n,
        dec * 1e9 / n,
        dec_cpu * 1e9 / n
    );
    Ok(())
}

/// `--code --tile MxO`: the tier coded in tiles of the board space, one block each.
#[allow(clippy::too_many_arguments)]
fn tiles(
    c: &mut db::ctxcode::CtxCoder,
    ranker: &bawo::rank::Ranker,
    pits: usize,
    seeds: u32,
    tier: u32,
    ranks: &mut [u8],
    mask: &[bool],
    tile: &str,
) -> Result<()> {
    // `MxO`, or `N`: about N positions a tile, M = min(256, the mover's configurations).
    let (tm, to, target) = match tile.split_once('x') {
        Some((m, o)) => (m.parse::<usize>().ok(), o.parse::<usize>().ok(), None),
        None => (Some(256), Some(1), tile.parse::<usize>().ok()),
    };
    let (tm, to) = tm
        .zip(to)
        .filter(|&(m, o)| m > 0 && o > 0 && target != Some(0))
        .ok_or_else(|| usage("--tile takes MxO (e.g. 512x32) or a size N"))?;
    let h = pits / 2;
    let side = bawo::rank::Ranker::new(h, seeds);
    let mut stamp = vec![0u32; ranks.len()];
    let (mut bytes, mut blocks, mut tag) = (0usize, 0usize, 0u32);
    let mut board = vec![0u8; pits];
    let mut order = Vec::new();
    let t = std::time::Instant::now();
    for sa in 0..=seeds {
        let nm = side.count(sa).map_err(|_| usage("side too large"))? as usize;
        let no = side
            .count(seeds - sa)
            .map_err(|_| usage("side too large"))? as usize;
        let (tm, to) = match target {
            Some(n) => (tm.min(nm), n.div_ceil(tm.min(nm))),
            None => (tm, to),
        };
        for o0 in (0..no).step_by(to) {
            for m0 in (0..nm).step_by(tm) {
                order.clear();
                for o in o0..(o0 + to).min(no) {
                    side.unrank(seeds - sa, o as u64, &mut board[h..]);
                    for m in m0..(m0 + tm).min(nm) {
                        side.unrank(sa, m as u64, &mut board[..h]);
                        order.push(ranker.rank(&board));
                    }
                }
                tag += 1;
                bytes += c
                    .encode_order(ranker, &order, ranks, &mut stamp, tag, &|i| {
                        mask[i as usize]
                    })
                    .len();
                blocks += 1;
            }
        }
    }
    outln!(
        "tier {tier}: {} entries in {blocks} tiles of {tile}: {bytes} bytes = {:.3} bits per stored entry (encoded only); {:.1} ns/entry",
        ranks.len(),
        bytes as f64 * 8.0 / ranks.len() as f64,
        t.elapsed().as_secs_f64() * 1e9 / ranks.len() as f64
    );
    Ok(())
}

/// `--code --static`: the static-table coder over the whole tier, fitted, coded block by
/// block, decoded and compared.
fn static_proto(
    ranker: &bawo::rank::Ranker,
    pits: usize,
    seeds: u32,
    tier: u32,
    ranks: &mut [u8],
    mask: &[bool],
    a: &MeasureCtxArgs,
) -> Result<()> {
    use db::ctxstatic::{parse, StaticCoder, MAX_MODELS};
    let models: Vec<_> = a
        .ctx
        .iter()
        .map(|c| parse(c).ok_or_else(|| usage("--static models take prev, nJ and sa")))
        .collect::<Result<_>>()?;
    if models.len() > MAX_MODELS {
        return Err(usage("--static mixes at most 8 models"));
    }
    let block = 1usize << a.block;
    let n = ranks.len() as f64;
    let dc = |i: u64| mask[i as usize];
    let cpu0 = thread_cpu();
    let mut c = StaticCoder::new(pits, seeds, models);
    c.adapt = a.adapt_mix;
    for (b, part) in ranks.chunks(block).enumerate() {
        c.count(ranker, seeds, (b * block) as u64, part, &dc);
    }
    let mut levels = c.build_tables(a.min_count, a.step);
    for _ in 0..a.refit {
        // Substitute the don't-care entries under the tables so far, then count again over
        // what will be coded (don't-care entries included: they are coded too).
        let mut work = ranks.to_vec();
        for (b, part) in work.chunks_mut(block).enumerate() {
            c.train(ranker, seeds, (b * block) as u64, part, &dc);
        }
        c.clear_counts();
        for (b, part) in work.chunks(block).enumerate() {
            c.count(ranker, seeds, (b * block) as u64, part, &|_| false);
        }
        levels = c.build_tables(a.min_count, a.step);
    }
    let cpu1 = thread_cpu();
    outln!(
        "empirical entropy of each model's counted decisions, bits per entry: {:?}",
        c.entropy
            .iter()
            .map(|e| (e / n * 1000.0).round() / 1000.0)
            .collect::<Vec<_>>()
    );
    let nonzero = levels.iter().filter(|&&l| l != 0).count();
    let table = zstd::bulk::compress(&levels, 19)
        .map_err(|e| Error::Mismatch(format!("zstd: {e}")))?
        .len()
        + c.weight_bytes();
    let mut work = ranks.to_vec();
    for (b, part) in work.chunks_mut(block).enumerate() {
        c.train(ranker, seeds, (b * block) as u64, part, &dc);
    }
    let cpu2 = thread_cpu();
    let coded: Vec<Vec<u8>> = ranks
        .chunks_mut(block)
        .enumerate()
        .map(|(b, part)| c.encode(ranker, seeds, (b * block) as u64, part, &dc))
        .collect();
    let cpu3 = thread_cpu();
    let mut out = Vec::new();
    for (b, bytes) in coded.iter().enumerate() {
        let first = b * block;
        let len = block.min(ranks.len() - first);
        c.decode(ranker, seeds, first as u64, len, bytes, &mut out);
        if out[..] != ranks[first..first + len] {
            return Err(Error::Mismatch(format!(
                "block {b} does not decode to what was coded"
            )));
        }
    }
    let cpu4 = thread_cpu();
    let bytes: usize = coded.iter().map(|b| b.len()).sum();
    outln!(
        "tier {tier}: {} entries, blocks of 2^{}: codes {} B + tables {} B ({} levels, {} nonzero) = {:.3} bits per stored entry ({:.3} codes only); CPU per entry: count {:.1} ns, mixer fit {:.1} ns, encode {:.1} ns, decode {:.1} ns",
        ranks.len(),
        a.block,
        bytes,
        table,
        levels.len(),
        nonzero,
        (bytes + table) as f64 * 8.0 / n,
        bytes as f64 * 8.0 / n,
        (cpu1 - cpu0) * 1e9 / n,
        (cpu2 - cpu1) * 1e9 / n,
        (cpu3 - cpu2) * 1e9 / n,
        (cpu4 - cpu3) * 1e9 / n,
    );
    Ok(())
}

/// CPU seconds of the calling thread (load-independent, unlike wall time).
fn thread_cpu() -> f64 {
    bawo::clock::cpu_time(libc::CLOCK_THREAD_CPUTIME_ID).as_secs_f64()
}
