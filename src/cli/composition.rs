//! The composition order of the whole board: the tier order of run-directory format 4, in
//! which the context prototypes of issue 12 (`measure --neighbours`, `measure-ctx`) were
//! written and measured. They find a board's neighbour through pit `j` at `i - C(b_j - 1, j)`,
//! which holds in that order only; a tier is now ordered by the halves of the board
//! (`game::sided`), so they read and walk a tier through this map.

use std::ops::Range;

use rayon::prelude::*;

use bawo::game::Game;
use bawo::rank::Ranker;

pub struct CompositionOrder {
    /// Tier index of each composition rank.
    pub index: Vec<u64>,
    /// Composition rank of each tier index.
    pub rank: Vec<u64>,
}

impl CompositionOrder {
    /// The map of tier `tier` (`len` entries), whose boards must be compositions of the
    /// tier's seeds over the game's pits (every game here; Bao's mtaji positions too).
    pub fn new<G: Game>(g: &G, tier: u32, len: usize) -> Self {
        const CHUNK: usize = 1 << 14;
        let pits = g.board_counts(&g.position(tier, 0)).len();
        let ranker = Ranker::new(pits, g.tier_seeds(tier));
        let mut rank = vec![0u64; len];
        rank.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(c, part)| {
                let lo = (c * CHUNK) as u64;
                g.visit(tier, lo..lo + part.len() as u64, |i, pos| {
                    let counts: Vec<u8> = g.board_counts(pos).iter().map(|&p| p as u8).collect();
                    part[(i - lo) as usize] = ranker.rank(&counts);
                });
            });
        let mut index = vec![0u64; len];
        for (i, &r) in rank.iter().enumerate() {
            index[r as usize] = i as u64;
        }
        CompositionOrder { index, rank }
    }

    /// `v` (in tier order) listed in composition order.
    pub fn entries<T: Copy>(&self, v: &[T]) -> Vec<T> {
        self.index.iter().map(|&i| v[i as usize]).collect()
    }

    /// Calls `f` with every composition rank of `range` and its position, in that order.
    pub fn visit<G: Game>(
        &self,
        g: &G,
        tier: u32,
        range: Range<u64>,
        mut f: impl FnMut(u64, &G::Position),
    ) {
        for c in range {
            f(c, &g.position(tier, self.index[c as usize]));
        }
    }
}
