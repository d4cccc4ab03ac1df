//! A static-model variant of [`super::ctxcode`] (issue 12, prototype, not in the format):
//! the context models are per-tier tables fitted by a first pass over the tier, so a block
//! of a few thousand positions codes as well as one that learnt its models from scratch over
//! hundreds of thousands, and decoding does no model update at all.
//!
//! Each model's context is a few small digits read directly, no hashing: the previous entry
//! and the entries at the boards with one seed moved from pit `j` to pit `j + 1` (the
//! neighbours of [`super::ctxcode`]), each clipped to [`CLIP`] values plus "pit empty" and
//! "before the block", or the seeds on the mover's side. A table holds one stretched
//! probability (`ln(p / (1 - p))`, 1/256 units, quantised to a multiple of the step) per
//! context and unary node, from the tier's counts; contexts seen fewer than `min_count` times
//! hold 0 (no opinion). The tables' bytes, as stored, are the levels (one signed byte each)
//! compressed by zstd, which [`StaticCoder::build_tables`] reports so that a measurement can
//! count them in the size. The models' predictions are mixed in the logistic domain with
//! weights per unary node and previous entry, fitted by a second pass and then fixed (or,
//! with `adapt`, restarted from the fitted weights at every block and adapted within it).

use super::ctxcode::{code_rank, decode_rank, most_probable, Decoder, Encoder, UnaryModel, ESCAPE};
use crate::rank::{binomial, Ranker};

/// Unary nodes with a model (ranks from here up are escaped: node 15 then eight raw bits).
const NODES: usize = ESCAPE;
/// Most models one coder mixes.
pub const MAX_MODELS: usize = 8;
/// Ranks kept apart in a context digit; larger ranks share the last value.
pub const CLIP: usize = 10;
/// Values of a neighbour digit: the clipped ranks, then [`EMPTY`], then [`OUT`].
const V: usize = CLIP + 2;
const EMPTY: usize = CLIP;
const OUT: usize = CLIP + 1;
const LEARN_SHIFT: i32 = 9;
const TRAIN_SHIFT: i32 = 13;
const W_INIT: i32 = 16_000;

/// One digit of a model's context.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Feature {
    /// The entry before, in rank order.
    Prev,
    /// The entry at the board with one seed of pit `j` moved to pit `j + 1`.
    Nb(usize),
    /// Seeds on the mover's side.
    Sa,
}

/// Parses a model `prev+n6+n7+sa`; `None` for an unknown feature.
pub fn parse(spec: &str) -> Option<Vec<Feature>> {
    spec.split('+')
        .map(|f| match f {
            "prev" => Some(Feature::Prev),
            "sa" => Some(Feature::Sa),
            n if n.starts_with('n') => n[1..].parse().ok().map(Feature::Nb),
            _ => None,
        })
        .collect()
}

type Weights = Vec<[[i32; MAX_MODELS + 1]; NODES]>;

/// Static per-tier models and their mixer, fitted and then used block by block.
#[derive(Clone)]
pub struct StaticCoder {
    pits: usize,
    half: usize,
    binom: Vec<u32>,
    squash: Vec<u16>,
    models: Vec<Vec<Feature>>,
    /// Per model, per feature: the stride of its digit in the context index.
    strides: Vec<Vec<usize>>,
    /// Per model: `contexts * NODES` stretched probabilities.
    tables: Vec<Vec<i16>>,
    /// Per model: `[n0, n1]` per context and node while fitting.
    counts: Vec<Vec<[u32; 2]>>,
    /// Fitted weights, one set per previous-entry digit.
    fitted: Weights,
    w: Weights,
    /// Adapt the mixer within a block (from the fitted weights).
    pub adapt: bool,
    /// Per model, the empirical code length (bits) of the counted decisions.
    pub entropy: Vec<f64>,
    training: bool,
    cur: [usize; MAX_MODELS],
    set: usize,
    st: [i32; MAX_MODELS + 1],
}

impl StaticCoder {
    /// A coder for boards of `pits` pits holding up to `seeds` seeds, mixing `models`.
    pub fn new(pits: usize, seeds: u32, models: Vec<Vec<Feature>>) -> StaticCoder {
        assert!(models.len() <= MAX_MODELS);
        let rows = seeds as usize + pits + 1;
        let mut binom = vec![0u32; rows * pits];
        for b in 0..rows {
            for j in 0..pits {
                binom[b * pits + j] = binomial(b as u64, j as u64)
                    .unwrap_or(0)
                    .min(u32::MAX as u128) as u32;
            }
        }
        let squash = (0..4095)
            .map(|x| {
                let v = (x as f64 - 2047.0) / 256.0;
                (4096.0 / (1.0 + (-v).exp())).round().clamp(1.0, 4095.0) as u16
            })
            .collect();
        let mut strides = Vec::new();
        let mut sizes = Vec::new();
        for m in &models {
            let mut s = 1usize;
            let mut st = Vec::new();
            for f in m {
                st.push(s);
                s *= match f {
                    Feature::Sa => seeds as usize + 1,
                    _ => V,
                };
            }
            strides.push(st);
            sizes.push(s);
        }
        let w = vec![[[W_INIT; MAX_MODELS + 1]; NODES]; V];
        StaticCoder {
            pits,
            half: pits / 2,
            binom,
            squash,
            tables: sizes.iter().map(|&s| vec![0i16; s * NODES]).collect(),
            counts: sizes.iter().map(|&s| vec![[0u32; 2]; s * NODES]).collect(),
            models,
            strides,
            fitted: w.clone(),
            w,
            adapt: false,
            entropy: Vec::new(),
            training: false,
            cur: [0; MAX_MODELS],
            set: 0,
            st: [0; MAX_MODELS + 1],
        }
    }

    /// Selects every model's context for position `i` of a block (board `counts`), given the
    /// ranks before it (`done[..i]`).
    fn set_position(&mut self, counts: &[u8], i: usize, done: &[u8]) {
        let pits = self.pits;
        let mut nb = [EMPTY; 32];
        let mut s = 0usize;
        for j in 0..pits - 1 {
            s += counts[j] as usize;
            if counts[j] > 0 {
                let d = self.binom[(j + s - 1) * pits + j] as usize;
                nb[j] = if d <= i {
                    (done[i - d] as usize).min(CLIP - 1)
                } else {
                    OUT
                };
            }
        }
        let prev = if i > 0 {
            (done[i - 1] as usize).min(CLIP - 1)
        } else {
            OUT
        };
        let sa: usize = counts[..self.half].iter().map(|&c| c as usize).sum();
        for (k, m) in self.models.iter().enumerate() {
            let mut idx = 0;
            for (f, &stride) in m.iter().zip(&self.strides[k]) {
                idx += stride
                    * match *f {
                        Feature::Prev => prev,
                        Feature::Nb(j) => nb[j],
                        Feature::Sa => sa,
                    };
            }
            self.cur[k] = idx * NODES;
        }
        self.set = prev;
    }

    /// First fitting pass: counts every model's unary decisions over one block (positions
    /// `first..`, ranks as solved); don't-care positions are context only, never counted.
    pub fn count(
        &mut self,
        ranker: &Ranker,
        seeds: u32,
        first: u64,
        ranks: &[u8],
        dont_care: &dyn Fn(u64) -> bool,
    ) {
        let mut counts = vec![0u8; self.pits];
        ranker.unrank(seeds, first, &mut counts);
        for i in 0..ranks.len() {
            if i > 0 {
                ranker.next(&mut counts);
            }
            if dont_care(first + i as u64) {
                continue;
            }
            self.set_position(&counts, i, ranks);
            let r = ranks[i] as usize;
            for node in 0..=r.min(NODES - 1) {
                let bit = (node == r) as usize;
                for k in 0..self.models.len() {
                    self.counts[k][self.cur[k] + node][bit] += 1;
                }
            }
        }
    }

    /// Forgets the counts (before counting again over substituted entries).
    pub fn clear_counts(&mut self) {
        self.counts.iter_mut().for_each(|c| c.fill([0, 0]));
    }

    /// Turns the counts into the tables: contexts seen at least `min_count` times get their
    /// stretched probability rounded to a multiple of `step`, the rest 0. Returns the
    /// levels as they would be stored (one signed byte per context and node).
    pub fn build_tables(&mut self, min_count: u32, step: i32) -> Vec<u8> {
        self.entropy = vec![0.0; self.models.len()];
        for k in 0..self.models.len() {
            for c in &self.counts[k] {
                let n = (c[0] + c[1]) as f64;
                for &x in c {
                    if x > 0 {
                        self.entropy[k] -= x as f64 * (x as f64 / n).log2();
                    }
                }
            }
        }
        let mut levels = Vec::new();
        for k in 0..self.models.len() {
            for (t, c) in self.tables[k].iter_mut().zip(&self.counts[k]) {
                let n = c[0] + c[1];
                let level = if n < min_count.max(1) {
                    0
                } else {
                    let p = (c[1] as f64 + 0.4) / (n as f64 + 0.8);
                    ((p / (1.0 - p)).ln() * 256.0 / step as f64)
                        .round()
                        .clamp(-127.0, 127.0) as i32
                };
                *t = (level * step).clamp(-2047, 2047) as i16;
                levels.push(level as i8 as u8);
            }
        }
        levels
    }

    /// Second fitting pass over one block: the mixer's weights learnt (carried from block to
    /// block), don't-care entries substituted as [`StaticCoder::encode`] will.
    pub fn train(
        &mut self,
        ranker: &Ranker,
        seeds: u32,
        first: u64,
        ranks: &mut [u8],
        dont_care: &dyn Fn(u64) -> bool,
    ) {
        self.training = true;
        self.walk(ranker, seeds, first, ranks, dont_care, None);
        self.training = false;
        self.fitted = self.w.clone();
    }

    /// Codes one block; a don't-care entry becomes its context's most probable rank, written
    /// back into `ranks`.
    pub fn encode(
        &mut self,
        ranker: &Ranker,
        seeds: u32,
        first: u64,
        ranks: &mut [u8],
        dont_care: &dyn Fn(u64) -> bool,
    ) -> Vec<u8> {
        self.w.clone_from(&self.fitted);
        let mut enc = Encoder::new();
        self.walk(ranker, seeds, first, ranks, dont_care, Some(&mut enc));
        enc.finish()
    }

    fn walk(
        &mut self,
        ranker: &Ranker,
        seeds: u32,
        first: u64,
        ranks: &mut [u8],
        dont_care: &dyn Fn(u64) -> bool,
        mut enc: Option<&mut Encoder>,
    ) {
        let mut counts = vec![0u8; self.pits];
        ranker.unrank(seeds, first, &mut counts);
        for i in 0..ranks.len() {
            if i > 0 {
                ranker.next(&mut counts);
            }
            self.set_position(&counts, i, ranks);
            if dont_care(first + i as u64) {
                ranks[i] = most_probable(self);
            }
            code_rank(self, ranks[i] as usize, enc.as_deref_mut());
        }
    }

    /// Decodes `n` ranks coded by [`StaticCoder::encode`].
    pub fn decode(
        &mut self,
        ranker: &Ranker,
        seeds: u32,
        first: u64,
        n: usize,
        bytes: &[u8],
        out: &mut Vec<u8>,
    ) {
        self.w.clone_from(&self.fitted);
        out.clear();
        out.resize(n, 0);
        let mut counts = vec![0u8; self.pits];
        ranker.unrank(seeds, first, &mut counts);
        let mut dec = Decoder::new(bytes);
        for i in 0..n {
            if i > 0 {
                ranker.next(&mut counts);
            }
            self.set_position(&counts, i, out);
            out[i] = decode_rank(self, &mut dec);
        }
    }

    /// Bytes of the fitted mixer weights as they would be stored (two per weight).
    pub fn weight_bytes(&self) -> usize {
        V * NODES * (self.models.len() + 1) * 2
    }
}

impl UnaryModel for StaticCoder {
    fn predict(&mut self, node: usize) -> u32 {
        let m = self.models.len();
        for k in 0..m {
            self.st[k] = self.tables[k][self.cur[k] + node] as i32;
        }
        self.st[m] = 256;
        let w = &self.w[self.set][node];
        let dot: i64 = self.st[..=m]
            .iter()
            .zip(w)
            .map(|(&s, &w)| s as i64 * w as i64)
            .sum();
        let x = (dot >> 16).clamp(-2047, 2047) + 2047;
        self.squash[x as usize] as u32
    }

    fn update(&mut self, node: usize, bit: u32, p: u32) {
        if !(self.adapt || self.training) {
            return;
        }
        let err = ((bit << 12) as i32) - p as i32;
        let m = self.models.len();
        // Fitting learns slowly, so that the weights kept are an average, not the last
        // few hundred decisions' fit.
        let shift = if self.training {
            TRAIN_SHIFT
        } else {
            LEARN_SHIFT
        };
        for (w, &s) in self.w[self.set][node].iter_mut().zip(&self.st[..=m]) {
            *w += (s * err) >> shift;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random ranks on the boards of 10 seeds in 12 pits survive a round trip in blocks,
    /// with don't-care positions substituted, frozen and adapting mixer alike.
    #[test]
    fn round_trip() {
        let ranker = Ranker::new(12, 10);
        let n = ranker.count(10).unwrap() as usize;
        let mut x = 99u64;
        let ranks: Vec<u8> = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match x % 100 {
                    0 => 15 + (x >> 8) as u8 % 9,
                    1..=60 => 0,
                    61..=85 => 1,
                    _ => (x >> 20) as u8 % 15,
                }
            })
            .collect();
        let models = vec![
            parse("prev+n6+n7+n8").unwrap(),
            parse("prev+n1+n2+n3").unwrap(),
            parse("sa+prev").unwrap(),
        ];
        let dc = |i: u64| i.is_multiple_of(3);
        for adapt in [false, true] {
            let mut c = StaticCoder::new(12, 10, models.clone());
            c.adapt = adapt;
            let block = 4096;
            for (b, part) in ranks.chunks(block).enumerate() {
                c.count(&ranker, 10, (b * block) as u64, part, &dc);
            }
            c.build_tables(2, 8);
            let mut work = ranks.clone();
            for (b, part) in work.chunks_mut(block).enumerate() {
                c.train(&ranker, 10, (b * block) as u64, part, &dc);
            }
            let mut work = ranks.clone();
            for (b, part) in work.chunks_mut(block).enumerate() {
                let first = (b * block) as u64;
                let bytes = c.encode(&ranker, 10, first, part, &dc);
                let mut out = Vec::new();
                c.decode(&ranker, 10, first, part.len(), &bytes, &mut out);
                assert_eq!(&out[..], &part[..]);
                for (i, (&o, &r)) in out.iter().zip(&ranks[b * block..]).enumerate() {
                    assert!(dc(first + i as u64) || o == r);
                }
            }
        }
    }
}
