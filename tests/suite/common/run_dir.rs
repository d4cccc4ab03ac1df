//! Run directories as the tests see them: scratch space, the manifest, the finished files.

use std::collections::BTreeMap;
use std::path::Path;

/// A scratch directory named `prefix...`, in memory (`/dev/shm`) where possible: the tests
/// that solve again and again after every checkpoint write many small files.
pub fn scratch(prefix: &str) -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::Builder::new().prefix(prefix).tempdir_in(shm) {
            return d;
        }
    }
    tempfile::Builder::new().prefix(prefix).tempdir().unwrap()
}

/// The run directory's manifest.
pub fn manifest(dir: &Path) -> serde_json::Value {
    let bytes = std::fs::read(dir.join("manifest.json")).expect("manifest.json");
    serde_json::from_slice(&bytes).expect("manifest is JSON")
}

/// The finished tables (`.tbl` and `.bdb`) of a run directory, by name.
pub fn final_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tbl") || n.ends_with(".bdb"))
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).unwrap();
            (n, bytes)
        })
        .collect()
}

/// A path as a command-line argument (the tests' scratch paths are UTF-8).
pub fn path_arg(p: &Path) -> String {
    p.to_str().expect("UTF-8 scratch path").to_string()
}

/// Every file under `dir`, by path relative to it, with its bytes: to check that a refused
/// command changed nothing. The run's `lock` file is left out (a run makes it and keeps it).
pub fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, into: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, into);
            } else {
                let name = p.strip_prefix(root).unwrap().display().to_string();
                if name != "lock" {
                    into.insert(name, std::fs::read(&p).unwrap());
                }
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(dir, dir, &mut files);
    files
}

/// The bytes of every file under `dir` (0 where it does not exist).
pub fn dir_size(dir: &Path) -> u64 {
    snapshot(dir).values().map(|b| b.len() as u64).sum()
}

/// The arguments of `bawo solve` with the game's flags `game`, into `dir`, then `extra`.
pub fn solve_args(game: &[&str], dir: &Path, extra: &[&str]) -> Vec<String> {
    let mut a = vec!["solve".to_string()];
    a.extend(game.iter().map(|s| s.to_string()));
    a.extend(["--out".to_string(), path_arg(dir)]);
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}
