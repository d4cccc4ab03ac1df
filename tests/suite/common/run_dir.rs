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
