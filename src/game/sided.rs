//! Positions that are a board and a side to move, indexed within a tier of `k` seeds as
//! `side * C(k + pits - 1, pits - 1) + rank(board)`: the layout every game here shares.

use std::ops::Range;

use super::{Side, Tier};
use crate::error::Error;
use crate::rank::{Ranker, TooLarge};

/// Tier sizes, ranks and the in-order walk for boards of a fixed number of pits.
#[derive(Clone, Debug)]
pub struct SidedIndex {
    ranker: Ranker,
}

/// Largest board total (a pit is a byte, and so is the ranker's seed range).
pub const MAX_SEEDS: u32 = 255;

impl SidedIndex {
    pub fn new(pits: usize) -> Self {
        SidedIndex {
            ranker: Ranker::new(pits, MAX_SEEDS),
        }
    }

    pub fn pits(&self) -> usize {
        self.ranker.pits()
    }

    /// Boards of `seeds` seeds; callers have checked the tier with [`SidedIndex::tier_size`].
    #[inline]
    fn count(&self, seeds: u32) -> u64 {
        self.ranker
            .count(seeds)
            .expect("tier sizes are checked before use")
    }

    /// Tiers `0..=seeds`, for games whose board total never grows.
    pub fn tiers_up_to(&self, seeds: u32) -> Result<Vec<Tier>, super::InputError> {
        if seeds > MAX_SEEDS {
            return Err(super::InputError::new(format!(
                "--seeds must be at most {MAX_SEEDS}, not {seeds}"
            )));
        }
        Ok((0..=seeds).collect())
    }

    /// Positions in the tier of `seeds` seeds (both sides to move).
    pub fn tier_size(&self, seeds: Tier) -> Result<u64, TooLarge> {
        self.ranker.count(seeds)?.checked_mul(2).ok_or(TooLarge {
            what: "tier",
            seeds,
            pits: self.pits(),
            limit: u64::MAX,
        })
    }

    /// Tier and index of a board whose tier is known to fit (the solver's hot path).
    #[inline]
    pub fn index_of(&self, board: &[u8], side: Side) -> (Tier, u64) {
        let seeds: u32 = board.iter().map(|&c| c as u32).sum();
        let offset = match side {
            Side::A => 0,
            Side::B => self.count(seeds),
        };
        (seeds, offset + self.ranker.rank(board))
    }

    /// Tier and index of any board, or an error when no tier of it can be indexed.
    pub fn locate(&self, board: &[u8], side: Side) -> Result<(Tier, u64), Error> {
        let seeds: u32 = board.iter().map(|&c| c as u32).sum();
        if seeds > MAX_SEEDS {
            return Err(super::InputError::new(format!(
                "the board holds {seeds} seeds, at most {MAX_SEEDS} are supported"
            ))
            .into());
        }
        self.tier_size(seeds)?;
        Ok(self.index_of(board, side))
    }

    /// Writes the board of position `index` of tier `seeds` and returns its side to move.
    pub fn unrank(&self, seeds: Tier, index: u64, board: &mut [u8]) -> Side {
        let c = self.count(seeds);
        let (side, rank) = if index < c {
            (Side::A, index)
        } else {
            (Side::B, index - c)
        };
        self.ranker.unrank(seeds, rank, board);
        side
    }

    /// Calls `f` for every index of `range` in tier `seeds` with its position, in index order,
    /// stepping each board to the next instead of unranking it. `pos` is the game's position
    /// value to fill, `parts` gives access to its board and side.
    pub fn visit<P>(
        &self,
        seeds: Tier,
        range: Range<u64>,
        pos: &mut P,
        parts: impl Fn(&mut P) -> (&mut [u8], &mut Side),
        mut f: impl FnMut(u64, &P),
    ) {
        let c = self.count(seeds);
        for side in [Side::A, Side::B] {
            let base = side.index() as u64 * c;
            let lo = range.start.max(base);
            let hi = range.end.min(base + c);
            if lo >= hi {
                continue;
            }
            {
                let (board, s) = parts(pos);
                *s = side;
                self.ranker.unrank(seeds, lo - base, board);
            }
            let mut i = lo;
            loop {
                f(i, pos);
                i += 1;
                if i == hi {
                    break;
                }
                self.ranker.next(parts(pos).0);
            }
        }
    }
}
