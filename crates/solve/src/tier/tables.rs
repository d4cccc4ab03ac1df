//! Finished tiers, looked up by the successor pass of the tiers above them.
//!
//! A run keeps its finished tiers here: copied into memory while they fit the plan's share
//! for lower tiers ([`resident_if_it_fits`]), else as their files. A single process's
//! successor pass looks them up through [`crate::tier::pass_tables::PassTables`], which copies what
//! the pass's own share holds and reads the rest from the files; the cluster's ranks look
//! them up here directly.
//!
//! Lower tiers copied into memory count once; mapped ones count by the pages their lookups
//! touch, which stay in this process's resident set until they are dropped. So a bounded
//! [`Tables`] keeps the two together within the share the memory plan gives lower tiers:
//! every thread counts its lookups into mapped tables and now and then reads the process's
//! resident file pages (`/proc/self/statm`); beyond the limit every map's pages are dropped
//! (they come back from the page cache, or the disk, when next needed).
//!
//! A lookup may map far more than its one page: the kernel maps the whole large folio of the
//! page cache around a fault, or faults around it (on Linux 6.18, about 140 KiB a lookup into
//! a table just written, which is in the page cache whole). So each thread measures how much
//! the resident file bytes grew per lookup it made since its last check, and checks again
//! after as many lookups as fit the room left below the limit, at most
//! [`CHECK_EVERY`].

use std::cell::Cell;
use std::fs::File;
use std::os::unix::fs::FileExt;

use crate::flags::AnchoredBits;
use crate::plan::budget::MemoryPlan;
use bawo_games::game::Tier;
use bawo_games::value::Entry;
pub use bawo_store::table::TableData;

/// Random access to the entries of finished tiers.
pub trait Lookup: Sync {
    /// The entry of position `index` in `tier`, or [`Entry::UNSOLVED`] when the tier is not
    /// finished (a game bug the successor pass reports).
    fn entry(&self, tier: Tier, index: u64) -> Entry;

    /// Says that [`Lookup::entry`] of `index` in `tier` will be asked soon, so that its cache
    /// line can be fetched meanwhile. Only a hint: it changes no result, and by default does
    /// nothing.
    #[inline]
    fn prefetch(&self, _tier: Tier, _index: u64) {}

    /// Whether position `index` of the finished `tier` is anchored (`crate::flags`): false
    /// when unknown, which only makes fewer positions above don't-care.
    #[inline]
    fn anchored(&self, _tier: Tier, _index: u64) -> bool {
        false
    }
}

/// Asks the CPU to bring the cache line holding `*p` closer (a hint; no fault, no effect on
/// results).
#[inline]
pub(super) fn prefetch_line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing the program sees, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Most lookups into mapped tables a thread makes between two reads of its resident pages: a
/// read costs a few microseconds, so this keeps the checks below a percent of the lookups'
/// time where the maps are far from their limit.
pub const CHECK_EVERY: u32 = 1024;

/// Mapped pages always allowed, however much of the share owned tables take (it comes out of
/// the plan's fixed overhead): fewer would drop pages after every few lookups.
pub const MIN_MAPPED: u64 = 8 << 20;

const PAGE: u64 = 4096;

/// The finished tiers of one solve, indexed by tier id.
#[derive(Default)]
pub struct Tables {
    tiers: Vec<Option<TableData>>,
    /// The anchored bits of finished tiers whose flags are known (they count as owned).
    anchored: Vec<Option<AnchoredBits>>,
    /// Bytes of owned (copied) tables.
    owned: u64,
    /// The bound on mapped pages, when there is one.
    bound: Option<Bound>,
}

/// What bounds the mapped pages: the share of lower tiers and how to read the resident set.
struct Bound {
    /// Bytes that owned tables and resident mapped pages may take together.
    share: u64,
    /// File pages resident before any table was mapped (the binary's own code).
    baseline: u64,
    /// Resident file bytes beyond which mapped pages are dropped.
    limit: u64,
    statm: File,
}

thread_local! {
    /// When this thread next reads the resident set, and what it saw at its last read.
    static PACE: Cell<Pace> = const { Cell::new(Pace::START) };
}

/// A thread's pace of checks on the mapped pages.
#[derive(Clone, Copy, Debug)]
struct Pace {
    /// Lookups left before the next check.
    left: u32,
    /// Lookups made since the last check.
    made: u32,
    /// Resident file bytes after the last check.
    resident: u64,
    /// Estimated growth of the process's resident file bytes per lookup of this thread (the
    /// other threads' lookups grow them meanwhile too, and are counted in).
    per_lookup: u64,
}

impl Pace {
    /// A first check soon, to measure the growth per lookup before trusting an estimate.
    const START: Pace = Pace {
        left: 16,
        made: 0,
        resident: u64::MAX,
        per_lookup: 64 << 10,
    };

    /// The pace after a check that found `before` resident file bytes, and `after` once
    /// pages beyond `limit` were dropped (equal when none were): the growth per lookup
    /// measured since the last check (an earlier estimate fades slowly, so that a stretch of
    /// lookups into resident pages does not space the checks too far), and as many lookups
    /// until the next check as fit the room left.
    fn next(self, before: u64, after: u64, limit: u64) -> Pace {
        if self.resident == u64::MAX {
            // The first check only takes the measure.
            return Pace {
                resident: after,
                made: 0,
                ..Pace::START
            };
        }
        let grown = before.saturating_sub(self.resident) / self.made.max(1) as u64;
        let per_lookup = grown.max(self.per_lookup - self.per_lookup / 8).max(PAGE);
        let room = limit.saturating_sub(after);
        Pace {
            left: (room / per_lookup).clamp(1, CHECK_EVERY as u64) as u32,
            made: 0,
            resident: after,
            per_lookup,
        }
    }
}

/// Resident file-backed bytes of this process (the third field of `/proc/self/statm`).
fn resident_file_bytes(statm: &File) -> Option<u64> {
    let mut buf = [0u8; 160];
    let n = statm.read_at(&mut buf, 0).ok()?;
    let text = std::str::from_utf8(&buf[..n]).ok()?;
    let pages: u64 = text.split_whitespace().nth(2)?.parse().ok()?;
    Some(pages * PAGE)
}

impl Tables {
    /// Tables whose owned copies and resident mapped pages together stay within `share`
    /// bytes (at least [`MIN_MAPPED`] of mapped pages). Without `/proc/self/statm` the maps
    /// are only dropped by [`Tables::release`].
    pub fn bounded(share: u64) -> Tables {
        let bound = File::open("/proc/self/statm").ok().and_then(|statm| {
            let baseline = resident_file_bytes(&statm)?;
            Some(Bound {
                share,
                baseline,
                limit: 0,
                statm,
            })
        });
        let mut t = Tables {
            bound,
            ..Tables::default()
        };
        t.set_limit();
        t
    }

    fn set_limit(&mut self) {
        let owned = self.owned;
        if let Some(b) = &mut self.bound {
            // Room for what the threads may touch before their next check.
            let slack = rayon::current_num_threads() as u64 * CHECK_EVERY as u64 * PAGE;
            let mapped = b.share.saturating_sub(owned).saturating_sub(slack);
            b.limit = b.baseline + mapped.max(MIN_MAPPED);
        }
    }

    /// Keeps `data` as the table of `tier`.
    pub fn insert(&mut self, tier: Tier, data: TableData) {
        let t = tier as usize;
        if self.tiers.len() <= t {
            self.tiers.resize_with(t + 1, || None);
        }
        if let TableData::Owned(v) = &data {
            self.owned += 2 * v.len() as u64;
        }
        if let Some(TableData::Owned(old)) = &self.tiers[t] {
            self.owned -= 2 * old.len() as u64;
        }
        self.tiers[t] = Some(data);
        self.set_limit();
    }

    /// Whether no table nor anchored bits are held (none was inserted, or all were cleared).
    pub fn is_empty(&self) -> bool {
        self.tiers.iter().all(Option::is_none) && self.anchored.iter().all(Option::is_none)
    }

    /// Drops every table and anchored bits: their copies, maps and open files.
    pub fn clear(&mut self) {
        self.tiers.clear();
        self.anchored.clear();
        self.owned = 0;
        self.set_limit();
    }

    /// Keeps the anchored bits of a finished tier for [`Lookup::anchored`].
    pub fn insert_anchored(&mut self, tier: Tier, bits: AnchoredBits) {
        let t = tier as usize;
        if self.anchored.len() <= t {
            self.anchored.resize_with(t + 1, || None);
        }
        self.owned += bits.bytes();
        if let Some(old) = &self.anchored[t] {
            self.owned -= old.bytes();
        }
        self.anchored[t] = Some(bits);
        self.set_limit();
    }

    /// The anchored bits of `tier`, when known.
    pub fn anchored_bits(&self, tier: Tier) -> Option<&AnchoredBits> {
        self.anchored.get(tier as usize).and_then(Option::as_ref)
    }

    /// The table of `tier`, if kept.
    pub fn get(&self, tier: Tier) -> Option<&TableData> {
        self.tiers.get(tier as usize).and_then(Option::as_ref)
    }

    /// The tables kept.
    pub fn iter(&self) -> impl Iterator<Item = &TableData> {
        self.tiers.iter().flatten()
    }

    /// Every tier id from 0 up with its table, if finished.
    pub fn by_tier(&self) -> impl Iterator<Item = (Tier, Option<&TableData>)> {
        (0..).zip(self.tiers.iter().map(Option::as_ref))
    }

    /// Bytes held in memory: copied tables and anchored bits.
    pub fn owned_bytes(&self) -> u64 {
        self.owned
    }

    /// Drops every mapped table's pages from this process's memory.
    pub fn release(&self) {
        self.iter().for_each(TableData::release);
    }

    /// Whether mapped pages are bounded by reading the resident set (else only
    /// [`Tables::release`] drops them).
    pub fn is_bounded(&self) -> bool {
        self.bound.is_some()
    }

    /// The resident-file-bytes limit beyond which mapped pages are dropped (tests).
    pub fn mapped_limit(&self) -> Option<u64> {
        self.bound.as_ref().map(|b| b.limit)
    }

    /// Counts a lookup into a mapped table; when the thread's [`Pace`] says so, drops the
    /// maps' pages if they grew beyond the limit.
    #[inline]
    fn count_mapped_lookup(&self) {
        if let Some(b) = &self.bound {
            PACE.with(|c| {
                let mut p = c.get();
                p.made += 1;
                p.left -= 1;
                if p.left == 0 {
                    p = self.check(b, p);
                }
                c.set(p);
            });
        }
    }

    #[cold]
    fn check(&self, b: &Bound, p: Pace) -> Pace {
        let Some(before) = resident_file_bytes(&b.statm) else {
            return Pace {
                left: CHECK_EVERY,
                ..p
            };
        };
        let after = if before > b.limit {
            self.release();
            resident_file_bytes(&b.statm).unwrap_or(b.baseline)
        } else {
            before
        };
        p.next(before, after, b.limit)
    }
}

impl Lookup for Tables {
    #[inline]
    fn entry(&self, tier: Tier, index: u64) -> Entry {
        match self.get(tier) {
            Some(t @ TableData::Owned(_)) => Entry(t.entries()[index as usize]),
            Some(t) => {
                self.count_mapped_lookup();
                Entry(t.entries()[index as usize])
            }
            None => Entry::UNSOLVED,
        }
    }

    #[inline]
    fn anchored(&self, tier: Tier, index: u64) -> bool {
        self.anchored
            .get(tier as usize)
            .and_then(Option::as_ref)
            .is_some_and(|b| b.get(index))
    }

    /// A mapped page that is not resident is not fetched by a prefetch (the lookup faults it
    /// in and counts it, as without the hint).
    #[inline]
    fn prefetch(&self, tier: Tier, index: u64) {
        let at = index as usize;
        match self.get(tier) {
            Some(TableData::Owned(v)) if at < v.len() => prefetch_line(&v[at]),
            Some(TableData::Mapped { map, offset, .. }) if offset + 2 * at < map.len() => {
                prefetch_line(&map[offset + 2 * at])
            }
            _ => {}
        }
    }
}

/// Lower tiers are looked up at random. While they fit the plan's share for them they are
/// copied into anonymous memory, which the kernel backs with huge pages (far fewer TLB misses
/// than a file map of 4 KiB pages), and stay there for the rest of the run; beyond that they
/// stay in their files (a successor pass copies what its share holds for itself). The copy
/// is read from the file, not through the map, whose pages would count too.
pub fn resident_if_it_fits(
    data: TableData,
    lower_bytes: u64,
    plan: &MemoryPlan,
) -> bawo_games::error::Result<TableData> {
    if plan.lower_resident(lower_bytes) && !matches!(data, TableData::Owned(_)) {
        // Read, not copied from the map: its pages would count in the resident set too.
        let mut copy = crate::work::huge::filled(data.len() as usize, 0u16);
        data.read_entries(0, &mut copy)?;
        Ok(TableData::Owned(copy))
    } else {
        Ok(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapped_pages_stay_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tbl");
        // 64 MiB of entries: far more pages than the limit allows.
        let states = 32u64 << 20;
        bawo_store::table::write_table_streaming(&path, 3, states, 7, |put| {
            let piece: Vec<u16> = (0..1u32 << 16).map(|i| (i % 40_000) as u16).collect();
            for _ in 0..states >> 16 {
                put(&piece)?;
            }
            Ok(())
        })
        .unwrap();
        let (_, data) = bawo_store::table::open_table(&path, 3, states, 7, false).unwrap();
        let mut tables = Tables::bounded(0);
        tables.insert(3, data);
        let Some(limit) = tables.mapped_limit() else {
            return; // no /proc: nothing to bound by
        };
        let statm = File::open("/proc/self/statm").unwrap();
        let mut peak = 0;
        let mut sum = 0u64;
        // One lookup per page, every page of the table.
        for i in (0..states).step_by(PAGE as usize / 2) {
            sum += tables.entry(3, i).0 as u64;
            if i % (1 << 20) == 0 {
                peak = peak.max(resident_file_bytes(&statm).unwrap());
            }
        }
        assert!(sum > 0);
        // Other test threads may map files too; the table alone is 64 MiB.
        let slack = CHECK_EVERY as u64 * PAGE * rayon::current_num_threads() as u64;
        assert!(
            peak <= limit + slack + (16 << 20),
            "peak {peak} limit {limit}"
        );
        assert_eq!(tables.entry(4, 0), Entry::UNSOLVED);
    }

    #[test]
    fn checks_come_as_often_as_the_growth_per_lookup_needs() {
        let mib = 1u64 << 20;
        // 100 lookups grew the maps by 14 MiB (large folios): with 56 MiB of room left the
        // next check comes after 400 lookups, not 1,024.
        let p = Pace {
            left: 0,
            made: 100,
            resident: 10 * mib,
            per_lookup: PAGE,
        };
        let q = p.next(24 * mib, 24 * mib, 80 * mib);
        assert_eq!(
            (q.left, q.per_lookup, q.resident),
            (400, 14 * mib / 100, 24 * mib)
        );
        // Beyond the limit: pages dropped, room measured from what is left.
        let r = q.next(90 * mib, 8 * mib, 80 * mib);
        assert!(r.per_lookup > q.per_lookup && r.left < CHECK_EVERY, "{r:?}");
        // Lookups into resident pages: the estimate fades by an eighth per check, no faster.
        let s = Pace { made: 1000, ..r }.next(8 * mib, 8 * mib, 80 * mib);
        assert_eq!(s.per_lookup, r.per_lookup - r.per_lookup / 8);
        // No room: the next lookup checks again; never more than CHECK_EVERY apart.
        assert_eq!(s.next(80 * mib, 80 * mib, 80 * mib).left, 1);
        let first = Pace::START.next(5 * mib, 5 * mib, 80 * mib);
        assert_eq!((first.left, first.resident), (Pace::START.left, 5 * mib));
        let far = first.next(5 * mib, 5 * mib, u64::MAX >> 1);
        assert_eq!(far.left, CHECK_EVERY);
    }
}
