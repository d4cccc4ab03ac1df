//! Positions that are a board and a side to move, indexed within a tier of `k` seeds as
//! `side * C(k + pits - 1, pits - 1) + rank(board)`: the layout every game here shares.

use std::ops::Range;

use super::input::{parse_counts, PositionSpec};
use super::{InputError, Side, Tier};
use crate::error::Error;
use crate::rank::{Ranker, TooLarge};

/// A position that is a board and a side to move, which [`SidedIndex`] can fill in.
pub trait SidedPosition: Sized {
    /// A position with an empty board and A to move.
    fn empty() -> Self;

    /// The first `pits` pits of its board, and its side to move.
    fn parts(&mut self, pits: usize) -> (&mut [u8], &mut Side);
}

/// Tier sizes, ranks and the in-order walk for boards of a fixed number of pits.
#[derive(Clone, Debug)]
pub struct SidedIndex {
    ranker: Ranker,
}

/// Largest board total of the games indexed here (a pit is a byte, and so is the ranker's
/// seed range); the one seed limit of Bawo and Kigogo.
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
    pub fn tiers_up_to(&self, seeds: u32) -> Result<Vec<Tier>, InputError> {
        if seeds > MAX_SEEDS {
            return Err(InputError::new(format!(
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
            return Err(InputError::new(format!(
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

    /// The position with index `index` in tier `seeds`.
    pub fn position<P: SidedPosition>(&self, seeds: Tier, index: u64) -> P {
        let mut pos = P::empty();
        let (board, side) = pos.parts(self.pits());
        *side = self.unrank(seeds, index, board);
        pos
    }

    /// [`SidedIndex::visit`] for positions that fill themselves in: the body of
    /// [`super::Game::visit`] for every game indexed here.
    #[inline]
    pub fn visit_positions<P: SidedPosition>(
        &self,
        seeds: Tier,
        range: Range<u64>,
        f: impl FnMut(u64, &P),
    ) {
        let pits = self.pits();
        let mut pos = P::empty();
        self.visit(seeds, range, &mut pos, |p| p.parts(pits), f);
    }

    /// The board of a typed position of a game with no hands or houses: exactly
    /// [`SidedIndex::pits`] counts, at most [`MAX_SEEDS`] seeds in all.
    pub fn parse_board(&self, spec: &PositionSpec) -> Result<Vec<u8>, InputError> {
        if spec.hands.is_some() || spec.houses.is_some() {
            return Err(InputError::new(
                "--hands and --houses apply to --game bao only",
            ));
        }
        let counts = parse_counts(&spec.board, self.pits(), "--board")?;
        let total: u32 = counts.iter().map(|&c| c as u32).sum();
        if total > MAX_SEEDS {
            return Err(InputError::new(format!(
                "--board holds {total} seeds, at most {MAX_SEEDS} are supported"
            )));
        }
        Ok(counts)
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
