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

/// Buffers one range's build leaves to the next: the grouped edges, and lists already written
/// whose vectors the next build of the same width fills again.
///
/// A range's buffers are hundreds of megabytes (the grouped edges 8 bytes each), far above
/// the allocator's threshold for mapping fresh memory, so each build mapped them anew and
/// the kernel zeroed every page before the build wrote it: on n = 4, 17 seeds that zeroing
/// was 40% of the predecessor phase's processor time. Built in turn, the ranges reuse them.
#[derive(Debug, Default)]
pub struct BuildSpare {
    /// Grouped edges, as long as the largest range built so far needed.
    grouped: Vec<PackedEdge>,
    /// A range's lists whose file is written, their vectors for the next build.
    lists: Option<Preds>,
}

impl BuildSpare {
    /// Hands over lists whose file is written: the next build reuses their vectors.
    pub fn give(&mut self, lists: Preds) {
        self.lists = Some(lists);
    }
}

/// A vector of `n` elements that a build then writes every one of: `old` cut or grown to
/// `n` where its capacity holds it (no fresh pages to fault in and zero), else a new one.
fn reused<T: Copy + Send + Sync>(old: Option<Vec<T>>, n: usize, value: T) -> Vec<T> {
    match old {
        Some(mut v) if v.capacity() >= n => {
            v.resize(n, value);
            v
        }
        old => {
            drop(old);
            crate::work::huge::filled(n, value)
        }
    }
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
    ///
    /// `grouped` is a buffer the build may reuse, and `old` lists whose vectors it may fill
    /// ([`BuildSpare`]): the result is the same with or without them.
    pub fn build_parts(
        len: usize,
        codec: EdgeCodec,
        parts: usize,
        read: PartSource<'_>,
        grouped: &mut Vec<PackedEdge>,
        old: Option<PredRange<S>>,
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
        // Every slot below `total` is written below (each part checks it wrote its own).
        if grouped.len() < total as usize {
            *grouped = reused(Some(std::mem::take(grouped)), total as usize, 0);
        }
        let grouped = &mut grouped[..total as usize];
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
        Ok(Self::sort_groups_into(len, grouped, &sub_start, codec, old))
    }

    /// Counting-sorts each sub-range of `grouped` (edges whose targets lie in sub-range `s`
    /// are `grouped[sub_start[s]..sub_start[s + 1]]`) by target, in parallel.
    fn sort_groups(
        len: usize,
        grouped: &[PackedEdge],
        sub_start: &[usize],
        codec: EdgeCodec,
    ) -> PredRange<S> {
        Self::sort_groups_into(len, grouped, sub_start, codec, None)
    }

    /// [`PredRange::sort_groups`] into `old`'s vectors where it has them: every offset after
    /// the first and every source is written, so what they held does not matter.
    fn sort_groups_into(
        len: usize,
        grouped: &[PackedEdge],
        sub_start: &[usize],
        codec: EdgeCodec,
        old: Option<PredRange<S>>,
    ) -> PredRange<S> {
        use rayon::prelude::*;
        let (old_offsets, old_sources) = old.map(|o| (o.offsets, o.sources)).unzip();
        let mut offsets = reused(old_offsets, len + 1, 0u32);
        offsets[0] = 0;
        let mut sources = reused(old_sources, grouped.len(), S::default());
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
        let (file, sum) = self.write_unrenamed(path)?;
        file.rename(sync)?;
        Ok(sum)
    }

    /// [`PredRange::write`] up to the rename: the bytes written and hashed, not yet synced
    /// or renamed, so that the lists can be let go first.
    pub fn write_unrenamed(&self, path: &Path) -> Result<(bawo_store::Unrenamed, Checksum)> {
        let head = head(&self.offsets, std::mem::size_of::<S>());
        let sources = S::bytes(&self.sources);
        let file = bawo_store::write_unrenamed(path, |w: &mut dyn Write| {
            w.write_all(&head)?;
            w.write_all(sources)
        })?;
        let mut hasher = Hasher::new();
        hasher.update(&head);
        hasher.update(sources);
        Ok((file, hasher.finish()))
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

/// The lists of one width out of a [`Preds`], for a build of that width to reuse.
trait ListsOf: Source {
    /// `lists` where they are of this width.
    fn lists_of(lists: Option<Preds>) -> Option<PredRange<Self>>;
}

macro_rules! lists_of {
    ($($s:ty => $variant:ident),*) => {$(
        impl ListsOf for $s {
            fn lists_of(lists: Option<Preds>) -> Option<PredRange<Self>> {
                match lists {
                    Some(Preds::$variant(p)) => Some(p),
                    _ => None,
                }
            }
        }
    )*};
}
lists_of!(u8 => Byte, U16 => Pair, U24 => Short, u32 => Narrow, U40 => Wide);

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

    /// [`PredRange::build_parts`] in the codec's width, reusing `spare`'s buffers.
    pub fn build_parts(
        len: usize,
        codec: EdgeCodec,
        parts: usize,
        read: PartSource<'_>,
        spare: &mut BuildSpare,
    ) -> Result<Preds> {
        let old = spare.lists.take();
        let grouped = &mut spare.grouped;
        Ok(in_width!(codec, S => PredRange::<S>::build_parts(
            len, codec, parts, read, grouped, S::lists_of(old)
        )?))
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
        let (file, sum) = self.write_unrenamed(path)?;
        file.rename(sync)?;
        Ok(sum)
    }

    /// [`Preds::write`] up to the rename ([`PredRange::write_unrenamed`]).
    pub fn write_unrenamed(&self, path: &Path) -> Result<(bawo_store::Unrenamed, Checksum)> {
        match self {
            Preds::Byte(p) => p.write_unrenamed(path),
            Preds::Pair(p) => p.write_unrenamed(path),
            Preds::Short(p) => p.write_unrenamed(path),
            Preds::Narrow(p) => p.write_unrenamed(path),
            Preds::Wide(p) => p.write_unrenamed(path),
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
mod tests;
