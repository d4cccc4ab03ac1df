//! One solver per run directory: an advisory lock on `DIR/lock`, released by the kernel when
//! the process ends however it ends (so a killed run never leaves a stale lock behind). A run
//! that ends in order removes the file too, while still holding the lock; a solver that locked
//! a file so removed sees that the path no longer names it and tries again.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use bawo_games::error::{Error, Result};

/// Holds the lock while alive; dropping it removes the lock file, then releases the lock.
pub struct RunLock {
    file: File,
    path: PathBuf,
}

/// How often a lock file removed by the solver that held it is reopened before giving up.
const ATTEMPTS: usize = 8;

/// Takes the run lock of `dir`, failing if another process holds it.
pub fn acquire(dir: &Path) -> Result<RunLock> {
    let path = dir.join("lock");
    for _ in 0..ATTEMPTS {
        let file = lock_file(dir, &path)?;
        // The previous holder may have removed the file between our open and our lock: then
        // this lock guards nothing, and the path must be opened afresh.
        if names_file(&path, &file) {
            return Ok(RunLock { file, path });
        }
    }
    Err(Error::Limit(format!(
        "{} keeps being replaced while this solver locks it",
        path.display()
    )))
}

/// Whether `path` still names the open `file` (same device and inode).
fn names_file(path: &Path, file: &File) -> bool {
    match (std::fs::symlink_metadata(path), file.metadata()) {
        (Ok(p), Ok(f)) => p.dev() == f.dev() && p.ino() == f.ino(),
        _ => false,
    }
}

/// Opens (creating) and locks `path`, writing this process's id into it.
fn lock_file(dir: &Path, path: &Path) -> Result<File> {
    // A symlink planted as the lock makes this fail instead of writing through it.
    let mut file = super::open_no_follow()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(Error::Limit(format!(
                "another solver is working in {} (lock held on {})",
                dir.display(),
                path.display()
            )))
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(path, e)),
    }
    file.set_len(0).map_err(|e| Error::io(path, e))?;
    writeln!(file, "{}", std::process::id()).map_err(|e| Error::io(path, e))?;
    Ok(file)
}

impl Drop for RunLock {
    /// Removes the lock file while the lock is still held (the file closes after this), and
    /// only if the path still names it; a failure leaves a harmless unlocked file behind.
    fn drop(&mut self) {
        if names_file(&self.path, &self.file) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = super::acquire(dir.path()).unwrap();
        assert!(super::acquire(dir.path()).is_err());
        drop(first);
        assert!(
            !dir.path().join("lock").exists(),
            "a dropped lock removes its file"
        );
        assert!(super::acquire(dir.path()).is_ok());
    }

    #[test]
    fn a_lock_whose_file_was_removed_is_taken_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let stale = std::fs::File::create(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let lock = super::acquire(dir.path()).unwrap();
        assert!(super::names_file(&path, &lock.file));
        assert!(!super::names_file(&path, &stale));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_planted_as_the_lock_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let run = dir.path().join("run");
        std::fs::create_dir(&run).unwrap();
        std::os::unix::fs::symlink(&victim, run.join("lock")).unwrap();
        assert!(super::acquire(&run).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }
}
