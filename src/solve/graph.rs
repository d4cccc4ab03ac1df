//! The in-tier predecessor graph, built one range at a time from edges bucketed by target.
//!
//! The successor pass appends each in-tier edge `source -> target` to the log of the target's
//! range, sequentially. Each range's predecessor lists are then built on their own by a
//! counting sort whose counters cover only that range ([`PredRange::build`]), and stored as one
//! file: `offsets` (`len + 1` little-endian `u32`) followed by `sources` (`u32`). Nothing ever
//! scatters randomly across the whole tier.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};
use crate::store::bytes::{as_u32, u32_bytes};
use crate::store::checksum::{Checksum, Hasher};

/// An edge in a bucket: the target's offset inside its range (high half) and the source.
pub type PackedEdge = u64;

#[inline]
pub fn pack_edge(target_local: u32, source: u32) -> PackedEdge {
    ((target_local as u64) << 32) | source as u64
}

/// Predecessor lists of one range, owned.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct PredRange {
    /// `offsets[t]..offsets[t + 1]` indexes `sources` for local target `t`.
    pub offsets: Vec<u32>,
    pub sources: Vec<u32>,
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

/// Predecessor lists of one range, borrowed (from a [`PredRange`] or a mapped file).
#[derive(Clone, Copy, Debug)]
pub struct PredView<'a> {
    pub offsets: &'a [u32],
    pub sources: &'a [u32],
}

impl PredView<'_> {
    #[inline]
    pub fn preds(&self, local: usize) -> &[u32] {
        &self.sources[self.offsets[local] as usize..self.offsets[local + 1] as usize]
    }
}

impl PredRange {
    /// Groups one bucket's edges by local target: a parallel radix pass splits them into
    /// sub-ranges whose counters fit in cache, then each sub-range is counting-sorted on its
    /// own. The order of sources within a target follows the bucket's order.
    pub fn build(len: usize, edges: &[PackedEdge]) -> Result<PredRange> {
        use rayon::prelude::*;
        if edges.len() >= u32::MAX as usize {
            return Err(Error::Internal(format!(
                "{} edges into one range; a smaller --mem makes smaller ranges",
                edges.len()
            )));
        }
        const SUB_BITS: u32 = 16;
        let subs = (len >> SUB_BITS) + 1;
        let sub_of = |e: u64| ((e >> 32) as usize) >> SUB_BITS;
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
        let mut starts = vec![vec![0usize; subs]; counts.len()];
        let mut sub_start = vec![0usize; subs + 1];
        let mut at = 0usize;
        for s in 0..subs {
            sub_start[s] = at;
            for (c, h) in counts.iter().enumerate() {
                starts[c][s] = at;
                at += h[s] as usize;
            }
        }
        sub_start[subs] = at;
        // Pass 2: scatter into sub-range order (each chunk writes its own disjoint slots).
        let mut grouped = vec![0u64; edges.len()];
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
        // Pass 3: counting sort inside each sub-range, in parallel.
        let mut offsets = vec![0u32; len + 1];
        let mut sources = vec![0u32; edges.len()];
        let src = SharedSlice(sources.as_mut_ptr());
        offsets[1..]
            .par_chunks_mut(1 << SUB_BITS)
            .enumerate()
            .for_each(|(s, offs)| {
                let lo = sub_start[s];
                let group = &grouped[lo..sub_start[s + 1]];
                let base = s << SUB_BITS;
                // offs[t - base] counts targets, then becomes the end offset of each target.
                let mut fill = vec![0u32; offs.len()];
                for &e in group {
                    fill[((e >> 32) as usize) - base] += 1;
                }
                let mut running = lo as u32;
                for (i, f) in fill.iter_mut().enumerate() {
                    let n = *f;
                    *f = running;
                    running += n;
                    offs[i] = running;
                }
                for &e in group {
                    let t = ((e >> 32) as usize) - base;
                    // SAFETY: each sub-range writes only its own slots lo..hi of `sources`.
                    unsafe { src.write(fill[t] as usize, e as u32) };
                    fill[t] += 1;
                }
            });
        Ok(PredRange { offsets, sources })
    }

    pub fn view(&self) -> PredView<'_> {
        PredView {
            offsets: &self.offsets,
            sources: &self.sources,
        }
    }

    /// Checksum of the bytes [`PredRange::write`] writes.
    pub fn checksum(&self) -> Checksum {
        let mut hasher = Hasher::new();
        hasher.update(u32_bytes(&self.offsets));
        hasher.update(u32_bytes(&self.sources));
        hasher.finish()
    }

    /// Writes the range to `path` by rename (unsynced: the checkpoint that first refers to it
    /// syncs it); returns the checksum of the file's bytes.
    pub fn write(&self, path: &Path) -> Result<Checksum> {
        let (a, b) = (u32_bytes(&self.offsets), u32_bytes(&self.sources));
        crate::store::write_renamed(path, false, |w: &mut dyn Write| {
            w.write_all(a)?;
            w.write_all(b)
        })?;
        Ok(self.checksum())
    }
}

/// Splits a mapped predecessor file of a range of `len` positions into a view.
pub fn view_file<'a>(path: &Path, bytes: &'a [u8], len: usize) -> Result<PredView<'a>> {
    let words = as_u32(path, bytes)?;
    if words.len() < len + 1 {
        return Err(Error::corrupt(
            path,
            "predecessor file shorter than its offsets",
        ));
    }
    let (offsets, sources) = words.split_at(len + 1);
    if offsets[len] as usize != sources.len() {
        return Err(Error::corrupt(
            path,
            "predecessor offsets do not match the lists",
        ));
    }
    Ok(PredView { offsets, sources })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_sort_groups_sources_by_target() {
        let edges = [
            pack_edge(2, 10),
            pack_edge(0, 11),
            pack_edge(2, 12),
            pack_edge(3, 13),
        ];
        let r = PredRange::build(4, &edges).unwrap();
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
            .map(|i| pack_edge(((i * 7919) % len as u64) as u32, (i % 65_537) as u32))
            .collect();
        let got = PredRange::build(len, &edges).unwrap();
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
    }

    #[test]
    fn ranges_round_trip_through_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("preds");
        let r = PredRange::build(3, &[pack_edge(1, 7), pack_edge(1, 8)]).unwrap();
        r.write(&p).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        // Re-align through a u32 buffer, as a map would be.
        let words: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let v = view_file(&p, u32_bytes(&words), 3).unwrap();
        assert_eq!(v.preds(1), &[7, 8]);
        assert!(view_file(&p, u32_bytes(&words[..2]), 3).is_err());
    }
}
