//! The successor pass over one block of a tier: every position's successors generated once.
//!
//! Successors in finished lower tiers are resolved at once from their stored entries;
//! successors inside the tier become edges, appended to the log of the target's range, and a
//! per-position counter of them. Positions decided here (terminal, or decided by lower tiers
//! alone) and known wins are queued for the level of their depth.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::cell::{self, Outlook, MAX_COUNTER};
use crate::tier::tables::Lookup;
use crate::work::duelog::{level_pieces, push_at_level};
use crate::work::graph::{EdgeCodec, PackedEdge};
use bawo_games::error::{Error, Result};
use bawo_games::game::kept::{KeptHalf, SourceKey};
use bawo_games::game::{Game, Successor, Tier};
use bawo_games::value::MAX_DEPTH;
use bawo_store::append::AppendLog;

/// Positions one worker takes at a time.
pub const PASS_CHUNK: usize = 1 << 14;

/// What a block produced besides its cells.
#[derive(Default)]
pub struct BlockOutput {
    /// Per attractor level, the block's positions to look at when the attractor reaches that
    /// level (offsets in their range), as due-log pieces ([`crate::work::duelog`]) one per chunk
    /// of the pass, in position order: about a byte a position where `(level, offset)` pairs
    /// took eight, and each worker codes its own chunk.
    pub due: Vec<Vec<u8>>,
    /// Edges found.
    pub edges: u64,
}

/// One worker's buffers, kept across the chunks it takes: successors of the position being
/// generated and of the one before it (see [`pass_block`]), in-tier targets, the edge
/// buckets per target range and the due offsets per level (cleared, not freed, after each
/// chunk).
struct Scratch {
    ahead: Vec<Successor>,
    behind: Vec<Successor>,
    inside: Vec<u64>,
    buckets: Vec<Vec<PackedEdge>>,
    /// A bucket encoded for its log ([`crate::work::edgelog`]).
    piece: Vec<u8>,
    /// Offsets in their range of the chunk's due positions, by level.
    levels: Vec<Vec<u32>>,
    /// The places of the last mover half's moves in the lists of moved halves.
    places: PlaceCache,
}

/// A source's place in the list of a target ([`KeptHalf::moved_key`]) depends only on the
/// source's mover half and the target's opponent half, and consecutive sources share their
/// mover half: the places of the last one's moves, by the target's place in its group, save a
/// lookup in the lists (out of the cache, for large tiers) at nearly every edge.
#[derive(Default)]
struct PlaceCache {
    /// The mover half whose places these are: its key and seeds.
    half: Option<(u64, u32)>,
    /// `(rank of the target's opponent half, place)`.
    found: Vec<(u64, u64)>,
}

impl PlaceCache {
    /// [`KeptHalf::moved_key`] of `sk` and `target`, from the cache where it holds it.
    fn place(&mut self, keys: &KeptHalf, sk: &SourceKey, target: u64) -> Option<u64> {
        if self.half != Some((sk.key, sk.seeds)) {
            self.half = Some((sk.key, sk.seeds));
            self.found.clear();
        }
        let rank = target.checked_sub(sk.group)?;
        if let Some(&(_, place)) = self.found.iter().find(|&&(r, _)| r == rank) {
            return Some(place);
        }
        let place = keys.moved_key(sk, target)?;
        self.found.push((rank, place));
        Some(place)
    }
}

/// Where [`pass_block`] puts the in-tier edges it finds: the logs of their target ranges, in
/// the tier's codec, sources stored as themselves or as keys.
#[derive(Clone, Copy)]
pub struct EdgesOut<'a> {
    /// How the tier splits indices into ranges and packs an edge.
    pub codec: EdgeCodec,
    /// Where lists store keys, what names them ([`crate::tier::checkpoint::TierState::keys`]).
    pub keys: Option<&'a KeptHalf>,
    /// One log per range of the tier.
    pub logs: &'a [AppendLog],
}

/// Generates successors for positions `start..start + cells.len()` of `tier`, filling their
/// working cells and appending in-tier edges to `edge_logs` (one per range of the tier's
/// `codec`, in the pieces of [`crate::work::edgelog`]). Indices are tier-wide `u64` throughout; only offsets inside a
/// range are narrowed.
///
/// Lower tiers are looked up at random, and a lookup that misses the cache costs as much as
/// generating a position's successors. So each worker runs one position behind: it generates
/// the successors of position `i`, asks the cache for their lower-tier entries
/// ([`Lookup::prefetch`]), and only then classifies position `i - 1`, whose entries have had a
/// whole position's work to arrive. The results are the same as classifying in place.
pub fn pass_block<G: Game, L: Lookup>(
    game: &G,
    tier: Tier,
    lower: &L,
    start: u64,
    cells: &mut [u32],
    edges_out: EdgesOut<'_>,
) -> Result<BlockOutput> {
    let EdgesOut {
        codec,
        keys,
        logs: edge_logs,
    } = edges_out;
    let ranges = edge_logs.len();
    let edges = AtomicU64::new(0);
    let dues: Vec<Result<Vec<Vec<u8>>>> = cells
        .par_chunks_mut(PASS_CHUNK)
        .enumerate()
        .map_init(
            || Scratch {
                ahead: Vec::with_capacity(64),
                behind: Vec::with_capacity(64),
                inside: Vec::with_capacity(64),
                buckets: vec![Vec::new(); ranges],
                piece: Vec::new(),
                levels: Vec::new(),
                places: PlaceCache::default(),
            },
            |scratch, (ci, chunk)| {
                let first = start + (ci * PASS_CHUNK) as u64;
                let end = first + chunk.len() as u64;
                let Scratch {
                    ahead,
                    behind,
                    inside,
                    buckets,
                    piece,
                    levels,
                    places,
                } = scratch;
                let mut failure = None;
                let mut count = 0u64;
                // Classifies position `i` from its successors `succ`.
                let mut settle = |i: u64, succ: &[Successor]| {
                    if failure.is_some() {
                        return;
                    }
                    match classify(tier, lower, succ, inside) {
                        Ok(o) => {
                            let (c, level) = o.initial_cell();
                            let c = c | cell_flags(lower, succ, inside);
                            if !cell::is_final(c) {
                                if let Err(e) =
                                    log_edges(tier, i, inside, (codec, keys, places), buckets)
                                {
                                    failure = Some(e);
                                    return;
                                }
                                count += inside.len() as u64;
                            }
                            chunk[(i - first) as usize] = c;
                            if let Some(l) = level {
                                push_at_level(levels, l, codec.split(i).1 as u32);
                            }
                        }
                        Err(e) => failure = Some(e),
                    }
                };
                let mut pending: Option<u64> = None;
                game.visit(tier, first..end, |i, pos| {
                    ahead.clear();
                    game.successors(pos, ahead);
                    for s in ahead.iter() {
                        if let Successor::Position { tier: t, index } = *s {
                            if t != tier {
                                lower.prefetch(t, index);
                            }
                        }
                    }
                    if let Some(j) = pending {
                        settle(j, behind);
                    }
                    std::mem::swap(ahead, behind);
                    pending = Some(i);
                });
                if let Some(j) = pending {
                    settle(j, behind);
                }
                if let Some(e) = failure {
                    buckets.iter_mut().for_each(Vec::clear);
                    levels.iter_mut().for_each(Vec::clear);
                    return Err(e);
                }
                // Offsets were pushed in position order, so each level's piece is sorted.
                let due = level_pieces(levels);
                let mut written = Ok(());
                for (r, b) in buckets.iter_mut().enumerate() {
                    if !b.is_empty() && written.is_ok() {
                        piece.clear();
                        crate::work::edgelog::encode_piece(codec, b, piece);
                        written = edge_logs[r].append(piece);
                    }
                    b.clear();
                }
                written?;
                edges.fetch_add(count, Ordering::Relaxed);
                Ok(due)
            },
        )
        .collect();
    let mut out = BlockOutput::default();
    let dues = dues.into_iter().collect::<Result<Vec<_>>>()?;
    let levels = dues.iter().map(Vec::len).max().unwrap_or(0);
    out.due = (0..levels)
        .map(|l| {
            let pieces = dues.iter().filter_map(|d| d.get(l));
            let mut bytes = Vec::with_capacity(pieces.clone().map(Vec::len).sum());
            pieces.for_each(|p| bytes.extend_from_slice(p));
            bytes
        })
        .collect();
    out.edges = edges.into_inner();
    Ok(out)
}

/// Appends the in-tier edges `source -> t` (`t` in `inside`) to the buckets of their targets'
/// ranges: the source as it is, or, where the lists store keys, its key, after checking that
/// every target is one the key names (a move the game said keeps the opponent's half).
fn log_edges(
    tier: Tier,
    source: u64,
    inside: &[u64],
    (codec, keys, places): (EdgeCodec, Option<&KeptHalf>, &mut PlaceCache),
    buckets: &mut [Vec<PackedEdge>],
) -> Result<()> {
    let Some(keys) = keys else {
        for &t in inside {
            let (r, local) = codec.split(t);
            buckets[r].push(codec.pack(local, source));
        }
        return Ok(());
    };
    let sk = keys.source(source);
    let moved = keys.moves().is_some();
    for &t in inside {
        if !(sk.group..sk.group + sk.group_len).contains(&t) {
            return Err(Error::Internal(format!(
                "tier {tier}: the move from {source} to {t} changes the opponent's half, which \
                 the game's moves inside a tier keep"
            )));
        }
        let key = if moved {
            places.place(keys, &sk, t).ok_or_else(|| {
                Error::Internal(format!(
                    "tier {tier}: the move from {source} to {t} is not among the moves of its \
                     mover's half that the game listed"
                ))
            })?
        } else {
            sk.key
        };
        let (r, local) = codec.split(t);
        buckets[r].push(codec.pack(local, key));
    }
    Ok(())
}

/// The position's don't-care flags ([`crate::flags`]) from its successors, once [`classify`]
/// left the in-tier ones in `inside`: anchored when it has no move or one inside the tier,
/// don't-care when it has no move or every successor lies below and is anchored (a lower
/// tier whose flags are unknown counts as not anchored). The cluster's slice pass sets them
/// with this same function, so its flags are one process's.
#[inline]
pub fn cell_flags<L: Lookup>(lower: &L, succ: &[Successor], inside: &[u64]) -> u32 {
    if succ.is_empty() {
        return cell::ANCHORED | cell::DONT_CARE;
    }
    if !inside.is_empty() {
        return cell::ANCHORED;
    }
    let below_anchored = succ.iter().all(|s| match *s {
        Successor::MoverLoses => true,
        Successor::Position { tier, index } => lower.anchored(tier, index),
    });
    if below_anchored {
        cell::DONT_CARE
    } else {
        0
    }
}

/// Sorts one position's successors: lower tiers resolved into an [`Outlook`], in-tier ones
/// left (distinct) in `inside`.
#[inline]
pub fn classify<L: Lookup>(
    tier: Tier,
    lower: &L,
    succ: &[Successor],
    inside: &mut Vec<u64>,
) -> Result<Outlook> {
    let mut o = Outlook {
        terminal: succ.is_empty(),
        ..Default::default()
    };
    inside.clear();
    for s in succ {
        match *s {
            Successor::MoverLoses => o.floor = o.floor.max(1),
            Successor::Position { tier: t, index } if t == tier => inside.push(index),
            Successor::Position { tier: t, index } => {
                let e = lower.entry(t, index);
                if e.value().is_none() {
                    return Err(Error::Internal(format!(
                        "a move from tier {tier} leads to tier {t}, which is not solved"
                    )));
                }
                o.add_resolved(e);
            }
        }
    }
    inside.sort_unstable();
    inside.dedup();
    if inside.len() as u32 > MAX_COUNTER {
        return Err(Error::Internal(format!(
            "a position has {} distinct in-tier successors, more than {MAX_COUNTER}",
            inside.len()
        )));
    }
    o.in_tier = inside.len() as u32;
    if o.floor > MAX_DEPTH || o.win.is_some_and(|w| w > MAX_DEPTH) {
        return Err(Error::DepthOverflow { tier });
    }
    Ok(o)
}

/// The distinct indices, in order, of the successors in `succ` that stay in `tier`: a
/// position's in-tier edges as the planners (budget, cluster slices) count them.
pub fn distinct_in_tier(tier: Tier, succ: &[Successor]) -> Vec<u64> {
    let mut inside: Vec<u64> = succ
        .iter()
        .filter_map(|s| match *s {
            Successor::Position { tier: t, index } if t == tier => Some(index),
            _ => None,
        })
        .collect();
    inside.sort_unstable();
    inside.dedup();
    inside
}

/// Average distinct in-tier successors per position, from an even sample (for planning).
pub fn estimate_in_tier_degree<G: Game>(game: &G, tier: Tier, size: u64) -> f64 {
    let samples = size.min(2048);
    if samples == 0 {
        return 0.0;
    }
    let step = size / samples;
    let total: u64 = (0..samples)
        .into_par_iter()
        .map_init(Vec::new, |succ, k| {
            succ.clear();
            game.successors(&game.position(tier, k * step), succ);
            distinct_in_tier(tier, succ).len() as u64
        })
        .sum();
    total as f64 / samples as f64
}
