//! Files of a run directory: atomic writes, checksums, tier tables and the manifest.
//!
//! The store knows files, not what they mean: it imports neither the solver nor the database
//! layer (the solver's counts and checkpoint are stored in the manifest as the solver's own
//! types).
//!
//! | item                 | role                                                          |
//! |----------------------|---------------------------------------------------------------|
//! | [`write_atomic`]     | temp name, write, fsync, rename, fsync the directory           |
//! | [`bytes`]            | words as file bytes and back, memory maps                       |
//! | [`checksum`]         | the xxh3-64 [`checksum::Checksum`] of every file                |
//! | [`table`]            | raw tier tables (header + little-endian `u16` entries), mapped  |
//! | [`manifest`]         | what the directory holds, what is complete, the checkpoint      |
//! | [`append`]           | append-only work files with committed lengths and CRCs          |
//! | [`lock`]             | one solver per run directory                                    |
//! | [`fault`]            | fault injection for checkpoint tests                            |

pub mod append;
pub mod bytes;
pub mod checksum;
pub mod fault;
pub mod lock;
pub mod manifest;
pub mod table;

pub use checksum::Checksum;

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::error::{Error, Result};

/// Writes a file so that it is either absent or complete: the bytes go to a temporary name in
/// the same directory, are synced, and the file is renamed into place; the directory is synced
/// so the rename survives a crash.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<u64> {
    write_renamed(path, true, write)
}

/// Like [`write_atomic`] but syncing only when `sync` is set, for work files that a later
/// checkpoint syncs before it refers to them (a killed process still leaves them whole: the
/// kernel keeps written data, and the rename is atomic).
pub fn write_renamed(
    path: &Path,
    sync: bool,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<u64> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| Error::Internal(format!("no file name in {}", path.display())))?;
    let tmp = dir.join(format!(".{}.tmp", name.to_string_lossy()));
    let io = |e| Error::io(&tmp, e);
    let file = File::create(&tmp).map_err(io)?;
    let mut w = CountingWriter {
        inner: BufWriter::with_capacity(1 << 20, file),
        bytes: 0,
    };
    write(&mut w).map_err(io)?;
    w.inner.flush().map_err(io)?;
    let file = w.inner.into_inner().map_err(|e| io(e.into_error()))?;
    if sync {
        file.sync_all().map_err(io)?;
    }
    drop(file);
    fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
    if sync {
        sync_dir(dir)?;
    }
    Ok(w.bytes)
}

/// Makes a rename in `dir` durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    let d = File::open(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    })
    .map_err(|e| Error::io(dir, e))?;
    d.sync_all().map_err(|e| Error::io(dir, e))
}

struct CountingWriter<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        fault::check_write(buf.len(), Path::new(""))
            .map_err(|_| std::io::Error::from_raw_os_error(28))?;
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// 64-bit fingerprint of a game descriptor, recorded in every file of a run.
pub fn fingerprint(descriptor: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(descriptor.as_bytes())
}
