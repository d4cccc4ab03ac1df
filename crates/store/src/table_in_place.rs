//! A raw table written in place, a piece at a time, by the workers themselves: the file is made
//! at its full length with its blocks reserved, each piece of entries is filled through a map
//! of its own pages, hashed in order, and the header goes in last.
//!
//! Written through `write`, a table is one stream into one file, which the kernel takes one
//! writer at a time (a buffered write holds the file's lock): on n = 4 with 17 seeds the
//! table's writer thread took 1.3 s of a 2.4 s finish and ended it alone, with the other core
//! idle. Through maps, both cores write it. A piece's blocks are reserved before it is mapped
//! (`fallocate`), so a full disk is an error, not a fault at the first write to a page the
//! disk had no room for; the file takes its disk as it is filled, as a streamed one does.
//! Where the filesystem cannot reserve blocks, [`TableInPlace::create`] says so and the caller
//! streams the table instead ([`crate::table::write_table_streaming`]).

use std::path::{Path, PathBuf};

use bawo_games::error::{Error, Result};

use crate::checksum::Hasher;
use crate::table::{put_in_place, TableHeader, HEADER, WRITEBACK_EVERY};

/// A table being written in place ([`TableInPlace::create`]).
pub struct TableInPlace {
    path: PathBuf,
    tmp: tempfile::NamedTempFile,
    tier: u32,
    states: u64,
    fingerprint: u64,
    hasher: Hasher,
    /// Entries filled so far.
    filled: u64,
    /// Entries filled whose write-back has been asked for.
    written_back: u64,
}

impl TableInPlace {
    /// Makes the table of `states` entries for `path` (a temporary file beside it until
    /// [`TableInPlace::finish`], at its full length, its blocks not yet taken but the
    /// header's); `None` where the filesystem cannot reserve blocks.
    pub fn create(
        path: &Path,
        tier: u32,
        states: u64,
        fingerprint: u64,
    ) -> Result<Option<TableInPlace>> {
        let io = |e| Error::io(path, e);
        crate::fault::check_write(HEADER, path)?;
        let tmp = crate::temp_file_for(path)?;
        if !reserve(tmp.as_file(), 0, HEADER as u64).map_err(io)? {
            return Ok(None);
        }
        tmp.as_file()
            .set_len(HEADER as u64 + 2 * states)
            .map_err(io)?;
        Ok(Some(TableInPlace {
            path: path.to_path_buf(),
            tmp,
            tier,
            states,
            fingerprint,
            hasher: Hasher::new(),
            filled: 0,
            written_back: 0,
        }))
    }

    /// Fills the next `n` entries with `fill`, which is given them (zeros) to write.
    pub fn fill_next<T>(&mut self, n: usize, fill: impl FnOnce(&mut [u16]) -> T) -> Result<T> {
        if self.filled + n as u64 > self.states {
            return Err(Error::Internal(format!(
                "table of tier {} filled past its {} entries",
                self.tier, self.states
            )));
        }
        if n == 0 {
            return Ok(fill(&mut []));
        }
        crate::fault::check_write(2 * n, &self.path)?;
        let start = HEADER as u64 + 2 * self.filled;
        let io = |e| Error::io(&self.path, e);
        if !reserve(self.tmp.as_file(), start, 2 * n as u64).map_err(io)? {
            return Err(Error::Internal(
                "the table's filesystem stopped reserving blocks".to_string(),
            ));
        }
        // The map may start inside a page: `memmap2` maps from the page's start and points as
        // far into it as `start` is, an even number of bytes (checked below).
        // SAFETY: the file is this writer's own temporary file (created exclusively, never
        // through a link), and nothing else maps or writes these bytes while the map lives.
        let mut map = unsafe {
            memmap2::MmapOptions::new()
                .offset(start)
                .len(2 * n)
                .map_mut(self.tmp.as_file())
                .map_err(io)?
        };
        // SAFETY: every byte pattern is a valid `u16`; the view is checked whole below.
        let (before, entries, after) = unsafe { map.align_to_mut::<u16>() };
        if !before.is_empty() || !after.is_empty() {
            return Err(Error::Internal(
                "the table's map is not aligned for its entries".to_string(),
            ));
        }
        let made = fill(entries);
        self.hasher.update(crate::bytes::u16_bytes(entries));
        drop(map);
        self.filled += n as u64;
        // Written back as it grows, so that the sync at the end finds little left.
        let unsynced = 2 * (self.filled - self.written_back);
        if unsynced >= WRITEBACK_EVERY as u64 {
            let from = HEADER as u64 + 2 * self.written_back;
            crate::syncs::start_writeback_of(self.tmp.as_file(), from, unsynced);
            self.written_back = self.filled;
        }
        Ok(made)
    }

    /// Writes the header, syncs the table and renames it into place; its header and length
    /// ([`put_in_place`], as a streamed table ends).
    pub fn finish(self) -> Result<(TableHeader, u64)> {
        let header = TableHeader {
            tier: self.tier,
            states: self.states,
            fingerprint: self.fingerprint,
            checksum: self.hasher.finish(),
        };
        put_in_place(self.tmp, &self.path, header, self.filled)
    }
}

/// Reserves the blocks of `len` bytes of `file` from `offset` (growing it to hold them);
/// `false` where the filesystem cannot reserve blocks.
fn reserve(file: &std::fs::File, offset: u64, len: u64) -> std::io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let off = |v: u64| {
            libc::off_t::try_from(v).map_err(|_| std::io::Error::from_raw_os_error(libc::EFBIG))
        };
        // SAFETY: a plain system call on an open descriptor.
        let got = unsafe { libc::fallocate(file.as_raw_fd(), 0, off(offset)?, off(len)?) };
        if got == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS) => Ok(false),
            _ => Err(e),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, offset, len);
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::write_table_streaming;

    #[test]
    fn a_table_written_in_place_is_the_streamed_one_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        // Pieces of odd lengths, so that maps start inside pages.
        let entries: Vec<u16> = (0..300_001u32)
            .map(|i| (i * 7919 % 65_521) as u16)
            .collect();
        let pieces = [1usize, 4095, 70_000, 2, 225_903];
        assert_eq!(pieces.iter().sum::<usize>(), entries.len());
        let streamed = dir.path().join("streamed.tbl");
        let got_streamed = write_table_streaming(&streamed, 3, entries.len() as u64, 99, |put| {
            let mut at = 0;
            for n in pieces {
                put(&entries[at..at + n])?;
                at += n;
            }
            Ok(())
        })
        .unwrap();
        let in_place = dir.path().join("in-place.tbl");
        let Some(mut t) = TableInPlace::create(&in_place, 3, entries.len() as u64, 99).unwrap()
        else {
            return; // a filesystem that cannot reserve blocks: the caller streams instead
        };
        let mut at = 0;
        for n in pieces {
            let sum = t
                .fill_next(n, |out| {
                    assert!(out.iter().all(|&e| e == 0));
                    out.copy_from_slice(&entries[at..at + n]);
                    n
                })
                .unwrap();
            assert_eq!(sum, n);
            at += n;
        }
        // Past the end is refused, and so is a table finished short.
        assert!(t.fill_next(1, |_| ()).is_err());
        assert_eq!(t.finish().unwrap(), got_streamed);
        assert_eq!(
            std::fs::read(&in_place).unwrap(),
            std::fs::read(&streamed).unwrap()
        );
        let short = dir.path().join("short.tbl");
        let mut t = TableInPlace::create(&short, 3, 10, 99).unwrap().unwrap();
        t.fill_next(9, |_| ()).unwrap();
        assert!(t.finish().is_err());
        assert!(
            !short.exists(),
            "a table finished short is not put in place"
        );
    }
}
