//! The manifest: the single source of truth for what a run directory holds.
//!
//! `manifest.json` names the game (its descriptor and fingerprint), the seed budget asked for,
//! each finished tier with its counts, file and checksum, and the checkpoint of the tier in
//! progress. It is rewritten atomically after every finished tier and every checkpoint inside a
//! tier, so whatever it lists is complete on disk.
//!
//! The store does not interpret what the solver keeps here: a tier's counts (`C`) and the
//! checkpoint (`S`) are the solver's own types, stored as they serialize. Of a checkpoint the
//! store knows only its work directory ([`Checkpoint`]), which it writes relative to the run
//! directory when it lies inside it, so that a moved or copied run directory resumes on its
//! own work files.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::checksum::Checksum;
use bawo_games::error::{Error, Result};

/// The manifest's file name in a run directory.
pub const FILE: &str = "manifest.json";
/// Version of the run-directory layout (3: the manifest carries its own checksum; 4: tables
/// hold one side to move, the other being answered by the mirror; 5: a tier's positions are
/// ordered by the halves of the board, `game::sided::SidedIndex`).
pub const FORMAT: u32 = 5;
/// The largest manifest read (a million tiers' records fit many times over): anything bigger
/// is damage, not a manifest to parse.
pub const MAX_BYTES: u64 = 16 << 20;

/// What the store needs of a checkpoint: to be stored, and the folder of its work files.
pub trait Checkpoint: Clone + Serialize + DeserializeOwned {
    /// The folder of the checkpoint's work files, where it has one.
    fn work_dir_mut(&mut self) -> Option<&mut PathBuf>;
}

/// A file of the run directory as the manifest records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// File name inside the run directory.
    pub file: String,
    /// Size in bytes.
    pub bytes: u64,
    /// The file's checksum (what part of it is covered is the file format's to say).
    pub checksum: Checksum,
}

/// One finished tier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierRecord<C> {
    /// The tier (its seeds).
    pub tier: u32,
    /// The tier's counts.
    #[serde(flatten)]
    pub counts: C,
    /// Table file name inside the run directory.
    pub file: String,
    /// Checksum of the table's entries.
    pub checksum: Checksum,
    /// The tier's compressed database file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bdb: Option<FileRecord>,
}

/// The manifest of a run directory: what is solved, with what, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest<C, S> {
    /// Version of the manifest format.
    pub format: u32,
    /// The game descriptor.
    pub game: String,
    /// Fingerprint of the descriptor.
    pub fingerprint: Checksum,
    /// Seed budget the run was started with.
    pub seeds: u32,
    /// Finished tiers in solving order.
    pub tiers: Vec<TierRecord<C>>,
    /// All tiers of the budget are finished.
    pub complete: bool,
    /// Checkpoint of the tier in progress, if any.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub current: Option<S>,
    /// The memory budget in bytes the run was last given (`--mem`), which a resume that
    /// gives none keeps; absent where none was given (each start takes its machine's
    /// default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem: Option<u64>,
    /// Checksum of the manifest as written with this field empty (`""`): a hand edit that
    /// still parses (a checkpoint level, a count) is refused instead of trusted.
    #[serde(default, with = "self_checksum")]
    pub checksum: Option<Checksum>,
}

fn none<S>() -> Option<S> {
    None
}

/// The manifest's own checksum: `""` while it is being computed.
mod self_checksum {
    use super::Checksum;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(c: &Option<Checksum>, s: S) -> Result<S::Ok, S::Error> {
        match c {
            Some(c) => s.collect_str(c),
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Checksum>, D::Error> {
        let text = String::deserialize(d)?;
        if text.is_empty() {
            return Ok(None);
        }
        text.parse().map(Some).map_err(serde::de::Error::custom)
    }
}

impl<C, S> Manifest<C, S>
where
    C: Clone + Serialize + DeserializeOwned,
    S: Checkpoint,
{
    /// The manifest of a new run of the game `descriptor` up to `seeds`.
    pub fn new(descriptor: &str, seeds: u32) -> Self {
        Manifest {
            format: FORMAT,
            game: descriptor.to_string(),
            fingerprint: Checksum(super::fingerprint(descriptor)),
            seeds,
            tiers: Vec::new(),
            complete: false,
            current: None,
            mem: None,
            checksum: None,
        }
    }

    /// The manifest's path in `dir`.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(FILE)
    }

    /// Reads the manifest of `dir`; `Ok(None)` when there is none.
    pub fn load(dir: &Path) -> Result<Option<Self>> {
        let path = Self::path(dir);
        let Some(text) = super::bytes::read_text_if_present(&path, MAX_BYTES)? else {
            return Ok(None);
        };
        // The version first, so that a manifest of another layout is named as such rather
        // than as damage, whatever else changed in it.
        if let Some(format) = format_of(&text).filter(|&f| f != FORMAT) {
            return Err(Error::Mismatch(other_format(dir, format)));
        }
        let m: Self = serde_json::from_str(&text).map_err(|e| {
            Error::corrupt(&path, format!("unreadable manifest: {}", json_error(&e)))
        })?;
        if m.format != FORMAT {
            return Err(Error::Mismatch(other_format(dir, m.format)));
        }
        // On the text as written: a checkpoint of an earlier version lacks fields this one
        // adds with defaults, and would not serialize back to the same bytes.
        if m.checksum.is_none() || !super::self_sum::text_matches(&text) {
            return Err(Error::corrupt(
                &path,
                "manifest does not match its checksum",
            ));
        }
        check_files(&path, &m.tiers)?;
        let mut m = m;
        if m.fingerprint != Checksum(super::fingerprint(&m.game)) {
            return Err(Error::corrupt(
                &path,
                "fingerprint does not match the game descriptor",
            ));
        }
        if let Some(work) = m.current.as_mut().and_then(|c| c.work_dir_mut()) {
            if work.is_relative() {
                let base = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
                *work = base.join(&*work);
            }
        }
        Ok(Some(m))
    }

    /// Writes the manifest atomically. Every save is a checkpoint (for fault injection).
    pub fn save(&self, dir: &Path) -> Result<()> {
        let mut m = self.clone();
        if let Some(work) = m.current.as_mut().and_then(|c| c.work_dir_mut()) {
            let base = std::fs::canonicalize(dir).ok();
            if let Some(rel) = base.and_then(|b| work.strip_prefix(b).ok().map(Path::to_path_buf)) {
                *work = rel;
            }
        }
        m.checksum = None;
        let text = serde_json::to_string_pretty(&m).expect("manifest serializes");
        let (text, _) =
            super::self_sum::seal(&text).expect("the checksum is the manifest's last field");
        super::write_atomic(&Self::path(dir), |w| {
            w.write_all(text.as_bytes())?;
            w.write_all(b"\n")
        })?;
        super::fault::checkpoint_written();
        Ok(())
    }

    /// The fingerprint as a number.
    pub fn fingerprint_value(&self) -> u64 {
        super::fingerprint(&self.game)
    }

    /// The record of `tier`, if it is finished.
    pub fn record(&self, tier: u32) -> Option<&TierRecord<C>> {
        self.tiers.iter().find(|r| r.tier == tier)
    }
}

/// Longest part of a JSON parser's message kept in an error: it quotes the value it refused,
/// which a damaged file may make megabytes long.
const JSON_MESSAGE_MAX: usize = 200;

/// What the JSON parser said of a file, in one line of bounded length, with its position.
pub fn json_error(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    let what = full.strip_suffix(&at).unwrap_or(&full);
    format!(
        "{}{at}",
        bawo_games::game::input::cut_to(what, JSON_MESSAGE_MAX)
    )
}

/// The `format` field of a manifest's text, if it parses as an object holding one.
fn format_of(text: &str) -> Option<u32> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    v.get("format")?.as_u64()?.try_into().ok()
}

/// The one-line refusal of a run directory written in another layout.
fn other_format(dir: &Path, format: u32) -> String {
    if format < FORMAT {
        format!(
            "{}: written by an older version of bawo (database format {format}; this program \
             reads format {FORMAT}, which stores one side to move and orders each tier by the \
             halves of the board); solve it again, into a new directory or over this one with \
             --force",
            dir.display()
        )
    } else {
        format!(
            "{}: written by a newer version of bawo (database format {format}; this program \
             reads format {FORMAT})",
            dir.display()
        )
    }
}

/// File name of a tier's raw table.
pub fn table_file(tier: u32) -> String {
    format!("tier-{tier:04}.tbl")
}

/// File name of a tier's compressed database file.
pub fn bdb_file(tier: u32) -> String {
    format!("tier-{tier:04}.bdb")
}

/// The checksum proves nothing (anyone can write one), so every file a tier record names must
/// be the directory's own file of that tier, never a path elsewhere: `tier-KKKK.tbl` and
/// `tier-KKKK.bdb`, nothing else.
fn check_files<C>(path: &Path, tiers: &[TierRecord<C>]) -> Result<()> {
    for r in tiers {
        let shown = bawo_games::game::input::short;
        if r.file != table_file(r.tier) {
            return Err(Error::corrupt(
                path,
                format!(
                    "tier {} names the table file '{}', not its own {}",
                    r.tier,
                    shown(&r.file),
                    table_file(r.tier)
                ),
            ));
        }
        if let Some(bdb) = &r.bdb {
            if bdb.file != bdb_file(r.tier) {
                return Err(Error::corrupt(
                    path,
                    format!(
                        "tier {} names the database file '{}', not its own {}",
                        r.tier,
                        shown(&bdb.file),
                        bdb_file(r.tier)
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    struct Counts {
        states: u64,
    }

    /// A checkpoint as an earlier version wrote it.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    struct Earlier {
        level: u64,
        work: PathBuf,
    }

    /// The same checkpoint in a later version, which added a field with a default.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    struct Later {
        level: u64,
        #[serde(default)]
        added: bool,
        work: PathBuf,
    }

    impl Checkpoint for Earlier {
        fn work_dir_mut(&mut self) -> Option<&mut PathBuf> {
            Some(&mut self.work)
        }
    }

    impl Checkpoint for Later {
        fn work_dir_mut(&mut self) -> Option<&mut PathBuf> {
            Some(&mut self.work)
        }
    }

    fn earlier_run(dir: &Path) -> Manifest<Counts, Earlier> {
        let mut m = Manifest::<Counts, Earlier>::new("bawo rows=4", 3);
        m.current = Some(Earlier {
            level: 17,
            work: dir.join("work"),
        });
        m.mem = Some(1 << 30);
        m.save(dir).unwrap();
        m
    }

    #[test]
    fn a_later_version_reads_the_checkpoint_an_earlier_one_wrote() {
        // Regression: the checksum was checked on this version's re-serialization of what it
        // parsed, which wrote the added field, so every checkpoint of the earlier version was
        // refused as corrupted (a Kigogo 9 run stopped in its last tier could not be resumed
        // by the next build).
        let dir = tempfile::tempdir().unwrap();
        earlier_run(dir.path());
        let later = Manifest::<Counts, Later>::load(dir.path())
            .unwrap()
            .unwrap();
        let current = later.current.as_ref().unwrap();
        assert_eq!((current.level, current.added), (17, false));
        assert_eq!(later.mem, Some(1 << 30));
        // Saved again by the later version, it reads back as it was.
        later.save(dir.path()).unwrap();
        let again = Manifest::<Counts, Later>::load(dir.path())
            .unwrap()
            .unwrap();
        assert_eq!((again.current, again.mem), (later.current, later.mem));
    }

    #[test]
    fn an_edit_that_still_parses_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        earlier_run(dir.path());
        let path = Manifest::<Counts, Earlier>::path(dir.path());
        let text = std::fs::read_to_string(&path).unwrap();
        for (from, to) in [
            ("\"level\": 17", "\"level\": 18"),
            ("\"seeds\": 3", "\"seeds\": 4"),
            ("\"mem\": 1073741824", "\"mem\": 1073741825"),
        ] {
            assert!(text.contains(from), "{from}");
            std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
            let err = Manifest::<Counts, Earlier>::load(dir.path()).unwrap_err();
            assert!(
                err.to_string().contains("does not match its checksum"),
                "{err}"
            );
        }
        // Layout alone is not content.
        std::fs::write(&path, text.replace("\n", "\n  ")).unwrap();
        assert!(Manifest::<Counts, Earlier>::load(dir.path())
            .unwrap()
            .is_some());
    }
}
