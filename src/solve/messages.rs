//! Messages of one attractor level, per target range: held in memory up to a budget, then
//! spilled to files in the tier's work directory (an out-of-core level can produce more
//! messages than the budget allows).

use std::path::{Path, PathBuf};

use super::work::WorkFile;
use crate::error::{Error, Result};
use crate::store::bytes::u32_bytes;

/// Level messages per target range: in memory up to a budget, then spilled to files.
pub struct Messages {
    mem: Vec<Vec<u32>>,
    spilled: Vec<Option<PathBuf>>,
    held: u64,
    budget: u64,
    dir: PathBuf,
}

impl Messages {
    pub fn new(ranges: usize, budget: u64, dir: &Path) -> Self {
        Messages {
            mem: vec![Vec::new(); ranges],
            spilled: vec![None; ranges],
            held: 0,
            budget,
            dir: dir.to_path_buf(),
        }
    }

    pub fn add(&mut self, r: usize, mut m: Vec<u32>) -> Result<()> {
        self.held += 4 * m.len() as u64;
        if self.mem[r].is_empty() {
            self.mem[r] = std::mem::take(&mut m);
        } else {
            self.mem[r].extend_from_slice(&m);
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
            let mut f = crate::store::open_no_follow()
                .create(true)
                .write(true)
                .append(self.spilled[r].is_some())
                .truncate(self.spilled[r].is_none())
                .open(&path)
                .map_err(|e| Error::io(&path, e))?;
            crate::store::fault::check_write(self.mem[r].len() * 4, &path)?;
            f.write_all(u32_bytes(&self.mem[r]))
                .map_err(|e| Error::io(&path, e))?;
            self.spilled[r] = Some(path);
            self.mem[r] = Vec::new();
        }
        self.held = 0;
        Ok(())
    }

    pub fn take(&mut self, r: usize) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        if self.spilled[r].is_none() {
            return Ok(std::mem::take(&mut self.mem[r]));
        }
        if let Some(path) = self.spilled[r].take() {
            let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
            out.extend(
                bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().expect("4"))),
            );
            let _ = std::fs::remove_file(&path);
        }
        out.append(&mut self.mem[r]);
        Ok(out)
    }

    pub fn cleanup(&mut self) {
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
        m.add(0, vec![1, 2]).unwrap();
        m.add(0, vec![3]).unwrap();
        m.add(1, vec![4]).unwrap();
        assert_eq!(m.take(0).unwrap(), vec![1, 2, 3]);
        assert_eq!(m.take(1).unwrap(), vec![4]);
        m.cleanup();
    }
}
