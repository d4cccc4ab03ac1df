//! Names of a tier's work files, as types: the solver never splits a file name to learn what
//! it holds.
//!
//! | file                 | [`WorkFile`]                | holds                                   |
//! |----------------------|-----------------------------|-----------------------------------------|
//! | `cells-R.a`, `.b`    | `Cells { range, slot }`     | the range's working cells (two slots)   |
//! | `packed-R.a`, `.b`   | `Packed { range, slot }`    | the range's cells packed with zstd (two slots) |
//! | `edges-R.log`        | `Edges(R)`                  | in-tier edges into range R              |
//! | `due-L-R.log`        | `Due { level, range }`      | positions of range R due at level L     |
//! | `preds-R.bin`        | `Preds(R)`                  | predecessor lists of range R            |
//! | `msgs-R.tmp`         | `Messages(R)`               | one level's messages spilled to disk    |
//!
//! The append-only ones are named in the manifest by a [`LogName`] (`cells-R`, `packed-R`,
//! `edges-R`, `due-L-R`); the successor pass's cell log of a range is its slot-a cell file,
//! or out of core its slot-a packed file.
//!
//! Its modules: `graph` (the predecessor graph and edge codec), `edgecodec`, `edgelog`,
//! `duelog`, `predfile`, `predwrite`, `huge`.

pub mod deleter;
pub mod duelog;
pub mod edgecodec;
pub mod edgelog;
pub mod graph;
pub mod huge;
pub mod predfile;
pub mod predwrite;
pub mod sources;

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use bawo_games::error::{Error, Result};

/// One of the two cell files of a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Slot {
    /// The first cell slot.
    A,
    /// The second cell slot.
    B,
}

impl Slot {
    /// The other slot.
    pub fn other(self) -> Slot {
        match self {
            Slot::A => Slot::B,
            Slot::B => Slot::A,
        }
    }

    /// The letter that ends the slot's file names.
    fn letter(self) -> &'static str {
        match self {
            Slot::A => "a",
            Slot::B => "b",
        }
    }

    /// The slot whose file names end in `letter`: the inverse of [`Slot::letter`].
    fn of_letter(letter: &str) -> Option<Slot> {
        match letter {
            "a" => Some(Slot::A),
            "b" => Some(Slot::B),
            _ => None,
        }
    }
}

/// A file in a tier's work directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkFile {
    /// The cells of a range, in one of its two slots.
    Cells {
        /// The range.
        range: usize,
        /// The slot.
        slot: Slot,
    },
    /// The cells of a range packed with zstd, in one of its two slots
    /// ([`crate::tier::packed`]).
    Packed {
        /// The range.
        range: usize,
        /// The slot.
        slot: Slot,
    },
    /// The in-tier edges of a range.
    Edges(usize),
    /// The positions of a range due at an attractor level.
    Due {
        /// The attractor level.
        level: u32,
        /// The range.
        range: usize,
    },
    /// The predecessor lists of a range.
    Preds(usize),
    /// The messages to a range.
    Messages(usize),
}

impl WorkFile {
    /// The file's name inside the work directory.
    pub fn name(&self) -> String {
        match *self {
            WorkFile::Cells { range, slot } => format!("cells-{range}.{}", slot.letter()),
            WorkFile::Packed { range, slot } => format!("packed-{range}.{}", slot.letter()),
            WorkFile::Edges(r) => format!("edges-{r}.log"),
            WorkFile::Due { level, range } => format!("due-{level}-{range}.log"),
            WorkFile::Preds(r) => format!("preds-{r}.bin"),
            WorkFile::Messages(r) => format!("msgs-{r}.tmp"),
        }
    }

    /// The work file named `name`, if it is one: the inverse of [`WorkFile::name`].
    pub fn parse(name: &str) -> Option<WorkFile> {
        let (stem, ext) = name.rsplit_once('.')?;
        let (kind, rest) = stem.split_once('-')?;
        let n = || plain_number(rest).ok();
        let file = match (kind, ext) {
            ("cells", s) => WorkFile::Cells {
                range: n()?,
                slot: Slot::of_letter(s)?,
            },
            ("packed", s) => WorkFile::Packed {
                range: n()?,
                slot: Slot::of_letter(s)?,
            },
            ("edges", "log") => WorkFile::Edges(n()?),
            ("preds", "bin") => WorkFile::Preds(n()?),
            ("msgs", "tmp") => WorkFile::Messages(n()?),
            ("due", "log") => match stem.parse::<LogName>().ok()? {
                LogName::Due { level, range } => WorkFile::Due { level, range },
                _ => return None,
            },
            _ => return None,
        };
        Some(file)
    }
}

/// A file the solver writes in a tier's work folder: a [`WorkFile`], or the temporary file
/// (`.NAME.XXXXXX.tmp`) one is written through before it is renamed.
pub fn is_solver_file(name: &str) -> bool {
    WorkFile::parse_or_temp(name).is_some()
}

impl WorkFile {
    /// The work file `name` is, or the one it is the temporary file of: a file being written
    /// counts as what it will be (a predecessor file is synced under its temporary name while
    /// the next range is built).
    pub fn parse_or_temp(name: &str) -> Option<WorkFile> {
        WorkFile::parse(name).or_else(|| {
            // `.NAME.tmp` is the temporary name of earlier versions, which a killed run left.
            let n = name.strip_prefix('.')?.strip_suffix(".tmp")?;
            WorkFile::parse(n).or_else(|| WorkFile::parse(n.rsplit_once('.')?.0))
        })
    }
}

/// Deletes the file at `p`; one already gone is no error.
pub fn remove_file_if_present(p: &Path) -> Result<()> {
    match std::fs::remove_file(p) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(p, e)),
        _ => Ok(()),
    }
}

/// Removes the due logs in a tier's work folder `dir` for which `named(level, range)` is
/// false: on resuming, those a killed run made after its last checkpoint. A log makes its
/// file only when bytes go to it ([`bawo_store::append::AppendLog::create`]), so a resumed run's log of the same
/// level and range would not empty a stale file until it wrote one; removed here, a stale log
/// takes no disk and is never read.
pub fn remove_unnamed_due_logs(dir: &Path, named: impl Fn(u32, usize) -> bool) -> Result<()> {
    remove_files_named(
        dir,
        |name| matches!(WorkFile::parse(name), Some(WorkFile::Due { level, range }) if !named(level, range)),
    )
}

/// Removes a tier's work folder: the solver's files in it, then the folder once empty. A file
/// of anyone else's found there (and so the folder holding it) is left in place.
pub fn remove_work_dir(dir: &Path) -> Result<()> {
    remove_files_named(dir, is_solver_file)?;
    // Fails on a folder still holding something not ours: that is what should happen.
    let _ = std::fs::remove_dir(dir);
    Ok(())
}

/// Removes the plain files in `dir` whose names `which` picks (a folder that is gone holds
/// none).
fn remove_files_named(dir: &Path, which: impl Fn(&str) -> bool) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    for e in entries {
        let e = e.map_err(|e| Error::io(dir, e))?;
        if which(&e.file_name().to_string_lossy()) && e.file_type().is_ok_and(|t| t.is_file()) {
            std::fs::remove_file(e.path()).map_err(|err| Error::io(e.path(), err))?;
        }
    }
    Ok(())
}

/// A plain decimal number: "+1" or "01" would name the same file twice.
fn plain_number(t: &str) -> Result<usize, ()> {
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) || (t.len() > 1 && t.starts_with('0'))
    {
        return Err(());
    }
    t.parse().map_err(|_| ())
}

/// An append-only work file as the checkpoint names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogName {
    /// The successor pass's cells of a range (its slot-a cell file).
    Cells(usize),
    /// Out of core, the successor pass's cells of a range as zstd frames (its slot-a packed
    /// file).
    Packed(usize),
    /// The in-tier edges of a range.
    Edges(usize),
    /// The positions of a range due at an attractor level.
    Due {
        /// The attractor level.
        level: u32,
        /// The range.
        range: usize,
    },
}

impl LogName {
    /// The file the log is written to.
    pub fn file(&self) -> WorkFile {
        match *self {
            LogName::Cells(range) => WorkFile::Cells {
                range,
                slot: Slot::A,
            },
            LogName::Packed(range) => WorkFile::Packed {
                range,
                slot: Slot::A,
            },
            LogName::Edges(r) => WorkFile::Edges(r),
            LogName::Due { level, range } => WorkFile::Due { level, range },
        }
    }
}

impl fmt::Display for LogName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LogName::Cells(r) => write!(f, "cells-{r}"),
            LogName::Packed(r) => write!(f, "packed-{r}"),
            LogName::Edges(r) => write!(f, "edges-{r}"),
            LogName::Due { level, range } => write!(f, "due-{level}-{range}"),
        }
    }
}

impl FromStr for LogName {
    type Err = String;

    fn from_str(s: &str) -> Result<LogName, String> {
        let bad = || format!("unexpected log name '{s}'");
        let (kind, rest) = s.split_once('-').ok_or_else(bad)?;
        let number = |t: &str| plain_number(t).map_err(|_| bad());
        match kind {
            "cells" => Ok(LogName::Cells(number(rest)?)),
            "packed" => Ok(LogName::Packed(number(rest)?)),
            "edges" => Ok(LogName::Edges(number(rest)?)),
            "due" => {
                let (l, r) = rest.split_once('-').ok_or_else(bad)?;
                let level = u32::try_from(number(l)?).map_err(|_| bad())?;
                Ok(LogName::Due {
                    level,
                    range: number(r)?,
                })
            }
            _ => Err(bad()),
        }
    }
}

impl Serialize for LogName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for LogName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LogName, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_due_logs_the_checkpoint_does_not_name_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let due = |level, range| WorkFile::Due { level, range }.name();
        let files = [
            due(3, 0),
            due(3, 1),
            due(4, 0),
            "edges-0.log".to_string(),
            "someone-elses.log".to_string(),
        ];
        for f in &files {
            std::fs::write(dir.path().join(f), b"x").unwrap();
        }
        std::fs::create_dir(dir.path().join(due(9, 9))).unwrap();
        remove_unnamed_due_logs(dir.path(), |level, range| (level, range) == (3, 1)).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut want = vec![due(3, 1), due(9, 9), files[3].clone(), files[4].clone()];
        want.sort();
        assert_eq!(left, want, "a folder of the same name is not a log");
    }

    #[test]
    fn log_names_round_trip_and_odd_names_are_refused() {
        for name in [
            LogName::Cells(0),
            LogName::Packed(3),
            LogName::Edges(12),
            LogName::Due { level: 3, range: 7 },
        ] {
            assert_eq!(name.to_string().parse::<LogName>().unwrap(), name);
        }
        for bad in [
            "cells",
            "cells-",
            "cells-x",
            "edges-01",
            "due-1",
            "due-1-2-3",
            "preds-1",
            "cells-+1",
        ] {
            assert!(bad.parse::<LogName>().is_err(), "{bad}");
        }
        assert_eq!(LogName::Cells(4).file().name(), "cells-4.a");
        assert_eq!(LogName::Packed(4).file().name(), "packed-4.a");
        assert_eq!(
            LogName::Due { level: 2, range: 5 }.file().name(),
            "due-2-5.log"
        );
    }

    #[test]
    fn work_file_names_parse_back_and_nothing_else_is_ours() {
        for f in [
            WorkFile::Cells {
                range: 3,
                slot: Slot::A,
            },
            WorkFile::Cells {
                range: 0,
                slot: Slot::B,
            },
            WorkFile::Packed {
                range: 2,
                slot: Slot::B,
            },
            WorkFile::Edges(7),
            WorkFile::Due { level: 2, range: 1 },
            WorkFile::Preds(10),
            WorkFile::Messages(4),
        ] {
            assert_eq!(WorkFile::parse(&f.name()), Some(f));
            assert!(is_solver_file(&f.name()));
            assert!(is_solver_file(&format!(".{}.Ab12xZ.tmp", f.name())));
            let temp = format!(".{}.Ab12xZ.tmp", f.name());
            assert_eq!(WorkFile::parse_or_temp(&temp), Some(f));
            assert_eq!(
                WorkFile::parse_or_temp(&format!(".{}.tmp", f.name())),
                Some(f)
            );
        }
        for other in [
            "notes.txt",
            "cells-1.c",
            "packed-1.c",
            "packed-01.a",
            "edges-01.log",
            ".notes.txt.abc.tmp",
            "preds-x.bin",
        ] {
            assert!(!is_solver_file(other), "{other}");
        }
    }

    #[test]
    fn removing_a_work_dir_keeps_what_is_not_ours() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path().join("tier-0003");
        std::fs::create_dir(&w).unwrap();
        std::fs::write(w.join("edges-0.log"), b"x").unwrap();
        std::fs::write(w.join("notes.txt"), b"mine").unwrap();
        remove_work_dir(&w).unwrap();
        assert!(!w.join("edges-0.log").exists());
        assert_eq!(std::fs::read(w.join("notes.txt")).unwrap(), b"mine");
        std::fs::remove_file(w.join("notes.txt")).unwrap();
        remove_work_dir(&w).unwrap();
        assert!(!w.exists());
    }
}
