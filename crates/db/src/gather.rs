//! Many lookups answered together, each block they touch decoded once: what a reader that
//! cannot keep a tier in memory (`verify` under a small `--mem`) does instead of probing
//! one position at a time through the block cache, where random lookups into a tier larger
//! than the cache decode a block each.
//!
//! | function          | answers                                                          |
//! |-------------------|------------------------------------------------------------------|
//! | [`stored_entries`] | stored entries of sorted, distinct positions                     |
//! | [`recover_all`]   | exact entries of the don't-care positions among a list           |
//! | [`resolve`]       | a run of a tier's stored entries made exact                      |
//!
//! Entries a reader holds in memory are given by `kept` (a packed tier, say) and never
//! decoded again.

use std::sync::Arc;

use rayon::prelude::*;

use super::dontcare::{self, Scratch};
use super::Database;
use bawo_games::error::Result;
use bawo_games::game::{Game, Tier};
use bawo_games::value::Entry;

/// Entries a reader holds: `Some(entry)` for a position of a tier it keeps.
pub type Kept<'a> = &'a (dyn Fn(Tier, u64) -> Option<u16> + Sync);

/// The stored entries of `keys` (sorted by tier and index, distinct), in that order: the
/// blocks they touch are decoded `workers` at a time (in parallel), each once, and kept in
/// the database's block cache, so the next gathering finds the blocks that fit there.
pub fn stored_entries(db: &Database, keys: &[(Tier, u64)], workers: usize) -> Result<Vec<u16>> {
    // Runs of keys in one block.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while let Some(&(t, index)) = keys.get(at) {
        let per_block = db.source(t)?.header().block_positions as u64;
        let block_end = (index / per_block + 1) * per_block;
        let n = keys[at..].partition_point(|k| k.0 == t && k.1 < block_end);
        runs.push((at, at + n));
        at += n;
    }
    let mut out = vec![0u16; keys.len()];
    for batch in runs.chunks(workers.max(1)) {
        let decoded: Vec<Result<Vec<u16>>> = batch
            .par_iter()
            .map(|&(a, b)| {
                let t = keys[a].0;
                let file = db.source(t)?;
                let block_no = file.locate(keys[a].1).0;
                let block = match db.cache().get(t, block_no) {
                    Some(block) => block,
                    None => {
                        let block = Arc::new(file.decode_block(block_no)?);
                        db.cache().insert(t, block_no, block.clone());
                        block
                    }
                };
                Ok(keys[a..b]
                    .iter()
                    .map(|&(_, index)| block.entry(file.symbols(), file.locate(index).1).0)
                    .collect())
            })
            .collect();
        for (&(a, b), entries) in batch.iter().zip(decoded) {
            out[a..b].copy_from_slice(&entries?);
        }
        db.release_maps();
    }
    Ok(out)
}

/// Replaces the don't-care entries among `entries` (positions `first..` of `tier`, as
/// stored) by their exact entries, `len` positions gathered at a time ([`recover_all`]).
#[allow(clippy::too_many_arguments)]
pub fn resolve<G: Game>(
    db: &Database,
    g: &G,
    tier: Tier,
    first: u64,
    entries: &mut [u16],
    kept: Kept,
    workers: usize,
    len: usize,
) -> Result<()> {
    if !db.source(tier)?.header().dont_care {
        return Ok(());
    }
    for (c, part) in entries.chunks_mut(len.max(1)).enumerate() {
        let lo = first + (c * len) as u64;
        let positions: Vec<(Tier, u64)> = (lo..lo + part.len() as u64).map(|i| (tier, i)).collect();
        let exact = recover_all(db, g, &positions, kept, workers)?;
        for (e, x) in part.iter_mut().zip(exact) {
            if let Some(x) = x {
                *e = x;
            }
        }
    }
    Ok(())
}

/// What the first pass of [`recover_all`] leaves of a part of the positions.
struct FirstPass {
    /// Recovered entries (`None` also for positions pending).
    exact: Vec<Option<u16>>,
    /// Don't-care positions (indices into all positions) with lookups not kept.
    pending: Vec<usize>,
    /// Those lookups.
    wanted: Vec<(Tier, u64)>,
}

/// For each of `positions` (stored positions, any tiers), its exact entry if it is a
/// don't-care position of a file that substitutes them, else `None`. The recoveries read
/// their successors' stored entries from `kept`, and the rest in one [`stored_entries`]
/// pass: the don't-care test runs once for a position whose lookups are all kept, twice for
/// one that needs the pass.
pub fn recover_all<G: Game>(
    db: &Database,
    g: &G,
    positions: &[(Tier, u64)],
    kept: Kept,
    workers: usize,
) -> Result<Vec<Option<u16>>> {
    // Each tier's header read once, not once per position.
    let mut tiers: Vec<Tier> = positions.iter().map(|p| p.0).collect();
    tiers.dedup();
    tiers.sort_unstable();
    tiers.dedup();
    let mut substitutes: Vec<Tier> = Vec::new();
    for t in tiers {
        if db.source(t)?.header().dont_care {
            substitutes.push(t);
        }
    }
    if substitutes.is_empty() {
        return Ok(vec![None; positions.len()]);
    }
    const PART: usize = 4096;
    // First pass: recovered where every lookup is kept; otherwise marked, its lookups listed.
    let firsts: Vec<FirstPass> = positions
        .par_chunks(PART)
        .enumerate()
        .map_init(Scratch::default, |s, (c, part)| {
            let mut out = Vec::with_capacity(part.len());
            let mut pending = Vec::new();
            let mut wanted = Vec::new();
            for (k, &(t, index)) in part.iter().enumerate() {
                if !substitutes.contains(&t)
                    || !dontcare::is_dont_care(g, t, &g.position(t, index), s)
                {
                    out.push(None);
                    continue;
                }
                let before = wanted.len();
                let e = dontcare::recover(s, |u, x| {
                    Ok(match kept(u, x) {
                        Some(e) => Entry(e),
                        None => {
                            wanted.push((u, x));
                            Entry::DRAW
                        }
                    })
                })?;
                if wanted.len() == before {
                    out.push(Some(e.0));
                } else {
                    out.push(None);
                    pending.push(c * PART + k);
                }
            }
            Ok(FirstPass {
                exact: out,
                pending,
                wanted,
            })
        })
        .collect::<Result<_>>()?;
    let mut out = Vec::with_capacity(positions.len());
    let mut pending = Vec::new();
    let mut keys = Vec::new();
    for f in firsts {
        out.extend(f.exact);
        pending.extend(f.pending);
        keys.extend(f.wanted);
    }
    if pending.is_empty() {
        return Ok(out);
    }
    keys.par_sort_unstable();
    keys.dedup();
    let answers = stored_entries(db, &keys, workers)?;
    let lookup = |u: Tier, x: u64| -> Result<Entry> {
        if let Some(e) = kept(u, x) {
            return Ok(Entry(e));
        }
        let k = keys
            .binary_search(&(u, x))
            .expect("the first pass listed every lookup not kept");
        Ok(Entry(answers[k]))
    };
    // Second pass: the marked positions, their lookups answered.
    let recovered: Vec<(usize, u16)> = pending
        .par_chunks(PART)
        .map_init(Scratch::default, |s, part| {
            part.iter()
                .map(|&k| {
                    let (t, index) = positions[k];
                    let dont_care = dontcare::is_dont_care(g, t, &g.position(t, index), s);
                    debug_assert!(dont_care, "the same test as the first pass");
                    Ok((k, dontcare::recover(s, lookup)?.0))
                })
                .collect::<Result<Vec<_>>>()
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect();
    for (k, e) in recovered {
        out[k] = Some(e);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bawo_games::game::bawo::{Bawo, BawoRules};

    /// Gathered answers are the prober's, one position at a time: stored entries, and exact
    /// entries of the don't-care positions, with no tier kept, some kept, or all kept.
    #[test]
    fn gathered_lookups_answer_as_probes_do() {
        // The committed database (Bawo n=2, lap cap 64, up to 6 seeds), written by the solver.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/bawo-n2-s6");
        let db = Database::open_with_cache(&dir, 0).unwrap();
        let game = Bawo::new(2, 64, BawoRules::default()).unwrap();
        let tiers = db.tier_sizes();
        // Every third position of every tier, sorted and distinct.
        let keys: Vec<(Tier, u64)> = tiers
            .iter()
            .flat_map(|&(t, n)| (0..n).step_by(3).map(move |i| (t, i)))
            .collect();
        let stored = stored_entries(&db, &keys, 2).unwrap();
        let exact_all: Vec<Vec<u16>> = tiers
            .iter()
            .map(|&(t, _)| db.tier_entries(t).unwrap())
            .collect();
        let at = |t: Tier| tiers.iter().position(|r| r.0 == t).unwrap();
        let half = tiers.len() / 2;
        let none = |_: Tier, _: u64| None;
        let some = |t: Tier, x: u64| (at(t) < half).then(|| exact_all[at(t)][x as usize]);
        let all = |t: Tier, x: u64| Some(exact_all[at(t)][x as usize]);
        let kepts: [Kept; 3] = [&none, &some, &all];
        let mut recovered = 0;
        for kept in kepts {
            let exact = recover_all(&db, &game, &keys, kept, 2).unwrap();
            for (k, &(t, i)) in keys.iter().enumerate() {
                assert_eq!(Entry(stored[k]), db.probe_stored(t, i).unwrap());
                assert_eq!(
                    Entry(exact[k].unwrap_or(stored[k])),
                    db.probe(t, i).unwrap()
                );
                recovered += exact[k].is_some() as usize;
            }
        }
        assert!(
            recovered > keys.len() / 10,
            "{recovered} of {}",
            3 * keys.len()
        );
    }
}
