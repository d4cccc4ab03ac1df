//! What a run owns: it records every file and folder it creates in the run directory's ledger
//! ([`bawo_store::ledger`]) before creating it, and discarding a run (`--force`) deletes only
//! what is recorded there or in its manifest, and of that only what carries a name the solver
//! gives. A file that merely looks like one of the solver's stays, with a note.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::tier::checkpoint::Manifest;
use crate::work::{is_solver_file, remove_file_if_present, remove_work_dir};
use bawo_games::error::{Error, Result};
use bawo_games::game::InputError;
use bawo_store::ledger::Ledger;

/// The ledger of one run directory, kept up to date as the run creates things.
pub struct Owned<'a> {
    dir: &'a Path,
    ledger: Ledger,
}

impl<'a> Owned<'a> {
    /// Reads the ledger of `dir`. A damaged one is not trusted: the run carries on with an
    /// empty one, and what it listed is left in place.
    pub fn open(dir: &'a Path, notice: &dyn Fn(&str)) -> Result<Owned<'a>> {
        let ledger = match Ledger::load(dir) {
            Ok(l) => l.unwrap_or_default(),
            Err(e @ Error::Corrupt { .. }) => {
                notice(&format!(
                    "{e}; files it listed are no longer deleted by bawo"
                ));
                Ledger::default()
            }
            Err(e) => return Err(e),
        };
        Ok(Owned { dir, ledger })
    }

    /// Records the file `name` of the run directory before it is created.
    pub fn file(&mut self, name: &str) -> Result<()> {
        self.ledger.record_file(self.dir, name)
    }

    /// Records `path` and every missing folder above it, if `path` does not exist yet: the
    /// run is about to create them. A folder that existed before is not the run's.
    pub fn dir_if_new(&mut self, path: &Path) -> Result<()> {
        let mut missing = Vec::new();
        let mut cur = Some(path);
        while let Some(p) = cur.filter(|p| !p.as_os_str().is_empty()) {
            if std::fs::symlink_metadata(p).is_ok() {
                break;
            }
            missing.push(p.to_path_buf());
            cur = p.parent();
        }
        for p in missing.iter().rev() {
            self.ledger.record_dir(self.dir, p)?;
        }
        Ok(())
    }

    /// Takes the work folder of a tier about to start afresh: records it if it is new. One
    /// that exists without having been made by the run is someone else's: it is used only if
    /// it holds no file with a work file's name, which the solver would overwrite and delete.
    pub fn claim_work_dir(&mut self, work: &Path) -> Result<()> {
        if std::fs::symlink_metadata(work).is_err() {
            return self.dir_if_new(work);
        }
        if self.owns_dir(work) {
            return Ok(());
        }
        let entries = std::fs::read_dir(work).map_err(|e| Error::io(work, e))?;
        for e in entries {
            let name = e.map_err(|e| Error::io(work, e))?.file_name();
            if is_solver_file(&name.to_string_lossy()) {
                return Err(Error::Input(InputError::new(format!(
                    "{} holds {}, which bawo did not create there; move it away (or give \
                     --tmp another folder)",
                    work.display(),
                    name.to_string_lossy()
                ))));
            }
        }
        Ok(())
    }

    /// Whether the run created the folder `path`.
    pub fn owns_dir(&self, path: &Path) -> bool {
        self.ledger.owns_dir(self.dir, path)
    }

    /// Removes what an earlier run left in the directory: the files its manifest (when it
    /// could be read) and the ledger name, work folders the ledger records or the manifest's
    /// checkpoint names inside the run directory, and the manifest itself. Each only if it
    /// carries a name the solver gives; anything else stays, with a note.
    pub fn discard(&mut self, manifest: Option<&Manifest>, notice: &dyn Fn(&str)) -> Result<()> {
        let mut files: BTreeSet<String> = self.ledger.files.clone();
        let mut work: Vec<PathBuf> = Vec::new();
        if let Some(m) = manifest {
            for r in &m.tiers {
                files.insert(r.file.clone());
                files.extend(r.bdb.as_ref().map(|b| b.file.clone()));
            }
            if let Some(c) = &m.current {
                let base = std::fs::canonicalize(self.dir).map_err(|e| Error::io(self.dir, e))?;
                if c.work.starts_with(&base) || self.owns_dir(&c.work) {
                    work.push(c.work.clone());
                }
            }
        }
        let mut left = Vec::new();
        for f in &files {
            let path = self.dir.join(f);
            let is_file = std::fs::symlink_metadata(&path).map(|m| m.is_file());
            match is_file {
                Ok(true) if is_tier_file(f) => remove_file_if_present(&path)?,
                Ok(_) => left.push(f.clone()),
                Err(_) => {}
            }
        }
        let (dirs, theirs) = self.ledger.dir_paths(self.dir);
        work.extend(dirs);
        for d in &work {
            let tier_dir = d
                .file_name()
                .is_some_and(|n| is_tier_work_dir(&n.to_string_lossy()));
            if tier_dir {
                remove_work_dir(d)?;
            } else {
                // A work root or a --tmp folder of the run's: only once nothing is left in it.
                let _ = std::fs::remove_dir(d);
            }
        }
        for d in &theirs {
            left.push(d.display().to_string());
        }
        // What looks like the solver's but was never recorded as created by it.
        let entries = std::fs::read_dir(self.dir).map_err(|e| Error::io(self.dir, e))?;
        for e in entries {
            let name = e.map_err(|e| Error::io(self.dir, e))?.file_name();
            let name = name.to_string_lossy();
            if is_tier_file(&name) && !files.contains(&*name) {
                left.push(name.into_owned());
            }
        }
        if !left.is_empty() {
            notice(&format!(
                "left in place, as not recorded as created by this run: {}",
                left.join(", ")
            ));
        }
        remove_file_if_present(&Manifest::path(self.dir))?;
        self.ledger.prune(self.dir)
    }

    /// At the end of a run: removes the folders the run created that are empty now (its work
    /// root, a `--tmp` folder it made), and forgets what no longer exists.
    pub fn remove_empty_dirs(&mut self) -> Result<()> {
        let (dirs, _) = self.ledger.dir_paths(self.dir);
        for d in dirs {
            let _ = std::fs::remove_dir(d);
        }
        self.ledger.prune(self.dir)
    }
}

/// Whether the manifest that failed to load is this program's (damaged, or of an older
/// layout) rather than some other tool's `manifest.json`: only then may `--force` discard it.
pub fn manifest_looks_like_ours(dir: &Path) -> bool {
    bawo_store::bytes::read_text_bounded(&Manifest::path(dir), bawo_store::manifest::MAX_BYTES)
        .is_ok_and(|t| t.contains("\"fingerprint\"") && t.contains("\"game\""))
}

/// `tier-KKKK.tbl` or `tier-KKKK.bdb`: a tier's table or compressed file.
fn is_tier_file(name: &str) -> bool {
    name.strip_suffix(".tbl")
        .or_else(|| name.strip_suffix(".bdb"))
        .or_else(|| name.strip_suffix(".flags"))
        .is_some_and(is_tier_work_dir)
}

/// `tier-KKKK`: the name of a tier's work folder.
fn is_tier_work_dir(name: &str) -> bool {
    name.strip_prefix("tier-")
        .is_some_and(|k| k.len() == 4 && k.bytes().all(|b| b.is_ascii_digit()))
}

/// A lean run: once every tier is finished, the raw tables of its tiers go (those with a
/// compressed file to decode them from again); the database is the compressed files and the
/// manifest.
pub fn remove_raw_tables(dir: &Path, m: &Manifest) -> Result<()> {
    for r in m.tiers.iter().filter(|r| r.bdb.is_some()) {
        remove_file_if_present(&dir.join(&r.file))?;
    }
    bawo_store::sync_dir(dir)
}
