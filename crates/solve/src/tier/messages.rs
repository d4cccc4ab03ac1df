//! Messages of one attractor level, per target range: held in memory up to a budget, then
//! spilled to files in the tier's work directory (an out-of-core level can produce more
//! messages than the budget allows).

use std::path::{Path, PathBuf};

use crate::work::WorkFile;
use bawo_games::error::{Error, Result};
use bawo_store::bytes::u32_bytes;

/// Level messages per target range: in memory up to a budget, then spilled to files. Each
/// range's messages are kept in the emitting workers' batches, as
/// [`crate::tier::attractor::apply_batches`] takes them: joining them first copied every message
/// twice (a fifth of an out-of-core level's time went to the copies and their fresh pages).
pub struct Messages {
    mem: Vec<Vec<Vec<u32>>>,
    spilled: Vec<Option<PathBuf>>,
    held: u64,
    budget: u64,
    dir: PathBuf,
}

impl Messages {
    /// Buffers for `ranges` ranges in `budget` bytes, spilling to `dir`.
    pub fn new(ranges: usize, budget: u64, dir: &Path) -> Self {
        Messages {
            mem: vec![Vec::new(); ranges],
            spilled: vec![None; ranges],
            held: 0,
            budget,
            dir: dir.to_path_buf(),
        }
    }

    /// Adds batches of messages to range `r` (empty ones are dropped; the others are trimmed
    /// to their length, which is what the budget counts).
    pub fn add(&mut self, r: usize, batches: Vec<Vec<u32>>) -> Result<()> {
        for mut b in batches.into_iter().filter(|b| !b.is_empty()) {
            b.shrink_to_fit();
            self.held += 4 * b.len() as u64;
            self.mem[r].push(b);
        }
        if self.held > self.budget {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<()> {
        use std::io::Write;
        for r in 0..self.mem.len() {
            if self.mem[r].is_empty() {
                continue;
            }
            let path = self.dir.join(WorkFile::Messages(r).name());
            // The first spill of a level starts the file afresh: a run killed in the middle
            // of a level leaves its spill files behind, and their messages must not be
            // replayed by the run that resumes it.
            let mut f = bawo_store::open_no_follow()
                .create(true)
                .write(true)
                .append(self.spilled[r].is_some())
                .truncate(self.spilled[r].is_none())
                .open(&path)
                .map_err(|e| Error::io(&path, e))?;
            let bytes: usize = self.mem[r].iter().map(|b| 4 * b.len()).sum();
            bawo_store::fault::check_write(bytes, &path)?;
            for b in &self.mem[r] {
                f.write_all(u32_bytes(b)).map_err(|e| Error::io(&path, e))?;
            }
            self.spilled[r] = Some(path);
            self.mem[r] = Vec::new();
        }
        self.held = 0;
        Ok(())
    }

    /// Range `r`'s messages in batches: what was spilled (one batch), then what is held.
    pub fn take(&mut self, r: usize) -> Result<Vec<Vec<u32>>> {
        let mut out = Vec::new();
        if let Some(path) = self.spilled[r].take() {
            let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
            out.push(
                bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
                    .collect(),
            );
            let _ = std::fs::remove_file(&path);
        }
        out.append(&mut self.mem[r]);
        Ok(out)
    }

    pub(crate) fn cleanup(&mut self) {
        for p in self.spilled.iter_mut().filter_map(Option::take) {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Messages;

    #[test]
    fn spilled_messages_ignore_a_killed_runs_spill_files() {
        let dir = tempfile::tempdir().unwrap();
        // What a run killed between a spill and the end of its level leaves behind.
        std::fs::write(dir.path().join("msgs-0.tmp"), [7u8; 64]).unwrap();
        std::fs::write(dir.path().join("msgs-1.tmp"), [9u8; 64]).unwrap();
        // A budget of nothing spills at every addition.
        let mut m = Messages::new(2, 0, dir.path());
        m.add(0, vec![vec![1, 2]]).unwrap();
        m.add(0, vec![vec![3], vec![]]).unwrap();
        m.add(1, vec![vec![4]]).unwrap();
        assert_eq!(m.take(0).unwrap(), vec![vec![1, 2, 3]]);
        assert_eq!(m.take(1).unwrap(), vec![vec![4]]);
        m.cleanup();
    }

    #[test]
    fn held_batches_come_back_after_spilled_ones_in_order() {
        let dir = tempfile::tempdir().unwrap();
        // Room for four messages: the third addition spills what is held.
        let mut m = Messages::new(2, 16, dir.path());
        m.add(0, vec![vec![1, 2], vec![3]]).unwrap();
        m.add(1, vec![vec![9]]).unwrap();
        m.add(0, vec![vec![4], vec![5, 6]]).unwrap();
        m.add(0, vec![vec![7]]).unwrap();
        assert_eq!(m.take(0).unwrap(), vec![vec![1, 2, 3, 4, 5, 6], vec![7]]);
        assert_eq!(m.take(1).unwrap(), vec![vec![9]]);
        assert!(m.take(0).unwrap().is_empty());
        m.cleanup();
    }
}
