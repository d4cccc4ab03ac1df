//! The ledger: every file and folder a run created, so that discarding a run deletes only those.
//!
//! `owned.json` sits beside the manifest and is rewritten atomically before the solver creates
//! anything it would later delete (a tier's table, a work folder, a `--tmp` folder), and after
//! a file whose name it learns only on creation (a tier's compressed file). A name a user put
//! in the run directory is never in it, however much it looks like one of the solver's. It
//! carries its own checksum, like the manifest: a damaged ledger is not trusted, and the
//! solver then deletes less, never more.
//!
//! Files are names inside the run directory; folders are stored relative to the run
//! directory when they lie inside it (so a moved run directory keeps its own), absolute
//! otherwise.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use bawo_games::error::{Error, Result};

/// The ledger's file name in a run directory.
pub const FILE: &str = "owned.json";

/// What a run created in and for its run directory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    /// File names inside the run directory.
    pub files: BTreeSet<String>,
    /// Folders the run created (work folders, a `--tmp` folder), as stored (see the module).
    pub dirs: BTreeSet<PathBuf>,
    /// The run directory the ledger was written in (canonical): in a copy or a move of it,
    /// the absolute folders recorded are the original's, not this run's.
    #[serde(default)]
    home: PathBuf,
    /// Checksum of the ledger as written with this field empty.
    #[serde(default)]
    checksum: String,
}

impl Ledger {
    /// The ledger's path in `dir`.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(FILE)
    }

    /// Reads the ledger of `dir`: `Ok(None)` when there is none (a run of an earlier version,
    /// or a shipped database), an error when it is damaged.
    pub fn load(dir: &Path) -> Result<Option<Ledger>> {
        let path = Self::path(dir);
        // Bounded and regular-only as the manifest is: a ledger is as forgeable.
        let Some(text) = super::bytes::read_text_if_present(&path, super::manifest::MAX_BYTES)?
        else {
            return Ok(None);
        };
        let l: Ledger = serde_json::from_str(&text).map_err(|e| {
            Error::corrupt(
                &path,
                format!("unreadable ledger: {}", super::manifest::json_error(&e)),
            )
        })?;
        if l.checksum.is_empty() || !super::self_sum::text_matches(&text) {
            return Err(Error::corrupt(&path, "ledger does not match its checksum"));
        }
        Ok(Some(l))
    }

    /// Writes the ledger atomically.
    pub fn save(&mut self, dir: &Path) -> Result<()> {
        if self.home.as_os_str().is_empty() {
            self.home = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
        }
        self.checksum.clear();
        let text = serde_json::to_string_pretty(self).expect("ledger serializes");
        let (text, sum) =
            super::self_sum::seal(&text).expect("the checksum is the ledger's last field");
        self.checksum = sum.to_string();
        super::write_atomic(&Self::path(dir), |w| {
            w.write_all(text.as_bytes())?;
            w.write_all(b"\n")
        })?;
        Ok(())
    }

    /// Records the file `name` of the run directory `dir`, saving the ledger if it is new.
    pub fn record_file(&mut self, dir: &Path, name: &str) -> Result<()> {
        if self.files.insert(name.to_string()) {
            self.save(dir)?;
        }
        Ok(())
    }

    /// Records the folder `path`, saving the ledger if it is new.
    pub fn record_dir(&mut self, dir: &Path, path: &Path) -> Result<()> {
        let stored = stored_form(dir, path);
        if self.dirs.insert(stored) {
            self.save(dir)?;
        }
        Ok(())
    }

    /// Whether `path` is a folder this ledger records.
    pub fn owns_dir(&self, dir: &Path, path: &Path) -> bool {
        self.dirs.contains(&stored_form(dir, path))
    }

    /// The recorded folders that are this run directory's as paths, deepest first (so that a
    /// folder is emptied of the folders inside it before its own turn), and the absolute ones
    /// recorded by the directory this one was copied or moved from, which are not.
    pub fn dir_paths(&self, dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let moved = std::fs::canonicalize(dir).ok() != Some(self.home.clone());
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for d in &self.dirs {
            if d.is_relative() {
                ours.push(dir.join(d));
            } else if moved {
                theirs.push(d.clone());
            } else {
                ours.push(d.clone());
            }
        }
        ours.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
        (ours, theirs)
    }

    /// Forgets what no longer exists, saving the ledger if anything changed.
    pub fn prune(&mut self, dir: &Path) -> Result<()> {
        let before = (self.files.len(), self.dirs.len());
        self.files
            .retain(|f| std::fs::symlink_metadata(dir.join(f)).is_ok());
        let base = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        self.dirs.retain(|d| {
            let p = if d.is_relative() {
                base.join(d)
            } else {
                d.clone()
            };
            std::fs::symlink_metadata(p).is_ok()
        });
        if before != (self.files.len(), self.dirs.len()) {
            self.save(dir)?;
        }
        Ok(())
    }
}

/// `path` relative to the run directory when it lies inside it, else absolute.
fn stored_form(dir: &Path, path: &Path) -> PathBuf {
    let base = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let abs = absolute(path);
    match abs.strip_prefix(&base) {
        Ok(rel) => rel.to_path_buf(),
        Err(_) => abs,
    }
}

/// `path` made absolute through its deepest existing ancestor (the path itself may not exist
/// yet: folders are recorded before they are created).
fn absolute(path: &Path) -> PathBuf {
    let mut tail = Vec::new();
    let mut cur = path.to_path_buf();
    loop {
        if let Ok(c) = std::fs::canonicalize(&cur) {
            return tail.iter().rev().fold(c, |p: PathBuf, t| p.join(t));
        }
        match (cur.file_name().map(|n| n.to_os_string()), cur.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name);
                cur = if parent.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    parent.to_path_buf()
                };
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ledger_round_trips_and_a_damaged_one_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path();
        assert_eq!(Ledger::load(dir).unwrap(), None);
        let mut l = Ledger::default();
        l.record_file(dir, "tier-0001.tbl").unwrap();
        l.record_dir(dir, &dir.join("work/tier-0001")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        l.record_dir(dir, &outside.path().join("bawo-x")).unwrap();
        let back = Ledger::load(dir).unwrap().unwrap();
        assert_eq!(back, l);
        assert!(back.dirs.contains(Path::new("work/tier-0001")));
        assert!(back.owns_dir(dir, &dir.join("work/tier-0001")));
        let (paths, theirs) = back.dir_paths(dir);
        assert_eq!(paths.len(), 2);
        assert!(theirs.is_empty());
        assert_eq!(paths[0], dir.join("work/tier-0001"));
        // In a copy of the run directory, the folder outside it is the original's.
        let copy = tempfile::tempdir().unwrap();
        std::fs::copy(Ledger::path(dir), Ledger::path(copy.path())).unwrap();
        let (paths, theirs) = Ledger::load(copy.path())
            .unwrap()
            .unwrap()
            .dir_paths(copy.path());
        assert_eq!(paths, [copy.path().join("work/tier-0001")]);
        assert_eq!(theirs.len(), 1);
        let text = std::fs::read_to_string(Ledger::path(dir)).unwrap();
        std::fs::write(
            Ledger::path(dir),
            text.replace("tier-0001.tbl", "thesis.tex"),
        )
        .unwrap();
        assert!(matches!(Ledger::load(dir), Err(Error::Corrupt { .. })));
    }

    #[test]
    fn prune_forgets_what_is_gone() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path();
        let mut l = Ledger::default();
        std::fs::write(dir.join("a"), b"").unwrap();
        l.record_file(dir, "a").unwrap();
        l.record_file(dir, "b").unwrap();
        l.record_dir(dir, &dir.join("w")).unwrap();
        l.prune(dir).unwrap();
        assert_eq!(l.files.iter().collect::<Vec<_>>(), ["a"]);
        assert!(l.dirs.is_empty());
        assert_eq!(Ledger::load(dir).unwrap().unwrap(), l);
    }
}
