//! A context-mixing coder of one block of a Bawo tier's entries: the prototype behind the
//! measurements of README "Smaller databases" (issue 12), not used by the `.bdb` format yet.
//!
//! Each entry is its rank `r` in the tier's frequency order, coded in unary (node `k` says
//! whether `r == k`; ranks from [`ESCAPE`] up are node 15 then eight raw bits), every binary
//! decision by an adaptive binary range coder. Five models predict each decision from
//! contexts the decoder computes while it walks the block in rank order: the entries already
//! decoded at the boards with one seed moved from pit `j` to pit `j + 1` (found at index
//! `i - C(b_j - 1, j)`, `b_j = j + seeds in pits 0..=j`), the previous entry, and the
//! mover's or the opponent's pits. Their predictions are mixed in the logistic domain with
//! weights learnt per node. The models start empty at every block, so blocks decode
//! independently; nothing depends on other tiers, so no move is generated.
//!
//! Two measurement modes (README "Smaller databases"): [`CtxCoder::train`] primes the models
//! with a pass over the tier so that every block starts from that state (what stored per-tier
//! tables would give, their size aside), optionally `frozen` (no updates); and
//! [`CtxCoder::encode_span`] codes a block with every earlier entry of the tier as context, a
//! bound for block layouts that keep neighbours near.
//!
//! Not yet a file format: the stretch and squash tables are computed with `f64` `ln` and
//! `exp`, which a format would have to replace by tables built in integers (or stored), so
//! that every build decodes every file alike; neighbour offsets beyond `u32` are treated as
//! outside the block.

use crate::rank::{binomial, Ranker};

/// Unary nodes coded with a model; ranks from here up are escaped.
pub const ESCAPE: usize = 15;
const MODELS: usize = 5;
/// log2 of the slots of each model's hash table.
const SLOT_BITS: u32 = 14;
/// Counter limit: the adaptation rate falls to 1/(LIMIT + 1.5).
const LIMIT: u32 = 60;
const W_INIT: i32 = 20_000;
/// Mixer learning rate: a weight moves by `stretch * error >> LEARN_SHIFT` (fixed point).
const LEARN_SHIFT: i32 = 9;

/// The coder's tables and models, reused from block to block (the models restart per block).
#[derive(Clone)]
pub struct CtxCoder {
    pits: usize,
    half: usize,
    /// `binom[b * pits + j] = C(b, j)`.
    binom: Vec<u32>,
    stretch: Vec<i16>,
    squash: Vec<u16>,
    recip: Vec<u32>,
    /// Per model, slots of `[generation, 15 counters]`.
    slots: Vec<[u32; 16]>,
    generation: u32,
    cur: [usize; MODELS],
    st: [i32; MODELS + 1],
    w: [[i32; MODELS + 1]; ESCAPE],
    /// Models primed by [`CtxCoder::train`]: every block starts from this state instead of
    /// empty models (a stand-in for per-tier tables stored in the file).
    prime: Option<Box<Prime>>,
    /// Probabilities and mixer weights are not updated while coding (static models).
    pub frozen: bool,
    /// Blocks do not restart the models (used while training).
    keep: bool,
}

/// A snapshot of the models after a training pass.
#[derive(Clone)]
struct Prime {
    slots: Vec<[u32; 16]>,
    generation: u32,
    w: [[i32; MODELS + 1]; ESCAPE],
}

impl CtxCoder {
    /// A coder for boards of `pits` pits holding up to `seeds` seeds.
    pub fn new(pits: usize, seeds: u32) -> CtxCoder {
        let rows = seeds as usize + pits + 1;
        let mut binom = vec![0u32; rows * pits];
        for b in 0..rows {
            for j in 0..pits {
                binom[b * pits + j] = binomial(b as u64, j as u64)
                    .unwrap_or(0)
                    .min(u32::MAX as u128) as u32;
            }
        }
        let stretch = (0..4096)
            .map(|p| {
                let q = (p.max(1) as f64) / 4096.0;
                ((q / (1.0 - q)).ln() * 256.0)
                    .round()
                    .clamp(-2047.0, 2047.0) as i16
            })
            .collect();
        let squash = (0..4095)
            .map(|x| {
                let v = (x as f64 - 2047.0) / 256.0;
                (4096.0 / (1.0 + (-v).exp())).round().clamp(1.0, 4095.0) as u16
            })
            .collect();
        let recip = (0..=LIMIT)
            .map(|n| (65536.0 / (n as f64 + 1.5)) as u32)
            .collect();
        CtxCoder {
            pits,
            half: pits / 2,
            binom,
            stretch,
            squash,
            recip,
            slots: vec![[0u32; 16]; MODELS << SLOT_BITS],
            generation: 0,
            cur: [0; MODELS],
            st: [0; MODELS + 1],
            w: [[W_INIT; MODELS + 1]; ESCAPE],
            prime: None,
            frozen: false,
            keep: false,
        }
    }

    /// Primes the models with a pass over `blocks` (each `(first, ranks)`, coded as
    /// [`CtxCoder::encode`] would, models carried from block to block); later blocks start
    /// from the state reached. Returns the slots and (slot, node) counters used.
    pub fn train(
        &mut self,
        ranker: &Ranker,
        seeds: u32,
        blocks: &mut dyn Iterator<Item = (u64, Vec<u8>)>,
        dont_care: &dyn Fn(u64) -> bool,
    ) -> (usize, usize) {
        self.prime = None;
        self.begin_block();
        self.keep = true;
        let frozen = self.frozen;
        self.frozen = false;
        for (first, mut ranks) in blocks {
            self.encode(ranker, seeds, first, &mut ranks, dont_care);
        }
        self.keep = false;
        self.frozen = frozen;
        let g = self.generation;
        let used = self.slots.iter().filter(|s| s[0] == g).count();
        let nodes = self
            .slots
            .iter()
            .filter(|s| s[0] == g)
            .map(|s| s[1..].iter().filter(|&&c| c & 0xffff > 0).count())
            .sum();
        self.prime = Some(Box::new(Prime {
            slots: self.slots.clone(),
            generation: g,
            w: self.w,
        }));
        (used, nodes)
    }

    fn begin_block(&mut self) {
        if self.keep {
            return;
        }
        if let Some(p) = &self.prime {
            if !self.frozen || self.generation != p.generation {
                self.slots.copy_from_slice(&p.slots);
            }
            self.generation = p.generation;
            self.w = p.w;
            return;
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.iter_mut().for_each(|s| s[0] = 0);
            self.generation = 1;
        }
        self.w = [[W_INIT; MODELS + 1]; ESCAPE];
    }

    /// Selects the models' slots for position `i` of the block with board `counts`, given
    /// the ranks decoded before it (`done[..i]`).
    fn set_position(&mut self, counts: &[u8], i: usize, done: &[u8]) {
        let pits = self.pits;
        // nb[j]: the rank at the neighbour through pit j (255: pit j empty, 254: the
        // neighbour lies before the block).
        let mut nb = [255u64; 32];
        let mut s = 0usize;
        for j in 0..pits - 1 {
            s += counts[j] as usize;
            if counts[j] > 0 {
                let d = self.binom[(j + s - 1) * pits + j] as usize;
                nb[j] = if d <= i { done[i - d] as u64 } else { 254 };
            }
        }
        let prev = if i > 0 { done[i - 1] as u64 } else { 255 };
        self.select(counts, &nb, prev);
    }

    /// Selects the models' slots from the board, the neighbours' ranks `nb` (255: pit
    /// empty, 254: not known) and the rank coded before.
    fn select(&mut self, counts: &[u8], nb: &[u64; 32], prev: u64) {
        let pits = self.pits;
        let h = self.half;
        let side = |r: &[u8]| r.iter().fold(0u64, |a, &c| a * 37 + c as u64);
        let mut keys = [0u64; MODELS];
        keys[0] = mix(&[prev, nb[h], nb[h + 1], nb[h + 2]]);
        keys[1] = mix(&nb[h..pits - 1]);
        keys[2] = mix(&[side(&counts[..h]), prev]);
        keys[3] = mix(&[prev, nb[1], nb[2], nb[3]]);
        keys[4] = mix(&[side(&counts[h..]), prev]);
        for (k, key) in keys.iter().enumerate() {
            let idx = (k << SLOT_BITS)
                | (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOT_BITS)) as usize;
            let slot = &mut self.slots[idx];
            if slot[0] != self.generation {
                slot[0] = self.generation;
                for c in &mut slot[1..] {
                    *c = 1 << 31;
                }
            }
            self.cur[k] = idx;
        }
    }

    /// Codes `ranks` (positions `first..` of a tier of `seeds` seeds, in rank order); a
    /// position marked in `dont_care` is coded as its context's most probable rank, which
    /// is written back into `ranks`.
    pub fn encode(
        &mut self,
        ranker: &Ranker,
        seeds: u32,
        first: u64,
        ranks: &mut [u8],
        dont_care: &dyn Fn(u64) -> bool,
    ) -> Vec<u8> {
        self.encode_span(ranker, seeds, first, ranks, 0, dont_care)
    }

    /// Like [`CtxCoder::encode`] for the positions `first + start..` of `ranks` (positions
    /// `first..`), the entries before `start` serving as context only: the size a layout
    /// would reach in which every neighbour is known (a measurement; no decoder reads it).
    pub fn encode_span(
        &mut self,
        ranker: &Ranker,
        seeds: u32,
        first: u64,
        ranks: &mut [u8],
        start: usize,
        dont_care: &dyn Fn(u64) -> bool,
    ) -> Vec<u8> {
        self.begin_block();
        let mut counts = vec![0u8; self.pits];
        ranker.unrank(seeds, first + start as u64, &mut counts);
        let mut enc = Encoder::new();
        for i in start..ranks.len() {
            if i > start {
                ranker.next(&mut counts);
            }
            self.set_position(&counts, i, ranks);
            if dont_care(first + i as u64) {
                ranks[i] = most_probable(self);
            }
            code_rank(self, ranks[i] as usize, Some(&mut enc));
        }
        enc.finish()
    }

    /// Codes the positions `order` (tier indices, in that order) as one block, a neighbour
    /// known only when it was coded earlier in the same block (`stamp[index] == tag`, set
    /// here): the size of a block layout other than runs of the rank order (a measurement;
    /// the decoder would walk the same order, but none is written). `ranks` holds the whole
    /// tier; don't-care entries are substituted in it.
    pub fn encode_order(
        &mut self,
        ranker: &Ranker,
        order: &[u64],
        ranks: &mut [u8],
        stamp: &mut [u32],
        tag: u32,
        dont_care: &dyn Fn(u64) -> bool,
    ) -> Vec<u8> {
        self.begin_block();
        let seeds = ranker.max_seeds();
        let pits = self.pits;
        let mut counts = vec![0u8; pits];
        let mut enc = Encoder::new();
        let mut prev = 255u64;
        for &idx in order {
            ranker.unrank(seeds, idx, &mut counts);
            let mut nb = [255u64; 32];
            let mut s = 0usize;
            for j in 0..pits - 1 {
                s += counts[j] as usize;
                if counts[j] > 0 {
                    let n = idx - self.binom[(j + s - 1) * pits + j] as u64;
                    nb[j] = if stamp[n as usize] == tag {
                        ranks[n as usize] as u64
                    } else {
                        254
                    };
                }
            }
            self.select(&counts, &nb, prev);
            let i = idx as usize;
            if dont_care(idx) {
                ranks[i] = most_probable(self);
            }
            code_rank(self, ranks[i] as usize, Some(&mut enc));
            stamp[i] = tag;
            prev = ranks[i] as u64;
        }
        enc.finish()
    }

    /// Decodes `n` ranks coded by [`CtxCoder::encode`] from `bytes`.
    pub fn decode(
        &mut self,
        ranker: &Ranker,
        seeds: u32,
        first: u64,
        n: usize,
        bytes: &[u8],
        out: &mut Vec<u8>,
    ) {
        self.begin_block();
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
}

impl UnaryModel for CtxCoder {
    /// The mixed probability (12 bits) that node `node` is the last one (bit 1).
    fn predict(&mut self, node: usize) -> u32 {
        let mut dot = 0i64;
        for k in 0..MODELS {
            let p = self.slots[self.cur[k]][1 + node] >> 20;
            self.st[k] = self.stretch[p as usize] as i32;
        }
        self.st[MODELS] = 256;
        for k in 0..=MODELS {
            dot += self.st[k] as i64 * self.w[node][k] as i64;
        }
        let x = (dot >> 16).clamp(-2047, 2047) + 2047;
        self.squash[x as usize] as u32
    }

    fn update(&mut self, node: usize, bit: u32, p: u32) {
        if self.frozen {
            return;
        }
        let err = ((bit << 12) as i32) - p as i32;
        for k in 0..=MODELS {
            self.w[node][k] += (self.st[k] * err) >> LEARN_SHIFT;
        }
        for k in 0..MODELS {
            let c = &mut self.slots[self.cur[k]][1 + node];
            let n = (*c & 0xffff).min(LIMIT);
            let pr = (*c >> 16) as i64;
            let target = if bit == 1 { 65535 } else { 0 };
            let np = pr + (((target - pr) * self.recip[n as usize] as i64) >> 16);
            *c = ((np as u32) << 16) | (n + 1).min(LIMIT);
        }
    }
}

/// A model of the unary decisions that code a rank: the probability (12 bits) that node
/// `node` is the rank's last one, and what it learns from the bit coded there. Both coders
/// of this prototype ([`CtxCoder`], [`super::ctxstatic::StaticCoder`]) code ranks the same
/// way through it ([`code_rank`], [`decode_rank`], [`most_probable`]).
pub(crate) trait UnaryModel {
    fn predict(&mut self, node: usize) -> u32;
    fn update(&mut self, node: usize, bit: u32, p: u32);
}

/// Codes rank `r` in unary, node by node (ranks from [`ESCAPE`] up: the nodes, then eight
/// raw bits), into `enc` where there is one; the model learns from every node either way.
pub(crate) fn code_rank<M: UnaryModel>(m: &mut M, r: usize, mut enc: Option<&mut Encoder>) {
    for node in 0..=r.min(ESCAPE - 1) {
        let bit = (node == r) as u32;
        let p = m.predict(node);
        if let Some(e) = enc.as_deref_mut() {
            e.bit(bit, p);
        }
        m.update(node, bit, p);
    }
    if r >= ESCAPE {
        if let Some(e) = enc {
            for b in (0..8).rev() {
                e.bit(((r - ESCAPE) as u32 >> b) & 1, 2048);
            }
        }
    }
}

/// Decodes one rank coded by [`code_rank`], the model learning as it did.
pub(crate) fn decode_rank<M: UnaryModel>(m: &mut M, dec: &mut Decoder<'_>) -> u8 {
    let mut r = ESCAPE;
    for node in 0..ESCAPE {
        let p = m.predict(node);
        let bit = dec.bit(p);
        m.update(node, bit, p);
        if bit == 1 {
            r = node;
            break;
        }
    }
    if r == ESCAPE {
        let mut v = 0usize;
        for _ in 0..8 {
            v = (v << 1) | dec.bit(2048) as usize;
        }
        r += v;
    }
    r as u8
}

/// The most probable rank under the model's current state (the encoder's choice for a
/// don't-care entry). Leaves no trace in the model.
pub(crate) fn most_probable<M: UnaryModel>(m: &mut M) -> u8 {
    let (mut best, mut bp, mut rest) = (0usize, 0u64, 1u64 << 24);
    for node in 0..ESCAPE {
        let p = m.predict(node) as u64;
        let here = (rest * p) >> 12;
        if here > bp {
            bp = here;
            best = node;
        }
        rest = (rest * (4096 - p)) >> 12;
    }
    best as u8
}

fn mix(v: &[u64]) -> u64 {
    v.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ x).wrapping_mul(0x100_0000_01b3)
    })
}

/// Binary range encoder: 32-bit range, carries propagated through a pending byte and a run
/// of 0xFF bytes.
pub(crate) struct Encoder {
    low: u64,
    range: u32,
    cache: u8,
    pending: u64,
    out: Vec<u8>,
}

impl Encoder {
    pub(crate) fn new() -> Encoder {
        Encoder {
            low: 0,
            range: u32::MAX,
            cache: 0,
            pending: 1,
            out: Vec::new(),
        }
    }

    /// Codes `bit` whose probability of being 1 is `p` / 4096.
    pub(crate) fn bit(&mut self, bit: u32, p: u32) {
        let bound = (self.range >> 12) * p;
        if bit == 1 {
            self.range = bound;
        } else {
            self.low += bound as u64;
            self.range -= bound;
        }
        while self.range < 1 << 24 {
            self.range <<= 8;
            self.shift();
        }
    }

    fn shift(&mut self) {
        if self.low < 0xFF00_0000 || self.low >= 1 << 32 {
            let carry = (self.low >> 32) as u8;
            let mut b = self.cache;
            while self.pending > 0 {
                self.out.push(b.wrapping_add(carry));
                b = 0xFF;
                self.pending -= 1;
            }
            self.cache = (self.low >> 24) as u8;
        }
        self.pending += 1;
        self.low = (self.low & 0x00FF_FFFF) << 8;
    }

    pub(crate) fn finish(mut self) -> Vec<u8> {
        for _ in 0..5 {
            self.shift();
        }
        self.out
    }
}

pub(crate) struct Decoder<'a> {
    code: u32,
    range: u32,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Decoder<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Decoder<'a> {
        let mut d = Decoder {
            code: 0,
            range: u32::MAX,
            bytes,
            at: 0,
        };
        for _ in 0..5 {
            d.code = (d.code << 8) | d.byte();
        }
        d
    }

    fn byte(&mut self) -> u32 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b as u32
    }

    pub(crate) fn bit(&mut self, p: u32) -> u32 {
        let bound = (self.range >> 12) * p;
        let bit = if self.code < bound {
            self.range = bound;
            1
        } else {
            self.code -= bound;
            self.range -= bound;
            0
        };
        while self.range < 1 << 24 {
            self.range <<= 8;
            self.code = (self.code << 8) | self.byte();
        }
        bit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random ranks on the boards of 10 seeds in 12 pits survive a round trip, also with
    /// don't-care positions substituted.
    #[test]
    fn round_trip() {
        let ranker = Ranker::new(12, 10);
        let n = ranker.count(10).unwrap() as usize;
        let mut x = 12345u64;
        let mut ranks: Vec<u8> = (0..n)
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
        let mut c = CtxCoder::new(12, 10);
        for dc in [false, true] {
            let mut coded = ranks.clone();
            let bytes = c.encode(&ranker, 10, 0, &mut coded, &|i| dc && i % 3 == 0);
            let mut out = Vec::new();
            c.decode(&ranker, 10, 0, n, &bytes, &mut out);
            assert_eq!(out, coded);
            if !dc {
                assert_eq!(coded, ranks);
            }
            ranks = coded;
        }
        // Primed models (adapting, then frozen) round-trip too.
        let block = 8192;
        let parts = |r: &[u8]| -> Vec<(u64, Vec<u8>)> {
            r.chunks(block)
                .enumerate()
                .map(|(b, p)| ((b * block) as u64, p.to_vec()))
                .collect()
        };
        for frozen in [false, true] {
            let mut c = CtxCoder::new(12, 10);
            c.frozen = frozen;
            let (used, _) = c.train(&ranker, 10, &mut parts(&ranks).into_iter(), &|_| false);
            assert!(used > 0);
            for (first, mut part) in parts(&ranks) {
                let bytes = c.encode(&ranker, 10, first, &mut part, &|_| false);
                let mut out = Vec::new();
                c.decode(&ranker, 10, first, part.len(), &bytes, &mut out);
                assert_eq!(out, part);
            }
        }
    }
}
