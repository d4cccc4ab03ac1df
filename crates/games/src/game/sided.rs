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
use super::kept::{KeptHalf, KeptShape};
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
///
/// **Order inside a tier.** A board is its mover's half (A's pits) and its opponent's half
/// (B's), each a composition of its own total. A tier lists its boards by the mover's seeds
/// `sa`, then by the mover's half, then by the opponent's half (the fastest):
/// `index = offset(k, sa) + rank(mover's half) * C(k - sa + h - 1, h - 1) + rank(opponent's half)`,
/// `h` pits a half. Why: a position's value depends on the two halves nearly apart, so
/// neighbours in this order agree far more often than in the composition order of the whole
/// board, and the compressed database is a third smaller (README, "Database format"). Each
/// game names the order of the pits inside each half ([`HalfOrder`]).
#[derive(Clone, Debug)]
pub struct SidedIndex {
    /// Ranks one half of the board.
    half: Ranker,
    /// Boards of `k` seeds on the whole board (tier sizes).
    whole: Ranker,
    mirror: Mirror,
    /// Board pits in ranking order: `order[..h]` the mover's half, `order[h..]` the
    /// opponent's, each from its fastest-varying pit to its most significant.
    order: Vec<u8>,
    /// `order` through the mirror: the pits a board with B to move is ranked by.
    mirrored: Vec<u8>,
    /// `offsets[k * OFFSET_ROW + sa]`: boards of `k` seeds whose mover holds fewer than
    /// `sa` (saturating; such entries only occur in tiers [`SidedIndex::tier_size`] refuses).
    offsets: std::sync::Arc<[u64]>,
    /// `half_counts[s]`: compositions of `s` seeds into one half (saturating).
    half_counts: Vec<u64>,
}

/// Entries of one tier's row of [`SidedIndex::offsets`]: every `sa` from 0 to one past the
/// largest total.
const OFFSET_ROW: usize = MAX_SEEDS as usize + 2;

/// How a game orders the pits inside each half of its board for [`SidedIndex`]: the pits of
/// the player to move (A's) and of the opponent (B's), each listed from the pit that varies
/// fastest in index order to the most significant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HalfOrder {
    /// Order of the mover's half of the board.
    pub mover: Vec<u8>,
    /// Order of the opponent's half of the board.
    pub opponent: Vec<u8>,
}

impl HalfOrder {
    /// Kigogo and Bao, whose pits are numbered row by row from North's back row: the mover
    /// (South) owns the second half, `pits / 2..pits`; each half in pit order, so the back
    /// rows are the most significant and North's front row outranks its back row. Measured
    /// on the largest tiers, these orders compress best of those tried (README).
    pub fn south_moves(pits: usize) -> HalfOrder {
        let h = pits / 2;
        HalfOrder {
            mover: (h..pits).map(|p| p as u8).collect(),
            opponent: (0..h).map(|p| p as u8).collect(),
        }
    }
}

/// Largest board total of the games indexed here (a pit is a byte, and so is the ranker's
/// seed range); the one seed limit of Bawo and Kigogo.
pub const MAX_SEEDS: u32 = 255;

/// Most pits of a board indexed here (Kigogo's 48).
pub const MAX_PITS: usize = 48;

impl SidedIndex {
    /// An index over boards mirrored by `mirror` and read in the order `halves`.
    pub fn new(mirror: Mirror, halves: HalfOrder) -> Self {
        let pits = mirror.to.len();
        let h = pits / 2;
        let mut order = halves.mover;
        order.extend_from_slice(&halves.opponent);
        assert!(
            halves.opponent.len() == h && {
                let mut seen = order.clone();
                seen.sort_unstable();
                seen.iter().enumerate().all(|(i, &p)| p as usize == i)
            },
            "the halves list every pit once, half of them each"
        );
        let mirrored = order.iter().map(|&p| mirror.to[p as usize]).collect();
        let half = Ranker::new(h, MAX_SEEDS);
        let half_counts: Vec<u64> = (0..=MAX_SEEDS)
            .map(|s| half.count(s).unwrap_or(u64::MAX))
            .collect();
        let mut offsets = vec![u64::MAX; (MAX_SEEDS as usize + 1) * OFFSET_ROW];
        for k in 0..=MAX_SEEDS as usize {
            let mut sum = 0u128;
            for sa in 0..=k + 1 {
                offsets[k * OFFSET_ROW + sa] = sum.min(u64::MAX as u128) as u64;
                if sa <= k {
                    sum = sum.saturating_add(half_counts[sa] as u128 * half_counts[k - sa] as u128);
                }
            }
        }
        SidedIndex {
            half,
            whole: Ranker::new(pits, MAX_SEEDS),
            mirror,
            order,
            mirrored,
            offsets: offsets.into(),
            half_counts,
        }
    }

    /// How the pits trade places when the players do.
    pub fn mirror(&self) -> &Mirror {
        &self.mirror
    }

    /// Pits on the board.
    pub fn pits(&self) -> usize {
        self.whole.pits()
    }

    /// Pits of each half.
    #[inline]
    fn h(&self) -> usize {
        self.half.pits()
    }

    /// Boards of `seeds` seeds; callers have checked the tier with [`SidedIndex::tier_size`].
    #[inline]
    fn count(&self, seeds: u32) -> u64 {
        self.whole
            .count(seeds)
            .expect("tier sizes are checked before use")
    }

    /// How sources of moves that keep the opponent's half are named by keys in tier `seeds`
    /// ([`KeptHalf`]), or `None` where the two orders a half is read in are not one
    /// permutation and its inverse (no game here).
    pub fn kept_half(&self, seeds: Tier) -> Option<KeptHalf> {
        let perm = self.kept_half_perm()?;
        let k = seeds as usize;
        let row = self.offsets[k * OFFSET_ROW..][..k + 2].to_vec();
        let counts = self.half_counts[..=k].to_vec();
        let identity = perm.iter().enumerate().all(|(j, &p)| p as usize == j);
        Some(KeptHalf::new(
            seeds,
            row,
            counts,
            &self.half,
            (!identity).then_some(&perm[..]),
        ))
    }

    /// What [`SidedIndex::kept_half`] gives for tier `seeds`, without building its table.
    pub fn kept_half_shape(&self, seeds: Tier) -> Option<KeptShape> {
        let perm = self.kept_half_perm()?;
        let differs = perm.iter().enumerate().any(|(j, &q)| q as usize != j);
        Some(KeptShape {
            key_limit: self.half_counts[seeds as usize],
            table_bytes: KeptHalf::table_bytes_for(&self.half_counts, seeds, differs),
        })
    }

    /// `perm[j]`: the place in the opponent's ranking order of the pit that the mirror puts
    /// at place `j` of the mover's, when that map is its own inverse.
    fn kept_half_perm(&self) -> Option<Vec<u8>> {
        let h = self.h();
        let perm: Vec<u8> = (0..h)
            .map(|j| {
                let pit = self.mirrored[j];
                self.order[h..]
                    .iter()
                    .position(|&q| q == pit)
                    .map(|p| p as u8)
            })
            .collect::<Option<_>>()?;
        let involution = perm
            .iter()
            .enumerate()
            .all(|(j, &p)| perm[p as usize] as usize == j);
        involution.then_some(perm)
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
        self.whole.count(seeds)
    }

    /// Positions of the tier of `seeds` seeds with either side to move.
    pub fn tier_positions(&self, seeds: Tier) -> Result<u64, TooLarge> {
        self.whole
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
    /// board's index with A to move, its mirror's with B to move.
    #[inline]
    pub fn index_of(&self, board: &[u8], side: Side) -> (Tier, u64) {
        let order = match side {
            Side::A => &self.order,
            // The mirror is an involution: pit `i` of the mirrored board holds pit `to[i]`.
            Side::B => &self.mirrored,
        };
        let (mover, opponent) = order.split_at(self.h());
        let (rm, sa) = self.half.rank_and_total_in_order(board, mover);
        let (ro, so) = self.half.rank_and_total_in_order(board, opponent);
        let seeds = sa + so;
        let index = self.offsets[seeds as usize * OFFSET_ROW + sa as usize]
            + rm * self.half_counts[so as usize]
            + ro;
        (seeds, index)
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

    /// The mover's seeds and the two halves (in ranking order) of index `index` of tier
    /// `seeds`.
    fn halves_of(&self, seeds: Tier, index: u64, mover: &mut [u8], opponent: &mut [u8]) -> u32 {
        let row = &self.offsets[seeds as usize * OFFSET_ROW..][..seeds as usize + 2];
        // The last `sa` whose offset is at most `index` (row[0] = 0 <= index < row[seeds + 1]).
        let sa = row.partition_point(|&o| o <= index) - 1;
        let q = index - row[sa];
        let per = self.half_counts[seeds as usize - sa];
        self.half.unrank(sa as u32, q / per, mover);
        self.half.unrank(seeds - sa as u32, q % per, opponent);
        sa as u32
    }

    /// Writes a half (in ranking order `pits`) into the board.
    #[inline]
    fn scatter(board: &mut [u8], pits: &[u8], half: &[u8]) {
        for (&p, &c) in pits.iter().zip(half) {
            board[p as usize] = c;
        }
    }

    /// The stored position with index `index` in tier `seeds` (A to move).
    pub fn position<P: SidedPosition>(&self, seeds: Tier, index: u64) -> P {
        let h = self.h();
        let (mut m, mut o) = ([0u8; MAX_PITS / 2], [0u8; MAX_PITS / 2]);
        self.halves_of(seeds, index, &mut m[..h], &mut o[..h]);
        let mut pos = P::empty();
        let (board, side) = pos.parts(self.pits());
        Self::scatter(board, &self.order[..h], &m[..h]);
        Self::scatter(board, &self.order[h..], &o[..h]);
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
    /// move), in index order, stepping each half to the next instead of unranking the board.
    /// `pos` is the game's position value to fill, `parts` gives access to its board and side.
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
        let h = self.h();
        let (mover_pits, opponent_pits) = self.order.split_at(h);
        let (mut m, mut o) = ([0u8; MAX_PITS / 2], [0u8; MAX_PITS / 2]);
        let (m, o) = (&mut m[..h], &mut o[..h]);
        let mut sa = self.halves_of(seeds, lo, m, o);
        {
            let (board, s) = parts(pos);
            *s = Side::A;
            Self::scatter(board, mover_pits, m);
            Self::scatter(board, opponent_pits, o);
        }
        let mut i = lo;
        loop {
            f(i, pos);
            i += 1;
            if i == hi {
                break;
            }
            let board = parts(pos).0;
            let changed = self.half.step(o);
            if changed > 0 {
                Self::scatter(board, &opponent_pits[..changed], &o[..changed]);
                continue;
            }
            if self.half.step(m) == 0 {
                sa += 1;
                self.half.first(sa, m);
            }
            self.half.first(seeds - sa, o);
            Self::scatter(board, mover_pits, m);
            Self::scatter(board, opponent_pits, o);
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

    /// A board of any size up to the largest, for [`SidedIndex::position`].
    struct Pos([u8; MAX_PITS], Side);

    impl SidedPosition for Pos {
        fn empty() -> Self {
            Pos([0; MAX_PITS], Side::A)
        }

        fn parts(&mut self, pits: usize) -> (&mut [u8], &mut Side) {
            (&mut self.0[..pits], &mut self.1)
        }
    }

    /// The two layouts the games use, on 12 pits: Bawo's (n = 3) and Kigogo's and Bao's.
    fn layouts() -> Vec<(Mirror, SidedIndex)> {
        let bawo = HalfOrder {
            mover: vec![2, 1, 0, 5, 4, 3],
            opponent: vec![11, 10, 9, 8, 7, 6],
        };
        vec![
            (
                Mirror::rows_exchanged(12),
                SidedIndex::new(Mirror::rows_exchanged(12), bawo),
            ),
            (
                Mirror::half_turn(12),
                SidedIndex::new(Mirror::half_turn(12), HalfOrder::south_moves(12)),
            ),
        ]
    }

    #[test]
    fn b_to_move_is_ranked_as_its_mirror_with_a_to_move() {
        for (mirror, idx) in layouts() {
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

    /// A tier's walk lists every board of its total exactly once, in index order, whatever
    /// index it starts from, and unranking any index gives the board the walk reached there.
    #[test]
    fn the_walk_is_a_bijection_onto_the_boards_of_the_tier() {
        for (_, idx) in layouts() {
            for seeds in 0..=7 {
                let size = idx.tier_size(seeds).unwrap();
                let mut boards = Vec::new();
                let mut pos = (vec![0u8; 12], Side::A);
                idx.visit(
                    seeds,
                    0..size,
                    &mut pos,
                    |p| (&mut p.0[..], &mut p.1),
                    |i, (board, _)| {
                        assert_eq!(i as usize, boards.len());
                        assert_eq!(board.iter().map(|&c| c as u32).sum::<u32>(), seeds);
                        let at: Pos = idx.position(seeds, i);
                        assert_eq!(&at.0[..12], &board[..]);
                        boards.push(board.clone());
                    },
                );
                let mut distinct = boards.clone();
                distinct.sort();
                distinct.dedup();
                assert_eq!(distinct.len() as u64, size, "{seeds} seeds");
                // Walks that start inside the tier agree with the whole walk.
                for lo in [1, size / 3, size / 2 + 1, size.saturating_sub(2)] {
                    let hi = (lo + 40).min(size);
                    idx.visit(
                        seeds,
                        lo..hi,
                        &mut pos,
                        |p| (&mut p.0[..], &mut p.1),
                        |i, (board, _)| assert_eq!(board, &boards[i as usize]),
                    );
                }
            }
        }
    }

    /// Index arithmetic of tiers past 2^32 and 2^40 entries (Kigogo's 48 pits, 14 seeds:
    /// C(61, 14), about 2 x 10^13): unranking and ranking round-trip there, and a walk across
    /// those indices steps to the boards that unranking gives.
    #[test]
    fn indices_near_2_32_and_2_40_round_trip() {
        let idx = SidedIndex::new(Mirror::half_turn(48), HalfOrder::south_moves(48));
        let seeds = 14;
        let size = idx.tier_size(seeds).unwrap();
        assert!(size > 1 << 44);
        for start in [
            0,
            (1 << 32) - 3,
            (1 << 40) - 3,
            (1 << 41) + 12345,
            size / 2,
            size - 6,
        ] {
            let mut pos = (vec![0u8; 48], Side::A);
            let mut seen = 0;
            idx.visit(
                seeds,
                start..start + 6,
                &mut pos,
                |p| (&mut p.0[..], &mut p.1),
                |i, (board, _)| {
                    let at: Pos = idx.position(seeds, i);
                    assert_eq!(&at.0[..48], &board[..], "index {i}");
                    assert_eq!(idx.index_of(board, Side::A), (seeds, i));
                    seen += 1;
                },
            );
            assert_eq!(seen, 6);
        }
    }
}
