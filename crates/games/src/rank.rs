//! Perfect hash for weak compositions (stars and bars).
//!
//! A board of `m` pits holding `k` seeds in all is a weak composition of `k` into `m` parts.
//! Writing it as `k` stars and `m - 1` bars, bar `i` (after pit `i`) sits at position
//! `b_i = i + (seeds in pits 0..=i)`, and the bar positions form an `(m-1)`-subset of
//! `0..k+m-1`. The combinatorial number system ranks such a subset densely:
//! `rank = sum_i C(b_i, i + 1)`, so every composition gets an index in `0..C(k+m-1, m-1)`.
//!
//! | operation        | cost                      |
//! |------------------|---------------------------|
//! | [`Ranker::rank`]   | `m` table lookups         |
//! | [`Ranker::unrank`] | `O(m + k)` table lookups  |
//! | [`Ranker::next`]   | `O(1)` amortised          |
//!
//! [`Ranker::next`] walks the compositions in rank order (pit 0 varies fastest), which is
//! what the walk of a tier uses on each half of the board (`game::sided`) to visit a range of
//! indices without unranking each.

use thiserror::Error;

/// A tier or composition count that does not fit the index type.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{what}: {seeds} seeds in {pits} pits gives {}, too many for the index type", limit_text(*.limit))]
pub struct TooLarge {
    /// What was too large to rank.
    pub what: &'static str,
    /// Seeds on the board.
    pub seeds: u32,
    /// Pits on the board.
    pub pits: usize,
    /// The largest count that fits.
    pub limit: u64,
}

/// "more than N positions", or, where the limit is the whole 64-bit range, that the count does
/// not fit in 64 bits (a twenty-digit number says nothing to a reader).
fn limit_text(limit: u64) -> String {
    if limit == u64::MAX {
        "a count of positions that does not fit in 64 bits".to_string()
    } else {
        format!("more than {limit} positions")
    }
}

/// `C(n, k)` exactly, or `None` when it exceeds `u128`.
pub fn binomial(n: u64, k: u64) -> Option<u128> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        // acc * (n - i) / (i + 1) stays exact because acc = C(n, i) * ... is divisible.
        acc = acc.checked_mul((n - i) as u128)? / (i as u128 + 1);
    }
    Some(acc)
}

/// Number of weak compositions of `seeds` into `pits` parts, `C(seeds + pits - 1, pits - 1)`.
pub fn compositions(seeds: u32, pits: usize) -> Option<u128> {
    if pits == 0 {
        return Some(u128::from(seeds == 0));
    }
    binomial(seeds as u64 + pits as u64 - 1, pits as u64 - 1)
}

/// Ranks and unranks weak compositions of up to `max_seeds` seeds into a fixed number of pits.
#[derive(Clone, Debug)]
pub struct Ranker {
    pits: usize,
    max_seeds: u32,
    /// `table[i * (max_seeds + 1) + s] = C(i + s, i + 1)`: the rank term of bar `i` when pits
    /// `0..=i` hold `s` seeds. Saturates at `u64::MAX`; such entries only occur in tiers that
    /// [`Ranker::count`] already refuses.
    table: Vec<u64>,
    /// `counts[k]`: compositions of exactly `k` seeds (`u64::MAX` when they overflow), so that
    /// ranking with a side offset never recomputes a binomial.
    counts: Vec<u64>,
}

impl Ranker {
    /// A ranker for `pits` pits (at least 1) and totals up to `max_seeds` (at most 255, the
    /// capacity of one pit). Totals whose composition count exceeds `u64` are refused by
    /// [`Ranker::count`], not here, so a ranker can serve a game whose largest tier is never
    /// ranked.
    pub fn new(pits: usize, max_seeds: u32) -> Self {
        assert!(pits >= 1, "a board has at least one pit");
        assert!(max_seeds <= 255, "pits hold at most 255 seeds");
        let width = max_seeds as usize + 1;
        let mut table = vec![0u64; pits.saturating_sub(1).max(1) * width];
        for i in 0..pits.saturating_sub(1) {
            for s in 0..width {
                let c = binomial((i + s) as u64, (i + 1) as u64).unwrap_or(u128::MAX);
                table[i * width + s] = c.min(u64::MAX as u128) as u64;
            }
        }
        let counts = (0..=max_seeds)
            .map(|k| match compositions(k, pits) {
                Some(c) if c <= u64::MAX as u128 => c as u64,
                _ => u64::MAX,
            })
            .collect();
        Ranker {
            pits,
            max_seeds,
            table,
            counts,
        }
    }

    /// Pits this ranker ranks.
    pub fn pits(&self) -> usize {
        self.pits
    }

    /// The most seeds this ranker ranks.
    pub fn max_seeds(&self) -> u32 {
        self.max_seeds
    }

    /// Number of compositions of exactly `seeds` seeds, or an error when it exceeds `u64`
    /// (ranks of such totals would overflow).
    #[inline]
    pub fn count(&self, seeds: u32) -> Result<u64, TooLarge> {
        match self.counts.get(seeds as usize) {
            Some(&c) if c != u64::MAX => Ok(c),
            _ => Err(TooLarge {
                what: "composition count",
                seeds,
                pits: self.pits,
                limit: u64::MAX,
            }),
        }
    }

    /// Dense index of `counts` among the compositions of its total. `counts.len()` must equal
    /// the pit count and the total must not exceed `max_seeds`.
    #[inline]
    pub fn rank(&self, counts: &[u8]) -> u64 {
        debug_assert_eq!(counts.len(), self.pits);
        let width = self.max_seeds as usize + 1;
        let mut s = 0usize;
        let mut r = 0u64;
        for (i, &c) in counts[..self.pits - 1].iter().enumerate() {
            s += c as usize;
            debug_assert!(s < width, "total exceeds the ranker's maximum");
            r = r.wrapping_add(self.table[i * width + s]);
        }
        r
    }

    /// [`Ranker::rank`] of the board whose pit `i` holds `counts[order[i]]`, without writing
    /// it out: how a mirrored board is ranked on the solver's hot path.
    #[inline]
    pub fn rank_in_order(&self, counts: &[u8], order: &[u8]) -> u64 {
        self.rank_and_total_in_order(counts, order).0
    }

    /// [`Ranker::rank_in_order`] and the total of the counts it ranks, in one pass: what
    /// ranking one half of a board needs (`game::sided`).
    #[inline]
    pub fn rank_and_total_in_order(&self, counts: &[u8], order: &[u8]) -> (u64, u32) {
        debug_assert_eq!(order.len(), self.pits);
        let width = self.max_seeds as usize + 1;
        let mut s = 0usize;
        let mut r = 0u64;
        for (i, &p) in order[..self.pits - 1].iter().enumerate() {
            s += counts[p as usize] as usize;
            debug_assert!(s < width, "total exceeds the ranker's maximum");
            r = r.wrapping_add(self.table[i * width + s]);
        }
        (
            r,
            (s + counts[order[self.pits - 1] as usize] as usize) as u32,
        )
    }

    /// Writes the composition of `seeds` seeds with index `index` into `out`.
    pub fn unrank(&self, seeds: u32, mut index: u64, out: &mut [u8]) {
        debug_assert_eq!(out.len(), self.pits);
        debug_assert!(index < self.count(seeds).unwrap_or(u64::MAX));
        let m = self.pits;
        let width = self.max_seeds as usize + 1;
        // Bars from the highest down: bar i takes the largest position b with C(b, i+1) <= index.
        // Position b of bar i means s = b - i seeds in pits 0..=i.
        let mut upper_s = seeds as usize; // seeds in pits 0..=i+1 (for the bar above)
        let mut prev_s = seeds as usize;
        for i in (0..m - 1).rev() {
            let mut s = upper_s;
            while self.table[i * width + s] > index {
                s -= 1;
            }
            index -= self.table[i * width + s];
            out[i + 1] = (prev_s - s) as u8;
            prev_s = s;
            upper_s = s;
        }
        out[0] = prev_s as u8;
    }

    /// The first composition of `seeds` (index 0): every seed in the last pit.
    pub fn first(&self, seeds: u32, out: &mut [u8]) {
        out.fill(0);
        out[self.pits - 1] = seeds as u8;
    }

    /// [`Ranker::next`] that says how far it changed `counts`: the length of the prefix it
    /// rewrote, 0 (leaving `counts` unchanged) at the last composition.
    #[inline]
    pub fn step(&self, counts: &mut [u8]) -> usize {
        let mut below: u32 = 0;
        for i in 0..self.pits - 1 {
            below += counts[i] as u32;
            if counts[i + 1] > 0 {
                counts[..i].fill(0);
                counts[i] = (below + 1) as u8;
                counts[i + 1] -= 1;
                return i + 2;
            }
        }
        0
    }

    /// Advances `counts` to the composition with the next index; returns `false` (leaving
    /// `counts` unchanged) at the last one.
    #[inline]
    pub fn next(&self, counts: &mut [u8]) -> bool {
        self.step(counts) > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials_match_pascal() {
        for n in 0..40u64 {
            for k in 1..=n {
                let lhs = binomial(n, k).unwrap();
                let rhs = binomial(n - 1, k - 1).unwrap() + binomial(n - 1, k).unwrap();
                assert_eq!(lhs, rhs, "C({n},{k})");
            }
        }
    }

    #[test]
    fn benchmark_instance_has_the_advertised_size() {
        // n = 3: 12 pits, every total 0..=16, two sides to move.
        let total: u128 = (0..=16).map(|k| compositions(k, 12).unwrap() * 2).sum();
        assert_eq!(total, 60_843_510);
    }

    #[test]
    fn next_walks_every_index_in_order() {
        let r = Ranker::new(5, 7);
        for k in 0..=7 {
            let mut c = vec![0u8; 5];
            r.first(k, &mut c);
            let mut idx = 0;
            loop {
                assert_eq!(r.rank(&c), idx);
                let mut u = vec![0u8; 5];
                r.unrank(k, idx, &mut u);
                assert_eq!(u, c);
                idx += 1;
                if !r.next(&mut c) {
                    break;
                }
            }
            assert_eq!(idx, r.count(k).unwrap());
        }
    }

    #[test]
    fn ranking_in_another_order_ranks_the_reordered_board() {
        let r = Ranker::new(6, 9);
        let order = [5u8, 4, 3, 0, 1, 2];
        let mut c = vec![0u8; 6];
        r.first(9, &mut c);
        loop {
            let reordered: Vec<u8> = order.iter().map(|&p| c[p as usize]).collect();
            assert_eq!(r.rank_in_order(&c, &order), r.rank(&reordered));
            let total = c.iter().map(|&x| x as u32).sum::<u32>();
            assert_eq!(
                r.rank_and_total_in_order(&c, &order),
                (r.rank(&reordered), total)
            );
            if !r.next(&mut c) {
                break;
            }
        }
    }

    #[test]
    fn oversized_tiers_are_refused() {
        let r = Ranker::new(32, 64);
        assert!(r.count(64).is_err());
        assert!(r.count(36).is_ok());
        assert!(r.count(37).is_err());
    }

    /// Ranks and unranks agree at `index`, and stepping from it reaches `index + 1`.
    fn round_trip_at(r: &Ranker, seeds: u32, index: u64) {
        let mut c = vec![0u8; r.pits()];
        r.unrank(seeds, index, &mut c);
        assert_eq!(
            c.iter().map(|&x| x as u32).sum::<u32>(),
            seeds,
            "index {index}"
        );
        assert_eq!(r.rank(&c), index, "index {index}");
        if index + 1 < r.count(seeds).unwrap() {
            assert!(r.next(&mut c), "index {index}");
            assert_eq!(r.rank(&c), index + 1, "after index {index}");
            let mut u = vec![0u8; r.pits()];
            r.unrank(seeds, index + 1, &mut u);
            assert_eq!(u, c, "index {}", index + 1);
        }
    }

    #[test]
    fn indices_near_2_32_and_2_40_round_trip() {
        // 20 pits (Bawo n = 5): 17 seeds give 2^33.. boards, 30 seeds more than 2^44.
        let r = Ranker::new(20, 30);
        let c17 = r.count(17).unwrap();
        assert_eq!(c17, 8_597_496_600);
        let c30 = r.count(30).unwrap();
        assert!(c30 > 1 << 44, "{c30}");
        for index in [0, (1 << 32) - 1, 1 << 32, (1 << 32) + 1, c17 - 2, c17 - 1] {
            round_trip_at(&r, 17, index);
        }
        for index in [
            (1 << 32) - 1,
            1 << 32,
            (1 << 40) - 1,
            1 << 40,
            (1 << 40) + 1,
            c30 - 1,
        ] {
            round_trip_at(&r, 30, index);
        }
        // The last board of a tier holds every seed in pit 0, the first every seed in the last.
        let mut c = vec![0u8; 20];
        r.unrank(30, c30 - 1, &mut c);
        assert_eq!((c[0], c[1..].iter().all(|&x| x == 0)), (30, true));
        r.first(30, &mut c);
        assert_eq!(r.rank(&c), 0);
    }
}
