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
//! handoff waits until its bytes are written, and its lists come back
//! ([`PredWriter::take_written`]) for the next build to fill their vectors again
//! ([`crate::work::graph::BuildSpare`]). The file's sync goes on behind the handoff (a
//! checkpoint waits for it, [`PredWriter::settle_older`]): waited for at every handoff, the
//! writer's whole work lay on the phase's path, and n = 4's 18-seed tier waited 1.4 s of its
//! 13.7 s phase at the handoffs, with one core idle.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

use crate::work::graph::Preds;
use bawo_games::error::{Error, Result};
use bawo_store::Checksum;

/// Files handed over and still syncing beyond which a handoff waits for the oldest: each is
/// a thread and a temporary file, never lists.
const MOST_SYNCING: usize = 4;

/// A range handed to a writer thread: its lists come back once its file is written and
/// hashed; the thread ends once the file is synced and renamed, with its checksum.
struct Handed {
    r: usize,
    lists: Option<Receiver<Preds>>,
    thread: JoinHandle<Result<Checksum>>,
}

/// The ranges handed over and not yet joined, and the lists last written.
#[derive(Default)]
pub struct PredWriter {
    /// Oldest first: the newest may still be writing, the ones before it syncing.
    pending: VecDeque<Handed>,
    written: Option<Preds>,
}

impl PredWriter {
    /// Starts writing range `r`'s lists to `path` (synced) once the range handed before has
    /// its bytes written; returns the ranges whose files are done since the last call, each
    /// with its file's checksum.
    pub fn start(
        &mut self,
        r: usize,
        preds: Preds,
        path: PathBuf,
    ) -> Result<Vec<(usize, Checksum)>> {
        self.take_back_newest();
        let mut done = Vec::new();
        while self
            .pending
            .front()
            .is_some_and(|h| h.thread.is_finished() || self.pending.len() > MOST_SYNCING)
        {
            done.push(self.join_oldest()?);
        }
        let (give_back, lists) = sync_channel(1);
        let thread = std::thread::Builder::new()
            .name(format!("preds-{r}"))
            .spawn(move || {
                let (file, sum) = preds.write_unrenamed(&path)?;
                // The lists are done with: the next build fills them while the disk syncs.
                let _ = give_back.send(preds);
                file.rename(true)?;
                Ok(sum)
            })
            .map_err(|e| Error::Internal(format!("cannot start a writer thread: {e}")))?;
        self.pending.push_back(Handed {
            r,
            lists: Some(lists),
            thread,
        });
        Ok(done)
    }

    /// Waits until every range handed over but the last is synced, for a checkpoint that
    /// names them; returns those not returned before, with their checksums.
    pub fn settle_older(&mut self) -> Result<Vec<(usize, Checksum)>> {
        let mut done = Vec::new();
        while self.pending.len() > 1 {
            done.push(self.join_oldest()?);
        }
        Ok(done)
    }

    /// Waits until every range handed over is synced; returns those not returned before.
    pub fn finish(&mut self) -> Result<Vec<(usize, Checksum)>> {
        self.take_back_newest();
        let mut done = Vec::new();
        while !self.pending.is_empty() {
            done.push(self.join_oldest()?);
        }
        Ok(done)
    }

    /// The lists last written, once: their file is done with them.
    pub fn take_written(&mut self) -> Option<Preds> {
        self.written.take()
    }

    /// Takes back the newest range's lists, waiting until its bytes are written (a writer
    /// that failed first gives none; joining it says why).
    fn take_back_newest(&mut self) {
        let Some(newest) = self.pending.back_mut() else {
            return;
        };
        if let Some(lists) = newest.lists.take().and_then(|rx| rx.recv().ok()) {
            self.written = Some(lists);
        }
    }

    /// Joins the oldest range handed over: its file synced, or the writer's error.
    fn join_oldest(&mut self) -> Result<(usize, Checksum)> {
        let h = self.pending.pop_front().expect("a range handed over");
        let sum = h.thread.join().map_err(|_| {
            Error::Internal(format!(
                "the writer of range {}'s predecessors panicked",
                h.r
            ))
        })??;
        Ok((h.r, sum))
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
        let ranges: Vec<Preds> = (0..12u64)
            .map(|r| {
                let edges: Vec<(u64, u64)> = (0..r * 5).map(|i| (i % 7, (i * r) % 9)).collect();
                preds(9 + r as usize, &edges)
            })
            .collect();
        let sums: Vec<Checksum> = ranges
            .iter()
            .enumerate()
            .map(|(r, p)| {
                p.write(&dir.path().join(format!("ref-{r}")), false)
                    .unwrap()
            })
            .collect();
        let path = |r: usize| dir.path().join(format!("p-{r}"));
        let mut got = Vec::new();
        let mut back = Vec::new();
        for (r, p) in ranges.clone().into_iter().enumerate() {
            got.extend(w.start(r, p, path(r)).unwrap());
            back.extend(w.take_written());
            if r % 3 == 2 {
                // As before a checkpoint: every range before this one is done, its file there.
                got.extend(w.settle_older().unwrap());
                let mut reported: Vec<usize> = got.iter().map(|&(r, _)| r).collect();
                reported.sort_unstable();
                assert_eq!(reported, (0..r).collect::<Vec<_>>());
                assert!((0..r).all(|k| path(k).exists()));
            }
        }
        got.extend(w.finish().unwrap());
        back.extend(w.take_written());
        assert!(w.finish().unwrap().is_empty());
        assert!(w.take_written().is_none());
        // Each range's lists come back once written, in order, for the next build's buffers.
        assert_eq!(back, ranges);
        got.sort_unstable_by_key(|&(r, _)| r);
        assert_eq!(got, sums.into_iter().enumerate().collect::<Vec<_>>());
        for r in 0..ranges.len() {
            let a = std::fs::read(path(r)).unwrap();
            let b = std::fs::read(dir.path().join(format!("ref-{r}"))).unwrap();
            assert_eq!(a, b, "range {r}");
        }
        // Only the files: no temporary file is left behind.
        let names = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(names, 2 * ranges.len());
    }

    #[test]
    fn a_failed_write_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = PredWriter::default();
        let missing = dir.path().join("no-such-folder").join("p-0");
        assert!(w.start(0, preds(4, &[(0, 1)]), missing).unwrap().is_empty());
        assert!(w.finish().is_err());
    }
}
