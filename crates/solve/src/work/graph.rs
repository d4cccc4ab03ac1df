//! The in-tier predecessor graph, built one range at a time from edges bucketed by target.
//!
//! The successor pass appends each in-tier edge `source -> target` to the log of the target's
//! range, sequentially, packed by the tier's [`EdgeCodec`]. Each range's predecessor lists are
//! then built on their own by a counting sort whose counters cover only that range
//! ([`PredRange::build`]), and stored as one file ([`crate::work::predfile`]): offsets inside
//! the range (under a byte per position) followed by `sources`. Nothing ever scatters
//! randomly across the whole tier.
//!
//! Sources are tier-wide indices, or keys that name a source together with its target where
//! the game's moves inside a tier keep the opponent's half ([`EdgeCodec::with_keys`]: 3 or 4
//! bytes). A tier of at most [`NARROW_LIMIT`] positions stores indices as `u32` (4 bytes per
//! edge); a larger ("wide") tier, of at most [`WIDE_LIMIT`], in five bytes ([`U40`]). The
//! choice is made per tier. (Wide sources took 8 bytes, a `u64`: Kigogo's 9-seed tier, 7.6
//! billion stored positions and two in-tier edges each, planned 136 GB of predecessor lists,
//! 89 GB in five bytes, 74 GB as four-byte keys.)

use std::io::Write;
use std::path::Path;

use bawo_games::error::{Error, Result};
use bawo_store::checksum::{Checksum, Hasher};

pub use crate::work::edgecodec::{
    index_bits, key_bytes, list_source_bytes, max_wide_range_bits, moved_key_bytes, source_bytes,
    EdgeCodec, PackedEdge, NARROW_LIMIT,
};
use crate::work::predfile::{head, Offsets};
pub use crate::work::sources::{Source, U16, U24, U40};

/// The most positions a tier may have: a wide tier's sources are five bytes ([`U40`]).
pub const WIDE_LIMIT: u64 = 1 << 40;

/// Predecessor lists of one range, owned.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct PredRange<S: Source = u32> {
    /// `offsets[t]..offsets[t + 1]` indexes `sources` for local target `t`.
    pub offsets: Vec<u32>,
    /// Every target's sources, one list after another.
    pub sources: Vec<S>,
}

/// A raw pointer shared by workers that write disjoint slots.
#[derive(Clone, Copy)]
struct SharedSlice<T>(*mut T);
// SAFETY: used only for writes to disjoint indices, coordinated by the callers above.
unsafe impl<T: Send> Send for SharedSlice<T> {}
unsafe impl<T: Send> Sync for SharedSlice<T> {}
impl<T> SharedSlice<T> {
    /// # Safety
    /// `i` must be in bounds and written by no other thread.
    unsafe fn write(&self, i: usize, v: T) {
        self.0.add(i).write(v)
    }
}

/// A range's edges read from where they are kept: calls its argument with runs of edges
/// (a log's pieces), all the edges in the same order every time
/// ([`PredRange::build_streamed`]).
pub type EdgeSource<'a> = &'a mut dyn FnMut(&mut dyn FnMut(&[PackedEdge])) -> Result<()>;

/// A range's edges in parts read side by side: calls its second argument with runs of the
/// edges of the part its first names ([`PredRange::build_parts`]).
pub type PartSource<'a> = &'a (dyn Fn(usize, &mut dyn FnMut(&[PackedEdge])) -> Result<()> + Sync);

/// Targets per sub-range of [`PredRange::build`]'s radix pass, as a power of two.
const SUB_BITS: u32 = 16;

/// Exclusive prefix sums of per-chunk edge counts by sub-range: where chunk `c`'s edges of
/// sub-range `s` start in the grouped array (`starts[c][s]`: sub-range by sub-range, chunks in
/// order inside each), and where each sub-range starts (`sub_start`, the total last).
fn group_starts<T: Copy + Into<u64>>(
    counts: &[Vec<T>],
    subs: usize,
) -> (Vec<Vec<usize>>, Vec<usize>) {
    let mut starts = vec![vec![0usize; subs]; counts.len()];
    let mut sub_start = vec![0usize; subs + 1];
    let mut at = 0usize;
    for s in 0..subs {
        sub_start[s] = at;
        for (c, h) in counts.iter().enumerate() {
            starts[c][s] = at;
            at += h[s].into() as usize;
        }
    }
    sub_start[subs] = at;
    (starts, sub_start)
}

/// Offsets inside a range are `u32`: more edges into one range than that is refused.
fn check_edge_count(edges: u64) -> Result<()> {
    if edges >= u32::MAX as u64 {
        return Err(Error::Internal(format!(
            "{edges} edges into one range; a smaller --mem makes smaller ranges"
        )));
    }
    Ok(())
}

/// Predecessor lists of one range, borrowed (from a [`PredRange`] or a mapped file).
#[derive(Clone, Copy, Debug)]
pub struct PredView<'a, S: Source = u32> {
    /// Where each target's list starts.
    pub offsets: Offsets<'a>,
    /// Every target's sources, one list after another.
    pub sources: &'a [S],
}

impl<S: Source> PredView<'_, S> {
    /// The sources of the range-local target `local`.
    #[inline]
    pub fn preds(&self, local: usize) -> &[S] {
        &self.sources[self.offsets.at(local)..self.offsets.at(local + 1)]
    }
}

impl<S: Source> PredRange<S> {
    /// Groups one bucket's edges (packed by `codec`) by local target: a parallel radix pass
    /// splits them into sub-ranges whose counters fit in cache, then each sub-range is
    /// counting-sorted on its own. The order of sources within a target follows the bucket's
    /// order.
    pub fn build(len: usize, edges: &[PackedEdge], codec: EdgeCodec) -> Result<PredRange<S>> {
        use rayon::prelude::*;
        check_edge_count(edges.len() as u64)?;
        let subs = (len >> SUB_BITS) + 1;
        let sub_of = |e: u64| codec.target(e) >> SUB_BITS;
        // Pass 1: edges per sub-range, per chunk of the input.
        let chunk = (edges.len() / (4 * rayon::current_num_threads()).max(1)).max(1 << 16);
        let counts: Vec<Vec<u32>> = edges
            .par_chunks(chunk)
            .map(|c| {
                let mut h = vec![0u32; subs];
                for &e in c {
                    h[sub_of(e)] += 1;
                }
                h
            })
            .collect();
        // Where each chunk's edges of each sub-range start in the grouped array.
        let (starts, sub_start) = group_starts(&counts, subs);
        // Pass 2: scatter into sub-range order (each chunk writes its own disjoint slots).
        let mut grouped = crate::work::huge::filled(edges.len(), 0u64);
        {
            let out = SharedSlice(grouped.as_mut_ptr());
            edges
                .par_chunks(chunk)
                .zip(starts.into_par_iter())
                .for_each(|(c, mut pos)| {
                    for &e in c {
                        let s = sub_of(e);
                        // SAFETY: slot ranges of different chunks and sub-ranges are disjoint.
                        unsafe { out.write(pos[s], e) };
                        pos[s] += 1;
                    }
                });
        }
        Ok(Self::sort_groups(len, &grouped, &sub_start, codec))
    }

    /// [`PredRange::build`] from edges that are not in memory: `edges` calls its argument
    /// with every edge of the range, in the same order each time, and is called twice (once
    /// to count the edges of each sub-range, once to put them in place). Only the grouped
    /// edges (8 bytes each) and the result are held, never the edges a second time: what
    /// the memory plan counts for building a range's predecessors.
    pub fn build_streamed(
        len: usize,
        codec: EdgeCodec,
        edges: EdgeSource<'_>,
    ) -> Result<PredRange<S>> {
        let subs = (len >> SUB_BITS) + 1;
        let sub_of = |e: u64| codec.target(e) >> SUB_BITS;
        let mut counts = vec![0u64; subs];
        edges(&mut |run| run.iter().for_each(|&e| counts[sub_of(e)] += 1))?;
        let total: u64 = counts.iter().sum();
        check_edge_count(total)?;
        let mut sub_start = vec![0usize; subs + 1];
        for s in 0..subs {
            sub_start[s + 1] = sub_start[s] + counts[s] as usize;
        }
        let mut grouped = crate::work::huge::filled(total as usize, 0u64);
        let mut pos = sub_start[..subs].to_vec();
        let mut extra = false;
        edges(&mut |run| {
            for &e in run {
                let s = sub_of(e);
                if pos[s] < sub_start[s + 1] {
                    grouped[pos[s]] = e;
                    pos[s] += 1;
                } else {
                    extra = true;
                }
            }
        })?;
        if extra || (0..subs).any(|s| pos[s] != sub_start[s + 1]) {
            return Err(Error::Internal(
                "a range's edges changed between two readings".to_string(),
            ));
        }
        Ok(Self::sort_groups(len, &grouped, &sub_start, codec))
    }

    /// [`PredRange::build_streamed`] from edges in `parts` pieces that can be read side by
    /// side (an edge log held in memory, cut at its pieces' boundaries): `read(k, f)` calls
    /// `f` with every edge of part `k`, in the same order each time. Parts are counted and put
    /// in place in parallel, twice read as by [`PredRange::build_streamed`], so what is held
    /// is the same (the grouped edges and the result); sources follow the parts' order, then
    /// each part's, so the lists are the ones a single reading in that order builds.
    pub fn build_parts(
        len: usize,
        codec: EdgeCodec,
        parts: usize,
        read: PartSource<'_>,
    ) -> Result<PredRange<S>> {
        use rayon::prelude::*;
        let subs = (len >> SUB_BITS) + 1;
        let sub_of = |e: u64| codec.target(e) >> SUB_BITS;
        let counts: Vec<Vec<u64>> = (0..parts)
            .into_par_iter()
            .map(|k| {
                let mut h = vec![0u64; subs];
                read(k, &mut |run| run.iter().for_each(|&e| h[sub_of(e)] += 1))?;
                Ok(h)
            })
            .collect::<Result<_>>()?;
        let total: u64 = counts.iter().flatten().sum();
        check_edge_count(total)?;
        // Where each part's edges of each sub-range start in the grouped array.
        let (starts, sub_start) = group_starts(&counts, subs);
        let mut grouped = crate::work::huge::filled(total as usize, 0u64);
        {
            let out = SharedSlice(grouped.as_mut_ptr());
            let out = &out;
            (0..parts)
                .into_par_iter()
                .zip(starts.into_par_iter())
                .zip(counts.par_iter())
                .map(|((k, mut pos), h)| {
                    let end: Vec<usize> =
                        pos.iter().zip(h).map(|(&p, &n)| p + n as usize).collect();
                    let mut extra = false;
                    read(k, &mut |run| {
                        for &e in run {
                            let s = sub_of(e);
                            if pos[s] < end[s] {
                                // SAFETY: slots of different parts and sub-ranges are disjoint,
                                // and this part writes only below its own ends.
                                unsafe { out.write(pos[s], e) };
                                pos[s] += 1;
                            } else {
                                extra = true;
                            }
                        }
                    })?;
                    if extra || pos != end {
                        return Err(Error::Internal(
                            "a range's edges changed between two readings".to_string(),
                        ));
                    }
                    Ok(())
                })
                .collect::<Result<()>>()?;
        }
        Ok(Self::sort_groups(len, &grouped, &sub_start, codec))
    }

    /// Counting-sorts each sub-range of `grouped` (edges whose targets lie in sub-range `s`
    /// are `grouped[sub_start[s]..sub_start[s + 1]]`) by target, in parallel.
    fn sort_groups(
        len: usize,
        grouped: &[PackedEdge],
        sub_start: &[usize],
        codec: EdgeCodec,
    ) -> PredRange<S> {
        use rayon::prelude::*;
        let mut offsets = crate::work::huge::filled(len + 1, 0u32);
        let mut sources = crate::work::huge::filled(grouped.len(), S::default());
        let src = SharedSlice(sources.as_mut_ptr());
        offsets[1..]
            .par_chunks_mut(1 << SUB_BITS)
            .enumerate()
            // Each worker's counters (256 KiB) are kept from one sub-range to the next: a
            // fresh vector a sub-range cost its pages faulted in and zeroed every time.
            .for_each_init(Vec::new, |fill, (s, offs)| {
                let lo = sub_start[s];
                let group = &grouped[lo..sub_start[s + 1]];
                let base = s << SUB_BITS;
                // offs[t - base] counts targets, then becomes the end offset of each target.
                fill.clear();
                fill.resize(offs.len(), 0u32);
                for &e in group {
                    fill[codec.target(e) - base] += 1;
                }
                let mut running = lo as u32;
                for (i, f) in fill.iter_mut().enumerate() {
                    let n = *f;
                    *f = running;
                    running += n;
                    offs[i] = running;
                }
                for &e in group {
                    let t = codec.target(e) - base;
                    // SAFETY: each sub-range writes only its own slots lo..hi of `sources`.
                    unsafe { src.write(fill[t] as usize, S::from_u64(codec.source(e))) };
                    fill[t] += 1;
                }
            });
        PredRange { offsets, sources }
    }

    /// A borrowed view of the lists.
    pub fn view(&self) -> PredView<'_, S> {
        PredView {
            offsets: Offsets::Plain(&self.offsets),
            sources: &self.sources,
        }
    }

    /// Checksum of the bytes [`PredRange::write`] writes.
    pub fn checksum(&self) -> Checksum {
        let mut hasher = Hasher::new();
        hasher.update(&head(&self.offsets, std::mem::size_of::<S>()));
        hasher.update(S::bytes(&self.sources));
        hasher.finish()
    }

    /// Writes the range to `path` by rename, in the layout of [`crate::work::predfile`], synced
    /// when `sync` is set (else the checkpoint that first refers to it syncs it); returns the
    /// checksum of its bytes.
    pub fn write(&self, path: &Path, sync: bool) -> Result<Checksum> {
        let head = head(&self.offsets, std::mem::size_of::<S>());
        let sources = S::bytes(&self.sources);
        bawo_store::write_renamed(path, sync, |w: &mut dyn Write| {
            w.write_all(&head)?;
            w.write_all(sources)
        })?;
        let mut hasher = Hasher::new();
        hasher.update(&head);
        hasher.update(sources);
        Ok(hasher.finish())
    }
}

/// Splits a mapped predecessor file of a range of `len` positions into a view.
pub fn view_file<'a, S: Source>(
    path: &Path,
    bytes: &'a [u8],
    len: usize,
) -> Result<PredView<'a, S>> {
    let (offsets, sources) =
        crate::work::predfile::parse(path, bytes, len, std::mem::size_of::<S>())?;
    Ok(PredView {
        offsets,
        sources: S::words(path, sources)?,
    })
}

/// One range's predecessor lists in the width its tier's [`EdgeCodec`] chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Preds {
    /// Keys in 8 bits.
    Byte(PredRange<u8>),
    /// Keys in 16 bits.
    Pair(PredRange<U16>),
    /// Keys in 24 bits.
    Short(PredRange<U24>),
    /// Sources (or keys) in 32 bits.
    Narrow(PredRange<u32>),
    /// Sources in 40 bits.
    Wide(PredRange<U40>),
}

/// A borrowed [`Preds`].
#[derive(Clone, Copy, Debug)]
pub enum PredsView<'a> {
    /// Keys in 8 bits.
    Byte(PredView<'a, u8>),
    /// Keys in 16 bits.
    Pair(PredView<'a, U16>),
    /// Keys in 24 bits.
    Short(PredView<'a, U24>),
    /// Sources (or keys) in 32 bits.
    Narrow(PredView<'a, u32>),
    /// Sources in 40 bits.
    Wide(PredView<'a, U40>),
}

/// `$make` with `$s` the codec's source type, wrapped in the [`Preds`] variant of that width.
macro_rules! in_width {
    ($codec:expr, $s:ident => $make:expr) => {
        match $codec.source_bytes() {
            1 => {
                type $s = u8;
                Preds::Byte($make)
            }
            2 => {
                type $s = U16;
                Preds::Pair($make)
            }
            3 => {
                type $s = U24;
                Preds::Short($make)
            }
            4 => {
                type $s = u32;
                Preds::Narrow($make)
            }
            _ => {
                type $s = U40;
                Preds::Wide($make)
            }
        }
    };
}

impl Preds {
    /// [`PredRange::build`] in the codec's width.
    pub fn build(len: usize, edges: &[PackedEdge], codec: EdgeCodec) -> Result<Preds> {
        Ok(in_width!(codec, S => PredRange::<S>::build(len, edges, codec)?))
    }

    /// [`PredRange::build_streamed`] in the codec's width.
    pub fn build_streamed(len: usize, codec: EdgeCodec, edges: EdgeSource<'_>) -> Result<Preds> {
        Ok(in_width!(codec, S => PredRange::<S>::build_streamed(len, codec, edges)?))
    }

    /// [`PredRange::build_parts`] in the codec's width.
    pub fn build_parts(
        len: usize,
        codec: EdgeCodec,
        parts: usize,
        read: PartSource<'_>,
    ) -> Result<Preds> {
        Ok(in_width!(codec, S => PredRange::<S>::build_parts(len, codec, parts, read)?))
    }

    /// A borrowed view of the lists.
    pub fn view(&self) -> PredsView<'_> {
        match self {
            Preds::Byte(p) => PredsView::Byte(p.view()),
            Preds::Pair(p) => PredsView::Pair(p.view()),
            Preds::Short(p) => PredsView::Short(p.view()),
            Preds::Narrow(p) => PredsView::Narrow(p.view()),
            Preds::Wide(p) => PredsView::Wide(p.view()),
        }
    }

    /// Checksum of the lists as written.
    pub fn checksum(&self) -> Checksum {
        match self {
            Preds::Byte(p) => p.checksum(),
            Preds::Pair(p) => p.checksum(),
            Preds::Short(p) => p.checksum(),
            Preds::Narrow(p) => p.checksum(),
            Preds::Wide(p) => p.checksum(),
        }
    }

    /// Writes the lists to `path` (synced if `sync`), returning their checksum.
    pub fn write(&self, path: &Path, sync: bool) -> Result<Checksum> {
        match self {
            Preds::Byte(p) => p.write(path, sync),
            Preds::Pair(p) => p.write(path, sync),
            Preds::Short(p) => p.write(path, sync),
            Preds::Narrow(p) => p.write(path, sync),
            Preds::Wide(p) => p.write(path, sync),
        }
    }
}

/// [`view_file`] in the codec's width.
pub fn view_preds_file<'a>(
    path: &Path,
    bytes: &'a [u8],
    len: usize,
    codec: EdgeCodec,
) -> Result<PredsView<'a>> {
    Ok(match codec.source_bytes() {
        1 => PredsView::Byte(view_file(path, bytes, len)?),
        2 => PredsView::Pair(view_file(path, bytes, len)?),
        3 => PredsView::Short(view_file(path, bytes, len)?),
        4 => PredsView::Narrow(view_file(path, bytes, len)?),
        _ => PredsView::Wide(view_file(path, bytes, len)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bawo_store::bytes::u64_bytes;

    /// The narrow codec of ranges of 2^30 positions.
    fn n() -> EdgeCodec {
        EdgeCodec::narrow(30)
    }

    #[test]
    fn counting_sort_groups_sources_by_target() {
        let edges = [
            n().pack(2, 10),
            n().pack(0, 11),
            n().pack(2, 12),
            n().pack(3, 13),
        ];
        let r = PredRange::<u32>::build(4, &edges, n()).unwrap();
        let v = r.view();
        assert_eq!(v.preds(0), &[11]);
        assert_eq!(v.preds(1), &[] as &[u32]);
        assert_eq!(v.preds(2), &[10, 12]);
        assert_eq!(v.preds(3), &[13]);
    }

    #[test]
    fn large_builds_agree_with_a_plain_counting_sort() {
        // Several sub-ranges and input chunks, targets in arbitrary order.
        let len = 300_000usize;
        let edges: Vec<u64> = (0..1_000_000u64)
            .map(|i| n().pack((i * 7919) % len as u64, i % 65_537))
            .collect();
        let got = PredRange::<u32>::build(len, &edges, n()).unwrap();
        let mut want: Vec<Vec<u32>> = vec![Vec::new(); len];
        for &e in &edges {
            want[(e >> 32) as usize].push(e as u32);
        }
        for t in (0..len).step_by(997) {
            let mut g = got.view().preds(t).to_vec();
            g.sort_unstable();
            want[t].sort_unstable();
            assert_eq!(g, want[t], "target {t}");
        }
        assert_eq!(got.offsets[len] as usize, edges.len());
        // Streamed from a source read twice: the same lists in the same order.
        let streamed = PredRange::<u32>::build_streamed(len, n(), &mut |f| {
            edges.chunks(1000).for_each(&mut *f);
            Ok(())
        })
        .unwrap();
        assert_eq!(streamed, got);
        // A source that gives other edges the second time is refused, not trusted.
        let mut reads = 0;
        let changed = PredRange::<u32>::build_streamed(len, n(), &mut |f| {
            reads += 1;
            f(&edges[reads - 1..]);
            Ok(())
        });
        assert!(changed.is_err());
        // In parts read side by side (uneven, one empty): the same lists in the same order.
        let cuts = [0, 1, 5000, 5000, 77_777, edges.len()];
        let read = |k: usize, f: &mut dyn FnMut(&[PackedEdge])| -> Result<()> {
            edges[cuts[k]..cuts[k + 1]].chunks(999).for_each(&mut *f);
            Ok(())
        };
        let parts = PredRange::<u32>::build_parts(len, n(), cuts.len() - 1, &read).unwrap();
        assert_eq!(parts, got);
        // A part that gives other edges the second time is refused.
        let reads = std::sync::atomic::AtomicUsize::new(0);
        let shifting = |k: usize, f: &mut dyn FnMut(&[PackedEdge])| -> Result<()> {
            let n = reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            f(&edges[cuts[k] + usize::from(k == 3 && n >= 5)..cuts[k + 1]]);
            Ok(())
        };
        assert!(PredRange::<u32>::build_parts(len, n(), cuts.len() - 1, &shifting).is_err());
    }

    /// Re-aligns file bytes through a `u64` buffer, as a page-aligned map would be.
    fn aligned(bytes: &[u8]) -> Vec<u64> {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        u64_bytes_mut(&mut words)[..bytes.len()].copy_from_slice(bytes);
        words
    }

    fn u64_bytes_mut(words: &mut [u64]) -> &mut [u8] {
        // SAFETY: u64 has no padding and every byte pattern is valid.
        unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, words.len() * 8) }
    }

    #[test]
    fn ranges_round_trip_through_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("preds");
        let r = PredRange::<u32>::build(3, &[n().pack(1, 7), n().pack(1, 8)], n()).unwrap();
        r.write(&p, false).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        // The narrow layout: kind and count, one block (two block offsets, one word of list
        // lengths in 4 bits), then the sources.
        assert_eq!(bytes.len(), 8 + 2 * 4 + 8 + 4 * 2);
        assert_eq!(r.checksum(), Checksum::of(&bytes));
        let words = aligned(&bytes);
        let all = &u64_bytes(&words)[..bytes.len()];
        let v = view_file::<u32>(&p, all, 3).unwrap();
        assert_eq!(v.preds(1), &[7, 8]);
        assert!(view_file::<u32>(&p, &all[..8], 3).is_err());
    }

    #[test]
    fn five_byte_sources_round_trip_every_index_below_2_40() {
        for v in [
            0u64,
            1,
            255,
            256,
            (1 << 32) - 1,
            1 << 32,
            (1 << 39) + 3,
            WIDE_LIMIT - 1,
        ] {
            assert_eq!(U40::from_u64(v).get(), v);
        }
        let words = [U40::from_u64(1 << 33), U40::from_u64(7)];
        let bytes = U40::bytes(&words);
        assert_eq!(bytes, &[0, 0, 0, 0, 2, 7, 0, 0, 0, 0]);
        let p = Path::new("preds-0.bin");
        assert_eq!(U40::words(p, bytes).unwrap(), &words);
        // At any alignment (a map's sources follow unpadded offsets).
        let mut shifted = vec![9u8];
        shifted.extend_from_slice(bytes);
        assert_eq!(U40::words(p, &shifted[1..]).unwrap(), &words);
        assert!(U40::words(p, &bytes[..9]).is_err());
    }

    #[test]
    fn wide_ranges_build_and_round_trip_through_files() {
        let c = EdgeCodec::new(true, 24);
        let big = [(1u64 << 40) - 1, 1 << 32, (1 << 32) - 1, 7, (1 << 39) + 3];
        for len in [3usize, 4] {
            let edges: Vec<u64> = big
                .iter()
                .enumerate()
                .map(|(i, &s)| c.pack((i % len) as u64, s))
                .collect();
            let r = Preds::build(len, &edges, c).unwrap();
            let Preds::Wide(w) = &r else {
                panic!("a wide codec builds wide lists")
            };
            let lists = |v: PredView<'_, U40>, t: usize| -> Vec<u64> {
                v.preds(t).iter().map(|s| s.get()).collect()
            };
            for t in 0..len {
                let want: Vec<u64> = big
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % len == t)
                    .map(|(_, &s)| s)
                    .collect();
                assert_eq!(lists(w.view(), t), want, "target {t}");
            }
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("preds");
            let sum = r.write(&p, true).unwrap();
            let bytes = std::fs::read(&p).unwrap();
            // Nibbled offsets (kind, count, two block offsets, a word of 4-bit lengths), then
            // five bytes a source with no padding.
            assert_eq!(bytes.len(), 8 + 2 * 4 + 8 + 5 * big.len());
            assert_eq!(sum, Checksum::of(&bytes));
            let words = aligned(&bytes);
            let all = &u64_bytes(&words)[..bytes.len()];
            match view_preds_file(&p, all, len, c).unwrap() {
                PredsView::Wide(v) => {
                    assert_eq!(v.sources, &w.sources[..]);
                    for t in 0..len {
                        assert_eq!(lists(v, t), lists(w.view(), t));
                    }
                }
                _ => panic!("read back in another width"),
            }
            // A narrow reading of a wide file does not pass for a valid one.
            assert!(view_preds_file(&p, all, len, EdgeCodec::narrow(24)).is_err());
        }
    }

    #[test]
    fn three_byte_keys_go_through_files_at_their_width() {
        // Keys at the edges of 24 bits, in a narrow and a wide tier's codec.
        for c in [EdgeCodec::narrow(20), EdgeCodec::new(true, 20)] {
            let c = c.with_keys(3);
            assert_eq!(c.source_bytes(), 3);
            let keys = [0u64, 1, (1 << 24) - 1, 1 << 23, 77];
            let edges: Vec<u64> = keys
                .iter()
                .enumerate()
                .map(|(i, &k)| c.pack(i as u64 % 3, k))
                .collect();
            let p = Preds::build(3, &edges, c).unwrap();
            let Preds::Short(r) = &p else {
                panic!("keys of 3 bytes are stored in 3")
            };
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("preds");
            let sum = p.write(&path, true).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(bytes.len(), 8 + 2 * 4 + 8 + 3 * keys.len());
            assert_eq!(sum, Checksum::of(&bytes));
            let PredsView::Short(v) = view_preds_file(&path, &bytes, 3, c).unwrap() else {
                panic!("read back in another width")
            };
            for t in 0..3 {
                let got: Vec<u64> = v.preds(t).iter().map(|k| k.get()).collect();
                let want: Vec<u64> = r.view().preds(t).iter().map(|k| k.get()).collect();
                let orig: Vec<u64> = keys
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % 3 == t)
                    .map(|(_, &k)| k)
                    .collect();
                assert_eq!((&got, &want), (&orig, &orig), "target {t}");
            }
            // Read as four-byte sources, the file is refused.
            assert!(view_preds_file(&path, &bytes, 3, c.with_keys(0).with_keys(4)).is_err());
        }
    }
}
