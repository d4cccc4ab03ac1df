//! Many files synced at once. A checkpoint out of core commits hundreds of logs (one per
//! attractor level and range) and a cell file per range; synced one after another, each
//! waits for its own flush of the device (several milliseconds here), and a core idles for
//! seconds. Flushes of different files overlap in the device's queue, so they are issued
//! from a few threads of their own (blocked on I/O, not on the CPU: not the solver's
//! workers).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use bawo_games::error::Result;

/// Threads that sync at once.
const SYNC_THREADS: usize = 16;

/// `f` of every item, from up to `SYNC_THREADS` threads; the results in the items' order,
/// or the first error (by item) once every call has returned.
pub fn each_in_parallel<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    if items.len() <= 1 {
        return items.iter().map(&f).collect();
    }
    let next = AtomicUsize::new(0);
    let out: Vec<Mutex<Option<Result<R>>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..SYNC_THREADS.min(items.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                *out[i].lock().expect("result slot") = Some(r);
            });
        }
    });
    out.into_iter()
        .map(|m| {
            m.into_inner()
                .expect("result slot")
                .expect("every item was taken")
        })
        .collect()
}

/// Asks the kernel to start writing `file`'s dirty pages back now, without waiting for it: a
/// file written in one stream (a tier's raw table, gigabytes) would otherwise wait for the
/// kernel's dirty thresholds and leave most of its bytes to the final `fsync`, with the
/// cores idle. Advice only; nothing is promised until the file is synced.
pub fn start_writeback(file: &std::fs::File) {
    start_writeback_of(file, 0, 0);
}

/// [`start_writeback`] of the `len` bytes from `offset` only (0: to the end): a file filled a
/// piece at a time asks for each piece, not for the whole file again.
pub fn start_writeback_of(file: &std::fs::File, offset: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(offset), Ok(len)) = (
            libc::off64_t::try_from(offset),
            libc::off64_t::try_from(len),
        ) else {
            return;
        };
        // SAFETY: a plain system call on an open descriptor; its result is advice only.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, offset, len);
}

/// Asks the kernel to read `file` ahead into its page cache, without waiting: the file is
/// about to be read whole (a range's cells, mapped by a tier's finish).
pub fn read_ahead(file: &std::fs::File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on an open descriptor; its result is advice only.
        unsafe {
            libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_WILLNEED);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

#[cfg(test)]
mod tests {
    use super::*;
    use bawo_games::error::Error;

    #[test]
    fn results_keep_the_items_order_and_the_first_error_wins() {
        let items: Vec<u32> = (0..100).collect();
        let got = each_in_parallel(&items, |&i| Ok(i * 2)).unwrap();
        assert_eq!(got, (0..100).map(|i| i * 2).collect::<Vec<_>>());
        let e = each_in_parallel(&items, |&i| {
            if i % 30 == 7 {
                Err(Error::Internal(format!("item {i}")))
            } else {
                Ok(i)
            }
        })
        .unwrap_err();
        assert!(e.to_string().contains("item 7"), "{e}");
        assert!(each_in_parallel(&[] as &[u32], |&i| Ok(i))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn files_synced_from_several_threads_are_all_synced() {
        let d = tempfile::tempdir().unwrap();
        let paths: Vec<_> = (0..40).map(|i| d.path().join(format!("f{i}"))).collect();
        for p in &paths {
            std::fs::write(p, b"x").unwrap();
        }
        let sizes = each_in_parallel(&paths, |p| {
            let f = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
            f.sync_all().map_err(|e| Error::io(p, e))?;
            Ok(f.metadata().map_err(|e| Error::io(p, e))?.len())
        })
        .unwrap();
        assert_eq!(sizes, vec![1; 40]);
    }
}
