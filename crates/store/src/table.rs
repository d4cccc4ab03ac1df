//! Raw tier tables: the solver's working copy of each finished tier, memory-mapped for the
//! random lookups of the tiers above it and for probes.
//!
//! Layout (little-endian):
//!
//! | offset | size | field                                   |
//! |--------|------|-----------------------------------------|
//! | 0      | 8    | magic `BAWOTBL1`                        |
//! | 8      | 4    | format version ([`VERSION`])            |
//! | 12     | 4    | tier id                                 |
//! | 16     | 8    | number of positions                     |
//! | 24     | 8    | game fingerprint (xxh3 of the descriptor)|
//! | 32     | 8    | xxh3-64 of the entry bytes              |
//! | 40     | 24   | zero                                    |
//! | 64     | 2·N  | one [`bawo_games::value::Entry`] per position |

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::bytes::{as_u16, u16_bytes};
use super::checksum::{Checksum, Hasher};
use bawo_games::error::{Error, Result};

/// The first bytes of a table file.
pub const MAGIC: &[u8; 8] = b"BAWOTBL1";
/// Version of the table format.
pub const VERSION: u32 = 1;
/// Bytes of the header before the entries.
pub const HEADER: usize = 64;

/// What a table file's header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableHeader {
    /// The tier (its seeds).
    pub tier: u32,
    /// Entries in the table.
    pub states: u64,
    /// Fingerprint of the game and ranking the table was solved with.
    pub fingerprint: u64,
    /// Checksum of the entries.
    pub checksum: Checksum,
}

/// Where a table's entries live: copied into memory, or mapped from its file.
pub enum TableData {
    /// Entries copied into memory.
    Owned(Vec<u16>),
    /// A mapped table file; `offset` is the byte offset of the first entry. The file stays
    /// open beside its map, so that entries can also be read without mapping their pages
    /// ([`TableData::read_entries`]).
    Mapped {
        /// The file's map.
        map: memmap2::Mmap,
        /// Byte offset of the first entry.
        offset: usize,
        /// The open file.
        file: TableFile,
    },
}

/// An open table file and its path (for errors).
pub struct TableFile {
    /// The open file.
    pub file: File,
    /// Its path, for messages.
    pub path: PathBuf,
}

impl TableData {
    /// The entries, one per position.
    #[inline]
    pub fn entries(&self) -> &[u16] {
        match self {
            TableData::Owned(v) => v,
            TableData::Mapped { map, offset, .. } => {
                as_u16(Path::new(""), &map[*offset..]).expect("checked when the table was opened")
            }
        }
    }

    /// Number of entries.
    pub fn len(&self) -> u64 {
        match self {
            TableData::Owned(v) => v.len() as u64,
            TableData::Mapped { map, offset, .. } => (map.len() - offset) as u64 / 2,
        }
    }

    /// Whether the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fills `out` with the entries from `first` on. A mapped table is read from its file
    /// (`pread`), so that its pages go to the kernel's page cache and not into this
    /// process's resident memory, as they would through the map.
    pub fn read_entries(&self, first: u64, out: &mut [u16]) -> Result<()> {
        match self {
            TableData::Owned(v) => {
                let at = first as usize;
                out.copy_from_slice(&v[at..at + out.len()]);
                Ok(())
            }
            TableData::Mapped { offset, file, .. } => {
                let at = *offset as u64 + 2 * first;
                // The successor pass reads single entries here, at random, millions of
                // times: a buffer as small as the read, for zeroing 64 KiB each time took a
                // third of such a pass.
                if out.len() <= SMALL_READ {
                    read_pieces(file, at, out, &mut [0u8; 2 * SMALL_READ])
                } else {
                    read_pieces(file, at, out, &mut [0u8; 1 << 16])
                }
            }
        }
    }

    /// Drops a mapped table's pages from this process's memory (they are read back from the
    /// file when next needed); an owned table stays.
    pub fn release(&self) {
        if let TableData::Mapped { map, .. } = self {
            // SAFETY: a read-only shared file map: dropped pages are read back from the file.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }
}

/// Entries read at most this many at a time take a small buffer ([`TableData::read_entries`]).
const SMALL_READ: usize = 16;

/// Fills `out` with the little-endian entries of `file` from byte `at` on, through `bytes`.
fn read_pieces(file: &TableFile, mut at: u64, out: &mut [u16], bytes: &mut [u8]) -> Result<()> {
    for piece in out.chunks_mut(bytes.len() / 2) {
        let b = &mut bytes[..2 * piece.len()];
        file.file
            .read_exact_at(b, at)
            .map_err(|e| Error::io(&file.path, e))?;
        for (e, pair) in piece.iter_mut().zip(b.chunks_exact(2)) {
            *e = u16::from_le_bytes([pair[0], pair[1]]);
        }
        at += b.len() as u64;
    }
    Ok(())
}

/// Writes a table atomically; returns its header and the bytes written.
pub fn write_table(
    path: &Path,
    tier: u32,
    fingerprint: u64,
    entries: &[u16],
) -> Result<(TableHeader, u64)> {
    let bytes = u16_bytes(entries);
    let header = TableHeader {
        tier,
        states: entries.len() as u64,
        fingerprint,
        checksum: Checksum::of(bytes),
    };
    let written = super::write_atomic(path, |w: &mut dyn Write| {
        w.write_all(&encode_header(&header))?;
        w.write_all(bytes)
    })?;
    Ok((header, written))
}

/// Bytes of a table written between two requests to write its pages back
/// ([`crate::syncs::start_writeback`]).
pub(crate) const WRITEBACK_EVERY: usize = 64 << 20;

/// Writes a table whose entries come in consecutive pieces from `fill` (so a tier larger than
/// memory never needs to be held whole): temp file, entries hashed as they go, header patched
/// with the checksum, synced, renamed. Returns the header and the bytes written.
pub fn write_table_streaming(
    path: &Path,
    tier: u32,
    states: u64,
    fingerprint: u64,
    fill: impl FnOnce(&mut dyn FnMut(&[u16]) -> Result<()>) -> Result<()>,
) -> Result<(TableHeader, u64)> {
    let mut tmp = super::temp_file_for(path)?;
    let io = |e| Error::io(path, e);
    let file = tmp.as_file_mut();
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    w.write_all(&[0u8; HEADER]).map_err(io)?;
    let mut hasher = Hasher::new();
    let mut count = 0u64;
    let mut unflushed = 0usize;
    fill(&mut |piece: &[u16]| {
        let bytes = u16_bytes(piece);
        hasher.update(bytes);
        count += piece.len() as u64;
        super::fault::check_write(bytes.len(), path)?;
        w.write_all(bytes).map_err(|e| Error::io(path, e))?;
        // Written back as it grows, so that the sync at the end finds little left.
        unflushed += bytes.len();
        if unflushed >= WRITEBACK_EVERY {
            w.flush().map_err(|e| Error::io(path, e))?;
            super::syncs::start_writeback(w.get_ref());
            unflushed = 0;
        }
        Ok(())
    })?;
    w.into_inner().map_err(|e| io(e.into_error()))?;
    let header = TableHeader {
        tier,
        states,
        fingerprint,
        checksum: hasher.finish(),
    };
    put_in_place(tmp, path, header, count)
}

/// The end of a table written into `tmp` (its entries all there, zeros where its header
/// goes): the `count` entries written checked against the header's, the header written,
/// the file synced and renamed to `path`, its folder synced. Returns the header and the
/// table's bytes.
pub(crate) fn put_in_place(
    tmp: tempfile::NamedTempFile,
    path: &Path,
    header: TableHeader,
    count: u64,
) -> Result<(TableHeader, u64)> {
    let TableHeader { tier, states, .. } = header;
    if count != states {
        return Err(Error::Internal(format!(
            "table of tier {tier} got {count} entries, expected {states}"
        )));
    }
    let io = |e| Error::io(path, e);
    let file = tmp.as_file();
    file.write_all_at(&encode_header(&header), 0).map_err(io)?;
    file.sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    super::sync_dir(match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    })?;
    Ok((header, HEADER as u64 + 2 * states))
}

fn encode_header(h: &TableHeader) -> [u8; HEADER] {
    let mut b = [0u8; HEADER];
    b[0..8].copy_from_slice(MAGIC);
    b[8..12].copy_from_slice(&VERSION.to_le_bytes());
    b[12..16].copy_from_slice(&h.tier.to_le_bytes());
    b[16..24].copy_from_slice(&h.states.to_le_bytes());
    b[24..32].copy_from_slice(&h.fingerprint.to_le_bytes());
    b[32..40].copy_from_slice(&h.checksum.0.to_le_bytes());
    b
}

fn decode_header(path: &Path, b: &[u8]) -> Result<TableHeader> {
    if b.len() < HEADER {
        return Err(Error::corrupt(path, "shorter than a table header"));
    }
    if &b[0..8] != MAGIC {
        return Err(Error::corrupt(path, "not a bawo tier table (bad magic)"));
    }
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    let version = u32_at(8);
    if version != VERSION {
        return Err(Error::Mismatch(format!(
            "{}: table format version {version}, this program reads version {VERSION}",
            path.display()
        )));
    }
    Ok(TableHeader {
        tier: u32_at(12),
        states: u64_at(16),
        fingerprint: u64_at(24),
        checksum: Checksum(u64_at(32)),
    })
}

/// Opens and maps a table, checking its header against what the caller expects and, with
/// `verify`, the checksum of every entry.
pub fn open_table(
    path: &Path,
    tier: u32,
    states: u64,
    fingerprint: u64,
    verify: bool,
) -> Result<(TableHeader, TableData)> {
    // Tables are only replaced by rename, never modified in place.
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let map = super::bytes::map_file_ro(path, &file)?
        .ok_or_else(|| Error::corrupt(path, "shorter than a table header"))?;
    let h = decode_header(path, &map)?;
    if h.fingerprint != fingerprint {
        return Err(Error::Mismatch(format!(
            "{}: table was built for another game, other rules or other parameters",
            path.display()
        )));
    }
    if h.tier != tier || h.states != states {
        return Err(Error::corrupt(
            path,
            format!(
                "header says tier {} with {} positions, expected tier {tier} with {states}",
                h.tier, h.states
            ),
        ));
    }
    let expected_len = HEADER as u64 + 2 * states;
    if map.len() as u64 != expected_len {
        return Err(Error::corrupt(
            path,
            format!("{} bytes, expected {expected_len} (truncated?)", map.len()),
        ));
    }
    as_u16(path, &map[HEADER..])?;
    let data = TableData::Mapped {
        map,
        offset: HEADER,
        file: TableFile {
            file,
            path: path.to_path_buf(),
        },
    };
    if verify && entries_checksum(&data)? != h.checksum {
        return Err(Error::corrupt(path, "entry checksum does not match"));
    }
    Ok((h, data))
}

/// The checksum of a table's entries, read in pieces ([`TableData::read_entries`]: a mapped
/// table's pages are not mapped into this process for it).
pub fn entries_checksum(data: &TableData) -> Result<Checksum> {
    let mut hasher = Hasher::new();
    let mut piece = vec![0u16; 1 << 19];
    let mut first = 0;
    while first < data.len() {
        let n = (data.len() - first).min(piece.len() as u64) as usize;
        data.read_entries(first, &mut piece[..n])?;
        hasher.update(u16_bytes(&piece[..n]));
        first += n as u64;
    }
    Ok(hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_tables_equal_whole_ones() {
        let dir = tempfile::tempdir().unwrap();
        let entries: Vec<u16> = (0..1000u16).collect();
        let (a, _) = write_table(&dir.path().join("a"), 1, 5, &entries).unwrap();
        let (b, _) = write_table_streaming(&dir.path().join("b"), 1, 1000, 5, |put| {
            for piece in entries.chunks(77) {
                put(piece)?;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(a, b);
        assert_eq!(
            std::fs::read(dir.path().join("a")).unwrap(),
            std::fs::read(dir.path().join("b")).unwrap()
        );
    }

    #[test]
    fn entries_read_from_the_file_equal_the_mapped_ones_at_every_length() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tbl");
        let n = 70_000u64;
        let entries: Vec<u16> = (0..n).map(|i| (i * 40_503 % 65_521) as u16).collect();
        write_table(&path, 2, 7, &entries).unwrap();
        let (_, data) = open_table(&path, 2, n, 7, false).unwrap();
        // Both sides of the small buffer and of the 64 KiB one (32,768 entries a piece).
        for (first, len) in [
            (0, 1),
            (12_345, 1),
            (n - 1, 1),
            (3, 16),
            (5, 17),
            (1, 32_768),
            (7, 40_000),
            (0, n),
        ] {
            let mut out = vec![0u16; len as usize];
            data.read_entries(first, &mut out).unwrap();
            assert_eq!(
                out,
                entries[first as usize..(first + len) as usize],
                "{first} {len}"
            );
        }
        let mut past = [0u16; 2];
        assert!(data.read_entries(n - 1, &mut past).is_err());
    }

    #[test]
    fn tables_round_trip_and_catch_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tbl");
        let entries: Vec<u16> = (0..1000u16).map(|i| i.wrapping_mul(37)).collect();
        write_table(&path, 3, 99, &entries).unwrap();
        let (_, data) = open_table(&path, 3, 1000, 99, true).unwrap();
        assert_eq!(data.entries(), &entries[..]);
        assert!(matches!(
            open_table(&path, 3, 1000, 98, true),
            Err(Error::Mismatch(_))
        ));
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER + 10] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            open_table(&path, 3, 1000, 99, true),
            Err(Error::Corrupt { .. })
        ));
        bytes.truncate(bytes.len() - 2);
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            open_table(&path, 3, 1000, 99, false),
            Err(Error::Corrupt { .. })
        ));
    }
}
