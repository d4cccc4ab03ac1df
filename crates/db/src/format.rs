//! The compressed tier file (`tier-KKKK.bdb`): what a database ships.
//!
//! | item              | role                                                             |
//! |-------------------|------------------------------------------------------------------|
//! | [`EncodeOptions`] | block size and zstd level ([`super::encode`])                    |
//! | [`encode`]        | a tier's entries -> the file's bytes (blocks compressed in parallel) |
//! | [`write_tier`]    | encode and write atomically, returning the manifest record       |
//! | [`BdbFile`]       | an opened file: header and index checked, blocks decoded on demand |
//! | [`Access`]        | mapped, or read with `pread` (a file cut short while open is an error, not SIGBUS) |
//! | [`Block`]         | one decoded block, the unit the cache keeps                      |
//!
//! Every position's entry (value and depth, [`bawo_games::value::Entry`]) is replaced by a short
//! code: the tier's distinct entries are sorted by frequency and the most frequent `2^w - 1`
//! get codes `0..S`; the rest are escaped (code `2^w - 1`) and stored verbatim after the codes
//! of their block. Codes are 4 bits wide when escapes are rare and 8 bits otherwise. A code
//! stands for a (value, depth) pair, so a draw costs no depth and, where the game ties the
//! value to the depth's parity (Bawo: wins odd, losses even), the value costs nothing. Packed
//! codes are cut into blocks of a fixed number of positions, each compressed as an
//! independent zstd frame, so a probe decompresses one block. Nibble packing was measured to
//! beat byte codes by 7-10% at the same zstd level: the LZ matches cover twice the positions
//! per byte. The byte layout is in `docs/format.md`; everything is little-endian.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

pub use super::block::Block;
pub use super::encode::{encode, write_tier, write_tier_with, DontCare, EncodeOptions};
use bawo_games::error::{Error, Result};
use bawo_games::value::Entry;
use bawo_store::Checksum;

use super::layout::meta_checksum;
pub use super::layout::{
    file_name, BlockRef, Header, FLAG_DONT_CARE, HEADER, INDEX_ENTRY, MAGIC, MAX_BLOCK_POSITIONS,
    TRAILER, VERSION,
};
use super::source::read_error;
pub use super::source::{Access, Bytes, FileBytes};

/// The largest format version field read as a version rather than as damage.
const MAX_PLAUSIBLE_VERSION: u32 = 255;

/// An opened `.bdb` file over any bytes: a memory map or `pread`s ([`BdbFile::open_with`]) or
/// a buffer ([`BdbFile::from_vec`]). Opening checks magic, version, fingerprint, tier, size
/// and the header/index checksum; each block is checked against its own checksum when read.
pub struct BdbFile<B = FileBytes> {
    path: PathBuf,
    bytes: B,
    header: Header,
    index: Vec<BlockRef>,
    /// The whole-file checksum as the trailer stores it.
    trailer: u64,
}

/// Bytes hashed per read when a whole file is checked.
const HASH_CHUNK: u64 = 1 << 20;

impl BdbFile {
    /// Opens and maps `path`, expecting `tier` with `states` positions of the game with
    /// `fingerprint`.
    pub fn open(path: &Path, tier: u32, states: u64, fingerprint: u64) -> Result<BdbFile> {
        Self::open_with(path, Access::Map, tier, states, fingerprint)
    }

    /// Opens `path` for `access`, expecting `tier` with `states` positions of the game with
    /// `fingerprint`.
    pub fn open_with(
        path: &Path,
        access: Access,
        tier: u32,
        states: u64,
        fingerprint: u64,
    ) -> Result<BdbFile> {
        let missing = || {
            Error::Missing(format!(
                "tier {tier}: {} is missing from the database",
                path.display()
            ))
        };
        let bytes = match FileBytes::open(path, access) {
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Err(missing())
            }
            Err(e) => return Err(e),
            Ok(None) => {
                return Err(Error::corrupt(
                    path,
                    "0 bytes, shorter than a header (truncated?)",
                ))
            }
            Ok(Some(bytes)) => bytes,
        };
        Self::from_bytes(path, bytes, tier, states, fingerprint)
    }
}

impl BdbFile<Vec<u8>> {
    /// Parses a file held in memory (tests, tools).
    pub fn from_vec(
        path: &Path,
        bytes: Vec<u8>,
        tier: u32,
        states: u64,
        fingerprint: u64,
    ) -> Result<BdbFile<Vec<u8>>> {
        Self::from_bytes(path, bytes, tier, states, fingerprint)
    }
}

/// Refuses a format version other than this program's: a newer or older one by name, an
/// impossible one as damage.
fn check_version(path: &Path, version: u32) -> Result<()> {
    // Versions count up from 1: a huge one is a damaged byte, not a newer format.
    if version > MAX_PLAUSIBLE_VERSION {
        return Err(Error::corrupt(
            path,
            format!(
                "damaged header: its format version field reads {version}, which no bawo \
                 version wrote (this program reads version {VERSION})"
            ),
        ));
    }
    if version != VERSION {
        let age = if version < VERSION {
            "an older"
        } else {
            "a newer"
        };
        return Err(Error::Mismatch(format!(
            "{}: written by {age} version of bawo (file format version {version}, this \
             program reads version {VERSION}); solve it again",
            path.display()
        )));
    }
    Ok(())
}

/// The block index, each block checked to lie between the header and the index and to claim
/// no more escaped entries than its block has positions.
fn parse_index(path: &Path, bytes: &[u8], header: &Header, head_len: u64) -> Result<Vec<BlockRef>> {
    let mut index = Vec::with_capacity(bytes.len() / INDEX_ENTRY);
    for (i, e) in bytes.chunks_exact(INDEX_ENTRY).enumerate() {
        let r = BlockRef {
            offset: u64::from_le_bytes(e[0..8].try_into().expect("8")),
            len: u32::from_le_bytes(e[8..12].try_into().expect("4")),
            escapes: u32::from_le_bytes(e[12..16].try_into().expect("4")),
            checksum: u64::from_le_bytes(e[16..24].try_into().expect("8")),
        };
        let end = r.offset.checked_add(r.len as u64);
        if r.offset < head_len || end.is_none_or(|x| x > header.index_offset) {
            return Err(Error::corrupt(
                path,
                format!("block {i} lies outside the file"),
            ));
        }
        // The escapes size the buffer a block decompresses into: more than the block has
        // positions would have a probe allocate gigabytes for a few bytes of forged file.
        let positions = header.block_len(i as u32);
        if r.escapes as usize > positions {
            return Err(Error::corrupt(
                path,
                format!(
                    "block {i} claims {} escaped entries in {positions} positions",
                    r.escapes
                ),
            ));
        }
        index.push(r);
    }
    Ok(index)
}

impl<B: Bytes> BdbFile<B> {
    /// Parses the bytes of a `.bdb` file (`path` names it in errors).
    pub fn from_bytes(
        path: &Path,
        bytes: B,
        tier: u32,
        states: u64,
        fingerprint: u64,
    ) -> Result<BdbFile<B>> {
        let corrupt = |why: String| Error::corrupt(path, why);
        let size = bytes.size();
        if size < (HEADER + TRAILER) as u64 {
            return Err(corrupt(format!(
                "{size} bytes, shorter than a header (truncated?)"
            )));
        }
        let read = |at: u64, len: usize| {
            bytes
                .with(at, len, <[u8]>::to_vec)
                .map_err(|e| read_error(path, e))
        };
        let b = read(0, HEADER)?;
        if &b[0..8] != MAGIC {
            return Err(corrupt("not a bawo database file (bad magic)".into()));
        }
        let u16_at = |o: usize| u16::from_le_bytes(b[o..o + 2].try_into().expect("2"));
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4"));
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8"));
        check_version(path, u32_at(8))?;
        let nsym = u16_at(38) as usize;
        let head_len = HEADER + 2 * nsym;
        let blocks = u32_at(40);
        let index_offset = u64_at(48);
        let index_len = blocks as u64 * INDEX_ENTRY as u64;
        let expected = index_offset
            .checked_add(index_len)
            .and_then(|x| x.checked_add(TRAILER as u64));
        if expected != Some(size) || index_offset < head_len as u64 {
            return Err(corrupt(format!(
                "{size} bytes, but the header describes a different length (truncated?)"
            )));
        }
        let syms = read(HEADER as u64, head_len - HEADER)?;
        let index_bytes = read(index_offset, index_len as usize)?;
        let trailer =
            u64::from_le_bytes(read(size - TRAILER as u64, TRAILER)?.try_into().expect("8"));
        if meta_checksum(&[&b[..], &syms].concat(), &index_bytes) != u64_at(56) {
            return Err(corrupt(
                "header or block index checksum does not match".into(),
            ));
        }
        let header = Header {
            tier: u32_at(12),
            states: u64_at(16),
            fingerprint: u64_at(24),
            block_positions: u32_at(32),
            width: b[36],
            level: b[37] as i8,
            symbols: syms
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect(),
            blocks,
            index_offset,
            dont_care: b[44] & FLAG_DONT_CARE != 0,
        };
        if header.fingerprint != fingerprint {
            return Err(Error::Mismatch(format!(
                "{}: built for another game, other rules or other parameters (fingerprint {:016x}, the database's is {fingerprint:016x})",
                path.display(),
                header.fingerprint
            )));
        }
        if header.tier != tier || header.states != states {
            return Err(corrupt(format!(
                "header says tier {} with {} positions, expected tier {tier} with {states}",
                header.tier, header.states
            )));
        }
        if header.block_positions > MAX_BLOCK_POSITIONS {
            return Err(corrupt(format!(
                "blocks of {} positions, more than the {MAX_BLOCK_POSITIONS} a block may hold",
                header.block_positions
            )));
        }
        let width_ok = matches!(header.width, 4 | 8);
        let block_ok = header.block_positions > 0
            && header.states.div_ceil(header.block_positions as u64) == blocks as u64;
        let flags_ok = b[44] & !FLAG_DONT_CARE == 0 && b[45..48] == [0, 0, 0];
        if !width_ok || !block_ok || !flags_ok || nsym >= (1usize << header.width.min(8)) {
            return Err(corrupt("impossible header fields".into()));
        }
        if let Some(s) = header
            .symbols
            .iter()
            .find(|&&s| !Entry(s).is_valid_solved())
        {
            return Err(corrupt(format!(
                "symbol table holds an invalid entry {s:#06x}"
            )));
        }
        let index = parse_index(path, &index_bytes, &header, head_len as u64)?;
        Ok(BdbFile {
            path: path.to_path_buf(),
            bytes,
            header,
            index,
            trailer,
        })
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Blocks in the file.
    pub fn blocks(&self) -> u32 {
        self.header.blocks
    }

    pub(crate) fn symbols(&self) -> &[u16] {
        &self.header.symbols
    }

    /// The block holding position `index` and the offset within it.
    pub fn locate(&self, index: u64) -> (u32, usize) {
        let b = self.header.block_positions as u64;
        ((index / b) as u32, (index % b) as usize)
    }

    /// Size of the file in bytes.
    pub fn len(&self) -> u64 {
        self.bytes.size()
    }

    /// Whether the file holds no positions.
    pub fn is_empty(&self) -> bool {
        self.bytes.size() == 0
    }

    /// Drops the file's mapped pages from this process's memory (they are read back from
    /// the page cache or the disk when next needed): readers of a whole database call it
    /// after each batch of blocks, so the mapped file never piles up in their memory.
    pub fn release(&self) {
        self.bytes.release()
    }

    fn block_corrupt(&self, b: u32, why: impl std::fmt::Display) -> Error {
        let start = b as u64 * self.header.block_positions as u64;
        Error::corrupt(
            &self.path,
            format!(
                "block {b} (positions {start}..{}): {why}",
                start + self.header.block_len(b) as u64
            ),
        )
    }

    /// Calls `f` on block `b`'s compressed frame once its checksum is checked (one read).
    fn with_frame<R>(&self, b: u32, f: impl FnOnce(&[u8]) -> Result<R>) -> Result<R> {
        let r = self.index[b as usize];
        self.bytes
            .with(r.offset, r.len as usize, |frame| {
                if xxh3_64(frame) != r.checksum {
                    return Err(self.block_corrupt(b, "checksum does not match"));
                }
                f(frame)
            })
            .map_err(|e| read_error(&self.path, e))?
    }

    /// Checks block `b`'s checksum without decompressing it.
    pub fn check_block(&self, b: u32) -> Result<()> {
        self.with_frame(b, |_| Ok(()))
    }

    /// Adds bytes `from..to` of the file to `hasher`, a chunk at a time.
    fn hash_range(&self, hasher: &mut xxhash_rust::xxh3::Xxh3, from: u64, to: u64) -> Result<()> {
        let mut at = from;
        while at < to {
            let n = (to - at).min(HASH_CHUNK);
            self.bytes
                .with(at, n as usize, |chunk| hasher.update(chunk))
                .map_err(|e| read_error(&self.path, e))?;
            at += n;
        }
        Ok(())
    }

    /// Checks the whole-file checksum in the trailer; returns it.
    pub fn check_file(&self) -> Result<Checksum> {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        self.hash_range(&mut hasher, 0, self.bytes.size() - TRAILER as u64)?;
        if hasher.digest() != self.trailer {
            return Err(Error::corrupt(&self.path, "file checksum does not match"));
        }
        Ok(Checksum(self.trailer))
    }

    /// The whole-file checksum as stored in the trailer.
    pub fn stored_checksum(&self) -> Checksum {
        Checksum(self.trailer)
    }

    /// The entry of position `j` of block `b`, decompressing the block (checksum checked
    /// first) only as far as `j`'s code, so a single cold probe reads on average half a block.
    /// `None` when the code is the escape (the escaped entries follow all the codes: decode
    /// the whole block). Never panics on damaged input.
    pub fn entry_from_prefix(&self, b: u32, j: usize) -> Result<Option<Entry>> {
        if b >= self.header.blocks || j >= self.header.block_len(b) {
            return Err(Error::Internal(format!(
                "position {j} of block {b} beyond the tier"
            )));
        }
        let r = self.index[b as usize];
        let width = self.header.width as usize;
        let content = self.header.packed_len(self.header.block_len(b)) + 2 * r.escapes as usize;
        let c = self.with_frame(b, |frame| {
            super::prefix::with_prefix(frame, content, j * width / 8 + 1, |codes| {
                if width == 4 {
                    (codes[j / 2] >> ((j & 1) * 4)) & 15
                } else {
                    codes[j]
                }
            })
            .map_err(|e| self.block_corrupt(b, format!("does not decompress: {e}")))
        })?;
        match self.header.symbols.get(c as usize) {
            Some(&e) => Ok(Some(Entry(e))),
            None if c == self.header.escape() => Ok(None),
            None => Err(self.block_corrupt(b, "holds an impossible code")),
        }
    }

    /// Decompresses and checks block `b`: its checksum, its size, every code, and the
    /// escaped entries. Never panics on damaged input.
    pub fn decode_block(&self, b: u32) -> Result<Block> {
        if b >= self.header.blocks {
            return Err(Error::Internal(format!(
                "block {b} beyond {} blocks",
                self.header.blocks
            )));
        }
        let r = self.index[b as usize];
        let positions = self.header.block_len(b);
        let packed = self.header.packed_len(positions);
        let expect = packed + 2 * r.escapes as usize;
        let mut payload = self.with_frame(b, |frame| {
            zstd::bulk::decompress(frame, expect)
                .map_err(|e| self.block_corrupt(b, format!("does not decompress: {e}")))
        })?;
        if payload.len() != expect {
            return Err(self.block_corrupt(b, "decompressed size differs from the index"));
        }
        let escape = self.header.escape();
        let nsym = self.header.symbols.len() as u8;
        let width = self.header.width;
        let mut escape_at = Vec::with_capacity(r.escapes as usize);
        let mut bad = false;
        let mut note = |j: usize, c: u8| {
            if c >= nsym {
                if c == escape {
                    escape_at.push(j as u32);
                } else {
                    bad = true;
                }
            }
        };
        if width == 4 {
            // Most words hold sixteen direct codes: test them at once, and look at the bytes
            // of a word only when one of its nibbles is not direct.
            let mut k = 0;
            for word in payload[..packed].chunks(8) {
                let direct = word.len() == 8
                    && super::block::nibbles_at_least(
                        u64::from_le_bytes(word.try_into().expect("8")),
                        nsym,
                    ) == 0;
                if !direct {
                    for (d, &byte) in word.iter().enumerate() {
                        if byte & 15 >= nsym || byte >> 4 >= nsym {
                            let j = 2 * (k + d);
                            note(j, byte & 15);
                            if j + 1 < positions {
                                note(j + 1, byte >> 4);
                            }
                        }
                    }
                }
                k += word.len();
            }
            if positions % 2 == 1 && payload[packed - 1] >> 4 != 0 {
                bad = true;
            }
        } else {
            for (j, &c) in payload[..packed].iter().enumerate() {
                note(j, c);
            }
        }
        if bad {
            return Err(self.block_corrupt(b, "holds an impossible code"));
        }
        if escape_at.len() != r.escapes as usize {
            return Err(self.block_corrupt(b, "escape count differs from the index"));
        }
        let escaped: Vec<u16> = payload[packed..]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        if let Some(e) = escaped.iter().find(|&&e| !Entry(e).is_valid_solved()) {
            return Err(self.block_corrupt(b, format!("holds an invalid entry {e:#06x}")));
        }
        payload.truncate(packed);
        payload.shrink_to_fit();
        Ok(Block {
            width,
            positions,
            codes: payload,
            escape_at,
            escaped,
        })
    }

    /// Decodes every block in order, handing each to `f` with its first position, and checks
    /// the whole-file checksum against the trailer and against `expected` (the manifest's) in
    /// the same read: each byte is hashed once, as its block is decoded, so a file is read
    /// once where a check and then a decode read it twice. The verdict on the whole file
    /// comes after the last block: what `f` got counts only if this returns `Ok`.
    pub fn for_each_block_checked(
        &self,
        expected: Checksum,
        mut f: impl FnMut(u64, Block) -> Result<()>,
    ) -> Result<()> {
        let end = self.bytes.size() - TRAILER as u64;
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut hashed = 0u64;
        let mut first = 0u64;
        for b in 0..self.header.blocks {
            let r = self.index[b as usize];
            // Blocks lie in order; hashing up to each block's end covers every byte once.
            let to = r.offset + r.len as u64;
            if to > hashed {
                self.hash_range(&mut hasher, hashed, to)?;
                hashed = to;
            }
            let block = self.decode_block(b)?;
            let n = block.len() as u64;
            f(first, block)?;
            first += n;
        }
        self.hash_range(&mut hasher, hashed, end)?;
        let stored = self.stored_checksum();
        if hasher.digest() != stored.0 {
            return Err(Error::corrupt(&self.path, "file checksum does not match"));
        }
        if stored != expected {
            return Err(Error::corrupt(
                &self.path,
                "file checksum differs from the manifest",
            ));
        }
        Ok(())
    }

    /// Every entry of the tier, blocks decoded in parallel.
    pub fn decode_all(&self) -> Result<Vec<u16>>
    where
        B: Sync,
    {
        let parts: Vec<Result<Vec<u16>>> = (0..self.header.blocks)
            .into_par_iter()
            .map(|b| {
                let block = self.decode_block(b)?;
                let mut v = Vec::with_capacity(block.len());
                block.entries_into(self.symbols(), &mut v);
                Ok(v)
            })
            .collect();
        let mut out = Vec::with_capacity(self.header.states as usize);
        for p in parts {
            out.extend_from_slice(&p?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
