//! The databases a server holds, each under a short name taken from its directory.
//!
//! Requests name a database (`db=NAME`), never a path: the names are fixed when the server
//! starts, so a request cannot make the server open anything else. Tier files are read with
//! `pread`, never mapped, so a file cut short while served is an error for the requests that
//! need it, not a SIGBUS for the server. A run unfinished at start is looked at again (at most
//! once a second, when asked for) so that tiers it finishes later are served.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant, SystemTime};

use bawo_db::stats::Stats;
use bawo_db::{Access, Database};
use bawo_games::error::{Error, Result};
use bawo_games::game::{InputError, Tier};

/// One served database.
pub struct ServedDb {
    /// The short name requests use.
    pub name: String,
    /// The open database.
    pub db: Database,
    /// Statistics read once, on the first `/api/stats` (they cost a pass over every tier).
    stats: OnceLock<Arc<Stats>>,
    /// The stored position the page opens on when the opening is not held, found once.
    open_at: OnceLock<Option<(Tier, u64)>>,
}

impl ServedDb {
    /// The stored position (tier, index) to open the page on, found by `find` on first use
    /// (a search over blocks of the database) and kept.
    pub fn open_at(&self, find: impl FnOnce() -> Option<(Tier, u64)>) -> Option<(Tier, u64)> {
        *self.open_at.get_or_init(find)
    }

    /// The statistics, computed on first use (blocking: call from the blocking pool).
    pub fn stats(&self) -> Result<Arc<Stats>> {
        if let Some(s) = self.stats.get() {
            return Ok(s.clone());
        }
        let s = Arc::new(bawo_db::stats::stats(&self.db)?);
        // A concurrent first caller may have set it meanwhile: either copy is the same.
        let _ = self.stats.set(s.clone());
        Ok(s)
    }
}

/// Keeps letters, digits, `.`, `_` and `-`, so a name is safe in a URL and in a page.
fn clean_name(raw: &str) -> String {
    let s: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if s.is_empty() || s.chars().all(|c| c == '.') {
        "db".to_string()
    } else {
        s
    }
}

/// Every served database, in the order given.
#[derive(Clone)]
pub struct Served {
    dbs: Arc<Vec<Slot>>,
}

/// One database's place: its name and directory are fixed; what is served there is replaced
/// when an unfinished run's manifest changes.
struct Slot {
    name: String,
    dir: PathBuf,
    current: RwLock<Arc<ServedDb>>,
    /// Whether the manifest is still looked at (only while the run is unfinished).
    watching: AtomicBool,
    /// When the manifest was last looked at, and what its file was then.
    seen: Mutex<(Instant, Option<Stamp>)>,
}

/// A manifest file's identity and state: a rewrite (a rename over it) changes it.
type Stamp = (u64, u64, SystemTime);

fn stamp(dir: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(bawo_db::Manifest::path(dir)).ok()?;
    Some((m.ino(), m.len(), m.modified().ok()?))
}

/// How often an unfinished run's manifest is looked at, at most.
pub const RECHECK: Duration = Duration::from_secs(1);

/// Opens a database to serve: its tier files read with `pread` ([`Access::Read`]), so a file
/// cut short under the server answers errors instead of killing it.
fn open_db(name: &str, dir: &Path) -> Result<ServedDb> {
    Ok(ServedDb {
        name: name.to_string(),
        db: Database::open_with(dir, bawo_db::cache::DEFAULT_BUDGET, Access::Read)?,
        stats: OnceLock::new(),
        open_at: OnceLock::new(),
    })
}

impl Slot {
    /// What is served now; first, at most every [`RECHECK`], an unfinished run's manifest is
    /// looked at and, when it changed, read again (tiers finished meanwhile are served).
    fn get(&self) -> Arc<ServedDb> {
        if self.watching.load(Ordering::Relaxed) {
            self.recheck();
        }
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn recheck(&self) {
        // Another request looking already is as good.
        let Ok(mut seen) = self.seen.try_lock() else {
            return;
        };
        if seen.0.elapsed() < RECHECK {
            return;
        }
        seen.0 = Instant::now();
        let now = stamp(&self.dir);
        if now == seen.1 {
            return;
        }
        seen.1 = now;
        match open_db(&self.name, &self.dir) {
            Ok(d) => {
                let finished = bawo_db::coverage::unfinished_note(&d.db).is_none();
                crate::note(format_args!(
                    "bawo serve: {}: its manifest changed; now serving {} tiers{}",
                    self.name,
                    d.db.manifest().tiers.len(),
                    if finished { ", all finished" } else { "" }
                ));
                for w in file_warnings(&d) {
                    crate::note(format_args!("{w}"));
                }
                self.watching.store(!finished, Ordering::Relaxed);
                *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(d);
            }
            Err(e) => crate::note(format_args!(
                "bawo serve: {}: its manifest changed but cannot be read ({e}); still serving \
                 what was read before",
                self.name
            )),
        }
    }
}

/// A line for every tier file of `d` that cannot be opened (missing, cut short, damaged
/// header): its positions will answer 500 until the file is put right.
fn file_warnings(d: &ServedDb) -> Vec<String> {
    d.db.manifest()
        .tiers
        .iter()
        .filter_map(|r| d.db.source(r.tier).err())
        .map(|e| {
            format!(
                "bawo serve: warning: {}: {e}; its positions answer 500",
                d.name
            )
        })
        .collect()
}

impl Served {
    /// Opens every directory (refusing an empty list or any directory that is no database);
    /// names are the directories' last components, made unique with `-2`, `-3`, ...
    pub fn open(dirs: &[PathBuf]) -> Result<Served> {
        if dirs.is_empty() {
            return Err(Error::Input(InputError::new(
                "serve needs at least one --db DIR",
            )));
        }
        let mut dbs: Vec<Slot> = Vec::new();
        for dir in dirs {
            let raw = dir
                .canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "db".to_string());
            let base = clean_name(&raw);
            let mut name = base.clone();
            let mut k = 2;
            while dbs.iter().any(|d| d.name == name) {
                name = format!("{base}-{k}");
                k += 1;
            }
            let seen = stamp(dir);
            let d = open_db(&name, dir)?;
            let unfinished = bawo_db::coverage::unfinished_note(&d.db).is_some();
            dbs.push(Slot {
                name,
                dir: dir.clone(),
                current: RwLock::new(Arc::new(d)),
                watching: AtomicBool::new(unfinished),
                seen: Mutex::new((Instant::now(), seen)),
            });
        }
        Ok(Served { dbs: Arc::new(dbs) })
    }

    /// Says on standard error which databases are runs stopped part-way (their unfinished
    /// tiers answer 400, `/api/dbs` marks them `"complete": false`, and their manifests are
    /// watched for tiers finished later) and which tier files cannot be opened.
    pub fn warn_at_start(&self) {
        for d in self.all() {
            if let Some(note) = bawo_db::coverage::unfinished_note(&d.db) {
                crate::note(format_args!(
                    "bawo serve: warning: {} ({note}); only positions of finished tiers have \
                     values until the run finishes",
                    d.name
                ));
            }
            for w in file_warnings(&d) {
                crate::note(format_args!("{w}"));
            }
        }
    }

    /// The names of the databases, in order.
    pub fn names(&self) -> Vec<String> {
        self.dbs.iter().map(|d| d.name.clone()).collect()
    }

    /// The databases as served now, in order.
    pub fn all(&self) -> Vec<Arc<ServedDb>> {
        self.dbs.iter().map(Slot::get).collect()
    }

    /// The database `name` names; with one database, `None` means that one.
    pub fn find(&self, name: Option<&str>) -> Result<Arc<ServedDb>, Lookup> {
        match name {
            None if self.dbs.len() == 1 => Ok(self.dbs[0].get()),
            None => Err(Lookup::Missing(self.names())),
            Some(n) => self
                .dbs
                .iter()
                .find(|d| d.name == n)
                .map(Slot::get)
                .ok_or_else(|| Lookup::Unknown(n.to_string(), self.names())),
        }
    }
}

/// Why a database name did not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// Several databases are served and the request named none.
    Missing(Vec<String>),
    /// No served database has this name.
    Unknown(String, Vec<String>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_url_safe() {
        assert_eq!(clean_name("bawo-n2 s6"), "bawo-n2-s6");
        assert_eq!(clean_name("../x"), "..-x");
        assert_eq!(clean_name(".."), "db");
        assert_eq!(clean_name(""), "db");
        assert_eq!(clean_name("a<b>&\"c"), "a-b---c");
    }
}
