//! Which rank owns which positions of a tier: contiguous slices of the stored index space,
//! split by count (every stored position is one successor generation; the attractor's work
//! follows the edges, which are spread alike over a tier's indices).

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

    pub fn ranks(&self) -> usize {
        self.starts.len() - 1
    }

    pub fn start(&self, rank: usize) -> u64 {
        self.starts[rank]
    }

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
    }
}
