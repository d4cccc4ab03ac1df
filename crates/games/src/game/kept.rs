//! Sources of in-tier moves named by their mover's half alone.
//!
//! In Bawo (without the kichwa relay) and Kigogo a move that keeps the board total captures
//! nothing: it only sows the mover's own pits, so the opponent's half of its target is the
//! opponent's half of its source, unchanged. In the [`super::sided::SidedIndex`] layout the
//! target `t` (stored with the opponent, now to move, as the mover) therefore fixes every part
//! of its source's index except the rank of the source's mover half:
//!
//! ```text
//! source = offset(k, sa) + key * C(k - sa + h - 1, h - 1) + rank(opponent's half)
//!        = base(t) + key * stride(t)
//! ```
//!
//! so a predecessor list can store `key` (under `C(k + h - 1, h - 1)`, a few bytes) where it
//! stored a whole index. The target's mover half is the source's opponent half seen through
//! the mirror, ranked in another pit order; where the two orders differ (Kigogo reads it
//! backwards) a table maps one rank to the other, one `u32` per composition of a half.
//!
//! Fewer bytes still name a source by its place in the list of halves that move to the
//! target's opponent half ([`super::moved::MovedHalves`], [`KeptHalf::with_moves`]).

use std::sync::Arc;

use super::moved::MovedHalves;
use crate::rank::Ranker;

/// How a tier's in-tier sources are named by keys, for targets of that tier
/// ([`super::Game::kept_half`]).
#[derive(Clone, Debug)]
pub struct KeptHalf {
    /// The tier's seeds `k`.
    seeds: u32,
    /// `row[sa]`: the index of the first board of the tier whose mover holds `sa` seeds,
    /// `0..=k + 1`.
    pub(super) row: Vec<u64>,
    /// `counts[s]`: compositions of `s` seeds into one half, `0..=k`.
    pub(super) counts: Vec<u64>,
    /// Where the orders differ, the rank of each half composition (of `s` seeds, at
    /// `starts[s] + rank`) in the other order; the map is its own inverse.
    swap: Option<Swap>,
    /// Where keys are places in lists of the halves that move to a half
    /// ([`KeptHalf::with_moves`]), those lists.
    moves: Option<Arc<MovedHalves>>,
}

/// The rank map between the two orders a half is read in.
#[derive(Clone, Debug)]
struct Swap {
    starts: Vec<u64>,
    table: Arc<[u32]>,
}

/// The size of a tier's [`KeptHalf`], for plans made before it is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeptShape {
    /// [`KeptHalf::key_limit`].
    pub key_limit: u64,
    /// [`KeptHalf::table_bytes`].
    pub table_bytes: u64,
}

/// Where a source's targets must lie for its key to name it, from [`KeptHalf::source`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceKey {
    /// The rank of the source's mover half: what a list stores.
    pub key: u64,
    /// The first index of the targets whose mover half is the source's opponent half.
    pub group: u64,
    /// How many such targets there are (one per opponent half of theirs).
    pub group_len: u64,
    /// The seeds of the source's mover half: a target's place in the group is the rank of
    /// its opponent half, which holds them too.
    pub seeds: u32,
}

impl KeptHalf {
    /// Keys for tier `seeds` of an index whose halves have `counts` compositions per seed total
    /// and whose tier rows start at `row`; `perm[j]`: the place in the opponent's ranking order
    /// of the pit a target's mover half reads at place `j` (`None`: the same order).
    pub(super) fn new(
        seeds: u32,
        row: Vec<u64>,
        counts: Vec<u64>,
        half: &Ranker,
        perm: Option<&[u8]>,
    ) -> KeptHalf {
        let swap = perm.map(|p| Swap::build(seeds, &counts, half, p));
        KeptHalf {
            seeds,
            row,
            counts,
            swap,
            moves: None,
        }
    }

    /// The same frames, with keys that are places in `moves`' lists ([`KeptHalf::moved_key`],
    /// [`KeptHalf::moved_frame`]) where they were ranks.
    pub fn with_moves(self, moves: Arc<MovedHalves>) -> KeptHalf {
        KeptHalf {
            moves: Some(moves),
            ..self
        }
    }

    /// The frame of tier `s` (at most this one's seeds) of the same layout, without a rank
    /// table: its boards ordered by the mover's seeds, then the mover's half, then the
    /// opponent's, so that the mover's `j` seeds start after `counts[i] * counts[s - i]`
    /// boards for each `i < j`.
    pub(super) fn lower(&self, s: u32) -> KeptHalf {
        let s_us = s as usize;
        let mut row = Vec::with_capacity(s_us + 2);
        let mut at = 0u64;
        for j in 0..=s_us {
            row.push(at);
            at += self.counts[j] * self.counts[s_us - j];
        }
        row.push(at);
        KeptHalf {
            seeds: s,
            row,
            counts: self.counts[..=s_us].to_vec(),
            swap: None,
            moves: None,
        }
    }

    /// The lists keys are places in, if they are ([`KeptHalf::with_moves`]).
    pub fn moves(&self) -> Option<&MovedHalves> {
        self.moves.as_deref()
    }

    /// The place of source `sk` in the list of target `target` (one of its group), or `None`
    /// where no move of its half reaches the target's opponent half (the game moved otherwise
    /// than its lists say) or there are no lists ([`KeptHalf::with_moves`]).
    #[inline]
    pub fn moved_key(&self, sk: &SourceKey, target: u64) -> Option<u64> {
        let moves = self.moves.as_deref()?;
        // In its group a target's place is the rank of its opponent half.
        let rank = target.checked_sub(sk.group).filter(|&r| r < sk.group_len)?;
        let list = moves.list(sk.seeds as usize, rank);
        let key = u32::try_from(sk.key).ok()?;
        list.binary_search(&key).ok().map(|i| i as u64)
    }

    /// `(base, stride, list)` of target `target`: the source a list stores as `key` is
    /// `base + list[key] * stride` ([`KeptHalf::moved_key`]; an empty list without
    /// [`KeptHalf::with_moves`]).
    #[inline]
    pub fn moved_frame(&self, target: u64) -> (u64, u64, &[u32]) {
        let (base, stride, seeds, rank) = self.target_parts(target);
        let list = self
            .moves
            .as_deref()
            .map_or(&[][..], |m| m.list(seeds, rank));
        (base, stride, list)
    }

    /// One more than the largest key of the tier: the keys' width.
    pub fn key_limit(&self) -> u64 {
        self.counts[self.seeds as usize]
    }

    /// Bytes the rank table takes (0 where the orders agree).
    pub fn table_bytes(&self) -> u64 {
        self.swap.as_ref().map_or(0, |s| 4 * s.table.len() as u64)
    }

    /// Bytes the rank table of tier `seeds` takes, without building it.
    pub fn table_bytes_for(counts: &[u64], seeds: u32, differs: bool) -> u64 {
        if differs {
            4 * counts[..=seeds as usize].iter().sum::<u64>()
        } else {
            0
        }
    }

    /// The mover's seeds and the rest of index `index` past its row.
    #[inline]
    pub(super) fn split(&self, index: u64) -> (usize, u64) {
        let sa = self.row.partition_point(|&o| o <= index) - 1;
        (sa, index - self.row[sa])
    }

    #[inline]
    fn swapped(&self, seeds: usize, rank: u64) -> u64 {
        match &self.swap {
            None => rank,
            Some(s) => s.table[(s.starts[seeds] + rank) as usize] as u64,
        }
    }

    /// The key of source `source` and the targets it can name.
    #[inline]
    pub fn source(&self, source: u64) -> SourceKey {
        let k = self.seeds as usize;
        let (sa, q) = self.split(source);
        let per = self.counts[k - sa];
        let (key, opponent) = (q / per, q % per);
        // The targets' mover holds the source opponent's `k - sa` seeds.
        let mover_rank = self.swapped(k - sa, opponent);
        SourceKey {
            key,
            group: self.row[k - sa] + mover_rank * self.counts[sa],
            group_len: self.counts[sa],
            seeds: sa as u32,
        }
    }

    /// `(base, stride)` of target `target`: its in-tier sources are `base + key * stride`.
    #[inline]
    pub fn frame(&self, target: u64) -> (u64, u64) {
        let (base, stride, _, _) = self.target_parts(target);
        (base, stride)
    }

    /// `(base, stride)` of target `target` ([`KeptHalf::frame`]), and the seeds and rank (in
    /// the order a target reads it) of its opponent half, whose list names its sources where
    /// keys are places ([`KeptHalf::moved_frame`]).
    #[inline]
    fn target_parts(&self, target: u64) -> (u64, u64, usize, u64) {
        let k = self.seeds as usize;
        let (sa, q) = self.split(target);
        let per = self.counts[k - sa];
        let (mover_rank, rank) = (q / per, q % per);
        let opponent = self.swapped(sa, mover_rank);
        (self.row[k - sa] + opponent, self.counts[sa], k - sa, rank)
    }
}

impl Swap {
    fn build(seeds: u32, counts: &[u64], half: &Ranker, perm: &[u8]) -> Swap {
        let mut starts = Vec::with_capacity(seeds as usize + 1);
        let mut total = 0u64;
        for &c in &counts[..=seeds as usize] {
            starts.push(total);
            total += c;
        }
        let mut table = vec![0u32; total as usize];
        let h = perm.len();
        let mut comp = vec![0u8; h];
        for s in 0..=seeds {
            half.first(s, &mut comp);
            let mut rank = 0usize;
            loop {
                table[starts[s as usize] as usize + rank] = half.rank_in_order(&comp, perm) as u32;
                rank += 1;
                if !half.next(&mut comp) {
                    break;
                }
            }
        }
        Swap {
            starts,
            table: table.into(),
        }
    }
}
