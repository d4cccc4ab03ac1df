//! Don't-care entries: positions whose value and depth follow from one ply into other tiers,
//! so a `.bdb` file stores whatever compresses best for them (a copy of the entry before) and
//! a prober recovers them from their moves ([`crate::Database::probe`]).
//!
//! A stored position `p` of tier `t` is **don't-care** when either
//! - it has no legal move (it is lost in 0), or
//! - every move leaves `t` (a capture in Bawo and Kigogo takes seeds off the board, or a move
//!   loses at once), and every successor `q` in another tier either has no legal move or has a
//!   move that stays in `q`'s tier.
//!
//! A successor of the second kind is never don't-care itself, so its stored entry is exact:
//! recovering a don't-care position reads stored entries one ply down and never recurses
//! (terminal successors are lost in 0 and need no lookup at all), so a probe reads at most one
//! entry per move. The condition is computed from the position alone (its moves and its
//! successors' moves, two plies of move generation), so the file needs no flag per position.
//! The recovered entry is what the solver gives a position without moves inside its tier:
//! [`Outlook::initial_cell`] over the successors' entries, the solver's own combination.
//!
//! Finding these positions costs the writer nothing extra: the solver's successor pass flags
//! them (`crate::flags`) from each position's own moves and the lower tiers' "anchored"
//! bits. Where those bits are unknown it flags fewer positions, never more, so every
//! substituted entry is one this module recovers.

use crate::cell::{final_entry, Outlook};
use bawo_games::error::Result;
use bawo_games::game::{Game, Successor, Tier};
use bawo_games::value::Entry;

/// Whether every successor of a position of `tier` lies outside it (also when there is none).
fn leaves_tier(tier: Tier, succ: &[Successor]) -> bool {
    succ.iter().all(|s| match *s {
        Successor::Position { tier: t, .. } => t != tier,
        Successor::MoverLoses => true,
    })
}

/// Scratch buffers for the two plies of move generation.
#[derive(Default)]
pub struct Scratch {
    first: Vec<Successor>,
    second: Vec<Successor>,
    /// Whether each successor in `first` has no legal move.
    terminal: Vec<bool>,
}

/// Whether stored position `pos` of `tier` is don't-care (see the module's documentation).
/// Leaves `pos`'s successors in `scratch` for [`recover`].
pub fn is_dont_care<G: Game>(game: &G, tier: Tier, pos: &G::Position, s: &mut Scratch) -> bool {
    s.first.clear();
    game.successors(pos, &mut s.first);
    if !leaves_tier(tier, &s.first) {
        return false;
    }
    let Scratch {
        first,
        second,
        terminal,
    } = s;
    terminal.clear();
    first.iter().all(|succ| match *succ {
        Successor::MoverLoses => {
            terminal.push(false);
            true
        }
        Successor::Position { tier: t, index } => {
            second.clear();
            game.successors(&game.position(t, index), second);
            terminal.push(second.is_empty());
            second.is_empty() || !leaves_tier(t, second)
        }
    })
}

/// The exact entry of a don't-care position whose successors [`is_dont_care`] left in
/// `scratch`, from the stored entries of its successors (`stored(tier, index)`, none of them
/// don't-care except terminal ones, which are not looked up).
pub fn recover(s: &Scratch, mut stored: impl FnMut(Tier, u64) -> Result<Entry>) -> Result<Entry> {
    let mut o = Outlook {
        terminal: s.first.is_empty(),
        ..Default::default()
    };
    for (succ, &terminal) in s.first.iter().zip(&s.terminal) {
        match *succ {
            Successor::MoverLoses => o.floor = o.floor.max(1),
            Successor::Position { tier, index } => {
                let e = if terminal {
                    Entry::decided(bawo_games::value::Value::Loss, 0)
                } else {
                    stored(tier, index)?
                };
                o.add_resolved(e);
            }
        }
    }
    Ok(final_entry(o.initial_cell().0))
}

/// Replaces the entries of the don't-care positions `first..first + entries.len()` of `tier`
/// by their recovered values (`stored` reads other tiers' stored entries), in parallel.
pub fn resolve_run<G: Game>(
    game: &G,
    tier: Tier,
    first: u64,
    entries: &mut [u16],
    stored: &(dyn Fn(Tier, u64) -> Result<Entry> + Sync),
) -> Result<()> {
    use rayon::prelude::*;
    const CHUNK: usize = 4096;
    entries
        .par_chunks_mut(CHUNK)
        .enumerate()
        .try_for_each_init(Scratch::default, |s, (c, part)| {
            let lo = first + (c * CHUNK) as u64;
            let mut failure = Ok(());
            game.visit(tier, lo..lo + part.len() as u64, |i, pos| {
                if failure.is_ok() && is_dont_care(game, tier, pos, s) {
                    match recover(s, stored) {
                        Ok(e) => part[(i - lo) as usize] = e.0,
                        Err(e) => failure = Err(e),
                    }
                }
            });
            failure
        })
}

/// Which positions `first..first + len` of `tier` are don't-care, in parallel.
pub fn mask<G: Game>(game: &G, tier: Tier, first: u64, len: usize) -> Vec<bool> {
    use rayon::prelude::*;
    const CHUNK: usize = 4096;
    let mut out = vec![false; len];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each_init(Scratch::default, |s, (c, part)| {
            let lo = first + (c * CHUNK) as u64;
            game.visit(tier, lo..lo + part.len() as u64, |i, pos| {
                part[(i - lo) as usize] = is_dont_care(game, tier, pos, s);
            });
        });
    out
}

/// Replaces each masked entry by the entry before it (kept as stored), so runs of equal
/// entries grow; the first entry of `entries` is kept.
pub fn substitute(entries: &mut [u16], mask: &[bool]) {
    for j in 1..entries.len() {
        if mask[j] {
            entries[j] = entries[j - 1];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Database;
    use bawo_games::game::bawo::{Bawo, BawoRules};

    /// Every don't-care position of a solved instance recovers exactly its solved entry from
    /// its successors' stored entries, and substituting them changes no other entry.
    #[test]
    fn recovery_gives_the_solved_entry() {
        // The committed database (Bawo n=2, lap cap 64, up to 6 seeds), written by the solver.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/bawo-n2-s6");
        let db = Database::open(&dir).unwrap();
        let game = Bawo::new(2, 64, BawoRules::default()).unwrap();
        let (mut dont_care, mut all) = (0u64, 0u64);
        let mut s = Scratch::default();
        for r in &db.manifest().tiers {
            let stored = db.tier_entries(r.tier).unwrap();
            for (i, &e) in stored.iter().enumerate() {
                // Substituted entries differ only at don't-care positions.
                let pos = game.position(r.tier, i as u64);
                if db.probe_stored(r.tier, i as u64).unwrap() != Entry(e) {
                    assert!(is_dont_care(&game, r.tier, &pos, &mut s));
                }
            }
            let m = mask(&game, r.tier, 0, stored.len());
            for (i, &e) in stored.iter().enumerate() {
                let pos = game.position(r.tier, i as u64);
                assert_eq!(is_dont_care(&game, r.tier, &pos, &mut s), m[i]);
                if m[i] {
                    let got = recover(&s, |t, x| db.probe(t, x)).unwrap();
                    assert_eq!(got, Entry(e), "tier {} index {i}", r.tier);
                    dont_care += 1;
                }
                all += 1;
            }
            let mut resolved = stored.clone();
            // Garbage where the mask says don't-care, then recovered.
            substitute(&mut resolved, &m);
            resolve_run(&game, r.tier, 0, &mut resolved, &|t, x| db.probe(t, x)).unwrap();
            assert_eq!(resolved, stored, "tier {}", r.tier);
        }
        assert!(
            dont_care > all / 10 && dont_care < all,
            "{dont_care} of {all}"
        );
    }
}
