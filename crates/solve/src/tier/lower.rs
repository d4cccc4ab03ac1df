//! What finished lower tiers offer the tier being solved ([`Lower`]), and how the run's
//! last tier retires them once its successor pass is over.

use std::path::PathBuf;

use crate::tier::tables::Tables;
use bawo_games::error::Result;

/// What finished lower tiers offer the tier being solved: their tables, which each successor
/// pass copies what its share of the plan holds of ([`crate::tier::pass_tables::PassTables`]) and frees when the pass
/// is over.
///
/// The last tier of a run that keeps no raw tables may retire them ([`Lower::retiring`]):
/// no phase after its successor pass and no later tier reads them, and the finished run
/// deletes them anyway, so they go as soon as the pass is over and checkpointed, before the
/// attractor, where the tier's work files are at their largest. Bawo `n = 4` with 20 seeds
/// holds 8.1 GB of lower raw tables beside 30 GB of work files there.
pub struct Lower<'a> {
    tables: LowerTables<'a>,
    /// Files to delete once the tables are dropped: raw tables (and their flags files) of
    /// finished tiers with compressed files to decode them from again.
    retiring: Vec<PathBuf>,
}

enum LowerTables<'a> {
    Shared(&'a Tables),
    Owned(Tables),
}

impl<'a> Lower<'a> {
    /// Lower tiers that stay with the run for the tiers after this one.
    pub fn shared(tables: &'a Tables) -> Lower<'a> {
        Lower {
            tables: LowerTables::Shared(tables),
            retiring: Vec::new(),
        }
    }

    /// Lower tiers handed to the tier for good: [`Lower::retire`] drops them and deletes
    /// `files`.
    pub fn retiring(tables: Tables, files: Vec<PathBuf>) -> Lower<'static> {
        Lower {
            tables: LowerTables::Owned(tables),
            retiring: files,
        }
    }

    /// The finished tiers below.
    pub fn tables(&self) -> &Tables {
        match &self.tables {
            LowerTables::Shared(t) => t,
            LowerTables::Owned(t) => t,
        }
    }

    /// Drops owned tables (their maps and open files, so that the disk they take is freed)
    /// and deletes the retiring files; returns their bytes. Shared tables are left as they
    /// are.
    pub fn retire(&mut self) -> Result<u64> {
        let LowerTables::Owned(t) = &mut self.tables else {
            return Ok(0);
        };
        if self.retiring.is_empty() {
            return Ok(0);
        }
        t.clear();
        let mut dirs = Vec::new();
        let mut freed = 0;
        for f in std::mem::take(&mut self.retiring) {
            freed += std::fs::symlink_metadata(&f).map_or(0, |m| m.len());
            crate::work::remove_file_if_present(&f)?;
            if let Some(d) = f.parent() {
                if !dirs.contains(&d.to_path_buf()) {
                    dirs.push(d.to_path_buf());
                }
            }
        }
        for d in dirs {
            bawo_store::sync_dir(&d)?;
        }
        Ok(freed)
    }

    /// Whether the tier holds none of the lower tiers' memory any more: its own tables,
    /// retired or never decoded. (Shared tables stay with the run.)
    pub fn holds_nothing(&self) -> bool {
        matches!(&self.tables, LowerTables::Owned(t) if t.is_empty())
    }

    /// The owned tables back (empty once retired); `None` for shared ones.
    pub fn into_tables(self) -> Option<Tables> {
        match self.tables {
            LowerTables::Shared(_) => None,
            LowerTables::Owned(t) => Some(t),
        }
    }
}
