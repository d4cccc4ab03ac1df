//! Hidden developer command `measure-ctx`: the adaptive code length of a tier's stored entries
//! under contexts computed from the board while walking the tier in the composition order of
//! the whole board (issue 12; [`super::composition`]).
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
use super::composition::CompositionOrder;

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
    let game = bawo::game::AnyGame::from_descriptor(&m.game)?;
    let co = with_threads(
        a.threads,
        || with_game!(&game, g => CompositionOrder::new(g, a.tier, data.entries().len())),
    )?;
    let raw = co.entries(data.entries());
    if a.code {
        return with_game!(&game, g => super::ctxproto::prototype(g, &co, a.tier, &raw, &a));
    }
    let feats = with_threads(
        a.threads,
        || with_game!(&game, g => features(g, &co, a.tier, raw.len())),
    )?;
    // Known in-tier successors of each position: composition ranks of non-leaving moves.
    let succ = with_threads(
        a.threads,
        || with_game!(&game, g => in_tier_succ(g, &co, a.tier, raw.len())),
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

fn features<G: Game>(g: &G, co: &CompositionOrder, tier: u32, len: usize) -> Vec<Feat> {
    const CHUNK: usize = 4096;
    let mut out = vec![Feat::default(); len];
    out.par_chunks_mut(CHUNK).enumerate().for_each_init(
        || (Vec::new(), db::dontcare::Scratch::default()),
        |(succ, s), (c, part)| {
            let lo = (c * CHUNK) as u64;
            co.visit(g, tier, lo..lo + part.len() as u64, |i, pos| {
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

fn in_tier_succ<G: Game>(g: &G, co: &CompositionOrder, tier: u32, len: usize) -> Vec<Vec<u64>> {
    const CHUNK: usize = 4096;
    let mut out = vec![Vec::new(); len];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each_init(Vec::new, |succ, (c, part)| {
            let lo = (c * CHUNK) as u64;
            co.visit(g, tier, lo..lo + part.len() as u64, |i, pos| {
                succ.clear();
                g.successors(pos, succ);
                part[(i - lo) as usize] = succ
                    .iter()
                    .filter_map(|s| match *s {
                        Successor::Position { tier: t, index } if t == tier => {
                            Some(co.rank[index as usize])
                        }
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
