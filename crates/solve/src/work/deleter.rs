//! Files deleted on a thread of their own.
//!
//! Out of core, the predecessor phase's checkpoints delete the edge logs of the ranges built
//! since the one before, tens of megabytes each, and emptying and unlinking them waits on the
//! filesystem for milliseconds, with the workers idle between two ranges: on `n = 4`, 18
//! seeds under `--mem 4G` 0.4 to 0.5 s of its 12 to 13 s phase. Only files that nothing will
//! create again at the same path are handed over (a cell slot is copied into afresh, so its
//! files are deleted where they are let go).

use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

use bawo_games::error::{Error, Result};
use bawo_store::append::LetGo;

/// A thread deleting what it is handed, started at the first file.
#[derive(Default)]
pub struct Deleter {
    running: Option<(Sender<LetGo>, JoinHandle<Result<()>>)>,
}

impl Deleter {
    /// Hands `files` over to be deleted.
    pub fn delete(&mut self, files: impl IntoIterator<Item = LetGo>) -> Result<()> {
        for file in files {
            let (tx, _) = match &self.running {
                Some(r) => r,
                None => self.running.insert(Self::start()?),
            };
            if let Err(back) = tx.send(file) {
                // The thread stopped at an error: delete here, and report it at the wait.
                back.0.delete()?;
            }
        }
        Ok(())
    }

    /// Waits until everything handed over is deleted; the first failure, if any.
    pub fn wait(&mut self) -> Result<()> {
        let Some((tx, thread)) = self.running.take() else {
            return Ok(());
        };
        drop(tx);
        thread
            .join()
            .map_err(|_| Error::Internal("the file deleter panicked".to_string()))?
    }

    fn start() -> Result<(Sender<LetGo>, JoinHandle<Result<()>>)> {
        let (tx, rx) = channel::<LetGo>();
        let thread = std::thread::Builder::new()
            .name("deleter".to_string())
            .spawn(move || rx.into_iter().try_for_each(LetGo::delete))
            .map_err(|e| Error::Internal(format!("cannot start the file deleter: {e}")))?;
        Ok((tx, thread))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bawo_store::append::AppendLog;

    #[test]
    fn every_file_handed_over_is_gone_after_the_wait() {
        let dir = tempfile::tempdir().unwrap();
        let logs: Vec<AppendLog> = (0..20)
            .map(|k| {
                let log = AppendLog::create(&dir.path().join(format!("log-{k}"))).unwrap();
                log.append(&vec![k as u8; 1 << (k % 20)]).unwrap();
                if k % 2 == 0 {
                    log.flush().unwrap();
                }
                log
            })
            .collect();
        let mut d = Deleter::default();
        d.wait().unwrap();
        d.delete(logs.iter().map(AppendLog::let_go)).unwrap();
        // Let go twice: the path alone, already gone.
        d.delete(logs.iter().map(AppendLog::let_go)).unwrap();
        d.wait().unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        // A deleter is used again after a wait.
        let log = AppendLog::create(&dir.path().join("again")).unwrap();
        log.append(b"bytes").unwrap();
        log.flush().unwrap();
        d.delete([log.let_go()]).unwrap();
        d.wait().unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_failed_deletion_is_reported_at_the_wait() {
        let dir = tempfile::tempdir().unwrap();
        // A directory in the log's place cannot be removed as a file.
        let path = dir.path().join("log");
        std::fs::create_dir(&path).unwrap();
        let log = AppendLog::create(&path).unwrap();
        let mut d = Deleter::default();
        d.delete([log.let_go()]).unwrap();
        assert!(d.wait().is_err());
    }
}
