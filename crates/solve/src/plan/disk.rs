//! What a run costs in disk: bytes this process wrote, and bytes a directory holds. Both are
//! reported per tier, so that a run's write volume and its peak disk can be compared and cut.

use std::path::Path;

use crate::counts::WorkDisk;
use crate::work::WorkFile;

/// Bytes this process has sent towards storage so far (`write_bytes` of `/proc/self/io`:
/// buffered writes and dirtied pages of memory maps, counted when dirtied, work files deleted
/// before they reached the disk included), or `None` where the kernel does not say.
pub fn process_bytes_written() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/io").ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("write_bytes:"))
        .and_then(|v| v.trim().parse().ok())
}

/// Bytes of the files under `dir`, folders followed (symbolic links are not): the disk a
/// run holds at a moment. A folder that vanishes while it is read counts as empty.
pub fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// The bytes of the work files in `dir` (a tier's work folder), by kind (a temporary file as
/// the file it becomes); files the solver does not name count as cells' (none are expected).
pub fn work_disk(dir: &Path) -> WorkDisk {
    let mut by_kind = WorkDisk::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return by_kind;
    };
    for e in entries.flatten() {
        let Ok(meta) = e.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let bytes = meta.len();
        let name = e.file_name();
        let slot = match name.to_str().and_then(WorkFile::parse_or_temp) {
            Some(WorkFile::Edges(_)) => &mut by_kind.edges,
            Some(WorkFile::Preds(_)) => &mut by_kind.preds,
            Some(WorkFile::Due { .. }) => &mut by_kind.due,
            Some(WorkFile::Messages(_)) => &mut by_kind.messages,
            Some(WorkFile::Packed { .. }) => &mut by_kind.packed,
            Some(WorkFile::Cells { .. }) | None => &mut by_kind.cells,
        };
        *slot += bytes;
    }
    by_kind
}

/// Times between scans of a work folder, in multiples of the last scan's own time: a scan
/// states every file of the folder, and a tier out of core has thousands (a due log per level
/// and range). Scanning after every range and level took 20% of the attractor's driving
/// thread and 45% of the predecessor phase's on Kigogo's 7-seed tier under `--mem 512M`, time
/// in which the other core waited; spaced so, a scan takes at most a twentieth of it.
const SCAN_SPACING: u32 = 19;

/// The work folder's disk, sampled: [`DiskGauge::sample`] scans it ([`work_disk`]) only where
/// the last scan is far enough behind; [`DiskGauge::scan`] always does;
/// [`DiskGauge::sample_behind`] scans on a thread of its own. The peak a tier reports is the
/// most of the scans taken, so a peak between two scans can be missed (the work files grow
/// and shrink over seconds, a scan's spacing is a fraction of one).
#[derive(Debug)]
pub struct DiskGauge<T = ()> {
    next: Option<std::time::Instant>,
    /// A scan started by [`DiskGauge::sample_behind`], with its tag.
    behind: Option<(std::thread::JoinHandle<(WorkDisk, std::time::Duration)>, T)>,
}

impl<T> Default for DiskGauge<T> {
    fn default() -> Self {
        DiskGauge {
            next: None,
            behind: None,
        }
    }
}

impl<T> DiskGauge<T> {
    /// The folder's disk by kind, if a scan is due.
    pub fn sample(&mut self, dir: &Path) -> Option<WorkDisk> {
        self.due().then(|| self.scan(dir))
    }

    fn due(&self) -> bool {
        self.next.is_none_or(|t| std::time::Instant::now() >= t)
    }

    /// The folder's disk by kind, scanned now; the next sample waits in proportion.
    pub fn scan(&mut self, dir: &Path) -> WorkDisk {
        let start = std::time::Instant::now();
        let kinds = work_disk(dir);
        self.next = Some(std::time::Instant::now() + start.elapsed() * SCAN_SPACING);
        kinds
    }

    /// [`DiskGauge::sample`] on a thread of its own, so that the caller goes on while the
    /// folder is scanned: the scan that last finished, with the `tag` it was started with,
    /// and a new one started if one is due (none runs and the last one is far enough
    /// behind). Scanned by the driving thread, the scans took a twentieth of its time with
    /// the other core waiting.
    pub fn sample_behind(&mut self, dir: &Path, tag: T) -> Option<(WorkDisk, T)> {
        let done = match self.behind.take() {
            Some((thread, tag)) if thread.is_finished() => {
                thread.join().ok().map(|(kinds, took)| {
                    self.next = Some(std::time::Instant::now() + took * SCAN_SPACING);
                    (kinds, tag)
                })
            }
            running => {
                self.behind = running;
                None
            }
        };
        if self.behind.is_none() && self.due() {
            let dir = dir.to_path_buf();
            let thread = std::thread::Builder::new()
                .name("disk-gauge".to_string())
                .spawn(move || {
                    let start = std::time::Instant::now();
                    (work_disk(&dir), start.elapsed())
                });
            // No thread to be had: no sample this time.
            if let Ok(thread) = thread {
                self.behind = Some((thread, tag));
            }
        }
        done
    }
}

/// Whether `path` lies inside `dir` (both resolved), so that its bytes are counted with it.
pub fn is_under(path: &Path, dir: &Path) -> bool {
    match (std::fs::canonicalize(path), std::fs::canonicalize(dir)) {
        (Ok(p), Ok(d)) => p.starts_with(d),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_counts_its_files_and_folders() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a"), [0u8; 100]).unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("sub/b"), [0u8; 23]).unwrap();
        assert_eq!(dir_bytes(d.path()), 123);
        assert_eq!(dir_bytes(&d.path().join("missing")), 0);
    }

    #[test]
    fn a_gauge_scans_first_and_then_waits_in_proportion() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("edges-0.log"), [0u8; 40]).unwrap();
        let mut g = DiskGauge::<()>::default();
        assert_eq!(g.sample(d.path()).map(|k| k.edges), Some(40));
        // Due again once nineteen times the scan's own time has passed.
        g.next = Some(std::time::Instant::now() + std::time::Duration::from_secs(60));
        assert!(
            g.sample(d.path()).is_none(),
            "a scan just taken is not repeated"
        );
        std::fs::write(d.path().join("edges-0.log"), [0u8; 50]).unwrap();
        assert_eq!(g.scan(d.path()).edges, 50, "a forced scan is taken at once");
        g.next = Some(std::time::Instant::now());
        assert_eq!(g.sample(d.path()).map(|k| k.edges), Some(50));
    }

    /// Calls `sample_behind` with `tag` until it gives a scan (or a minute passes).
    fn next_behind(g: &mut DiskGauge<u32>, dir: &Path, tag: u32) -> (WorkDisk, u32) {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            if let Some(got) = g.sample_behind(dir, tag) {
                return got;
            }
            assert!(std::time::Instant::now() < until, "no scan came back");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    #[test]
    fn a_scan_behind_comes_back_once_with_the_tag_it_was_started_with() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("edges-0.log"), [0u8; 40]).unwrap();
        let mut g = DiskGauge::<u32>::default();
        assert!(g.sample_behind(d.path(), 1).is_none(), "started, not done");
        let (kinds, tag) = next_behind(&mut g, d.path(), 2);
        assert_eq!((kinds.edges, tag), (40, 1), "the scan started first");
        // Not due: none is started until its spacing has passed.
        g.next = Some(std::time::Instant::now() + std::time::Duration::from_secs(60));
        assert!(g.behind.is_none() && g.sample_behind(d.path(), 3).is_none());
        assert!(g.behind.is_none(), "a scan just taken is not repeated");
        std::fs::write(d.path().join("edges-0.log"), [0u8; 50]).unwrap();
        g.next = Some(std::time::Instant::now());
        assert!(g.sample_behind(d.path(), 4).is_none());
        let (kinds, tag) = next_behind(&mut g, d.path(), 5);
        assert_eq!((kinds.edges, tag), (50, 4));
    }
}
