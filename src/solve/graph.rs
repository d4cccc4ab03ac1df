//! The in-tier predecessor graph, built from edges bucketed by target range.
//!
//! The successor pass emits each in-tier edge `source -> target` once. Scattering those into
//! one predecessor array would mean random writes across the whole tier, so edges are first
//! appended sequentially to the bucket of the target's range (`2^range_bits` positions); each
//! range's predecessor lists are then built on their own by a counting sort whose counters fit
//! in cache ([`PredGraph::build`]). The same bucketing is what lets an out-of-core run build
//! one range at a time.

use std::sync::Mutex;

use rayon::prelude::*;

/// An edge in a bucket: the target's offset inside its range (high half) and the source.
pub type PackedEdge = u64;

#[inline]
pub fn pack_edge(target_local: u32, source: u32) -> PackedEdge {
    ((target_local as u64) << 32) | source as u64
}

/// Edges collected per target range, filled concurrently through [`EdgeSink`]s.
pub struct EdgeBuckets {
    range_bits: u32,
    buckets: Vec<Mutex<Vec<PackedEdge>>>,
}

/// Edges a worker buffers per range before appending them to the shared bucket.
const SINK_FLUSH: usize = 8192;

impl EdgeBuckets {
    pub fn new(tier_size: u64, range_bits: u32) -> Self {
        let ranges = range_count(tier_size, range_bits);
        EdgeBuckets {
            range_bits,
            buckets: (0..ranges).map(|_| Mutex::new(Vec::new())).collect(),
        }
    }

    /// A per-worker buffer that appends to these buckets.
    pub fn sink(&self) -> EdgeSink<'_> {
        EdgeSink {
            owner: self,
            buffers: (0..self.buckets.len()).map(|_| Vec::new()).collect(),
        }
    }

    pub fn into_inner(self) -> Vec<Vec<PackedEdge>> {
        self.buckets
            .into_iter()
            .map(|m| m.into_inner().expect("edge bucket lock poisoned"))
            .collect()
    }
}

/// A worker's buffered view of [`EdgeBuckets`]; flushes on drop.
pub struct EdgeSink<'a> {
    owner: &'a EdgeBuckets,
    buffers: Vec<Vec<PackedEdge>>,
}

impl EdgeSink<'_> {
    #[inline]
    pub fn push(&mut self, source: u32, target: u32) {
        let bits = self.owner.range_bits;
        let r = (target >> bits) as usize;
        let local = target & ((1u32 << bits) - 1);
        let buf = &mut self.buffers[r];
        buf.push(pack_edge(local, source));
        if buf.len() >= SINK_FLUSH {
            self.flush_range(r);
        }
    }

    fn flush_range(&mut self, r: usize) {
        let buf = &mut self.buffers[r];
        if buf.is_empty() {
            return;
        }
        self.owner.buckets[r]
            .lock()
            .expect("edge bucket lock poisoned")
            .extend_from_slice(buf);
        buf.clear();
    }
}

impl Drop for EdgeSink<'_> {
    fn drop(&mut self) {
        for r in 0..self.buffers.len() {
            self.flush_range(r);
        }
    }
}

pub fn range_count(tier_size: u64, range_bits: u32) -> usize {
    tier_size.div_ceil(1u64 << range_bits).max(1) as usize
}

/// Predecessor lists of one range in compressed sparse row form.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct PredRange {
    /// `offsets[t]..offsets[t + 1]` indexes `sources` for local target `t`.
    pub offsets: Vec<u32>,
    pub sources: Vec<u32>,
}

impl PredRange {
    /// Counting sort of one bucket's edges by local target.
    pub fn build(len: usize, edges: &[PackedEdge]) -> PredRange {
        assert!(
            edges.len() < u32::MAX as usize,
            "more than 2^32 edges into one range"
        );
        let mut offsets = vec![0u32; len + 1];
        for &e in edges {
            offsets[(e >> 32) as usize + 1] += 1;
        }
        for i in 0..len {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut sources = vec![0u32; edges.len()];
        for &e in edges {
            let t = (e >> 32) as usize;
            sources[fill[t] as usize] = e as u32;
            fill[t] += 1;
        }
        PredRange { offsets, sources }
    }

    #[inline]
    pub fn preds(&self, local: usize) -> &[u32] {
        &self.sources[self.offsets[local] as usize..self.offsets[local + 1] as usize]
    }
}

/// Predecessor lists of a whole tier, one [`PredRange`] per range.
pub struct PredGraph {
    range_bits: u32,
    ranges: Vec<PredRange>,
}

impl PredGraph {
    /// Builds every range from its bucket, ranges in parallel; buckets are freed as they go.
    pub fn build(tier_size: u64, range_bits: u32, buckets: Vec<Vec<PackedEdge>>) -> PredGraph {
        let ranges = buckets
            .into_par_iter()
            .enumerate()
            .map(|(r, edges)| {
                let start = (r as u64) << range_bits;
                let len = (tier_size - start).min(1u64 << range_bits) as usize;
                PredRange::build(len, &edges)
            })
            .collect();
        PredGraph { range_bits, ranges }
    }

    #[inline]
    pub fn preds(&self, target: u32) -> &[u32] {
        let r = (target >> self.range_bits) as usize;
        let local = (target & ((1u32 << self.range_bits) - 1)) as usize;
        self.ranges[r].preds(local)
    }

    pub fn edge_count(&self) -> u64 {
        self.ranges.iter().map(|r| r.sources.len() as u64).sum()
    }

    pub fn bytes(&self) -> u64 {
        self.ranges
            .iter()
            .map(|r| 4 * (r.offsets.len() + r.sources.len()) as u64)
            .sum()
    }
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
        let r = PredRange::build(4, &edges);
        assert_eq!(r.preds(0), &[11]);
        assert_eq!(r.preds(1), &[] as &[u32]);
        assert_eq!(r.preds(2), &[10, 12]);
        assert_eq!(r.preds(3), &[13]);
    }

    #[test]
    fn sinks_route_edges_to_their_range() {
        let buckets = EdgeBuckets::new(100, 4);
        {
            let mut s = buckets.sink();
            s.push(1, 5);
            s.push(2, 17);
            s.push(3, 99);
        }
        let graph = PredGraph::build(100, 4, buckets.into_inner());
        assert_eq!(graph.preds(5), &[1]);
        assert_eq!(graph.preds(17), &[2]);
        assert_eq!(graph.preds(99), &[3]);
        assert_eq!(graph.edge_count(), 3);
    }
}
