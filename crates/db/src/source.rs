//! Where an opened `.bdb` file's bytes come from: a memory map, a buffer, or reads at offsets.
//!
//! A memory map is the quickest way through a whole file (`verify`, `stats`, `compact`), but
//! reading a map past the end of a file that was cut short after it was mapped kills the
//! process with SIGBUS. A long-lived reader (`bawo serve`) opens its files with
//! [`Access::Read`] instead: each range is read with `pread`, so a file that shrank answers an
//! error for the requests that need it, and the process lives on.

use std::cell::Cell;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use memmap2::Mmap;

use bawo_games::error::{Error, Result};

/// How a [`crate::Database`] reads its tier files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Access {
    /// Memory-mapped: fastest for passes over whole files; the files must not shrink while
    /// open (a map read past the end of the file is a SIGBUS).
    #[default]
    Map,
    /// Read with `pread` at each use: a file that changes or shrinks while open gives errors,
    /// never a signal. For servers.
    Read,
}

/// Bytes at offsets, however they are held.
pub trait Bytes {
    /// Size in bytes (when opened).
    fn size(&self) -> u64;

    /// Calls `f` on bytes `at..at + len`; an error of kind `UnexpectedEof` when the bytes
    /// are not there (any more).
    fn with<R>(&self, at: u64, len: usize, f: impl FnOnce(&[u8]) -> R) -> io::Result<R>;

    /// Drops what the process holds of the bytes that it can read back (a map's pages).
    fn release(&self) {}
}

fn short() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "range beyond the end")
}

/// `bytes[at..at + len]`, or the error of a range past the end.
fn slice(bytes: &[u8], at: u64, len: usize) -> io::Result<&[u8]> {
    let start = usize::try_from(at).map_err(|_| short())?;
    let end = start.checked_add(len).ok_or_else(short)?;
    bytes.get(start..end).ok_or_else(short)
}

impl Bytes for Vec<u8> {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn with<R>(&self, at: u64, len: usize, f: impl FnOnce(&[u8]) -> R) -> io::Result<R> {
        slice(self, at, len).map(f)
    }
}

/// Borrowed bytes (a fuzzer's input, a test's buffer): read without a copy.
impl Bytes for &[u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn with<R>(&self, at: u64, len: usize, f: impl FnOnce(&[u8]) -> R) -> io::Result<R> {
        slice(self, at, len).map(f)
    }
}

impl Bytes for Mmap {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn with<R>(&self, at: u64, len: usize, f: impl FnOnce(&[u8]) -> R) -> io::Result<R> {
        slice(self, at, len).map(f)
    }

    fn release(&self) {
        // SAFETY: a read-only shared file map: dropped pages are read back from the file.
        let _ = unsafe { self.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
    }
}

/// Largest read buffer a thread keeps between reads (larger reads allocate their own).
const KEPT_BUFFER: usize = 1 << 20;

thread_local! {
    /// Each thread's read buffer, taken out while in use (so a nested read gets its own).
    static BUFFER: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// An open file read with `pread`.
pub struct ReadAt {
    file: File,
    size: u64,
}

impl ReadAt {
    /// Reads `file` (at `path`, for errors), whose size is taken now.
    pub fn new(path: &Path, file: File) -> Result<ReadAt> {
        let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
        Ok(ReadAt { file, size })
    }
}

impl Bytes for ReadAt {
    fn size(&self) -> u64 {
        self.size
    }

    fn with<R>(&self, at: u64, len: usize, f: impl FnOnce(&[u8]) -> R) -> io::Result<R> {
        let mut buf = BUFFER.take();
        if buf.len() < len {
            buf.resize(len, 0);
        }
        let read = self.file.read_exact_at(&mut buf[..len], at);
        let out = read.map(|()| f(&buf[..len]));
        if buf.len() <= KEPT_BUFFER {
            BUFFER.set(buf);
        }
        out
    }
}

/// The bytes of a tier file as a [`crate::Database`] opens it: mapped or read.
pub enum FileBytes {
    /// A read-only memory map.
    Mapped(Mmap),
    /// `pread` at each use.
    Read(ReadAt),
}

impl FileBytes {
    /// Opens the regular file `path` for `access`; `None` when it is empty.
    pub fn open(path: &Path, access: Access) -> Result<Option<FileBytes>> {
        Ok(match access {
            Access::Map => bawo_store::bytes::map_ro(path)?.map(FileBytes::Mapped),
            Access::Read => {
                let r = ReadAt::new(path, bawo_store::bytes::open_regular(path)?)?;
                (r.size > 0).then_some(FileBytes::Read(r))
            }
        })
    }
}

impl Bytes for FileBytes {
    fn size(&self) -> u64 {
        match self {
            FileBytes::Mapped(m) => m.size(),
            FileBytes::Read(r) => r.size(),
        }
    }

    fn with<R>(&self, at: u64, len: usize, f: impl FnOnce(&[u8]) -> R) -> io::Result<R> {
        match self {
            FileBytes::Mapped(m) => m.with(at, len, f),
            FileBytes::Read(r) => r.with(at, len, f),
        }
    }

    fn release(&self) {
        if let FileBytes::Mapped(m) = self {
            m.release()
        }
    }
}

/// The error of a failed read of `path`: one past the end means the file changed while open.
pub fn read_error(path: &Path, e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        Error::corrupt(
            path,
            "shorter than when it was opened (the file changed while in use)",
        )
    } else {
        Error::io(path, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_at_offsets_and_notices_a_file_cut_short() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        std::fs::write(&path, &bytes).unwrap();
        let r = FileBytes::open(&path, Access::Read).unwrap().unwrap();
        let m = FileBytes::open(&path, Access::Map).unwrap().unwrap();
        for src in [&r, &m] {
            assert_eq!(src.size(), 10_000);
            assert_eq!(src.with(300, 4, |b| b.to_vec()).unwrap(), bytes[300..304]);
            assert!(src.with(9_999, 2, |_| ()).is_err());
            assert!(src.with(u64::MAX, 2, |_| ()).is_err());
        }
        drop(m);
        // Cut short while open: a read past the new end is an error, not a signal.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(100)
            .unwrap();
        let e = r.with(5_000, 10, |_| ()).unwrap_err();
        assert!(read_error(&path, e)
            .to_string()
            .contains("changed while in use"));
        assert!(r.with(10, 10, |b| b == &bytes[10..20]).unwrap());
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        assert!(FileBytes::open(&dir.path().join("empty"), Access::Read)
            .unwrap()
            .is_none());
    }
}
