//! The finished tiers as one successor pass looks them up.
//!
//! A pass looks lower tiers up at random, about once per successor it generates, so a lookup
//! must cost a cache miss, not a page fault. Tables mapped from their files cost a fault per
//! page first touched (on Linux 6.18 a fault maps a whole large folio, about 140 KiB), and
//! keeping those pages within the budget means dropping them every few dozen lookups once
//! the tables are larger than their share: the pass thrashes. So each pass copies the lower
//! tiers into memory for its duration, as many as the plan's share for the pass holds
//! ([`crate::plan::budget::TierPlan::pass_share`]), in the order of how often a sample of the
//! tier's positions looks each one up per byte. A tier that does not fit whole is copied in
//! part, the stretch of its indices the sample looks up most; lookups outside a copy read
//! their two bytes from the file (`pread`), whose pages stay in the kernel's page cache,
//! outside this process's resident memory. The copies are freed with the pass, so that the
//! tier's later phases have the budget for their ranges.

use std::sync::Mutex;

pub use crate::counts::CopySummary;
use crate::tier::tables::{Lookup, TableData, Tables};
use bawo_games::error::{Error, Result};
use bawo_games::game::{Game, Successor, Tier};
use bawo_games::value::Entry;

/// Positions of the tier to solve whose successors are sampled to rank the lower tiers.
const SAMPLE_POSITIONS: u64 = 16_384;

/// The lower tiers of one successor pass: copies in memory, the rest read from the files.
pub struct PassTables<'t> {
    tables: &'t Tables,
    tiers: Vec<Option<PassTier<'t>>>,
    /// The first failed read (an I/O error), reported after the pass.
    failure: Mutex<Option<Error>>,
    /// What was copied, for `--timings`.
    summary: CopySummary,
}

/// Entries `first..first + len` of one lower tier in memory, the rest in its file.
struct PassTier<'t> {
    first: u64,
    mem: Mem<'t>,
    data: &'t TableData,
}

enum Mem<'t> {
    Borrowed(&'t [u16]),
    Copied(Vec<u16>),
    Coded(Coded),
}

impl Mem<'_> {
    /// The entry at `at` of the stretch in memory, if it holds it.
    #[inline]
    fn get(&self, at: usize) -> Option<u16> {
        match self {
            Mem::Borrowed(s) => s.get(at).copied(),
            Mem::Copied(v) => v.get(at).copied(),
            Mem::Coded(c) => c.codes.get(at).map(|&k| c.palette[k as usize]),
        }
    }

    /// Where the entry at `at` lies in memory, if it is there (for a prefetch).
    #[inline]
    fn address(&self, at: usize) -> Option<*const u8> {
        match self {
            Mem::Borrowed(s) => s.get(at).map(|e| e as *const u16 as *const u8),
            Mem::Copied(v) => v.get(at).map(|e| e as *const u16 as *const u8),
            Mem::Coded(c) => c.codes.get(at).map(|k| k as *const u8),
        }
    }
}

/// A stretch of a tier's entries in one byte each: a tier holds few distinct entries (a
/// value and a depth), so each is coded by its place in the tier's palette, which halves
/// what a copy takes (and the cache lines its lookups miss).
struct Coded {
    codes: Vec<u8>,
    palette: Box<[u16; 256]>,
}

/// Most distinct entries a coded copy holds.
const PALETTE: usize = 256;

impl Coded {
    /// Entries `first..first + len` of `data` coded, or `None` when they hold more than
    /// [`PALETTE`] distinct entries.
    fn read(data: &TableData, first: u64, len: u64) -> Result<Option<Coded>> {
        const NONE: u16 = u16::MAX;
        let mut code_of = vec![NONE; 1 << 16];
        let mut palette = Box::new([0u16; PALETTE]);
        let mut distinct = 0;
        let mut codes = crate::work::huge::with_capacity(len as usize);
        let mut piece = vec![0u16; 1 << 16];
        let mut at = first;
        while at < first + len {
            let n = (first + len - at).min(piece.len() as u64) as usize;
            data.read_entries(at, &mut piece[..n])?;
            for &e in &piece[..n] {
                let mut k = code_of[e as usize];
                if k == NONE {
                    if distinct == PALETTE {
                        return Ok(None);
                    }
                    k = distinct as u16;
                    palette[distinct] = e;
                    code_of[e as usize] = k;
                    distinct += 1;
                }
                codes.push(k as u8);
            }
            at += n as u64;
        }
        Ok(Some(Coded { codes, palette }))
    }
}

/// One lower tier as the choice of copies sees it.
struct Candidate {
    tier: Tier,
    entries: u64,
    /// Indices the sample looked up, sorted.
    sampled: Vec<u64>,
}

impl Candidate {
    /// Sampled lookups per byte of the table.
    fn density(&self) -> f64 {
        self.sampled.len() as f64 / (2 * self.entries.max(1)) as f64
    }

    /// The stretch of `len` entries holding the most sampled lookups: its first index and
    /// how many it holds.
    fn best_window(&self, len: u64) -> (u64, usize) {
        let s = &self.sampled;
        let mut best = (0u64, 0usize);
        let mut end = 0;
        for (i, &start) in s.iter().enumerate() {
            end = end.max(i);
            while end < s.len() && s[end] < start.saturating_add(len) {
                end += 1;
            }
            if end - i > best.1 {
                best = (start.min(self.entries - len), end - i);
            }
        }
        best
    }
}

impl<'t> PassTables<'t> {
    /// The lower tiers of `tier`'s successor pass within `share` bytes (the plan's, of which
    /// what `tables` already hold in memory takes its part): tables in memory are used as
    /// they are; of the others, those looked up most per byte by a sample of `tier`'s
    /// positions are copied first, the last one in part.
    pub fn new<G: Game>(game: &G, tier: Tier, tables: &'t Tables, share: u64) -> Result<Self> {
        let mut sampled: Vec<Vec<u64>> = Vec::new();
        let states = game.tier_size(tier)?;
        let positions = states.min(SAMPLE_POSITIONS);
        let step = states / positions.max(1);
        let mut succ = Vec::with_capacity(64);
        for k in 0..positions {
            succ.clear();
            game.successors(&game.position(tier, k * step), &mut succ);
            for s in &succ {
                if let Successor::Position { tier: t, index } = *s {
                    if t != tier {
                        let t = t as usize;
                        if sampled.len() <= t {
                            sampled.resize_with(t + 1, Vec::new);
                        }
                        sampled[t].push(index);
                    }
                }
            }
        }
        let mut summary = CopySummary::default();
        let mut tiers: Vec<Option<PassTier<'t>>> = Vec::new();
        let mut candidates = Vec::new();
        let all_sampled: usize = sampled.iter().map(Vec::len).sum();
        let mut hits = 0usize;
        for (t, data) in tables.by_tier() {
            let Some(data) = data else { continue };
            if t == tier {
                continue;
            }
            let entries = data.len();
            summary.lower_bytes += 2 * entries;
            let mut seen = sampled
                .get_mut(t as usize)
                .map(std::mem::take)
                .unwrap_or_default();
            if let TableData::Owned(v) = data {
                summary.in_memory += 2 * entries;
                summary.held += 2 * entries;
                hits += seen.len();
                set(
                    &mut tiers,
                    t,
                    PassTier {
                        first: 0,
                        mem: Mem::Borrowed(v),
                        data,
                    },
                );
                continue;
            }
            seen.sort_unstable();
            candidates.push(Candidate {
                tier: t,
                entries,
                sampled: seen,
            });
            set(
                &mut tiers,
                t,
                PassTier {
                    first: 0,
                    mem: Mem::Borrowed(&[]),
                    data,
                },
            );
        }
        // The densest first; each takes what is left of the share, whole or in part.
        candidates.sort_by(|a, b| b.density().total_cmp(&a.density()));
        let mut left = share.saturating_sub(tables.owned_bytes());
        for c in &candidates {
            // A byte an entry where the tier's entries code into one, else two.
            let len = left.min(c.entries);
            if len == 0 {
                break;
            }
            let (first, in_window) = c.best_window(len);
            let tier = tiers[c.tier as usize].as_mut().expect("set above");
            let (mem, first, bytes, in_window) = match Coded::read(tier.data, first, len)? {
                Some(coded) => (Mem::Coded(coded), first, len, in_window),
                None => {
                    let len = (left / 2).min(c.entries);
                    let (first, in_window) = c.best_window(len);
                    let mut copy = crate::work::huge::filled(len as usize, 0u16);
                    tier.data.read_entries(first, &mut copy)?;
                    (Mem::Copied(copy), first, 2 * len, in_window)
                }
            };
            summary.in_memory += match &mem {
                Mem::Coded(c) => 2 * c.codes.len() as u64,
                _ => bytes,
            };
            tier.first = first;
            tier.mem = mem;
            left -= bytes;
            summary.held += bytes;
            hits += in_window;
        }
        summary.sampled_hits = if all_sampled == 0 {
            1.0
        } else {
            hits as f64 / all_sampled as f64
        };
        Ok(PassTables {
            tables,
            tiers,
            failure: Mutex::new(None),
            summary,
        })
    }

    /// What the pass holds in memory.
    pub fn summary(&self) -> CopySummary {
        self.summary
    }

    /// The first read that failed during the pass, if any: the pass saw
    /// [`Entry::UNSOLVED`] for it and must report this error instead.
    pub fn take_failure(&self) -> Option<Error> {
        self.failure.lock().ok()?.take()
    }

    /// Reads one entry beyond the copy from the table's file.
    #[cold]
    fn read(&self, t: &PassTier<'_>, index: u64) -> Entry {
        let mut e = [0u16];
        match t.data.read_entries(index, &mut e) {
            Ok(()) => Entry(e[0]),
            Err(err) => {
                if let Ok(mut f) = self.failure.lock() {
                    f.get_or_insert(err);
                }
                Entry::UNSOLVED
            }
        }
    }
}

fn set<'t>(tiers: &mut Vec<Option<PassTier<'t>>>, tier: Tier, t: PassTier<'t>) {
    let at = tier as usize;
    if tiers.len() <= at {
        tiers.resize_with(at + 1, || None);
    }
    tiers[at] = Some(t);
}

impl Lookup for PassTables<'_> {
    #[inline]
    fn entry(&self, tier: Tier, index: u64) -> Entry {
        match self.tiers.get(tier as usize) {
            Some(Some(t)) => match t.mem.get(index.wrapping_sub(t.first) as usize) {
                Some(e) => Entry(e),
                None if index < t.data.len() => self.read(t, index),
                None => Entry::UNSOLVED,
            },
            _ => Entry::UNSOLVED,
        }
    }

    #[inline]
    fn prefetch(&self, tier: Tier, index: u64) {
        if let Some(Some(t)) = self.tiers.get(tier as usize) {
            if let Some(p) = t.mem.address(index.wrapping_sub(t.first) as usize) {
                crate::tier::tables::prefetch_line(p);
            }
        }
    }

    #[inline]
    fn anchored(&self, tier: Tier, index: u64) -> bool {
        self.tables.anchored(tier, index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bawo_games::game::bawo::{Bawo, BawoRules};
    use bawo_store::table;

    #[test]
    fn the_densest_stretch_is_copied() {
        let c = Candidate {
            tier: 1,
            entries: 100,
            sampled: vec![1, 2, 3, 50, 51, 52, 53, 97, 98],
        };
        assert_eq!(c.best_window(10), (50, 4));
        assert_eq!(c.best_window(100), (0, 9));
        // A stretch running past the end is moved back inside the table.
        let tail = Candidate {
            sampled: vec![10, 96, 97, 98, 99],
            ..c
        };
        assert_eq!(tail.best_window(8), (92, 4));
        let none = Candidate {
            sampled: Vec::new(),
            ..tail
        };
        assert_eq!(none.best_window(8), (0, 0));
    }

    /// A made-up entry of position `i` of tier `t`: few distinct ones in even tiers (their
    /// copies are coded), many in odd ones.
    fn entry_of(t: Tier, i: u64) -> u16 {
        if t.is_multiple_of(2) {
            ((i * 7) % 256 + t as u64 * 1001) as u16
        } else {
            ((i * 7 + t as u64 * 1001) % 65_000) as u16
        }
    }

    #[test]
    fn every_share_looks_up_the_tables_entries() {
        let game = Bawo::new(3, 64, BawoRules::default()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let top = 9;
        let mut tables = Tables::default();
        let mut lower_bytes = 0;
        for t in 0..top {
            let states = game.tier_size(t).unwrap();
            let entries: Vec<u16> = (0..states).map(|i| entry_of(t, i)).collect();
            let path = dir.path().join(format!("t{t}.tbl"));
            table::write_table(&path, t, 5, &entries).unwrap();
            let (_, data) = table::open_table(&path, t, states, 5, true).unwrap();
            // The small tiers are kept in memory, as a run keeps those that fit its plan.
            let data = if t < 4 {
                TableData::Owned(entries)
            } else {
                data
            };
            tables.insert(t, data);
            lower_bytes += 2 * states;
        }
        for share in [0, 64 << 10, lower_bytes / 2, lower_bytes + (1 << 20)] {
            let pass = PassTables::new(&game, top, &tables, share).unwrap();
            let s = pass.summary();
            assert_eq!(s.lower_bytes, lower_bytes);
            assert!(s.held <= share.max(tables.owned_bytes()), "{s:?} {share}");
            assert!(s.held <= s.in_memory && s.in_memory <= lower_bytes, "{s:?}");
            if share > lower_bytes {
                assert_eq!((s.in_memory, s.sampled_hits), (lower_bytes, 1.0));
                assert!(s.held < lower_bytes, "even tiers are coded: {s:?}");
            }
            for t in 0..top {
                for i in 0..game.tier_size(t).unwrap() {
                    assert_eq!(
                        pass.entry(t, i),
                        Entry(entry_of(t, i)),
                        "tier {t} index {i}"
                    );
                }
                assert_eq!(pass.entry(t, game.tier_size(t).unwrap()), Entry::UNSOLVED);
            }
            assert_eq!(pass.entry(top, 0), Entry::UNSOLVED);
            assert!(pass.take_failure().is_none());
        }
    }
}
