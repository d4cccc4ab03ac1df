//! Out of core, the cells of a dense level's ranges not held are read whole into memory,
//! changed there, and their changed pages written back ([`crate::tier::levels`]). The reading
//! and the writing are done here, on a thread of their own, in the order asked: the next
//! dense range is read while this one's messages are applied, and this one is written back
//! while the next is applied.
//!
//! Done between two ranges' work, the copies from and to the page cache kept a core idle:
//! on Kigogo's 7-seed tier under `--mem 512M` they took a fifth of the attractor's driving
//! thread, 6.5 s of 32, with the other core waiting. The thread holds at most one range's
//! cells beside the range being applied (a buffer written back is the next one read into),
//! which the attractor's window holds: it counts at least 12 bytes a position of the range it
//! works on, and applying holds only the cells.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::{Scope, ScopedJoinHandle};

use crate::tier::attractor::CHANGED_BLOCK;
use crate::tier::cells::{CellBuf, CellWidth};
use crate::tier::held::HeldCells;
use bawo_games::error::{Error, Result};

/// What the thread is asked to do, in order.
enum Order {
    /// Read the `len` cells of the file at the path.
    Read(PathBuf, usize),
    /// Write these blocks ([`CHANGED_BLOCK`] cells each) of the cells back to the path.
    Write(PathBuf, CellBuf, Vec<Range<usize>>),
}

/// The thread that reads and writes back a level's dense ranges.
pub(super) struct CellsIo<'scope> {
    orders: SyncSender<Order>,
    /// Each read's cells, or `None` where the thread stopped on a failure (which it returns).
    read: Receiver<Option<CellBuf>>,
    thread: Option<ScopedJoinHandle<'scope, Result<()>>>,
}

impl<'scope> CellsIo<'scope> {
    /// Starts the thread in `scope`, for cells of `width`.
    pub fn start<'env>(scope: &'scope Scope<'scope, 'env>, width: CellWidth) -> Result<Self> {
        // Two orders at most wait: a write-back and the read after it.
        let (orders, todo) = sync_channel::<Order>(2);
        let (done, read) = sync_channel::<Option<CellBuf>>(1);
        let thread = std::thread::Builder::new()
            .name("cells-io".to_string())
            .spawn_scoped(scope, move || serve(todo, done, width))
            .map_err(|e| Error::Internal(format!("cannot start the cells' reader: {e}")))?;
        Ok(CellsIo {
            orders,
            read,
            thread: Some(thread),
        })
    }

    /// Asks for the `len` cells of the file at `path`; [`CellsIo::take`] gives them, in the
    /// order asked.
    pub fn read(&mut self, path: PathBuf, len: usize) -> Result<()> {
        self.send(Order::Read(path, len))
    }

    /// The cells of the oldest read asked for.
    pub fn take(&mut self) -> Result<CellBuf> {
        match self.read.recv() {
            Ok(Some(cells)) => Ok(cells),
            _ => Err(self.failure()),
        }
    }

    /// Writes `blocks` of `cells` back to `path`; the buffer is then read into again.
    pub fn write(
        &mut self,
        path: PathBuf,
        cells: CellBuf,
        blocks: Vec<Range<usize>>,
    ) -> Result<()> {
        self.send(Order::Write(path, cells, blocks))
    }

    /// Waits for every write-back asked for; the first failure, if any.
    pub fn finish(mut self) -> Result<()> {
        let thread = self.thread.take();
        drop(self);
        match thread {
            Some(t) => t
                .join()
                .map_err(|_| Error::Internal("the cells' reader panicked".to_string()))?,
            None => Ok(()),
        }
    }

    fn send(&mut self, order: Order) -> Result<()> {
        if self.orders.send(order).is_err() {
            return Err(self.failure());
        }
        Ok(())
    }

    /// The failure the thread stopped on (it is joined).
    fn failure(&mut self) -> Error {
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(Err(e))) => e,
            Some(Err(_)) => Error::Internal("the cells' reader panicked".to_string()),
            _ => Error::Internal("the cells' reader stopped".to_string()),
        }
    }
}

/// The thread: serves `todo` until it closes or an order fails, sending each read's cells to
/// `done` (`None` on a failure, which it returns, for a waiting reader to ask for).
fn serve(todo: Receiver<Order>, done: SyncSender<Option<CellBuf>>, width: CellWidth) -> Result<()> {
    let mut spare = CellBuf::zeroed(width, 0);
    for order in todo {
        let result = match order {
            Order::Read(path, len) => {
                let mut cells = std::mem::replace(&mut spare, CellBuf::zeroed(width, 0));
                cells.resize(len);
                HeldCells::read_file(&path, &mut cells).map(|()| {
                    // A reader gone has stopped on an error of its own.
                    let _ = done.send(Some(cells));
                })
            }
            Order::Write(path, cells, blocks) => {
                let written = write_blocks(&path, &cells, &blocks);
                spare = cells;
                written
            }
        };
        if result.is_err() {
            let _ = done.try_send(None);
            return result;
        }
    }
    Ok(())
}

/// Writes `blocks` of `cells` to the file at `path` (never through a symbolic link, never
/// creating it).
fn write_blocks(path: &Path, cells: &CellBuf, blocks: &[Range<usize>]) -> Result<()> {
    use std::os::unix::fs::FileExt;
    let file = bawo_store::open_no_follow()
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let bytes = cells.bytes();
    let block = cells.width().bytes() * CHANGED_BLOCK;
    for run in blocks {
        let from = run.start * block;
        let to = (run.end * block).min(bytes.len());
        bawo_store::fault::check_write(to - from, path)?;
        file.write_all_at(&bytes[from..to], from as u64)
            .map_err(|e| Error::io(path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_of(dir: &Path, name: &str, cells: &[u32]) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, bawo_store::bytes::u32_bytes(cells)).unwrap();
        p
    }

    #[test]
    fn reads_come_in_order_and_only_changed_blocks_are_written() {
        let dir = tempfile::tempdir().unwrap();
        let n = 3 * CHANGED_BLOCK + 5;
        let a: Vec<u32> = (0..n as u32).collect();
        let b: Vec<u32> = (0..n as u32).map(|i| i * 7).collect();
        let (pa, pb) = (file_of(dir.path(), "a", &a), file_of(dir.path(), "b", &b));
        std::thread::scope(|s| {
            let mut io = CellsIo::start(s, CellWidth::Wide).unwrap();
            io.read(pa.clone(), n).unwrap();
            io.read(pb.clone(), n).unwrap();
            let CellBuf::Wide(mut got) = io.take().unwrap() else {
                panic!("wide cells")
            };
            assert_eq!(got, a);
            // Block 0 and the last (short) block changed; block 1 changed in memory only.
            got[3] = 99;
            got[CHANGED_BLOCK + 1] = 98;
            got[n - 1] = 97;
            io.write(pa.clone(), CellBuf::Wide(got), vec![0..1, 3..4])
                .unwrap();
            assert!(matches!(io.take().unwrap(), CellBuf::Wide(v) if v == b));
            io.finish().unwrap();
        });
        let mut want = a.clone();
        want[3] = 99;
        want[n - 1] = 97;
        assert_eq!(
            std::fs::read(&pa).unwrap(),
            bawo_store::bytes::u32_bytes(&want)
        );
    }

    #[test]
    fn narrow_cells_are_read_and_written_back_at_their_own_width() {
        let dir = tempfile::tempdir().unwrap();
        let n = 2 * CHANGED_BLOCK + 3;
        let a: Vec<u16> = (0..n as u16).collect();
        let p = dir.path().join("n");
        std::fs::write(&p, bawo_store::bytes::u16_bytes(&a)).unwrap();
        std::thread::scope(|s| {
            let mut io = CellsIo::start(s, CellWidth::Narrow).unwrap();
            io.read(p.clone(), n).unwrap();
            let CellBuf::Narrow(mut got) = io.take().unwrap() else {
                panic!("narrow cells")
            };
            assert_eq!(got, a);
            got[CHANGED_BLOCK + 2] = 7;
            got[5] = 8;
            io.write(
                p.clone(),
                CellBuf::Narrow(got),
                std::iter::once(1..2).collect(),
            )
            .unwrap();
            io.finish().unwrap();
        });
        let mut want = a.clone();
        want[CHANGED_BLOCK + 2] = 7;
        assert_eq!(
            std::fs::read(&p).unwrap(),
            bawo_store::bytes::u16_bytes(&want)
        );
    }

    #[test]
    fn a_failure_reaches_the_reader_or_the_finish() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        std::thread::scope(|s| {
            let mut io = CellsIo::start(s, CellWidth::Wide).unwrap();
            io.read(missing.clone(), 8).unwrap();
            let e = io.take().unwrap_err();
            assert!(
                format!("{e}").contains("missing"),
                "the failure itself: {e}"
            );
        });
        // A failed write-back is reported by the finish (nothing is read after it).
        std::thread::scope(|s| {
            let mut io = CellsIo::start(s, CellWidth::Wide).unwrap();
            io.write(
                missing.clone(),
                CellBuf::Wide(vec![1; 8]),
                std::iter::once(0..1).collect(),
            )
            .unwrap();
            let e = io.finish().unwrap_err();
            assert!(
                format!("{e}").contains("missing"),
                "the failure itself: {e}"
            );
        });
        assert!(!missing.exists(), "a write-back never creates a file");
    }
}
