//! The databases a server holds, each under a short name taken from its directory.
//!
//! Requests name a database (`db=NAME`), never a path: the names are fixed when the server
//! starts, so a request cannot make the server open anything else.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use bawo_db::stats::Stats;
use bawo_db::Database;
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

/// Every served database, in the order given.
#[derive(Clone)]
pub struct Served {
    dbs: Arc<Vec<ServedDb>>,
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

impl Served {
    /// Opens every directory (refusing an empty list or any directory that is no database);
    /// names are the directories' last components, made unique with `-2`, `-3`, ...
    pub fn open(dirs: &[PathBuf]) -> Result<Served> {
        if dirs.is_empty() {
            return Err(Error::Input(InputError::new(
                "serve needs at least one --db DIR",
            )));
        }
        let mut dbs: Vec<ServedDb> = Vec::new();
        for dir in dirs {
            let db = Database::open(dir)?;
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
            dbs.push(ServedDb {
                name,
                db,
                stats: OnceLock::new(),
                open_at: OnceLock::new(),
            });
        }
        Ok(Served { dbs: Arc::new(dbs) })
    }

    /// The names of the databases, in order.
    pub fn names(&self) -> Vec<String> {
        self.dbs.iter().map(|d| d.name.clone()).collect()
    }

    /// The databases, in order.
    pub fn all(&self) -> &[ServedDb] {
        &self.dbs
    }

    /// The database `name` names; with one database, `None` means that one.
    pub fn find(&self, name: Option<&str>) -> Result<&ServedDb, Lookup> {
        match name {
            None if self.dbs.len() == 1 => Ok(&self.dbs[0]),
            None => Err(Lookup::Missing(self.names())),
            Some(n) => self
                .dbs
                .iter()
                .find(|d| d.name == n)
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
