//! Messages of one attractor level, per target range: held in memory up to a budget, then
//! spilled to files in the tier's work directory (an out-of-core level can produce more
//! messages than the budget allows).
//!
//! A spill is sorted and written as varint gaps: a busy level of Bao mtaji 11 seeds sends
//! messages to a third of the tier's positions, whose gaps take a byte or so each where the
//! messages took four. The order of a level's messages does not matter: each one only moves
//! its cell towards the same end (a win of the level's depth, a counter one lower), whatever
//! came before.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::work::edgelog::{get_varint, put_varint};
use crate::work::WorkFile;
use bawo_games::error::{Error, Result};

/// Level messages per target range: in memory up to a budget, then spilled to files. Each
/// range's messages are kept in the emitting workers' batches, as
/// [`crate::tier::attractor::apply_batches`] takes them: joining them first copied every message
/// twice (a fifth of an out-of-core level's time went to the copies and their fresh pages).
pub struct Messages {
    mem: Vec<Vec<Vec<u32>>>,
    spilled: Vec<Option<PathBuf>>,
    /// Messages spilled per range.
    spilled_count: Vec<usize>,
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
            spilled_count: vec![0; ranges],
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
        // Each range's batches sorted and coded on the workers, a range's batches freed as
        // it is coded.
        let coded: Vec<(usize, usize, Vec<u8>)> = self
            .mem
            .par_iter_mut()
            .enumerate()
            .filter(|(_, m)| !m.is_empty())
            .map(|(r, batches)| {
                let count = batches.iter().map(Vec::len).sum();
                (r, count, code_spill(std::mem::take(batches)))
            })
            .collect();
        for (r, count, bytes) in coded {
            self.spilled_count[r] += count;
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
            bawo_store::fault::check_write(bytes.len(), &path)?;
            f.write_all(&bytes).map_err(|e| Error::io(&path, e))?;
            self.spilled[r] = Some(path);
        }
        self.held = 0;
        Ok(())
    }

    /// How many messages range `r` has (spilled and held), before [`Messages::take`].
    pub fn count(&self, r: usize) -> usize {
        self.spilled_count[r] + self.mem[r].iter().map(Vec::len).sum::<usize>()
    }

    /// Range `r`'s messages in batches: what was spilled (a batch per spill, sorted), then
    /// what is held.
    pub fn take(&mut self, r: usize) -> Result<Vec<Vec<u32>>> {
        self.spilled_count[r] = 0;
        let mut out = Vec::new();
        if let Some(path) = self.spilled[r].take() {
            let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
            out = decode_spills(&bytes).ok_or_else(|| {
                Error::corrupt(&path, "level messages spilled by this run do not decode")
            })?;
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

/// One spill of a range: its messages sorted, as a varint count and varint gaps.
fn code_spill(batches: Vec<Vec<u32>>) -> Vec<u8> {
    let mut all = if batches.len() == 1 {
        batches.into_iter().next().unwrap_or_default()
    } else {
        let mut all = Vec::with_capacity(batches.iter().map(Vec::len).sum());
        for b in batches {
            all.extend_from_slice(&b);
        }
        all
    };
    all.sort_unstable();
    let mut out = Vec::with_capacity(all.len() + 8);
    put_varint(&mut out, all.len() as u128);
    let mut prev = 0u32;
    for m in all {
        put_varint(&mut out, (m - prev) as u128);
        prev = m;
    }
    out
}

/// The spills of a range's file, one batch each; `None` where the bytes are not spills.
fn decode_spills(bytes: &[u8]) -> Option<Vec<Vec<u32>>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let count = usize::try_from(get_varint(bytes, &mut at)?).ok()?;
        // Each message takes a byte at least: a count beyond the bytes left is damage.
        if count > bytes.len() - at {
            return None;
        }
        let mut batch = Vec::with_capacity(count);
        let mut m = 0u32;
        for _ in 0..count {
            let gap = u32::try_from(get_varint(bytes, &mut at)?).ok()?;
            m = m.checked_add(gap)?;
            batch.push(m);
        }
        out.push(batch);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{decode_spills, put_varint, Messages};

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
        assert_eq!(m.take(0).unwrap(), vec![vec![1, 2], vec![3]]);
        assert_eq!(m.take(1).unwrap(), vec![vec![4]]);
        m.cleanup();
    }

    #[test]
    fn spills_come_back_sorted_whole_and_damage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Messages::new(1, 0, dir.path());
        // Kinds in the high bits, repeats, both ends of the range of a u32.
        let first = vec![vec![7, 1 << 31 | 5, 7], vec![u32::MAX, 0, 1 << 30 | 9]];
        let second = vec![vec![3, 3, 1 << 31]];
        m.add(0, first.clone()).unwrap();
        m.add(0, second.clone()).unwrap();
        let sorted = |b: Vec<Vec<u32>>| {
            let mut all: Vec<u32> = b.concat();
            all.sort_unstable();
            all
        };
        assert_eq!(m.take(0).unwrap(), vec![sorted(first), sorted(second)]);
        // A truncated or overlong file is not taken for messages.
        let mut bytes = Vec::new();
        put_varint(&mut bytes, 3);
        bytes.extend_from_slice(&[1, 2]);
        assert_eq!(decode_spills(&bytes), None);
        assert_eq!(decode_spills(&[0xff; 12]), None);
        m.add(0, vec![vec![1]]).unwrap();
        std::fs::write(dir.path().join("msgs-0.tmp"), &bytes).unwrap();
        assert!(m.take(0).is_err());
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
        // Counted before they are taken, spilled ones included.
        assert_eq!((m.count(0), m.count(1)), (7, 1));
        assert_eq!(m.take(0).unwrap(), vec![vec![1, 2, 3, 4, 5, 6], vec![7]]);
        assert_eq!(m.take(1).unwrap(), vec![vec![9]]);
        assert_eq!(m.count(0), 0);
        assert!(m.take(0).unwrap().is_empty());
        m.cleanup();
    }
}
