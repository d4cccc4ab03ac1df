//! Lists of the halves that move to each half, for the keys of [`super::kept::KeptHalf`].
//!
//! A move that keeps the opponent's half (Bawo without the kichwa relay, Kigogo) turns the
//! mover's half `a` into a half `a'` whatever the opponent holds: with the opponent's half
//! empty nothing is captured and no capture is mandatory, so the moves of the position of `a`
//! against an empty half are every such move of `a`, and a move it loses elsewhere (to a
//! mandatory capture) is only one fewer. The target, whose opponent half is `a'`, then fixes
//! the short sorted list of halves that move to `a'`, and a source is named by its place in
//! that list: one byte where no list is longer than 256 (Kigogo up to 9 seeds: 25; Bawo
//! `n = 4` up to 20 seeds: 88). The solver checks every edge against the lists and fails
//! rather than store one they do not hold. They are built from the game's moves by `MovedHalves::build`.

/// For every half of at most a tier's seeds, the halves whose moves that keep the opponent's
/// half lead to it: sorted ranks in the mover's order, the list of a half of `s` seeds at
/// rank `r` (in the order a target reads its opponent's half) being
/// `sources[offsets[starts[s] + r]..offsets[starts[s] + r + 1]]`.
#[derive(Debug)]
pub struct MovedHalves {
    pub(super) starts: Vec<u64>,
    pub(super) offsets: Vec<u32>,
    pub(super) sources: Vec<u32>,
    /// The longest list.
    pub(super) widest: u64,
}

/// Per seed count of a half, what [`MovedHalves`] holds for the halves of that many seeds,
/// counted without building it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MovesCensus {
    /// `widest[s]`: the longest list of a half of `s` seeds.
    pub widest: Vec<u64>,
    /// `entries[s]`: the entries of the lists of the halves of `s` seeds.
    pub entries: Vec<u64>,
    /// `halves[s]`: halves of `s` seeds.
    pub halves: Vec<u64>,
}

impl MovesCensus {
    /// The longest list of a tier of `seeds` (halves of at most `seeds`).
    pub fn widest(&self, seeds: u32) -> u64 {
        self.widest[..=seeds as usize]
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
    }

    /// Bytes the [`MovedHalves`] of a tier of `seeds` take: a 4-byte offset per half and a
    /// 4-byte rank per entry.
    pub fn bytes(&self, seeds: u32) -> u64 {
        let s = seeds as usize;
        let halves: u64 = self.halves[..=s].iter().sum();
        let entries: u64 = self.entries[..=s].iter().sum();
        4 * (halves + 1) + 4 * entries
    }
}

impl MovedHalves {
    /// The longest list: keys are below it.
    pub fn widest(&self) -> u64 {
        self.widest
    }

    /// Bytes the lists and their offsets take.
    pub fn bytes(&self) -> u64 {
        4 * (self.offsets.len() + self.sources.len()) as u64
    }

    /// The list of the half of `seeds` seeds at `rank` (in the order a target reads its
    /// opponent's half).
    #[inline]
    pub fn list(&self, seeds: usize, rank: u64) -> &[u32] {
        let at = (self.starts[seeds] + rank) as usize;
        &self.sources[self.offsets[at] as usize..self.offsets[at + 1] as usize]
    }
}
