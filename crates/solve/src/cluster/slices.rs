//! Which rank owns which positions of a tier: contiguous slices of the stored index space,
//! cut at equal estimated work. Positions of a tier differ in work (how many successors they
//! generate, how many of those stay in the tier and are exchanged, listed and messaged), and
//! the differences follow the index (the board's seeds move from pit to pit along it), so
//! equal counts leave some ranks waiting for others. A [`TierSample`] estimates the work of
//! evenly spread positions, deterministically (counted successors and edges, plus a share
//! per position), and the slices are cut where the running sum of that work reaches each
//! rank's share. Results do not depend on the cut (see
//! [`super::slice`]).

use rayon::prelude::*;

use crate::tier::pass::distinct_in_tier;
use bawo_games::game::{Game, Tier};

/// Environment variable: set (to anything) to cut slices of equal counts instead (to measure
/// what balancing gains; results are the same).
pub const EVEN_SLICES_ENV: &str = "BAWO_MPI_EVEN_SLICES";

/// Positions of a tier whose work is counted to balance it.
pub const SAMPLES: u64 = 1 << 14;

/// The work of one position in units of a generated successor: the position itself, each
/// successor generated and classified, and each in-tier edge again (sent to its target's
/// owner, listed as a predecessor and, when its target is decided, messaged back).
#[inline]
pub fn position_cost(successors: usize, in_tier: usize) -> u64 {
    1 + successors as u64 + in_tier as u64
}

/// The slices of one tier: rank `r` owns `starts[r]..starts[r + 1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slices {
    starts: Vec<u64>,
}

impl Slices {
    /// `states` positions split into `ranks` slices whose sizes differ by at most one.
    pub fn even(states: u64, ranks: usize) -> Slices {
        let k = ranks.max(1) as u128;
        let starts = (0..=k).map(|r| (states as u128 * r / k) as u64).collect();
        Slices { starts }
    }

    /// Slices from their starts and the tier's end (as [`Slices::starts`] gives them); `None`
    /// unless they begin at 0 and never decrease.
    pub fn from_starts(starts: Vec<u64>) -> Option<Slices> {
        let ok = starts.len() >= 2 && starts[0] == 0 && starts.windows(2).all(|w| w[0] <= w[1]);
        ok.then_some(Slices { starts })
    }

    /// Where each slice starts, then the tier's size.
    pub fn starts(&self) -> &[u64] {
        &self.starts
    }

    /// Ranks the tier is split among.
    pub fn ranks(&self) -> usize {
        self.starts.len() - 1
    }

    /// The first position of rank `rank`'s slice.
    pub fn start(&self, rank: usize) -> u64 {
        self.starts[rank]
    }

    /// Positions in rank `rank`'s slice.
    pub fn len(&self, rank: usize) -> u64 {
        self.starts[rank + 1] - self.starts[rank]
    }

    /// Whether rank `rank` owns no position.
    pub fn is_empty(&self, rank: usize) -> bool {
        self.len(rank) == 0
    }

    /// The rank owning index `p` (which must be below the tier's size).
    #[inline]
    pub fn owner(&self, p: u64) -> usize {
        self.starts.partition_point(|&s| s <= p) - 1
    }
}

/// What a rank's slice of a tier is estimated to hold.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Load {
    /// Positions in the slice.
    pub positions: u64,
    /// In-tier edges whose source lies in the slice (generated and sent by the rank).
    pub edges_out: f64,
    /// In-tier edges whose target lies in the slice (received and listed by the rank).
    pub edges_in: f64,
    /// Estimated work ([`position_cost`] summed).
    pub cost: f64,
}

/// The estimated work of evenly spread positions of one tier: sample `k` is position
/// `k * states / samples` and stands for the positions up to the next sample; its cost is
/// its [`position_cost`] plus the sample's mean of them.
#[derive(Clone, Debug)]
pub struct TierSample {
    states: u64,
    /// Index of each sampled position, then `states`.
    at: Vec<u64>,
    costs: Vec<u64>,
    /// Per sample, its distinct in-tier successors' indices.
    targets: Vec<Vec<u64>>,
}

impl TierSample {
    /// Counts the work of up to [`SAMPLES`] positions of `tier` (every position of a smaller
    /// tier).
    pub fn take<G: Game>(game: &G, tier: Tier, states: u64) -> TierSample {
        let n = states.min(SAMPLES);
        let at: Vec<u64> = (0..=n)
            .map(|k| (states as u128 * k as u128 / n.max(1) as u128) as u64)
            .collect();
        let per: Vec<(u64, Vec<u64>)> = at[..n as usize]
            .par_iter()
            .map_init(Vec::new, |succ, &i| {
                succ.clear();
                game.successors(&game.position(tier, i), succ);
                let inside = distinct_in_tier(tier, succ);
                (position_cost(succ.len(), inside.len()), inside)
            })
            .collect();
        let (mut costs, targets): (Vec<u64>, _) = per.into_iter().unzip();
        // Every position also costs about as much as an average one's successors: with
        // slices of equal counts the ranks' CPU time varied about half as much as their
        // counted work (README), so the counts alone overweight positions with many.
        let mean = costs.iter().sum::<u64>() / costs.len().max(1) as u64;
        costs.iter_mut().for_each(|c| *c += mean);
        TierSample {
            states,
            at,
            costs,
            targets,
        }
    }

    /// Positions sample `k` stands for.
    fn weight(&self, k: usize) -> f64 {
        (self.at[k + 1] - self.at[k]) as f64
    }

    /// Slices of equal estimated work for `ranks` ranks, cut at sampled positions.
    pub fn balanced(&self, ranks: usize) -> Slices {
        let ranks = ranks.max(1);
        let n = self.costs.len();
        // prefix[j]: estimated work of the positions before sample j.
        let mut prefix = Vec::with_capacity(n + 1);
        let mut sum = 0.0;
        prefix.push(0.0);
        for k in 0..n {
            sum += self.costs[k] as f64 * self.weight(k);
            prefix.push(sum);
        }
        let mut starts = vec![0u64; ranks + 1];
        let mut j = 0;
        for (r, s) in starts.iter_mut().enumerate().skip(1) {
            if r == ranks {
                *s = self.states;
                break;
            }
            let target = sum * r as f64 / ranks as f64;
            while j < n && prefix[j + 1] < target {
                j += 1;
            }
            // The cut nearer to the target: before sample j or after it.
            let cut = if j < n && prefix[j + 1] - target < target - prefix[j] {
                j + 1
            } else {
                j
            };
            *s = self.at[cut];
        }
        Slices { starts }
    }

    /// The estimated load of each rank's slice.
    pub fn loads(&self, slices: &Slices) -> Vec<Load> {
        let mut loads: Vec<Load> = (0..slices.ranks())
            .map(|r| Load {
                positions: slices.len(r),
                ..Load::default()
            })
            .collect();
        for (k, targets) in self.targets.iter().enumerate() {
            let w = self.weight(k);
            if w == 0.0 {
                continue;
            }
            let l = &mut loads[slices.owner(self.at[k])];
            l.edges_out += targets.len() as f64 * w;
            l.cost += self.costs[k] as f64 * w;
            for &t in targets {
                loads[slices.owner(t)].edges_in += w;
            }
        }
        loads
    }
}

/// The largest load's cost over the mean (1 when perfectly balanced).
pub fn imbalance(costs: &[f64]) -> f64 {
    let sum: f64 = costs.iter().sum();
    let max = costs.iter().copied().fold(0.0, f64::max);
    if sum <= 0.0 {
        1.0
    } else {
        max * costs.len() as f64 / sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_cover_the_tier_and_owners_match() {
        for (states, ranks) in [(0u64, 3usize), (1, 3), (10, 3), (12, 4), (7, 1)] {
            let s = Slices::even(states, ranks);
            assert_eq!(s.ranks(), ranks);
            assert_eq!((0..ranks).map(|r| s.len(r)).sum::<u64>(), states);
            for p in 0..states {
                let r = s.owner(p);
                assert!(
                    s.start(r) <= p && p < s.start(r) + s.len(r),
                    "{states} {ranks} {p}"
                );
            }
        }
        assert_eq!(Slices::even(10, 3).len(0), 3);
        assert_eq!(Slices::even(10, 3).len(2), 4);
        assert!(Slices::from_starts(vec![0, 5, 3]).is_none());
        assert!(Slices::from_starts(vec![1, 5]).is_none());
        assert_eq!(Slices::from_starts(vec![0, 3, 3, 10]).unwrap().owner(3), 2);
    }

    fn sample(costs: Vec<u64>) -> TierSample {
        let n = costs.len() as u64;
        TierSample {
            states: n,
            at: (0..=n).collect(),
            targets: vec![Vec::new(); costs.len()],
            costs,
        }
    }

    #[test]
    fn balanced_slices_cut_at_equal_work() {
        // The first half of the tier costs three times the second.
        let s = sample((0..1000).map(|i| if i < 500 { 3 } else { 1 }).collect());
        let b = s.balanced(2);
        assert_eq!(b.starts(), &[0, 333, 1000]);
        let costs: Vec<f64> = s.loads(&b).iter().map(|l| l.cost).collect();
        assert!(imbalance(&costs) < 1.01, "{costs:?}");
        let even: Vec<f64> = s
            .loads(&Slices::even(1000, 2))
            .iter()
            .map(|l| l.cost)
            .collect();
        assert!((imbalance(&even) - 1.5).abs() < 1e-9, "{even:?}");
        // More ranks than positions: some slices are empty, all positions are owned.
        let b = sample(vec![1, 1]).balanced(5);
        assert_eq!(b.ranks(), 5);
        assert_eq!((0..5).map(|r| b.len(r)).sum::<u64>(), 2);
        assert_eq!(sample(Vec::new()).balanced(3).starts(), &[0, 0, 0, 0]);
    }

    #[test]
    fn loads_count_edges_at_both_ends() {
        let mut s = sample(vec![1; 4]);
        s.targets = vec![vec![3], vec![2, 3], vec![], vec![]];
        let l = s.loads(&Slices::even(4, 2));
        assert_eq!((l[0].edges_out, l[0].edges_in), (3.0, 0.0));
        assert_eq!((l[1].edges_out, l[1].edges_in), (0.0, 3.0));
    }
}
