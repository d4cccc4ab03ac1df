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
//! | [`ledger`]           | what a run created, the only files it ever deletes              |
//! | [`lock`]             | one solver per run directory                                    |
//! | [`heap`]             | freed allocator memory handed back between a solve's phases     |
//! | [`fault`]            | fault injection for checkpoint tests                            |

pub mod append;
pub mod bytes;
pub mod checksum;
pub mod fault;
pub mod heap;
pub mod ledger;
pub mod lock;
pub mod manifest;
pub mod self_sum;
pub mod syncs;
pub mod table;
pub mod table_in_place;

pub use checksum::Checksum;

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use bawo_games::error::{Error, Result};

/// Writes a file so that it is either absent or complete: the bytes go to a temporary file in
/// the same directory, are synced, and the file is renamed into place; the directory is synced
/// so the rename survives a crash.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<u64> {
    write_renamed(path, true, write)
}

/// A new temporary file next to `path`, created exclusively under an unpredictable name: a
/// file or symlink planted in the directory is never opened, let alone written through. It is
/// removed when dropped unless [`tempfile::NamedTempFile::persist`]ed; renaming it onto `path`
/// replaces whatever `path` was (a symlink there included) without following it.
pub fn temp_file_for(path: &Path) -> Result<tempfile::NamedTempFile> {
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .ok_or_else(|| Error::Internal(format!("no file name in {}", path.display())))?;
    let prefix = format!(".{}.", name.to_string_lossy());
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // As `File::create` would: readable by others unless the umask says otherwise.
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b.tempfile_in(dir).map_err(|e| Error::io(path, e))
}

/// Options that open an existing file without following a symlink in its place (a planted
/// symlink makes the open fail instead of redirecting the write).
pub fn open_no_follow() -> OpenOptions {
    let mut o = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW);
    }
    o
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Like [`write_atomic`] but syncing only when `sync` is set, for work files that a later
/// checkpoint syncs before it refers to them (a killed process still leaves them whole: the
/// kernel keeps written data, and the rename is atomic).
pub fn write_renamed(
    path: &Path,
    sync: bool,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<u64> {
    let written = write_unrenamed(path, write)?;
    let bytes = written.bytes;
    written.rename(sync)?;
    Ok(bytes)
}

/// The first half of [`write_renamed`]: the bytes written to a fresh temporary file beside
/// `path`, neither synced nor renamed yet ([`Unrenamed::rename`] does both), so that what
/// they were made from can be let go before the disk is waited for.
pub fn write_unrenamed(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<Unrenamed> {
    let tmp = temp_file_for(path)?;
    let io = |e| Error::io(path, e);
    let mut w = CountingWriter {
        inner: BufWriter::with_capacity(1 << 20, tmp.as_file()),
        bytes: 0,
    };
    write(&mut w).map_err(io)?;
    w.inner.flush().map_err(io)?;
    let bytes = w.bytes;
    drop(w);
    Ok(Unrenamed {
        tmp,
        path: path.to_path_buf(),
        bytes,
    })
}

/// A file written by [`write_unrenamed`], still under its temporary name (deleted if dropped).
pub struct Unrenamed {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
    /// Bytes written.
    pub bytes: u64,
}

impl Unrenamed {
    /// Syncs the file (if `sync`), renames it to its path, and syncs the rename (if `sync`).
    pub fn rename(self, sync: bool) -> Result<()> {
        let path = &self.path;
        if sync {
            self.tmp
                .as_file()
                .sync_all()
                .map_err(|e| Error::io(path, e))?;
        }
        self.tmp
            .persist(path)
            .map_err(|e| Error::io(path, e.error))?;
        if sync {
            sync_dir(parent_dir(path))?;
        }
        Ok(())
    }
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

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::symlink;

    #[test]
    fn atomic_writes_never_follow_planted_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let run = dir.path().join("run");
        std::fs::create_dir(&run).unwrap();
        // Regression: the temporary name was predictable (`.NAME.tmp`) and opened following
        // symlinks, so a planted link redirected the write, and the final file became the link.
        symlink(&victim, run.join(".manifest.json.tmp")).unwrap();
        // A symlink at the final name is replaced, not written through.
        symlink(&victim, run.join("tier-0001.bdb")).unwrap();
        for name in ["manifest.json", "tier-0001.bdb"] {
            let path = run.join(name);
            super::write_atomic(&path, |w| w.write_all(b"new")).unwrap();
            assert!(!std::fs::symlink_metadata(&path).unwrap().is_symlink());
            assert_eq!(std::fs::read(&path).unwrap(), b"new");
        }
        super::table::write_table_streaming(&run.join("t.tbl"), 0, 1, 0, |put| put(&[7])).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        // No temporary file is left behind.
        let left: Vec<_> = std::fs::read_dir(&run)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp") && n != ".manifest.json.tmp")
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
