//! Hidden developer command `measure-ctx`: the adaptive code length of a tier's stored entries
//! under contexts computed from the board while walking the tier in rank order (issue 12).
//!
//! Each entry becomes its rank in the tier's frequency order, coded in unary (rank 15 and up
//! as an escape costing 16 bits more); every unary bit has an adaptive probability (counts,
//! halved past a limit) per context, so the figure is an honest code length that a context
//! arithmetic coder would reach, learning cost included, not an empirical entropy. Models are
//! reset at every block of `2^reset` positions when asked; neighbour entries are only used
//! inside the block of `2^block` positions they fall in, as a decoder of one block would.
//!
//! Don't-care entries are substituted by the most probable symbol of their context (the
//! encoder's free choice) and costed twice: as coded (`mps`) and as free (`skip`, a decoder
//! that recomputes the flag from two plies of moves).

use std::collections::HashMap;
use std::path::PathBuf;

use clap::Args;
use rayon::prelude::*;

use bawo::db;
use bawo::error::{Error, Result};
use bawo::game::{Game, Successor};
use bawo::with_game;

use super::args::{usage, with_threads};

#[derive(Args, Debug)]
pub struct MeasureCtxArgs {
    /// Run directory holding raw tables (`solve --keep-tables`).
    #[arg(long)]
    pub db: PathBuf,
    /// The tier measured.
    #[arg(long)]
    pub tier: u32,
    /// Context sets, features joined by `+`: prev, prev2, nJ (neighbour through pit J), sa
    /// (seeds on the mover's side), fa (mover's front row), fb, mv (legal moves), cap (a move
    /// leaves the tier), lt (every move leaves), dc (the don't-care flag), succ (the known
    /// in-tier successors' prediction), big (largest mover pit), emp (empty mover pits),
    /// none.
    #[arg(long, required = true)]
    pub ctx: Vec<String>,
    /// Neighbours and successors count only inside blocks of 2^B positions.
    #[arg(long, default_value_t = 21)]
    pub block: u32,
    /// Reset the models every 2^R positions (0: never, like static per-tier tables).
    #[arg(long, default_value_t = 0)]
    pub reset: u32,
    /// Also all the context sets together, their predictions mixed (logistic mixing, weights
    /// per unary node and the `lt` flag).
    #[arg(long)]
    pub mix: bool,
    /// Instead of the models above, code the tier in blocks of 2^block positions with the
    /// prototype coder (`db::ctxcode`), decode every block again and compare, and report the
    /// bytes and the time per entry (Bawo only).
    #[arg(long)]
    pub code: bool,
    /// With `--code`: prime the models by a first pass over the tier (blocks of the same
    /// size, models carried across), every block starting from that state.
    #[arg(long)]
    pub prime: bool,
    /// With `--code --prime`: no updates while coding (static probabilities and weights).
    #[arg(long)]
    pub frozen: bool,
    /// With `--code`: neighbours in earlier blocks count too (a bound for block layouts that
    /// keep both kinds of neighbour near; encoded only, not decoded).
    #[arg(long)]
    pub far: bool,
    /// With `--code`: blocks are tiles `MxO` of the board space (for each split of the seeds
    /// between the sides, M consecutive mover configurations times O consecutive opponent
    /// configurations, coded opponent-major; or N: M = min(256, the mover's configurations),
    /// O = N / M); encoded only.
    #[arg(long)]
    pub tile: Option<String>,
    /// With `--code`: the static-table coder (`db::ctxstatic`), one model per `--ctx` (features
    /// prev, nJ, sa), fitted by a counting pass and a mixer pass over the tier; the tables'
    /// bytes (levels zstd-compressed) and weights are counted in the size.
    #[arg(long = "static")]
    pub stat: bool,
    /// With `--static`: contexts seen fewer times hold no opinion.
    #[arg(long, default_value_t = 8)]
    pub min_count: u32,
    /// With `--static`: the stretched probabilities' quantisation step (1/256 units).
    #[arg(long, default_value_t = 24)]
    pub step: i32,
    /// With `--static`: the mixer restarts from the fitted weights at every block and adapts.
    #[arg(long)]
    pub adapt_mix: bool,
    /// With `--static`: passes that substitute the don't-care entries and count again.
    #[arg(long, default_value_t = 0)]
    pub refit: u32,
    /// Learning rate of the mixer.
    #[arg(long, default_value_t = 0.02)]
    pub rate: f64,
    #[arg(long)]
    pub threads: Option<usize>,
}

/// Per-position features, computed once.
#[derive(Clone, Copy, Default)]
struct Feat {
    sa: u8,
    fa: u8,
    fb: u8,
    mv: u8,
    cap: u8,
    lt: u8,
    dc: u8,
    big: u8,
    emp: u8,
    /// Hashes of the mover's and the opponent's pits.
    ma: u32,
    ob: u32,
    /// Neighbour indices through pits 0..12 (u64::MAX where the pit is empty).
    nb: [u32; 12],
}

const ESC: usize = 15;

/// An adaptive binary probability from counts.
#[derive(Clone, Copy)]
struct Bit {
    n: [u16; 2],
}

impl Bit {
    fn cost(&self, b: usize) -> f64 {
        let p = (self.n[b] as f64 * 2.0 + 1.0) / ((self.n[0] + self.n[1]) as f64 * 2.0 + 2.0);
        -p.log2()
    }
    fn p(&self, b: usize) -> f64 {
        (self.n[b] as f64 * 2.0 + 1.0) / ((self.n[0] + self.n[1]) as f64 * 2.0 + 2.0)
    }
    fn update(&mut self, b: usize) {
        self.n[b] += 1;
        if self.n[0] + self.n[1] > 1000 {
            self.n[0] = self.n[0].div_ceil(2);
            self.n[1] = self.n[1].div_ceil(2);
        }
    }
}

type Model = [Bit; ESC];

fn sym_cost(m: &Model, s: usize) -> f64 {
    let mut c = 0.0;
    for (k, bit) in m.iter().enumerate().take(s.min(ESC) + 1) {
        if k == ESC {
            break;
        }
        c += bit.cost((k == s) as usize);
    }
    if s >= ESC {
        c += 16.0;
    }
    c
}

fn sym_update(m: &mut Model, s: usize) {
    for (k, bit) in m.iter_mut().enumerate().take(s.min(ESC) + 1) {
        if k == ESC {
            break;
        }
        bit.update((k == s) as usize);
    }
}

/// The most probable symbol of `m`.
fn mps(m: &Model) -> usize {
    let (mut best, mut bp, mut rest) = (0, 0.0, 1.0);
    for (k, bit) in m.iter().enumerate() {
        let p = rest * bit.p(1);
        if p > bp {
            bp = p;
            best = k;
        }
        rest *= bit.p(0);
    }
    best
}

pub fn run(a: MeasureCtxArgs) -> Result<()> {
    let m = bawo::solve::Manifest::load(&a.db)?
        .ok_or_else(|| Error::Missing(format!("{} holds no manifest", a.db.display())))?;
    let r = m
        .tiers
        .iter()
        .find(|r| r.tier == a.tier)
        .ok_or_else(|| usage("no such tier"))?;
    let (_, data) = bawo::store::table::open_table(
        &a.db.join(&r.file),
        r.tier,
        r.counts.states,
        m.fingerprint_value(),
        true,
    )?;
    let raw = data.entries().to_vec();
    let game = bawo::game::AnyGame::from_descriptor(&m.game)?;
    if a.code {
        return with_game!(&game, g => prototype(g, a.tier, &raw, &a));
    }
    let feats = with_threads(
        a.threads,
        || with_game!(&game, g => features(g, a.tier, raw.len())),
    )?;
    // Known in-tier successors of each position: indices (same tier) of non-leaving moves.
    let succ = with_threads(
        a.threads,
        || with_game!(&game, g => in_tier_succ(g, a.tier, raw.len())),
    )?;
    let mut freq: HashMap<u16, u64> = HashMap::new();
    for &e in &raw {
        *freq.entry(e).or_default() += 1;
    }
    let mut order: Vec<(u16, u64)> = freq.into_iter().collect();
    order.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    let rank: HashMap<u16, usize> = order
        .iter()
        .enumerate()
        .map(|(i, &(e, _))| (e, i))
        .collect();
    let syms: Vec<usize> = raw.iter().map(|e| rank[e]).collect();
    let ndc = feats.iter().filter(|f| f.dc == 1).count();
    outln!(
        "tier {}: {} stored entries, {} symbols, {:.1}% don't-care; block 2^{} reset 2^{}",
        a.tier,
        raw.len(),
        order.len(),
        100.0 * ndc as f64 / raw.len() as f64,
        a.block,
        a.reset
    );
    let results: Vec<(String, f64, f64, f64, usize)> = with_threads(a.threads, || {
        a.ctx
            .par_iter()
            .map(|set| {
                let fs: Vec<&str> = set.split('+').collect();
                let (raw_bits, _, _, n) = code(&syms, &feats, &succ, &order, &fs, &a, false);
                let (_, nondc, dc, _) = code(&syms, &feats, &succ, &order, &fs, &a, true);
                (set.clone(), raw_bits, nondc, dc, n)
            })
            .collect()
    })?;
    let mixed = if a.mix {
        let sets: Vec<Vec<&str>> = a.ctx.iter().map(|c| c.split('+').collect()).collect();
        let r0 = code_mix(&syms, &feats, &succ, &order, &sets, &a, false);
        let r1 = code_mix(&syms, &feats, &succ, &order, &sets, &a, true);
        Some((r0.0, r1.1, r1.2))
    } else {
        None
    };
    outln!(
        "context                          contexts   raw  mps-dc  skip-dc (bits per stored entry)"
    );
    let n = raw.len() as f64;
    for (set, rb, nd, dc, nctx) in results {
        outln!(
            "{:32} {:8} {:6.3} {:6.3} {:6.3}",
            set,
            nctx,
            rb / n,
            (nd + dc) / n,
            nd / n
        );
    }
    if let Some((rb, nd, dc)) = mixed {
        outln!(
            "{:32} {:8} {:6.3} {:6.3} {:6.3}",
            "mix of all",
            0,
            rb / n,
            (nd + dc) / n,
            nd / n
        );
    }
    Ok(())
}

/// `--code`: the prototype coder over the whole tier, block by block.
fn prototype<G: Game>(g: &G, tier: u32, raw: &[u16], a: &MeasureCtxArgs) -> Result<()> {
    use std::time::Instant;
    let mask = with_threads(a.threads, || db::dontcare::mask(g, tier, 0, raw.len()))?;
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
            .board_counts(&g.position(tier, i))
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

fn stretch(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}

fn squash(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Like [`code`], the context sets' bit predictions mixed.
fn code_mix(
    syms: &[usize],
    feats: &[Feat],
    succ: &[Vec<u64>],
    order: &[(u16, u64)],
    sets: &[Vec<&str>],
    a: &MeasureCtxArgs,
    sub: bool,
) -> (f64, f64, f64) {
    let mut cur: Vec<usize> = syms.to_vec();
    let nm = sets.len();
    let mut models: Vec<HashMap<u64, Model>> = vec![HashMap::new(); nm];
    let fresh = vec![vec![0.3f64; nm + 1]; 2 * ESC];
    let mut w = fresh.clone();
    let (mut nd, mut dcb) = (0.0, 0.0);
    let block = 1u64 << a.block;
    let mut keys = vec![0u64; nm];
    let mut st = vec![0f64; nm + 1];
    for i in 0..syms.len() {
        let iu = i as u64;
        if a.reset > 0 && iu.is_multiple_of(1u64 << a.reset) {
            models.iter_mut().for_each(|m| m.clear());
            w = fresh.clone();
        }
        let start = iu - iu % block;
        let f = &feats[i];
        for (k, fs) in sets.iter().enumerate() {
            keys[k] = context_key(fs, iu, start, f, &succ[i], &cur, order);
            models[k].entry(keys[k]).or_insert([Bit { n: [0, 0] }; ESC]);
        }
        let wsel = f.lt as usize * ESC;
        // Mixed probability that node `node` says "stop here" (bit 1).
        let pmix = |node: usize, models: &[HashMap<u64, Model>], w: &[Vec<f64>], st: &mut [f64]| {
            for k in 0..nm {
                st[k] = stretch(models[k][&keys[k]][node].p(1));
            }
            st[nm] = 0.3;
            let x: f64 = st.iter().zip(&w[wsel + node]).map(|(a, b)| a * b).sum();
            squash(x).clamp(1e-5, 1.0 - 1e-5)
        };
        let s = if sub && f.dc == 1 {
            let (mut best, mut bp, mut rest) = (0, 0.0, 1.0);
            for node in 0..ESC {
                let p = pmix(node, &models, &w, &mut st);
                if rest * p > bp {
                    bp = rest * p;
                    best = node;
                }
                rest *= 1.0 - p;
            }
            best
        } else {
            syms[i]
        };
        let mut c = 0.0;
        for node in 0..=s.min(ESC - 1) {
            let p = pmix(node, &models, &w, &mut st);
            let bit = (node == s) as usize;
            c -= if bit == 1 { p } else { 1.0 - p }.log2();
            let err = bit as f64 - p;
            for (wk, sk) in w[wsel + node].iter_mut().zip(&st) {
                *wk += a.rate * err * sk;
            }
            for k in 0..nm {
                models[k].get_mut(&keys[k]).unwrap()[node].update(bit);
            }
        }
        if s >= ESC {
            c += 16.0;
        }
        if f.dc == 1 {
            dcb += c;
        } else {
            nd += c;
        }
        cur[i] = s;
    }
    (nd + dcb, nd, dcb)
}

fn features<G: Game>(g: &G, tier: u32, len: usize) -> Vec<Feat> {
    const CHUNK: usize = 4096;
    let mut out = vec![Feat::default(); len];
    out.par_chunks_mut(CHUNK).enumerate().for_each_init(
        || (Vec::new(), db::dontcare::Scratch::default()),
        |(succ, s), (c, part)| {
            let lo = (c * CHUNK) as u64;
            g.visit(tier, lo..lo + part.len() as u64, |i, pos| {
                let pits = g.board_counts(pos);
                let half = pits.len() / 2;
                let q = pits.len() / 4;
                let f = &mut part[(i - lo) as usize];
                f.sa = pits[..half].iter().sum::<u32>() as u8;
                f.fa = pits[q..half].iter().sum::<u32>() as u8;
                f.fb = pits[half..half + q].iter().sum::<u32>() as u8;
                f.big = *pits[..half].iter().max().unwrap() as u8;
                f.ma = pits[..half].iter().fold(0u32, |h, &p| h * 31 + p);
                f.ob = pits[half..].iter().fold(0u32, |h, &p| h * 31 + p);
                f.emp = pits[..half].iter().filter(|&&p| p == 0).count() as u8;
                succ.clear();
                g.successors(pos, succ);
                f.mv = succ.len() as u8;
                let leave = succ
                    .iter()
                    .filter(|s| !matches!(s, Successor::Position { tier: t, .. } if *t == tier))
                    .count();
                f.cap = (leave > 0) as u8;
                f.lt = (leave == succ.len()) as u8;
                f.dc = db::dontcare::is_dont_care(g, tier, pos, s) as u8;
                f.nb = [u32::MAX; 12];
                for j in 0..(pits.len() - 1).min(12) {
                    f.nb[j] = if pits[j] == 0 {
                        u32::MAX
                    } else {
                        let b = j as u64 + pits[..=j].iter().map(|&p| p as u64).sum::<u64>();
                        (i - bawo::rank::binomial(b - 1, j as u64).unwrap() as u64) as u32
                    };
                }
            });
        },
    );
    out
}

fn in_tier_succ<G: Game>(g: &G, tier: u32, len: usize) -> Vec<Vec<u64>> {
    const CHUNK: usize = 4096;
    let mut out = vec![Vec::new(); len];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each_init(Vec::new, |succ, (c, part)| {
            let lo = (c * CHUNK) as u64;
            g.visit(tier, lo..lo + part.len() as u64, |i, pos| {
                succ.clear();
                g.successors(pos, succ);
                part[(i - lo) as usize] = succ
                    .iter()
                    .filter_map(|s| match *s {
                        Successor::Position { tier: t, index } if t == tier => Some(index),
                        _ => None,
                    })
                    .collect();
            });
        });
    out
}

/// Codes `syms` under context set `fs`; returns (bits of all, bits of non-don't-care, bits of
/// don't-care, contexts used). With `sub`, don't-care entries become their context's most
/// probable symbol.
fn code(
    syms: &[usize],
    feats: &[Feat],
    succ: &[Vec<u64>],
    order: &[(u16, u64)],
    fs: &[&str],
    a: &MeasureCtxArgs,
    sub: bool,
) -> (f64, f64, f64, usize) {
    let mut cur: Vec<usize> = syms.to_vec();
    let mut models: HashMap<u64, Model> = HashMap::new();
    let mut used = 0usize;
    let (mut nd, mut dcb) = (0.0, 0.0);
    let block = 1u64 << a.block;
    for i in 0..syms.len() {
        let iu = i as u64;
        if a.reset > 0 && iu.is_multiple_of(1u64 << a.reset) {
            used = used.max(models.len());
            models.clear();
        }
        let start = iu - iu % block;
        let f = &feats[i];
        let key = context_key(fs, iu, start, f, &succ[i], &cur, order);
        let m = models.entry(key).or_insert([Bit { n: [0, 0] }; ESC]);
        let s = if sub && f.dc == 1 { mps(m) } else { syms[i] };
        let c = sym_cost(m, s);
        if f.dc == 1 {
            dcb += c;
        } else {
            nd += c;
        }
        sym_update(m, s);
        cur[i] = s;
    }
    used = used.max(models.len());
    (nd + dcb, nd, dcb, used)
}

/// The hashed context of position `iu` (block starting at `start`) under feature set `fs`.
fn context_key(
    fs: &[&str],
    iu: u64,
    start: u64,
    f: &Feat,
    succ_i: &[u64],
    cur: &[usize],
    order: &[(u16, u64)],
) -> u64 {
    let mut key: u64 = 0xcbf29ce484222325;
    let mut mix = |v: u64| {
        key = (key ^ v).wrapping_mul(0x100000001b3);
    };
    let at = |j: u64| -> u64 {
        if j == u64::MAX || j < start {
            99
        } else {
            cur[j as usize].min(ESC) as u64
        }
    };
    for (k, name) in fs.iter().enumerate() {
        mix(k as u64 * 1000);
        match *name {
            "none" => {}
            "prev" => mix(if iu > start { at(iu - 1) } else { 99 }),
            "prev2" => mix(if iu > start + 1 { at(iu - 2) } else { 99 }),
            "sa" => mix(f.sa as u64),
            "fa" => mix(f.fa as u64),
            "fb" => mix(f.fb as u64),
            "mv" => mix(f.mv as u64),
            "cap" => mix(f.cap as u64),
            "lt" => mix(f.lt as u64),
            "dc" => mix(f.dc as u64),
            "big" => mix(f.big as u64),
            "emp" => mix(f.emp as u64),
            "ma" => mix(f.ma as u64),
            "ob" => mix(f.ob as u64),
            "succ" => {
                // Known in-tier successors (earlier in the block): the fastest win through
                // a losing one, else the count of known winning ones and whether all known.
                let mut win: Option<u32> = None;
                let mut known = 0;
                let mut maxw = 0u32;
                for &j in succ_i {
                    if j < iu && j >= start {
                        known += 1;
                        let e = bawo::value::Entry(order[cur[j as usize]].0);
                        match e.value() {
                            Some(bawo::value::Value::Loss) => {
                                let d = e.depth().unwrap_or(0) + 1;
                                win = Some(win.map_or(d, |w| w.min(d)));
                            }
                            Some(bawo::value::Value::Win) => {
                                maxw = maxw.max(e.depth().unwrap_or(0) + 1)
                            }
                            _ => {}
                        }
                    }
                }
                match win {
                    Some(w) => mix(1000 + w as u64),
                    None => mix(2000
                        + maxw as u64 * 4
                        + if known == 0 {
                            0
                        } else if known == succ_i.len() {
                            1
                        } else {
                            2
                        }),
                }
            }
            n if n.starts_with('n') => {
                let j: usize = n[1..].parse().expect("neighbour pit");
                mix(if f.nb[j] == u32::MAX {
                    99
                } else {
                    at(f.nb[j] as u64)
                });
            }
            other => panic!("unknown feature {other}"),
        }
    }
    key
}
