//! `verify --sample K`: K random stored positions drawn, and every entry a batch of them needs
//! read in one gathering ([`super::verify`](mod@super::verify) compares them).
//!
//! The picks fall anywhere in the database, so their successors' entries lie in blocks a
//! small cache rarely holds: looked up one at a time, almost every lookup decoded a block
//! (on Bawo `n = 4`, 18 seeds, `--sample 200000` still ran after ten minutes). Instead the
//! picks are taken a batch at a time, every entry the batch needs (the picks' own and their
//! successors') is sorted, and each block those entries touch is decoded once for all of
//! them ([`super::gather`]), as the full pass does for tiers it cannot keep.

use rayon::prelude::*;

use super::gather;
use super::memory::ReadBudget;
use super::Database;
use bawo_games::error::{Error, Result};
use bawo_games::game::{Game, Successor, Tier};
use bawo_games::value::Entry;

/// Bytes one pick of a batch holds: its successors (16 bytes each, a few dozen at most), the
/// sorted keys and their answers; a batch fits a sixteenth of the reader's budget.
const BYTES_PER_PICK: u64 = 1024;

/// Picks checked together at most (where the budget allows more).
const MAX_BATCH: usize = 1 << 18;

/// Picks gathered at once within `mem`.
pub fn batch_len(mem: &ReadBudget) -> usize {
    ((mem.budget / 16 / BYTES_PER_PICK) as usize).clamp(1 << 10, MAX_BATCH)
}

/// `k` picks drawn uniformly (with `seed`) from every stored position of `db`, sorted by tier
/// and index (so a batch's lookups share blocks).
pub fn draw(db: &Database, k: u64, seed: u64) -> Vec<(Tier, u64)> {
    let tiers = db.tier_sizes();
    let total: u64 = tiers.iter().map(|t| t.1).sum();
    if total == 0 {
        return Vec::new();
    }
    let mut rng = super::play::SplitMix64::new(seed);
    let mut picks: Vec<(Tier, u64)> = (0..k)
        .map(|_| {
            let mut r = rng.below(total);
            for &(t, n) in &tiers {
                if r < n {
                    return (t, r);
                }
                r -= n;
            }
            unreachable!("r < total")
        })
        .collect();
    picks.sort_unstable();
    picks
}

/// A batch of picks with their successors and the exact entry of every position among them.
pub struct Gathered {
    /// Each pick's successors, in the order of the picks.
    pub successors: Vec<Vec<Successor>>,
    keys: Vec<(Tier, u64)>,
    entries: Vec<u16>,
}

impl Gathered {
    /// Generates the picks' successors and reads the exact entries of the picks and of every
    /// successor position, each block they touch decoded once ([`gather`]).
    pub fn read<G: Game>(
        db: &Database,
        g: &G,
        picks: &[(Tier, u64)],
        workers: usize,
    ) -> Result<Gathered> {
        let successors: Vec<Vec<Successor>> = picks
            .par_iter()
            .map(|&(tier, index)| {
                let mut succ = Vec::new();
                g.successors(&g.position(tier, index), &mut succ);
                succ
            })
            .collect();
        let mut keys: Vec<(Tier, u64)> = picks.to_vec();
        for s in successors.iter().flatten() {
            if let Successor::Position { tier, index } = *s {
                keys.push((tier, index));
            }
        }
        keys.par_sort_unstable();
        keys.dedup();
        let stored = gather::stored_entries(db, &keys, workers)?;
        let exact = gather::recover_all(db, g, &keys, &|_, _| None, workers)?;
        let entries = exact
            .iter()
            .zip(&stored)
            .map(|(e, &s)| e.unwrap_or(s))
            .collect();
        Ok(Gathered {
            successors,
            keys,
            entries,
        })
    }

    /// The exact entry of position `index` of `tier`, one of the batch's picks or successors.
    pub fn entry(&self, tier: Tier, index: u64) -> Result<Entry> {
        let k = self
            .keys
            .binary_search(&(tier, index))
            .map_err(|_| Error::Internal(format!("tier {tier} index {index} was not gathered")))?;
        Ok(Entry(self.entries[k]))
    }
}
