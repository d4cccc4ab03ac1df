//! Level-ordered WIN/LOSS attractor, one level at a time, in two steps that only ever need one
//! range's data at once.
//!
//! Level `d` holds the positions decided with depth `d`. Levels are processed in increasing
//! order, each completely before the next, so a WIN gets its smallest depth and a LOSS its
//! largest, and the outcome does not depend on thread count or scheduling: within a level every
//! update commutes.
//!
//! 1. [`emit`]: for the positions due at level `d` in one range, read their cells and their
//!    predecessor lists and produce messages, bucketed by the predecessor's range:
//!    [`MSG_LOSS`] (a successor lost: the predecessor wins with depth `d + 1`), [`MSG_WIN`]
//!    (a successor won: one option fewer), and [`MSG_SETTLE`] for a position known to win
//!    through a lower tier whose level has come.
//! 2. [`apply`]: for one range, apply its messages to its cells. A predecessor whose options
//!    are all wins loses with depth `max(d + 1, floor)` (its slowest loss, counting lower-tier
//!    successors); a loss deeper than `d + 1` is decided now and queued for its own level.
//!
//! Positions still undecided when no level has work left are draws. Messages carry a
//! range-local index in their low 30 bits.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use crate::cell::{self, COUNTER_ONE, KNOWN_WIN, LOSS, OPEN, OPEN_NO_LOSS, WIN};
use crate::tier::cells::CellSlot;
use crate::tier::shared::chunked;
use crate::work::graph::{PredView, Source};
use crate::work::predfile::{blocked_span, counted_span, nibbled_span, Offsets};
use bawo_games::game::kept::KeptHalf;
use bawo_games::value::MAX_DEPTH;

pub(crate) const LOCAL_MASK: u32 = (1 << 30) - 1;
pub(crate) const KIND_MASK: u32 = !LOCAL_MASK;
/// A successor was decided WIN for its mover: the predecessor loses an option.
pub const MSG_WIN: u32 = 0;
/// A successor was decided LOSS for its mover: the predecessor wins.
pub const MSG_LOSS: u32 = 1 << 30;
/// The position itself: a known win whose level has come.
pub const MSG_SETTLE: u32 = 2 << 30;

/// A depth beyond what entries can store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepthOverflow;

/// Most due positions or messages a worker takes at a time.
const CHUNK: usize = 4096;
/// Fewest: below it, a task's overhead is felt.
const MIN_CHUNK: usize = 128;

/// Positions or messages a worker takes at a time, of `n` in all: at most [`CHUNK`], and
/// small enough that every worker gets several. Out of core most levels send a range a few
/// thousand messages or fewer; in chunks of [`CHUNK`] the one worker that took them worked
/// while the others waited (Kigogo's 7-seed tier under `--mem 512M`: the driving worker did
/// 2.3 times the attractor's work of the other).
fn chunk_for(n: usize) -> usize {
    (n / (8 * rayon::current_num_threads())).clamp(MIN_CHUNK, CHUNK)
}

/// Step 1 for one range: the messages of its positions due at `level`, as
/// `(target range, message)` batches per worker. `due` holds range-local indices;
/// predecessors are tier-wide indices of any width (or keys that `kept` turns into them),
/// split into range and offset here.
pub fn emit<S: Source, C: CellSlot>(
    cells: &[C],
    due: &[u32],
    preds: &PredView<'_, S>,
    at: EmitAt,
    kept: Option<&KeptHalf>,
) -> Vec<Vec<u32>> {
    emit_batches(cells, due, preds, at, kept)
        .batches
        .into_iter()
        .map(concat)
        .collect()
}

/// Where a range's messages are emitted: the level, how the tier is cut into ranges, and
/// which range is emitting.
#[derive(Clone, Copy, Debug)]
pub struct EmitAt {
    /// The level whose due positions emit.
    pub level: u32,
    /// Positions per range, as a power of two.
    pub range_bits: u32,
    /// The range emitting.
    pub range: usize,
    /// Ranges of the tier.
    pub ranges: usize,
}

/// [`emit`] with each range's messages left in the workers' batches, in order: what
/// [`apply_batches`] takes without their being joined first.
pub fn emit_batches<S: Source, C: CellSlot>(
    cells: &[C],
    due: &[u32],
    preds: &PredView<'_, S>,
    at: EmitAt,
    kept: Option<&KeptHalf>,
) -> Emission {
    let naming = match kept {
        None => Naming::Index,
        Some(k) if k.moves().is_some() => Naming::Places(k),
        Some(k) => Naming::Ranks(k),
    };
    // The offsets' form is matched here, once, not at every lookup.
    let sources = preds.sources;
    match preds.offsets {
        Offsets::Plain(o) => emit_with(
            cells,
            due,
            |f| &sources[o[f] as usize..o[f + 1] as usize],
            at,
            naming,
        ),
        Offsets::Blocked { bases, rel } => emit_with(
            cells,
            due,
            |f| &sources[blocked_span(bases, rel, f)],
            at,
            naming,
        ),
        Offsets::Counted { bases, counts } => emit_with(
            cells,
            due,
            |f| &sources[counted_span(bases, counts, f)],
            at,
            naming,
        ),
        Offsets::Nibbled { bases, nibbles } => emit_with(
            cells,
            due,
            |f| &sources[nibbled_span(bases, nibbles, f)],
            at,
            naming,
        ),
    }
}

/// What a predecessor list stores of a source ([`bawo_games::game::kept`]).
#[derive(Clone, Copy)]
enum Naming<'k> {
    /// The source's tier-wide index.
    Index,
    /// The rank of the source's mover half, which the target's frame turns into the source.
    Ranks(&'k KeptHalf),
    /// The source's place in the list of halves that move to the target's opponent half.
    Places(&'k KeptHalf),
}

impl Naming<'_> {
    /// Calls `f` with the source of each value of `list`, the predecessor list of `target`.
    #[inline]
    fn each_source<S: Source>(self, target: u64, list: &[S], mut f: impl FnMut(u64)) {
        match self {
            Naming::Index => list.iter().for_each(|p| f(p.get())),
            Naming::Ranks(k) => {
                let (base, stride) = k.frame(target);
                list.iter().for_each(|p| f(base + p.get() * stride));
            }
            Naming::Places(k) => {
                let (base, stride, moved) = k.moved_frame(target);
                for p in list {
                    // Every place was found in this list when the edge was logged.
                    match moved.get(p.get() as usize) {
                        Some(&rank) => f(base + rank as u64 * stride),
                        None => debug_assert!(false, "place {} beyond its list", p.get()),
                    }
                }
            }
        }
    }
}

/// [`emit`] with the predecessor lists of a range-local index given by `preds_of`, their
/// values turned into sources as `naming` says.
fn emit_with<'p, S: Source, C: CellSlot>(
    cells: &[C],
    due: &[u32],
    preds_of: impl Fn(usize) -> &'p [S] + Sync,
    at: EmitAt,
    naming: Naming<'_>,
) -> Emission {
    let EmitAt {
        level,
        range_bits,
        range: range_of_self,
        ranges,
    } = at;
    let local_mask = 1u64.checked_shl(range_bits).map_or(u64::MAX, |v| v - 1) & LOCAL_MASK as u64;
    let first = (range_of_self as u64).checked_shl(range_bits).unwrap_or(0);
    // Each worker fills one batch per target range ([`chunked`]); the batches are joined
    // once, in order.
    let mut batches = chunked(
        due.len(),
        chunk_for(due.len()),
        || (vec![Vec::new(); ranges], 0u64),
        |(out, decided): &mut (Vec<Vec<u32>>, u64), span| {
            for &f in &due[span] {
                let c = cells[f as usize].get();
                let kind = match cell::tag(c) {
                    KNOWN_WIN => {
                        debug_assert_eq!(cell::depth(c), level);
                        out[range_of_self].push(f | MSG_SETTLE);
                        MSG_WIN
                    }
                    WIN if cell::depth(c) == level => MSG_WIN,
                    LOSS if cell::depth(c) == level => MSG_LOSS,
                    // Decided earlier (a known win beaten in its own tier).
                    _ => continue,
                };
                *decided += 1;
                let list = preds_of(f as usize);
                if list.is_empty() {
                    continue;
                }
                naming.each_source(first + f as u64, list, |p| {
                    let r = p.checked_shr(range_bits).unwrap_or(0) as usize;
                    out[r].push((p & local_mask) as u32 | kind);
                });
            }
        },
    );
    let decided = batches.iter().map(|(_, d)| d).sum();
    let batches = (0..ranges)
        .map(|r| {
            batches
                .iter_mut()
                .map(|(c, _)| std::mem::take(&mut c[r]))
                .filter(|b| !b.is_empty())
                .collect()
        })
        .collect();
    Emission { batches, decided }
}

/// What a range's due positions emit ([`emit_batches`]).
pub struct Emission {
    /// Each target range's messages, in the workers' batches, in order.
    pub batches: Vec<Vec<Vec<u32>>>,
    /// The due positions decided at the level (a known win beaten in its own tier is due
    /// again at its old level, where it emits nothing and is not counted).
    pub decided: u64,
}

/// The workers' batches joined once, in their order (one batch is taken whole), where a
/// reduction tree copied them again at each of its levels.
pub fn concat<T: Copy>(parts: Vec<Vec<T>>) -> Vec<T> {
    let mut full = parts.iter().filter(|p| !p.is_empty());
    if let (Some(_), None) = (full.next(), full.next()) {
        return parts.into_iter().find(|p| !p.is_empty()).expect("one");
    }
    let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for p in &parts {
        all.extend_from_slice(p);
    }
    all
}

/// Step 2 for one range: applies `msgs` to `cells`; returns the positions decided here as
/// `(level to propagate at, local index)`.
pub fn apply<C: CellSlot>(
    cells: &[C],
    msgs: &[u32],
    level: u32,
) -> Result<Vec<(u32, u32)>, DepthOverflow> {
    apply_batches(cells, &[msgs], level).map(concat)
}

/// [`apply`] to messages in batches (taken in order, as if joined), returning the decided
/// positions in the workers' batches, in order.
pub fn apply_batches<C: CellSlot>(
    cells: &[C],
    msgs: &[&[u32]],
    level: u32,
) -> Result<Vec<Vec<(u32, u32)>>, DepthOverflow> {
    apply_marking(cells, msgs, level, None)
}

/// [`apply_batches`], marking in `changed` every cell it changes.
pub fn apply_marking<C: CellSlot>(
    cells: &[C],
    msgs: &[&[u32]],
    level: u32,
    changed: Option<&Changed>,
) -> Result<Vec<Vec<(u32, u32)>>, DepthOverflow> {
    let mark = |p: u32| {
        if let Some(c) = changed {
            c.mark(p);
        }
    };
    let overflow = AtomicBool::new(false);
    let chunk = chunk_for(msgs.iter().map(|b| b.len()).sum());
    // Each batch cut into chunks of its own, the chunks shared out in order.
    let spans: Vec<(usize, std::ops::Range<usize>)> = msgs
        .iter()
        .enumerate()
        .flat_map(|(b, batch)| {
            (0..batch.len())
                .step_by(chunk)
                .map(move |s| (b, s..(s + chunk).min(batch.len())))
        })
        .collect();
    let decided = chunked(spans.len(), 1, Vec::new, |decided, which| {
        for (b, span) in &spans[which] {
            for &m in &msgs[*b][span.clone()] {
                let p = m & LOCAL_MASK;
                let c = &cells[p as usize];
                match m & KIND_MASK {
                    MSG_SETTLE => {
                        let v = c.get();
                        if cell::tag(v) == KNOWN_WIN {
                            // No other message of this level can change a known win of this
                            // depth, so a plain store is safe.
                            c.put(cell::retag(v, WIN, level));
                            mark(p);
                        }
                    }
                    MSG_LOSS => {
                        let d = level + 1;
                        let mut v = c.get();
                        loop {
                            let t = cell::tag(v);
                            let improves = t == OPEN
                                || t == OPEN_NO_LOSS
                                || (t == KNOWN_WIN && cell::depth(v) > d);
                            if !improves {
                                break;
                            }
                            if d > MAX_DEPTH {
                                overflow.store(true, Ordering::Relaxed);
                                break;
                            }
                            match c.replace(v, cell::retag(v, WIN, d)) {
                                Ok(_) => {
                                    mark(p);
                                    decided.push((d, p));
                                    break;
                                }
                                Err(now) => v = now,
                            }
                        }
                    }
                    _ => {
                        // Only an open cell's counter decides anything: a decided cell, a
                        // known win or one that cannot lose is left unwritten, so that its
                        // page stays clean (out of core, every dirty page of a range's mapped
                        // cells is written back, at nearly every level).
                        let Some(prev) = c.lose_option() else {
                            continue;
                        };
                        mark(p);
                        if cell::tag(prev) == OPEN && cell::counter(prev) == 1 {
                            // Every in-tier option wins for the opponent: this position loses,
                            // as slowly as it can. Nothing else can reach it any more: its
                            // counter is zero and no in-tier successor is undecided.
                            let depth = (level + 1).max(cell::depth(prev));
                            if depth > MAX_DEPTH {
                                overflow.store(true, Ordering::Relaxed);
                                continue;
                            }
                            c.put(cell::retag(prev - COUNTER_ONE, LOSS, depth));
                            decided.push((depth, p));
                        }
                    }
                }
            }
        }
    });
    let decided: Vec<Vec<(u32, u32)>> = decided.into_iter().filter(|d| !d.is_empty()).collect();
    if overflow.load(Ordering::Relaxed) {
        return Err(DepthOverflow);
    }
    Ok(decided)
}

/// Which blocks of [`CHANGED_BLOCK`] cells of a range [`apply_marking`] changed: the blocks
/// to write back to a range's file after applying a level in memory.
#[derive(Debug)]
pub struct Changed {
    words: Vec<AtomicU64>,
}

/// Cells per block of [`Changed`], as a power of two: 1,024 cells, one 4 KiB page.
pub const CHANGED_BITS: u32 = 10;
/// Cells per block of [`Changed`].
pub const CHANGED_BLOCK: usize = 1 << CHANGED_BITS;

impl Changed {
    /// Nothing changed yet, in a range of `len` cells.
    pub fn new(len: usize) -> Changed {
        let blocks = len.div_ceil(CHANGED_BLOCK);
        Changed {
            words: (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }

    /// Cell `p` changed.
    #[inline]
    fn mark(&self, p: u32) {
        let block = (p >> CHANGED_BITS) as usize;
        let (word, bit) = (&self.words[block / 64], 1u64 << (block % 64));
        // Read first: most marks find their block marked, and a read shares the cache line.
        if word.load(Ordering::Relaxed) & bit == 0 {
            word.fetch_or(bit, Ordering::Relaxed);
        }
    }

    /// The runs of consecutive changed blocks, as ranges of block numbers.
    pub fn runs(&self) -> Vec<std::ops::Range<usize>> {
        let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
        for (w, word) in self.words.iter().enumerate() {
            let mut bits = word.load(Ordering::Relaxed);
            while bits != 0 {
                let block = 64 * w + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                match runs.last_mut() {
                    Some(run) if run.end == block => run.end += 1,
                    _ => runs.push(block..block + 1),
                }
            }
        }
        runs
    }
}

/// Positions to look at when the attractor reaches each level (in-memory form, for graphs
/// that fit in memory such as `reach`).
#[derive(Default, Debug)]
pub struct LevelQueue {
    levels: Vec<Vec<u32>>,
}

impl LevelQueue {
    /// Queues position `index` for `level`.
    pub fn push(&mut self, level: u32, index: u32) {
        let l = level as usize;
        if self.levels.len() <= l {
            self.levels.resize_with(l + 1, Vec::new);
        }
        self.levels[l].push(index);
    }

    /// Takes the positions queued for `level`.
    pub fn take(&mut self, level: u32) -> Vec<u32> {
        self.levels
            .get_mut(level as usize)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Whether any level at or after `level` has work.
    pub fn any_from(&self, level: u32) -> bool {
        self.levels
            .iter()
            .skip(level as usize)
            .any(|v| !v.is_empty())
    }
}

/// Runs the attractor on a graph held entirely in memory (one range).
pub fn attract_in_memory(
    cells: &[AtomicU32],
    preds: &PredView<'_, u32>,
    mut queue: LevelQueue,
) -> Result<u32, DepthOverflow> {
    let mut level = 0;
    while queue.any_from(level) {
        let due = queue.take(level);
        let at = EmitAt {
            level,
            range_bits: 32,
            range: 0,
            ranges: 1,
        };
        let msgs = emit(cells, &due, preds, at, None);
        for (d, p) in apply(cells, &msgs[0], level)? {
            queue.push(d, p);
        }
        level += 1;
    }
    Ok(level)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::work::graph::{EdgeCodec, PredRange, U40};

    #[test]
    fn messages_reach_predecessors_beyond_2_32_and_2_40() {
        // Ranges of 2^24 positions leave a packed edge 40 bits of source.
        let bits = 24;
        let c = EdgeCodec::new(true, bits);
        let sources = [(1u64 << 32) + 5, (1 << 40) - 1, 3, 1 << 30];
        let edges: Vec<u64> = sources.iter().map(|&s| c.pack(0, s)).collect();
        let preds = PredRange::<U40>::build(1, &edges, c).unwrap();
        let cells = [AtomicU32::new(cell::make(LOSS, 0, 2))];
        let at = EmitAt {
            level: 2,
            range_bits: bits,
            range: 0,
            ranges: 1 << 16,
        };
        let out = emit(&cells, &[0], &preds.view(), at, None);
        assert_eq!(out[256], vec![5 | MSG_LOSS]);
        assert_eq!(out[(1 << 16) - 1], vec![((1 << 24) - 1) | MSG_LOSS]);
        assert_eq!(out[0], vec![3 | MSG_LOSS]);
        assert_eq!(out[64], vec![MSG_LOSS]);
        assert_eq!(out.iter().map(Vec::len).sum::<usize>(), 4);
    }
    #[test]
    fn only_positions_decided_at_the_level_count_as_decided() {
        // Due at level 2: a loss of depth 2, a known win of depth 2 whose level has come, and
        // a known win of depth 2 beaten in its own tier (now a win of depth 1, due again).
        let c = EdgeCodec::new(false, 4);
        let preds = PredRange::<u32>::build(3, &[c.pack(0, 5), c.pack(2, 6)], c).unwrap();
        let cells = [
            AtomicU32::new(cell::make(LOSS, 0, 2)),
            AtomicU32::new(cell::make(WIN, 1, 1)),
            AtomicU32::new(cell::make(KNOWN_WIN, 1, 2)),
        ];
        let at = EmitAt {
            level: 2,
            range_bits: 4,
            range: 0,
            ranges: 1,
        };
        let out = emit_batches(&cells, &[0, 1, 2], &preds.view(), at, None);
        assert_eq!(out.decided, 2);
        let mut msgs = concat(out.batches.into_iter().next().unwrap());
        msgs.sort();
        assert_eq!(msgs, vec![6 | MSG_WIN, 5 | MSG_LOSS, 2 | MSG_SETTLE]);
    }

    /// Open cells with one option left and with two, and a cell of every other tag.
    fn one_cell_of_each_kind() -> [u32; 6] {
        [
            cell::make(OPEN, 2, 3),
            cell::make(OPEN, 1, 3),
            cell::make(OPEN_NO_LOSS, 2, 0),
            cell::make(KNOWN_WIN, 2, 9),
            cell::make(WIN, 2, 4),
            cell::make(LOSS, 1, 2),
        ]
    }

    #[test]
    fn marked_blocks_are_the_blocks_whose_cells_changed() {
        // Five blocks of cells of every kind; messages of every kind to some of them.
        let kinds = one_cell_of_each_kind();
        let len = 5 * CHANGED_BLOCK - 7;
        let before: Vec<u32> = (0..len).map(|p| kinds[(p * 7919) % kinds.len()]).collect();
        let atomics: Vec<AtomicU32> = before.iter().map(|&c| AtomicU32::new(c)).collect();
        // Block 1 gets only messages that change nothing (won options to decided cells).
        let block1 = CHANGED_BLOCK as u32..2 * CHANGED_BLOCK as u32;
        let mut msgs: Vec<u32> = block1
            .filter(|&p| cell::tag(before[p as usize]) == WIN)
            .map(|p| p | MSG_WIN)
            .collect();
        // Block 3 gets only won options, to open cells that keep an option: counters only.
        let block3 = 3 * CHANGED_BLOCK as u32..4 * CHANGED_BLOCK as u32;
        msgs.extend(
            block3
                .filter(|&p| before[p as usize] == cell::make(OPEN, 2, 3))
                .map(|p| p | MSG_WIN),
        );
        let others = |p: &u32| ![1, 3].contains(&(p >> CHANGED_BITS));
        for p in (0..len as u32).step_by(97).filter(others) {
            msgs.push(p | [MSG_WIN, MSG_LOSS, MSG_SETTLE][p as usize % 3]);
        }
        let changed = Changed::new(len);
        let (a, b) = msgs.split_at(msgs.len() / 2);
        let decided = apply_marking(&atomics, &[a, b], 9, Some(&changed)).unwrap();
        // The same as without marking.
        let plain: Vec<AtomicU32> = before.iter().map(|&c| AtomicU32::new(c)).collect();
        assert_eq!(decided, apply_batches(&plain, &[a, b], 9).unwrap());
        let now: Vec<u32> = atomics.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        let want: Vec<usize> = (0..len.div_ceil(CHANGED_BLOCK))
            .filter(|&k| {
                let cells = k * CHANGED_BLOCK..((k + 1) * CHANGED_BLOCK).min(len);
                now[cells.clone()] != before[cells]
            })
            .collect();
        let got: Vec<usize> = changed.runs().into_iter().flatten().collect();
        assert_eq!(got, want);
        assert!(
            !got.contains(&1) && got.contains(&3) && got.len() >= 4,
            "{got:?}"
        );
        assert!(Changed::new(len).runs().is_empty());
    }

    #[test]
    fn a_won_option_is_counted_only_by_an_open_cell() {
        let cells = one_cell_of_each_kind();
        let atomics: Vec<AtomicU32> = cells.iter().map(|&c| AtomicU32::new(c)).collect();
        let msgs: Vec<u32> = (0..cells.len() as u32).map(|p| p | MSG_WIN).collect();
        let decided = apply(&atomics, &msgs, 5).unwrap();
        let now: Vec<u32> = atomics.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        // One option fewer for the open cells; the one left without options loses as late as
        // it can, at the next level.
        assert_eq!(now[0], cell::make(OPEN, 1, 3));
        assert_eq!(now[1], cell::make(LOSS, 0, 6));
        assert_eq!(decided, vec![(6, 1)]);
        // The others are not written at all: their counters decide nothing.
        assert_eq!(&now[2..], &cells[2..]);
    }
}
