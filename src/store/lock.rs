//! One solver per run directory: an advisory lock on `DIR/lock`, released by the kernel when
//! the process ends however it ends (so a killed run never leaves a stale lock behind).

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// Holds the lock while alive.
pub struct RunLock {
    _file: File,
}

pub fn acquire(dir: &Path) -> Result<RunLock> {
    let path = dir.join("lock");
    // A symlink planted as the lock makes this fail instead of writing through it.
    let mut file = super::open_no_follow()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(Error::Limit(format!(
                "another solver is working in {} (lock held on {})",
                dir.display(),
                path.display()
            )))
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
    }
    file.set_len(0).map_err(|e| Error::io(&path, e))?;
    writeln!(file, "{}", std::process::id()).map_err(|e| Error::io(&path, e))?;
    Ok(RunLock { _file: file })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = super::acquire(dir.path()).unwrap();
        assert!(super::acquire(dir.path()).is_err());
        drop(first);
        assert!(super::acquire(dir.path()).is_ok());
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
