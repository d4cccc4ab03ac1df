//! Append-only work files with a running CRC, the unit of intra-tier checkpoints.
//!
//! Workers append concurrently (through a lock, in large buffers). A checkpoint *commits* a
//! log: its buffer is written and synced, and the committed length and the CRC-32 of the
//! committed prefix go into the manifest. Resuming reopens the log, checks that prefix against
//! the CRC, and cuts off whatever was appended after the checkpoint, so a resumed run writes
//! exactly what an uninterrupted one would have.
//!
//! A log can be *held* ([`AppendLog::hold`]): it then keeps everything appended in memory until
//! a commit (or an explicit flush) writes it, and readers get the bytes straight from memory.
//! The tier solver holds its logs when a tier fits its budget in one range, so a tier that
//! finishes between checkpoints never writes its edges and due lists at all.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use bawo_games::error::{Error, Result};

mod runs;

pub use runs::{reader_at, Framing};
use runs::{runs_at, ReadAt, RecordStarts};

/// Length and CRC-32 of a log's committed prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Committed {
    /// Bytes committed.
    pub len: u64,
    pub(crate) crc: u32,
}

struct Inner {
    /// The open file, or `None` while it is closed to keep the process within its limit of
    /// open files ([`open_limit`]); reopened at the end of what was written when needed.
    file: Option<File>,
    buf: Vec<u8>,
    /// Keep appended bytes in memory until a commit or flush.
    hold: bool,
    /// Bytes written to the file (not counting `buf`).
    written: u64,
    /// Bytes known to be synced: a commit with nothing new skips its sync.
    synced: u64,
    crc: crc32fast::Hasher,
    /// The file exists: resumed, or created at the first write (a log is created in memory
    /// only, see [`AppendLog::create`]).
    made: bool,
    /// Offsets where an append began, at least [`runs::MARK_EVERY`] bytes apart, from 0: each is
    /// the start of a whole record of the log's own format, so the log can be cut there
    /// into runs that readers take side by side ([`AppendLog::with_runs`]).
    marks: Vec<u64>,
}

/// Log files open now, of all logs.
static OPEN: AtomicU64 = AtomicU64::new(0);

/// Open log files beyond which a log closes its file once it has written its buffer: a tier
/// out of core has a due log per (level, range), 200,000 of them for Kigogo's 9-seed tier
/// (904 ranges, levels up to 250), far beyond the process's limit of open files (often 1,024
/// or 20,000, which only root can raise). A quarter of that limit, leaving the rest to the
/// tables, predecessor files and the other logs.
fn open_limit() -> u64 {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given.
        let soft = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } == 0 {
            // `rlim_t` is not 64 bits on every platform.
            #[allow(clippy::unnecessary_cast)]
            let soft = r.rlim_cur as u64;
            soft
        } else {
            1024
        };
        crate::fault::open_log_limit().unwrap_or((soft / 4).max(16))
    })
}

/// A log's existing file, opened to read and append (never through a symlink).
fn open_existing(path: &Path) -> Result<File> {
    open_log_file(path, false)
}

/// A log's file opened to read and append (never through a symlink); with `fresh`, created
/// or emptied.
fn open_log_file(path: &Path, fresh: bool) -> Result<File> {
    super::open_no_follow()
        .read(true)
        .write(true)
        .create(fresh)
        .truncate(fresh)
        .open(path)
        .map_err(|e| Error::io(path, e))
}

/// An append-only file shared by workers.
pub struct AppendLog {
    path: PathBuf,
    inner: Mutex<Inner>,
}

/// Buffered bytes per log before a write.
const BUF: usize = 1 << 18;

/// Buffered bytes of all unheld logs together beyond which every append writes its log's
/// buffer: a tier out of core has a log per range and one per (level, range), hundreds or
/// thousands of them, and a buffer each of up to `BUF` (256 KiB) would exceed the memory budget.
/// The solver's plan counts this among its fixed overhead.
pub const ALL_BUFFERS: u64 = 16 << 20;

/// Bytes held now in the buffers of unheld logs.
static BUFFERED: AtomicU64 = AtomicU64::new(0);

impl AppendLog {
    /// Creates (or empties) the log at `path`: the file itself is created (truncated, never
    /// through a symbolic link) when bytes first go to it or a commit names it. A tier out of
    /// core makes a due log per level and range, most of them read from memory and dropped
    /// before any is written: creating each file at once took 8% of the attractor's driving
    /// thread on Kigogo's 7-seed tier under `--mem 512M`, time in which the other core
    /// waited.
    pub fn create(path: &Path) -> Result<AppendLog> {
        Ok(Self::opened(
            path,
            Inner {
                file: None,
                buf: Vec::new(),
                hold: false,
                written: 0,
                synced: 0,
                crc: crc32fast::Hasher::new(),
                made: false,
                marks: Vec::new(),
            },
        ))
    }

    /// The log of a file just opened: closed again at once where too many are open (a resumed
    /// run reopens every log its checkpoint names, tens of thousands of them out of core).
    fn opened(path: &Path, mut inner: Inner) -> AppendLog {
        Self::close_if_many(&mut inner);
        AppendLog {
            path: path.to_path_buf(),
            inner: Mutex::new(inner),
        }
    }

    /// Reopens a log at its committed state: the prefix must match `c`, the rest is cut off.
    /// Its committed bytes are one run for [`AppendLog::with_runs`]; a log of records
    /// framed as [`Framing`] says is cut again where they begin ([`AppendLog::resume_framed`]).
    pub fn resume(path: &Path, c: Committed) -> Result<AppendLog> {
        Self::resume_framed(path, c, None)
    }

    /// [`AppendLog::resume`], finding where the committed records begin from their headers
    /// (read with the bytes the checksum reads): its runs are then those of a log that was
    /// never interrupted. Refused where the records do not end at the committed length.
    pub fn resume_framed(path: &Path, c: Committed, framing: Option<Framing>) -> Result<AppendLog> {
        let io = |e| Error::io(path, e);
        let mut file = open_existing(path)?;
        let actual = file.metadata().map_err(io)?.len();
        if actual < c.len {
            return Err(Error::corrupt(
                path,
                format!(
                    "checkpoint log has {actual} bytes, the manifest committed {}",
                    c.len
                ),
            ));
        }
        let mut crc = crc32fast::Hasher::new();
        let mut starts = framing.map(RecordStarts::new);
        let mut left = c.len;
        let mut chunk = vec![0u8; 1 << 20];
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            file.read_exact(&mut chunk[..n]).map_err(io)?;
            crc.update(&chunk[..n]);
            if let Some(s) = &mut starts {
                s.feed(c.len - left, &chunk[..n]);
            }
            left -= n as u64;
        }
        if crc.clone().finalize() != c.crc {
            return Err(Error::corrupt(
                path,
                "checkpoint log does not match its checksum",
            ));
        }
        let marks = match starts {
            Some(s) => s.finish(c.len).ok_or_else(|| {
                Error::corrupt(
                    path,
                    "log records do not end where the checkpoint committed",
                )
            })?,
            // The committed prefix ended with a whole append.
            None if c.len == 0 => Vec::new(),
            None => vec![0, c.len],
        };
        file.set_len(c.len).map_err(io)?;
        file.seek(SeekFrom::Start(c.len)).map_err(io)?;
        OPEN.fetch_add(1, Ordering::Relaxed);
        Ok(Self::opened(
            path,
            Inner {
                file: Some(file),
                buf: Vec::new(),
                hold: false,
                written: c.len,
                synced: 0,
                crc,
                made: true,
                marks,
            },
        ))
    }

    /// The log's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps appended bytes in memory until [`AppendLog::commit`] or [`AppendLog::flush`].
    pub fn hold(self) -> Self {
        let mut g = self.inner.lock().expect("log lock");
        if !g.hold {
            BUFFERED.fetch_sub(g.buf.len() as u64, Ordering::Relaxed);
        }
        g.hold = true;
        drop(g);
        self
    }

    /// Calls `f` with every byte appended so far: from memory while nothing has been written,
    /// else from a map of the file (after writing the buffer).
    pub fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        let mut g = self.inner.lock().expect("log lock");
        if g.written == 0 {
            return Ok(f(&g.buf));
        }
        Self::write_buf(&mut g, &self.path)?;
        if g.written == 0 {
            return Ok(f(&[]));
        }
        // SAFETY: work files belong to this run (the run lock keeps others out) and nothing
        // appends while the lock guard is held.
        let file = Self::file(&mut g, &self.path)?;
        let map = unsafe { memmap2::Mmap::map(file) }.map_err(|e| Error::io(&self.path, e))?;
        Ok(f(&map))
    }

    /// Calls `f` with every byte appended so far where they are all in memory (nothing
    /// written to the file yet); `None`, without calling `f`, where they are not. Appending
    /// waits while `f` runs.
    pub fn with_memory<R>(&self, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
        let g = self.inner.lock().expect("log lock");
        (g.written == 0).then(|| f(&g.buf))
    }

    /// Calls `f` with a reader of every byte appended so far, from memory while nothing has
    /// been written, else read sequentially from the file (after writing the buffer): unlike
    /// [`AppendLog::with_bytes`], a large log is not mapped, so its pages never count as the
    /// process's resident memory.
    pub fn with_reader<R>(&self, f: impl FnOnce(&mut dyn Read) -> R) -> Result<R> {
        let mut g = self.inner.lock().expect("log lock");
        if g.written == 0 {
            return Ok(f(&mut &g.buf[..]));
        }
        Self::write_buf(&mut g, &self.path)?;
        let end = g.written;
        let at = ReadAt {
            file: Self::file(&mut g, &self.path)?,
            pos: 0,
            end,
        };
        Ok(f(&mut std::io::BufReader::with_capacity(1 << 20, at)))
    }

    /// Where the log's bytes are in its file (its buffer written first), calls `f` with the
    /// file and runs of whole appends that cover it, at most `parts` of about equal bytes
    /// (cut at `Inner::marks`), for readers to take side by side with [`reader_at`];
    /// `None`, without calling `f`, where they are all in memory
    /// ([`AppendLog::with_memory`] serves those). Appending waits while `f` runs.
    pub fn with_runs<R>(
        &self,
        parts: usize,
        f: impl FnOnce(&File, &[std::ops::Range<u64>]) -> R,
    ) -> Result<Option<R>> {
        let mut g = self.inner.lock().expect("log lock");
        if g.written == 0 {
            return Ok(None);
        }
        Self::write_buf(&mut g, &self.path)?;
        let runs = runs_at(&g.marks, g.written, parts);
        Ok(Some(f(Self::file(&mut g, &self.path)?, &runs)))
    }

    /// Deletes the log's file (emptied first, so its disk is freed even while the handle
    /// lives) and drops what it holds: for a log that no checkpoint will name again.
    pub fn discard(&self) -> Result<()> {
        self.let_go().delete()
    }

    /// Drops what the log holds and takes its file out of it, to be deleted by
    /// [`LetGo::delete`], on another thread if need be (emptying and deleting a file of tens
    /// of megabytes waits on the filesystem for milliseconds). Nothing is appended to the log
    /// after; letting it go again gives its path alone.
    pub fn let_go(&self) -> LetGo {
        let mut g = self.inner.lock().expect("log lock");
        if !g.hold {
            BUFFERED.fetch_sub(g.buf.len() as u64, Ordering::Relaxed);
        }
        g.buf = Vec::new();
        let file = g.file.take();
        if file.is_some() {
            OPEN.fetch_sub(1, Ordering::Relaxed);
        }
        LetGo {
            path: self.path.clone(),
            file,
        }
    }

    /// Appends `bytes` (whole, never interleaved with another worker's call).
    pub fn append(&self, bytes: &[u8]) -> Result<()> {
        let mut g = self.inner.lock().expect("log lock");
        let start = g.written + g.buf.len() as u64;
        runs::mark(&mut g.marks, start);
        g.crc.update(bytes);
        if !g.hold && bytes.len() >= BUF {
            // A large piece goes to the file as it is, after what is buffered: copying it
            // into the buffer first would only cost a copy and fresh pages.
            Self::write_buf(&mut g, &self.path)?;
            crate::fault::check_write(bytes.len(), &self.path)?;
            Self::file(&mut g, &self.path)?
                .write_all(bytes)
                .map_err(|e| Error::io(&self.path, e))?;
            g.written += bytes.len() as u64;
            Self::close_if_many(&mut g);
            return Ok(());
        }
        g.buf.extend_from_slice(bytes);
        if !g.hold {
            let all =
                BUFFERED.fetch_add(bytes.len() as u64, Ordering::Relaxed) + bytes.len() as u64;
            if g.buf.len() >= BUF || all > ALL_BUFFERS {
                Self::write_buf(&mut g, &self.path)?;
                Self::close_if_many(&mut g);
            }
        }
        Ok(())
    }

    /// The log's open file: created (or emptied) the first time, reopened (at the end of
    /// what was written) if it was closed.
    fn file<'g>(g: &'g mut Inner, path: &Path) -> Result<&'g File> {
        if g.file.is_none() {
            // Read-write: held logs are read back through a map of the file. A log that has
            // made no file yet has written nothing (`written` is 0).
            let mut file = open_log_file(path, !g.made)?;
            file.seek(SeekFrom::Start(g.written))
                .map_err(|e| Error::io(path, e))?;
            OPEN.fetch_add(1, Ordering::Relaxed);
            g.file = Some(file);
            g.made = true;
        }
        Ok(g.file.as_ref().expect("opened above"))
    }

    /// Closes the file of a log with nothing buffered while more log files are open than
    /// [`open_limit`] allows (a log holding its bytes keeps its file: it is read from memory).
    fn close_if_many(g: &mut Inner) {
        if g.buf.is_empty() && g.file.is_some() && OPEN.load(Ordering::Relaxed) > open_limit() {
            g.file = None;
            OPEN.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Writes the buffer and frees its memory (an idle log holds none).
    fn write_buf(g: &mut Inner, path: &Path) -> Result<()> {
        if g.buf.is_empty() {
            return Ok(());
        }
        crate::fault::check_write(g.buf.len(), path)?;
        Self::file(g, path)?;
        let Inner { file, buf, .. } = g;
        let file = file.as_mut().expect("opened above");
        file.write_all(buf).map_err(|e| Error::io(path, e))?;
        g.written += g.buf.len() as u64;
        if !g.hold {
            BUFFERED.fetch_sub(g.buf.len() as u64, Ordering::Relaxed);
        }
        g.buf = Vec::new();
        Ok(())
    }

    /// Writes buffered bytes so the file can be read (no sync).
    pub fn flush(&self) -> Result<()> {
        let mut g = self.inner.lock().expect("log lock");
        Self::write_buf(&mut g, &self.path)
    }

    /// Writes, syncs, and returns the committed state.
    pub fn commit(&self) -> Result<Committed> {
        let mut g = self.inner.lock().expect("log lock");
        Self::write_buf(&mut g, &self.path)?;
        if g.synced != g.written || g.written == 0 {
            Self::file(&mut g, &self.path)?
                .sync_data()
                .map_err(|e| Error::io(&self.path, e))?;
            g.synced = g.written;
            Self::close_if_many(&mut g);
        }
        Ok(Committed {
            len: g.written,
            crc: g.crc.clone().finalize(),
        })
    }

    /// Whether the log has made its file (see [`AppendLog::create`]): one that has not leaves
    /// nothing to delete.
    pub fn has_file(&self) -> bool {
        self.inner.lock().expect("log lock").made
    }

    /// Bytes appended so far.
    pub fn len(&self) -> u64 {
        let g = self.inner.lock().expect("log lock");
        g.written + g.buf.len() as u64
    }

    /// Whether the log holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A log's file taken out of it by [`AppendLog::let_go`], with its handle if it was open.
pub struct LetGo {
    path: PathBuf,
    file: Option<File>,
}

impl LetGo {
    /// Deletes the file, emptied first through the log's handle so that its disk is freed
    /// at once; a file already gone is no error.
    pub fn delete(self) -> Result<()> {
        if let Some(file) = &self.file {
            file.set_len(0).map_err(|e| Error::io(&self.path, e))?;
        }
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(&self.path, e)),
            _ => Ok(()),
        }
    }
}

impl Drop for AppendLog {
    fn drop(&mut self) {
        if let Ok(g) = self.inner.get_mut() {
            if !g.hold {
                BUFFERED.fetch_sub(g.buf.len() as u64, Ordering::Relaxed);
            }
            if g.file.take().is_some() {
                OPEN.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests;
