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

/// The bytes of the work files in `dir` (a tier's work folder), by kind; files the solver
/// does not name count as cells' (none are expected).
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
        let slot = match name.to_str().and_then(WorkFile::parse) {
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
}
