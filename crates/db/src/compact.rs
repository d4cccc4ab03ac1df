//! Re-encoding a finished database into a new directory with other block and zstd settings:
//! `bawo compact`, for databases that are shipped or kept rather than solved again.
//!
//! The solver compresses each tier with 2^21-position blocks at zstd level 9, which keeps
//! compression within a tenth of the solve and a cold probe near a millisecond. A database
//! that is solved once and read for years can afford more: zstd level 19 over 2^23-position
//! blocks takes the benchmark database from 0.459 to 0.398 bits per position and Bawo
//! `n = 4`, 16 seeds from 0.364 to 0.296 (README, "Smaller databases"), at about the solve's
//! own time in encoding and a cold probe four times as long.
//!
//! Each tier's stored entries (as the source file holds them: don't-care entries stay the
//! substitutes the solver chose, which is exact for a reader) are streamed, checksum checked
//! block by block, into an exclusively created temporary file in the new directory, which is
//! mapped, encoded with the new settings and dropped. The source directory is only read. The
//! new directory's manifest is written last, so it is a database only once every tier is in.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::format::{BdbFile, EncodeOptions};
use super::layout::file_name;
use crate::manifest::Manifest;
use bawo_games::error::{Error, InputError, Result};
use bawo_store::bytes::{as_u16, map_file_ro, u16_bytes};
use bawo_store::ledger::{self, Ledger};
use bawo_store::manifest::FileRecord;

/// Smallest and largest block the compactor writes (positions, powers of two): below 2^12
/// the block index and frame headers outweigh the codes; above 2^26 one block's buffers
/// (entries, codes, frame and zstd's tables) pass a gigabyte.
pub const BLOCK_BITS: std::ops::RangeInclusive<u32> = 12..=26;
// The largest block compact writes is the largest a reader accepts.
const _: () = assert!(1 << *BLOCK_BITS.end() == super::layout::MAX_BLOCK_POSITIONS);

/// The settings `bawo compact` uses unless told otherwise: the smallest files measured at a
/// block size a cold probe still decodes in milliseconds.
pub fn small_options() -> EncodeOptions {
    EncodeOptions {
        block_positions: 1 << 23,
        level: 19,
    }
}

/// Bytes one encoding worker holds for a block of `opts`: the block's entries as read from
/// the mapped temporary file, its codes (a byte each at most), the compressed frame (zstd's
/// bound) and zstd's working memory for a block of that size at that level.
pub fn worker_bytes(opts: &EncodeOptions) -> u64 {
    let block = opts.block_positions as u64;
    let frame = zstd::zstd_safe::compress_bound(block as usize) as u64;
    // SAFETY: pure functions of their arguments; no pointers are passed.
    let zstd = unsafe {
        let params = zstd::zstd_safe::zstd_sys::ZSTD_getCParams(opts.level, block, 0);
        zstd::zstd_safe::zstd_sys::ZSTD_estimateCCtxSize_usingCParams(params) as u64
    };
    2 * block + block + frame + zstd
}

/// What a compaction did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Compacted {
    /// Tiers rewritten.
    pub tiers: usize,
    /// Positions rewritten.
    pub positions: u64,
    /// Bytes of the files before.
    pub bytes_before: u64,
    /// Bytes of the files after.
    pub bytes_after: u64,
}

/// Re-encodes every tier of the database in `src` into `out` (created if missing; it must not
/// hold a database already) with `opts`, calling `progress(tier, positions)` after each tier.
/// The encoding runs on the current rayon pool (a block per worker at a time).
pub fn compact(
    src: &Path,
    out: &Path,
    opts: &EncodeOptions,
    progress: &mut dyn FnMut(u32, u64),
) -> Result<Compacted> {
    check_options(opts)?;
    let manifest = Manifest::load(src)?.ok_or_else(|| {
        Error::Missing(format!("{} holds no database (no manifest)", src.display()))
    })?;
    if !manifest.complete {
        let done: Vec<String> = manifest.tiers.iter().map(|r| r.tier.to_string()).collect();
        return Err(bad(format!(
            "{} is an unfinished run (finished tiers: {}); finish it with solve --resume \
             before compacting it",
            src.display(),
            if done.is_empty() {
                "none".to_string()
            } else {
                done.join(",")
            }
        )));
    }
    prepare_out(src, out)?;
    // The lock a solve takes: two compactions into one --out cannot both write it.
    let _lock = bawo_store::lock::acquire(out)?;
    remove_leftovers(out)?;
    // Each tier file is recorded before it is written, so that a compaction killed before
    // its manifest leaves files the next one knows as its own.
    let mut owned = Ledger::load(out).ok().flatten().unwrap_or_default();
    let fp = manifest.fingerprint_value();
    let mut next = manifest.clone();
    let mut done = Compacted::default();
    for (k, rec) in manifest.tiers.iter().enumerate() {
        let old = rec.bdb.as_ref().ok_or_else(|| {
            Error::Mismatch(format!(
                "{}: tier {} has no compressed .bdb file (an unfinished run or an older layout)",
                src.display(),
                rec.tier
            ))
        })?;
        let source = BdbFile::open(&src.join(&old.file), rec.tier, rec.counts.states, fp)?;
        owned.record_file(out, &file_name(rec.tier))?;
        let new = reencode(&source, old, out, opts, fp)?;
        source.release();
        done.tiers += 1;
        done.positions += rec.counts.states;
        done.bytes_before += old.bytes;
        done.bytes_after += new.bytes;
        next.tiers[k].bdb = Some(new);
        progress(rec.tier, rec.counts.states);
    }
    next.save(out)?;
    Ok(done)
}

/// A usage error (exit code 2).
fn bad(msg: String) -> Error {
    Error::Input(InputError::new(msg))
}

/// Refuses settings the format or the compactor's memory model does not cover.
pub fn check_options(opts: &EncodeOptions) -> Result<()> {
    let b = opts.block_positions;
    if !b.is_power_of_two() || !BLOCK_BITS.contains(&b.trailing_zeros()) {
        return Err(bad(format!(
            "--block must be a power of two from 2^{} to 2^{} positions, not {b}",
            BLOCK_BITS.start(),
            BLOCK_BITS.end()
        )));
    }
    let levels = zstd::compression_level_range();
    if !levels.contains(&opts.level) || opts.level < 1 {
        return Err(bad(format!(
            "--level must be a zstd level from 1 to {}, not {}",
            levels.end(),
            opts.level
        )));
    }
    Ok(())
}

/// Creates `out` if missing. An existing `out` must be a directory that holds nothing but
/// what a compaction killed before its manifest leaves (the tier files its ledger records,
/// its temporary files, the ledger, the lock): a user's files are never overwritten, however
/// much their names look like a compaction's. `out` must be neither `src`, nor inside it, nor
/// hold it.
fn prepare_out(src: &Path, out: &Path) -> Result<()> {
    let src = src.canonicalize().map_err(|e| Error::io(src, e))?;
    match std::fs::symlink_metadata(out) {
        Ok(m) if m.file_type().is_symlink() && !out.exists() => Err(bad(format!(
            "--out {} is a symbolic link to nothing; give a new directory",
            out.display()
        ))),
        Ok(_) if !out.is_dir() => Err(bad(format!(
            "--out {} exists and is not a directory",
            out.display()
        ))),
        Ok(_) => {
            let o = out.canonicalize().map_err(|e| Error::io(out, e))?;
            check_apart(&src, &o)?;
            if Manifest::path(out).exists() {
                return Err(bad(format!(
                    "--out {} already holds a database; choose a new directory",
                    out.display()
                )));
            }
            // A damaged ledger vouches for nothing.
            let owned = Ledger::load(out).ok().flatten().unwrap_or_default();
            let entries = std::fs::read_dir(out).map_err(|e| Error::io(out, e))?;
            for e in entries {
                let e = e.map_err(|e| Error::io(out, e))?;
                let name = e.file_name().to_string_lossy().into_owned();
                let recorded = owned.files.contains(&name) || name == ledger::FILE;
                if !is_own_file(&name) || (is_tier_file(&name) && !recorded) {
                    return Err(bad(format!(
                        "--out {} is not empty (it holds {}); choose a new or empty directory",
                        out.display(),
                        name.chars().take(60).collect::<String>()
                    )));
                }
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // Where it would be created: its nearest existing folder must not lie in `src`.
            let mut above = out.parent();
            while let Some(a) = above {
                let a = if a.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    a
                };
                if let Ok(c) = a.canonicalize() {
                    check_apart(&src, &c.join(out.file_name().unwrap_or_default()))?;
                    break;
                }
                above = a.parent();
            }
            std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))
        }
        Err(e) => Err(Error::io(out, e)),
    }
}

/// Refuses an `out` that is `src`, lies inside it, or holds it (both canonical).
fn check_apart(src: &Path, out: &Path) -> Result<()> {
    if out == src {
        return Err(bad(
            "--out must be a new directory, not the database itself".to_string(),
        ));
    }
    if out.starts_with(src) {
        return Err(bad(format!(
            "--out {} lies inside the database {}; choose a directory outside it",
            out.display(),
            src.display()
        )));
    }
    if src.starts_with(out) {
        return Err(bad(format!(
            "--out {} holds the database {}; choose a directory outside it",
            out.display(),
            src.display()
        )));
    }
    Ok(())
}

/// Whether `name` is a tier file's name, `tier-KKKK.bdb`.
fn is_tier_file(name: &str) -> bool {
    name.strip_prefix("tier-")
        .and_then(|r| r.strip_suffix(".bdb"))
        .is_some_and(|k| k.len() >= 4 && k.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `name` is a file a compaction writes into `out`: a tier file, the temporary file
/// of one (`.tier-KKKK.bdb.XXXXXX.tmp`), the ledger, the lock.
fn is_own_file(name: &str) -> bool {
    name == "lock" || name == ledger::FILE || is_tier_file(name) || is_own_temp(name, is_tier_file)
}

fn is_own_temp(name: &str, tier_bdb: impl Fn(&str) -> bool) -> bool {
    let Some(rest) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
        return false;
    };
    rest.rsplit_once('.')
        .is_some_and(|(file, _)| tier_bdb(file))
}

/// Removes the temporary files a killed compaction left in `out` (under its lock).
fn remove_leftovers(out: &Path) -> Result<()> {
    for e in std::fs::read_dir(out).map_err(|e| Error::io(out, e))? {
        let e = e.map_err(|e| Error::io(out, e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && is_own_file(&name) {
            let p = e.path();
            std::fs::remove_file(&p).map_err(|e| Error::io(&p, e))?;
        }
    }
    Ok(())
}

/// Writes one tier's new file into `out`: the stored entries to a temporary file (checked
/// against the old file's checksum on the way), then the encoding of its map.
fn reencode(
    source: &BdbFile,
    old: &FileRecord,
    out: &Path,
    opts: &EncodeOptions,
    fp: u64,
) -> Result<FileRecord> {
    let tier = source.header().tier;
    let target: PathBuf = out.join(file_name(tier));
    let mut tmp = bawo_store::temp_file_for(&target)?;
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
        let mut entries = Vec::new();
        source.for_each_block_checked(old.checksum, |_, block| {
            entries.clear();
            block.entries_into(source.symbols(), &mut entries);
            w.write_all(u16_bytes(&entries))
                .map_err(|e| Error::io(&target, e))
        })?;
        w.flush().map_err(|e| Error::io(&target, e))?;
    }
    let map = map_file_ro(&target, tmp.as_file())?;
    let bytes: &[u8] = map.as_deref().unwrap_or(&[]);
    let entries = as_u16(&target, bytes)?;
    if entries.len() as u64 != source.header().states {
        return Err(Error::Internal(format!(
            "tier {tier}: decoded {} entries, the file holds {}",
            entries.len(),
            source.header().states
        )));
    }
    // Entries a file stores as substitutes stay as they are (the reader recovers them); the
    // new file says it substitutes exactly when the old one did.
    let keep = |_: u64| false;
    let dont_care = source.header().dont_care.then_some(&keep);
    let release = || {
        if let Some(m) = map.as_ref() {
            // SAFETY: a read-only shared file map: dropped pages are read back from the file.
            let _ = unsafe { m.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    };
    super::encode::write_tier_released(out, tier, fp, entries, dont_care, &release, opts)
}
