//! Building [`MovedHalves`] (and counting it for the memory plan) from a game's own moves:
//! the moves of the position of each mover half against an empty opponent half.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::kept::KeptHalf;
use super::moved::{MovedHalves, MovesCensus};
use super::{Game, Successor, Tier};

/// The frames of tiers `0..=seeds` of `game` (without rank tables: only their rows and
/// splits are read), where the game offers them and its tiers are its seeds on the board (as
/// in the games that offer [`Game::kept_half`]).
fn frames_up_to<G: Game>(game: &G, seeds: u32) -> Option<Vec<KeptHalf>> {
    let top = game.kept_half(seeds as Tier)?;
    let frames: Vec<KeptHalf> = (0..=seeds).map(|s| top.lower(s)).collect();
    // The rows are the layout's: the tier's own must come out the same.
    let agrees = frames[seeds as usize].row == top.row
        && (0..=seeds).all(|s| game.tier_seeds(s as Tier) == s);
    agrees.then_some(frames)
}

/// Calls `f(rank, to)` for the mover half of `s` seeds at `rank` (mover order) and each
/// distinct half `to` (its rank, target order) its moves that keep the opponent's half lead
/// to: the moves of the position of tier `s` whose mover holds every seed, which nothing can
/// capture from and no capture constrains.
fn each_move<G: Game>(game: &G, frame: &KeptHalf, s: usize, f: impl Fn(u32, u64) + Sync) {
    let halves = frame.counts[s];
    (0..halves).into_par_iter().for_each_init(
        || (Vec::new(), Vec::new()),
        |(succ, to): &mut (Vec<Successor>, Vec<u64>), rank| {
            let tier = s as Tier;
            // The opponent's empty half is the one composition of 0 seeds: rank 0 of 1.
            let index = frame.row[s] + rank;
            succ.clear();
            game.successors(&game.position(tier, index), succ);
            to.clear();
            for x in succ.iter() {
                if let Successor::Position { tier: t, index: i } = *x {
                    let (sa, q) = frame.split(i);
                    if t == tier && sa == 0 {
                        to.push(q);
                    }
                }
            }
            to.sort_unstable();
            to.dedup();
            for &q in to.iter() {
                f(rank as u32, q);
            }
        },
    );
}

/// Halves whose lists one worker sorts in a row.
const SORT_RUN: usize = 1 << 16;

impl MovedHalves {
    /// The lists of every half of at most `seeds` seeds of `game`, or `None` where the game
    /// names no in-tier sources by keys ([`Game::kept_half`]) or its lists would not fit
    /// 32-bit offsets.
    pub fn build<G: Game>(game: &G, seeds: u32) -> Option<MovedHalves> {
        let frames = frames_up_to(game, seeds)?;
        let counts = &frames[seeds as usize].counts;
        let mut starts = Vec::with_capacity(counts.len());
        let mut total = 0u64;
        for &c in counts {
            starts.push(total);
            total += c;
        }
        // `at[h + 1]` counts half `h`'s entries, then (a prefix sum) `at[h]` is where its
        // list starts, then (each entry taking a place) where it ends, that is where half
        // `h + 1`'s starts: shifted by one, the offsets, built in place.
        let at: Vec<AtomicU32> = (0..=total).map(|_| AtomicU32::new(0)).collect();
        for (s, frame) in frames.iter().enumerate() {
            each_move(game, frame, s, |_, q| {
                at[(starts[s] + q) as usize + 1].fetch_add(1, Ordering::Relaxed);
            });
        }
        let (mut sum, mut widest) = (0u64, 0u64);
        for a in &at {
            let len = a.load(Ordering::Relaxed) as u64;
            widest = widest.max(len);
            sum += len;
            a.store(u32::try_from(sum).ok()?, Ordering::Relaxed);
        }
        let sources: Vec<AtomicU32> = (0..sum).map(|_| AtomicU32::new(0)).collect();
        for (s, frame) in frames.iter().enumerate() {
            each_move(game, frame, s, |rank, q| {
                let place = at[(starts[s] + q) as usize].fetch_add(1, Ordering::Relaxed);
                sources[place as usize].store(rank, Ordering::Relaxed);
            });
        }
        let mut offsets: Vec<u32> = at.into_iter().map(AtomicU32::into_inner).collect();
        offsets.rotate_right(1);
        offsets[0] = 0;
        let mut sources: Vec<u32> = sources.into_iter().map(AtomicU32::into_inner).collect();
        // Sorted within each list, so that a source's place is found by bisection and does
        // not depend on the order the workers took places in.
        // (In runs of halves, each run's lists one after another: a slice per list would
        // take more memory than the lists.)
        let mut rest = &mut sources[..];
        let mut runs = Vec::new();
        for first in (0..total as usize).step_by(SORT_RUN) {
            let last = (first + SORT_RUN).min(total as usize);
            let (run, tail) = rest.split_at_mut((offsets[last] - offsets[first]) as usize);
            runs.push((first, last, run));
            rest = tail;
        }
        runs.into_par_iter().for_each(|(first, last, mut run)| {
            for h in first..last {
                let (list, tail) = run.split_at_mut((offsets[h + 1] - offsets[h]) as usize);
                list.sort_unstable();
                run = tail;
            }
        });
        Some(MovedHalves {
            starts,
            offsets,
            sources,
            widest,
        })
    }

    /// What [`MovedHalves::build`] would hold for `game` up to `seeds`, counted.
    pub fn census<G: Game>(game: &G, seeds: u32) -> Option<MovesCensus> {
        let frames = frames_up_to(game, seeds)?;
        let mut census = MovesCensus::default();
        for (s, frame) in frames.iter().enumerate() {
            let halves = frame.counts[s];
            let lens: Vec<AtomicU32> = (0..halves).map(|_| AtomicU32::new(0)).collect();
            each_move(game, frame, s, |_, q| {
                lens[q as usize].fetch_add(1, Ordering::Relaxed);
            });
            let lens = lens.into_iter().map(|l| l.into_inner() as u64);
            let (widest, entries) = lens.fold((0, 0), |(w, e), l| (w.max(l), e + l));
            census.widest.push(widest);
            census.entries.push(entries);
            census.halves.push(halves);
        }
        Some(census)
    }
}
