//! Out of core, a range's predecessor file is written and synced on a thread of its own while
//! the next range's lists are built.
//!
//! Writing a range's file (several megabytes into the page cache) and syncing it at the next
//! checkpoint used to happen between two builds, with the solver's workers idle: on n = 4,
//! 14 seeds under `--mem 256M` (74 ranges) the writes took 0.8 s and the checkpoints 1.0 s of
//! the tier's 3.3 s predecessor phase, at 1.1 cores. Handing the finished lists to a writer
//! overlaps both with building, for the price of one range's lists held beside the next
//! range's build, which the memory plan grants only where it fits
//! ([`crate::plan::budget::TierPlan::write_beside`]). One range is written at a time: the next
//! handoff waits for it, and so does every checkpoint, which then finds the files synced.
//! The lists written come back ([`PredWriter::take_written`]), for the next build to fill
//! their vectors again ([`crate::work::graph::BuildSpare`]).

use std::path::PathBuf;
use std::thread::JoinHandle;

use crate::work::graph::Preds;
use bawo_games::error::{Error, Result};
use bawo_store::Checksum;

/// A writer thread: the file's checksum and the lists it wrote.
type Writing = JoinHandle<Result<(Checksum, Preds)>>;

/// The range being written, if any, and the lists last written.
#[derive(Default)]
pub struct PredWriter {
    pending: Option<(usize, Writing)>,
    written: Option<Preds>,
}

impl PredWriter {
    /// Starts writing range `r`'s lists to `path` (synced), after the range before has been
    /// written; returns that range and its file's checksum.
    pub fn start(
        &mut self,
        r: usize,
        preds: Preds,
        path: PathBuf,
    ) -> Result<Option<(usize, Checksum)>> {
        let before = self.finish()?;
        let handle = std::thread::Builder::new()
            .name(format!("preds-{r}"))
            .spawn(move || preds.write(&path, true).map(|sum| (sum, preds)))
            .map_err(|e| Error::Internal(format!("cannot start a writer thread: {e}")))?;
        self.pending = Some((r, handle));
        Ok(before)
    }

    /// Waits for the range being written; returns it and its file's checksum.
    pub fn finish(&mut self) -> Result<Option<(usize, Checksum)>> {
        let Some((r, handle)) = self.pending.take() else {
            return Ok(None);
        };
        let (sum, lists) = handle.join().map_err(|_| {
            Error::Internal(format!("the writer of range {r}'s predecessors panicked"))
        })??;
        self.written = Some(lists);
        Ok(Some((r, sum)))
    }

    /// The lists last written, once: their file is done with them.
    pub fn take_written(&mut self) -> Option<Preds> {
        self.written.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::work::graph::{EdgeCodec, PackedEdge};

    fn preds(len: usize, edges: &[(u64, u64)]) -> Preds {
        let codec = EdgeCodec::new(false, 20);
        let packed: Vec<PackedEdge> = edges.iter().map(|&(s, t)| codec.pack(t, s)).collect();
        Preds::build(len, &packed, codec).unwrap()
    }

    #[test]
    fn each_range_is_reported_once_with_its_files_checksum() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = PredWriter::default();
        let ranges = [
            preds(8, &[(1, 2), (3, 2), (5, 7)]),
            preds(4, &[(0, 1)]),
            preds(6, &[]),
        ];
        let sums: Vec<Checksum> = ranges
            .iter()
            .enumerate()
            .map(|(r, p)| {
                p.write(&dir.path().join(format!("ref-{r}")), false)
                    .unwrap()
            })
            .collect();
        let mut got = Vec::new();
        let mut back = Vec::new();
        for (r, p) in ranges.clone().into_iter().enumerate() {
            got.extend(w.start(r, p, dir.path().join(format!("p-{r}"))).unwrap());
            back.extend(w.take_written());
        }
        got.extend(w.finish().unwrap());
        back.extend(w.take_written());
        assert_eq!(w.finish().unwrap(), None);
        assert!(w.take_written().is_none());
        // Each range's lists come back once written, for the next build's buffers.
        assert_eq!(back, ranges);
        assert_eq!(got, sums.into_iter().enumerate().collect::<Vec<_>>());
        for r in 0..3 {
            let a = std::fs::read(dir.path().join(format!("p-{r}"))).unwrap();
            let b = std::fs::read(dir.path().join(format!("ref-{r}"))).unwrap();
            assert_eq!(a, b, "range {r}");
        }
    }

    #[test]
    fn a_failed_write_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = PredWriter::default();
        let missing = dir.path().join("no-such-folder").join("p-0");
        assert_eq!(w.start(0, preds(4, &[(0, 1)]), missing).unwrap(), None);
        assert!(w.finish().is_err());
    }
}
