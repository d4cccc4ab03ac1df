//! Positions that are a board and a side to move, indexed within a tier of `k` seeds by the
//! rank of a board among the `C(k + pits - 1, pits - 1)` boards of `k` seeds: the layout every
//! game here shares.
//!
//! **One side to move is stored.** A position with B to move is the position with A to move
//! on the board seen from the other side of the table (the game's [`Mirror`] of its pits): the
//! same moves, so the same value and depth for the side to move. A tier therefore indexes the
//! positions with A to move only, and a position with B to move is located at the index of
//! its mirror. Tables, edges, time and disk are half of what both sides would take; every
//! stored entry stands for two positions ([`super::POSITIONS_PER_ENTRY`]).

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

/// How the pits trade places when the players trade sides: pit `p` of a board holds what pit
/// `to[p]` holds on the board seen from the other side of the table. Every game here has four
/// rows of `pits / 4` pits; the players' rows trade places (row `r` and row `3 - r`), and
/// whether a row also runs the other way round depends on how the game numbers its pits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mirror {
    to: Vec<u8>,
}

impl Mirror {
    /// The rows in the opposite order, each in its own pit order (Generalized Bawo, whose rows
    /// are numbered along each player's cycle: A's back row `0..n` trades with B's back row
    /// `3n..4n`, A's front row `n..2n` with B's front row `2n..3n`).
    pub fn rows_exchanged(pits: usize) -> Mirror {
        let row = pits / 4;
        Mirror::from_fn(pits, |p| (3 - p / row) * row + p % row)
    }

    /// The board turned half round: pit `p` to pit `pits - 1 - p` (Kigogo and Bao, whose pits
    /// are numbered row by row across the board, so row `r` column `c` goes to row `3 - r`
    /// column `cols - 1 - c`).
    pub fn half_turn(pits: usize) -> Mirror {
        Mirror::from_fn(pits, |p| pits - 1 - p)
    }

    fn from_fn(pits: usize, f: impl Fn(usize) -> usize) -> Mirror {
        assert!(
            pits.is_multiple_of(4) && (4..=MAX_PITS).contains(&pits),
            "a board has four rows of at most {} pits",
            MAX_PITS / 4
        );
        let to: Vec<u8> = (0..pits).map(|p| f(p) as u8).collect();
        debug_assert!(
            (0..pits).all(|p| to[to[p] as usize] as usize == p),
            "a mirror is an involution"
        );
        Mirror { to }
    }

    /// The pit that pit `p` becomes.
    pub fn pit(&self, p: usize) -> usize {
        self.to[p] as usize
    }

    /// Writes the mirror image of `board` into `out` (both of the mirror's length).
    #[inline]
    pub fn apply(&self, board: &[u8], out: &mut [u8]) {
        debug_assert_eq!(board.len(), self.to.len());
        // An involution: pit `i` of the image holds pit `to[i]` of the board.
        for (o, &t) in out.iter_mut().zip(&self.to) {
            *o = board[t as usize];
        }
    }
}

/// Tier sizes, ranks and the in-order walk for boards of a fixed number of pits, storing the
/// positions with A to move (see the module's documentation).
#[derive(Clone, Debug)]
pub struct SidedIndex {
    ranker: Ranker,
    mirror: Mirror,
}

/// Largest board total of the games indexed here (a pit is a byte, and so is the ranker's
/// seed range); the one seed limit of Bawo and Kigogo.
pub const MAX_SEEDS: u32 = 255;

/// Most pits of a board indexed here (Kigogo's 48).
pub const MAX_PITS: usize = 48;

impl SidedIndex {
    pub fn new(mirror: Mirror) -> Self {
        SidedIndex {
            ranker: Ranker::new(mirror.to.len(), MAX_SEEDS),
            mirror,
        }
    }

    /// How the pits trade places when the players do.
    pub fn mirror(&self) -> &Mirror {
        &self.mirror
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

    /// Entries of the tier of `seeds` seeds: its positions with A to move (as many again
    /// with B to move are located through their mirrors).
    pub fn tier_size(&self, seeds: Tier) -> Result<u64, TooLarge> {
        self.ranker.count(seeds)
    }

    /// Positions of the tier of `seeds` seeds with either side to move.
    pub fn tier_positions(&self, seeds: Tier) -> Result<u64, TooLarge> {
        self.ranker
            .count(seeds)?
            .checked_mul(super::POSITIONS_PER_ENTRY)
            .ok_or(TooLarge {
                what: "tier (both sides to move)",
                seeds,
                pits: self.pits(),
                limit: u64::MAX,
            })
    }

    /// Tier and index of a board whose tier is known to fit (the solver's hot path): the
    /// board's rank with A to move, its mirror's with B to move.
    #[inline]
    pub fn index_of(&self, board: &[u8], side: Side) -> (Tier, u64) {
        let seeds: u32 = board.iter().map(|&c| c as u32).sum();
        let rank = match side {
            Side::A => self.ranker.rank(board),
            // The mirror is an involution: pit `i` of the mirrored board holds pit `to[i]`.
            Side::B => self.ranker.rank_in_order(board, &self.mirror.to),
        };
        (seeds, rank)
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

    /// The stored position with index `index` in tier `seeds` (A to move).
    pub fn position<P: SidedPosition>(&self, seeds: Tier, index: u64) -> P {
        let mut pos = P::empty();
        let (board, side) = pos.parts(self.pits());
        self.ranker.unrank(seeds, index, board);
        *side = Side::A;
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

    /// Calls `f` for every index of `range` in tier `seeds` with its stored position (A to
    /// move), in index order, stepping each board to the next instead of unranking it. `pos`
    /// is the game's position value to fill, `parts` gives access to its board and side.
    pub fn visit<P>(
        &self,
        seeds: Tier,
        range: Range<u64>,
        pos: &mut P,
        parts: impl Fn(&mut P) -> (&mut [u8], &mut Side),
        mut f: impl FnMut(u64, &P),
    ) {
        let hi = range.end.min(self.count(seeds));
        let lo = range.start;
        if lo >= hi {
            return;
        }
        {
            let (board, s) = parts(pos);
            *s = Side::A;
            self.ranker.unrank(seeds, lo, board);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_exchanged_trades_the_players_rows_in_their_own_order() {
        for n in 1..=8usize {
            let m = Mirror::rows_exchanged(4 * n);
            for j in 0..n {
                // A's back row and B's back row, A's front row and B's front row (RULES.md §1).
                assert_eq!(m.pit(j), 3 * n + j);
                assert_eq!(m.pit(n + j), 2 * n + j);
                assert_eq!(m.pit(2 * n + j), n + j);
                assert_eq!(m.pit(3 * n + j), j);
            }
        }
    }

    #[test]
    fn half_turn_reverses_the_pits() {
        let m = Mirror::half_turn(48);
        assert_eq!((m.pit(0), m.pit(12), m.pit(47)), (47, 35, 0));
    }

    #[test]
    fn b_to_move_is_ranked_as_its_mirror_with_a_to_move() {
        for mirror in [Mirror::rows_exchanged(12), Mirror::half_turn(12)] {
            let idx = SidedIndex::new(mirror.clone());
            for seeds in 0..=5 {
                let size = idx.tier_size(seeds).unwrap();
                assert_eq!(idx.tier_positions(seeds).unwrap(), 2 * size);
                let mut pos = (vec![0u8; 12], Side::B);
                let mut n = 0;
                idx.visit(
                    seeds,
                    0..size,
                    &mut pos,
                    |p| (&mut p.0[..], &mut p.1),
                    |i, (board, side)| {
                        assert_eq!(*side, Side::A);
                        assert_eq!(idx.index_of(board, Side::A), (seeds, i));
                        let mut turned = vec![0u8; 12];
                        mirror.apply(board, &mut turned);
                        assert_eq!(idx.index_of(&turned, Side::B), (seeds, i));
                        let mut back = vec![0u8; 12];
                        mirror.apply(&turned, &mut back);
                        assert_eq!(&back, board);
                        n += 1;
                    },
                );
                assert_eq!(n, size);
            }
        }
    }
}
