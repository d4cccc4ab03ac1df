//! A raw table written in place, a piece at a time, by the workers themselves: the file is made
//! at its full length with its blocks reserved, each piece of entries is filled through a map
//! of its own pages, then sealed (hashed in order, unmapped, its write-back started), and the
//! header goes in last.
//!
//! Written through `write`, a table is one stream into one file, which the kernel takes one
//! writer at a time (a buffered write holds the file's lock): on n = 4 with 17 seeds the
//! table's writer thread took 1.3 s of a 2.4 s finish and ended it alone, with the other core
//! idle. Through maps, both cores write it. A piece's blocks are reserved before it is mapped
//! (`fallocate`), so a full disk is an error, not a fault at the first write to a page the
//! disk had no room for; the file takes its disk as it is filled, as a streamed one does.
//! Where the filesystem cannot reserve blocks, [`TableInPlace::create`] says so and the caller
//! streams the table instead ([`crate::table::write_table_streaming`]).
//!
//! Mapping a piece ([`TableInPlace::map_next`]) and sealing it ([`Sealer::seal`]) are apart so
//! that the sealing, one thread's work, can be done beside the filling of the next piece.

use std::fs::File;
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
    /// Entries mapped so far.
    mapped: u64,
}

/// A piece of the table mapped for filling ([`TableInPlace::map_next`]), zeros until filled.
pub struct Piece {
    /// `None` for a piece of no entries (nothing to map).
    map: Option<memmap2::MmapMut>,
    len: usize,
}

/// What ends each piece, in order: hashes it, unmaps it and starts its write-back
/// ([`TableInPlace::sealer`]).
pub struct Sealer {
    file: File,
    hasher: Hasher,
    /// Entries sealed so far.
    sealed: u64,
    /// Entries sealed whose write-back has been asked for.
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
            mapped: 0,
        }))
    }

    /// The sealer of this table's pieces, which may live on another thread.
    pub fn sealer(&self) -> Result<Sealer> {
        Ok(Sealer {
            file: self
                .tmp
                .as_file()
                .try_clone()
                .map_err(|e| Error::io(&self.path, e))?,
            hasher: Hasher::new(),
            sealed: 0,
            written_back: 0,
        })
    }

    /// Maps the next `n` entries, their blocks reserved, for filling; each piece is then
    /// given to the [`Sealer`], in the order mapped.
    pub fn map_next(&mut self, n: usize) -> Result<Piece> {
        if self.mapped + n as u64 > self.states {
            return Err(Error::Internal(format!(
                "table of tier {} filled past its {} entries",
                self.tier, self.states
            )));
        }
        crate::fault::check_write(2 * n, &self.path)?;
        let start = HEADER as u64 + 2 * self.mapped;
        let io = |e| Error::io(&self.path, e);
        if n == 0 {
            return Ok(Piece { map: None, len: 0 });
        }
        if !reserve(self.tmp.as_file(), start, 2 * n as u64).map_err(io)? {
            return Err(Error::Internal(
                "the table's filesystem stopped reserving blocks".to_string(),
            ));
        }
        // The map may start inside a page: `memmap2` maps from the page's start and points as
        // far into it as `start` is, an even number of bytes (checked by `Piece::entries`).
        // SAFETY: the file is this writer's own temporary file (created exclusively, never
        // through a link), and nothing else maps or writes these bytes while the map lives.
        let map = unsafe {
            memmap2::MmapOptions::new()
                .offset(start)
                .len(2 * n)
                .map_mut(self.tmp.as_file())
                .map_err(io)?
        };
        self.mapped += n as u64;
        Ok(Piece {
            map: Some(map),
            len: n,
        })
    }

    /// Writes the header, syncs the table and renames it into place; its header and length
    /// (`put_in_place`, as a streamed table ends). `sealer` has sealed every piece.
    pub fn finish(self, sealer: Sealer) -> Result<(TableHeader, u64)> {
        let header = TableHeader {
            tier: self.tier,
            states: self.states,
            fingerprint: self.fingerprint,
            checksum: sealer.hasher.finish(),
        };
        put_in_place(self.tmp, &self.path, header, sealer.sealed)
    }
}

impl Piece {
    /// Its entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The piece's entries, to fill.
    pub fn entries(&mut self) -> Result<&mut [u16]> {
        let Some(map) = self.map.as_mut() else {
            return Ok(&mut []);
        };
        // SAFETY: every byte pattern is a valid `u16`; the view is checked whole.
        let (before, entries, after) = unsafe { map.align_to_mut::<u16>() };
        if !before.is_empty() || !after.is_empty() || entries.len() != self.len {
            return Err(Error::Internal(
                "the table's map is not aligned for its entries".to_string(),
            ));
        }
        Ok(entries)
    }
}

impl Sealer {
    /// Ends `piece`, the next one mapped: hashed, unmapped and, as the table grows, written
    /// back, so that the sync at the end finds little left.
    pub fn seal(&mut self, piece: Piece) {
        if let Some(map) = &piece.map {
            self.hasher.update(map);
        }
        self.sealed += piece.len as u64;
        drop(piece);
        let unsynced = 2 * (self.sealed - self.written_back);
        if unsynced >= WRITEBACK_EVERY as u64 {
            let from = HEADER as u64 + 2 * self.written_back;
            crate::syncs::start_writeback_of(&self.file, from, unsynced);
            self.written_back = self.sealed;
        }
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
        // Pieces of odd lengths, so that maps start inside pages, and one of none.
        let entries: Vec<u16> = (0..300_001u32)
            .map(|i| (i * 7919 % 65_521) as u16)
            .collect();
        let pieces = [1usize, 4095, 0, 70_000, 2, 225_903];
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
        let mut sealer = t.sealer().unwrap();
        let mut at = 0;
        for n in pieces {
            let mut piece = t.map_next(n).unwrap();
            let out = piece.entries().unwrap();
            assert!(out.iter().all(|&e| e == 0));
            out.copy_from_slice(&entries[at..at + n]);
            // Sealed on another thread, as a finish does.
            std::thread::scope(|s| s.spawn(|| sealer.seal(piece)).join().unwrap());
            at += n;
        }
        // Past the end is refused, and so is a table finished short.
        assert!(t.map_next(1).is_err());
        assert_eq!(t.finish(sealer).unwrap(), got_streamed);
        assert_eq!(
            std::fs::read(&in_place).unwrap(),
            std::fs::read(&streamed).unwrap()
        );
        let short = dir.path().join("short.tbl");
        let mut t = TableInPlace::create(&short, 3, 10, 99).unwrap().unwrap();
        let mut sealer = t.sealer().unwrap();
        sealer.seal(t.map_next(9).unwrap());
        assert!(t.finish(sealer).is_err());
        assert!(
            !short.exists(),
            "a table finished short is not put in place"
        );
    }
}
