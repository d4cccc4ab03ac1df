//! The compressed tier file (`tier-KKKK.bdb`): what a database ships.
//!
//! | item              | role                                                             |
//! |-------------------|------------------------------------------------------------------|
//! | [`EncodeOptions`] | block size and zstd level                                        |
//! | [`encode`]        | a tier's entries -> the file's bytes (blocks compressed in parallel) |
//! | [`write_tier`]    | encode and write atomically, returning the manifest record       |
//! | [`BdbFile`]       | an opened file: header and index checked, blocks decoded on demand |
//! | [`Block`]         | one decoded block, the unit the cache keeps                      |
//!
//! Every position's entry (value and depth, [`crate::value::Entry`]) is replaced by a short
//! code: the tier's distinct entries are sorted by frequency and the most frequent `2^w - 1`
//! get codes `0..S`; the rest are escaped (code `2^w - 1`) and stored verbatim after the codes
//! of their block. Codes are 4 bits wide when escapes are rare and 8 bits otherwise. A code
//! stands for a (value, depth) pair, so a draw costs no depth and, where the game ties the
//! value to the depth's parity (Bawo: wins odd, losses even), the value costs nothing. Packed
//! codes are cut into blocks of a fixed number of positions, each compressed as an
//! independent zstd frame, so a probe decompresses one block. Nibble packing was measured to
//! beat byte codes by 7-10% at the same zstd level: the LZ matches cover twice the positions
//! per byte. The byte layout is in `FORMAT.md`; everything is little-endian.

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use crate::error::{Error, Result};
use crate::value::Entry;

pub const MAGIC: &[u8; 8] = b"BAWO-BDB";
pub const VERSION: u32 = 1;
pub const HEADER: usize = 64;
/// Bytes per block in the index.
pub const INDEX_ENTRY: usize = 24;
/// Bytes of the trailer (whole-file checksum).
pub const TRAILER: usize = 8;

/// File name of a tier's compressed file.
pub fn file_name(tier: u32) -> String {
    format!("tier-{tier:04}.bdb")
}

/// How a tier is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Positions per block (the unit of decompression).
    pub block_positions: u32,
    /// zstd compression level.
    pub level: i32,
}

impl Default for EncodeOptions {
    /// 2^21 positions per block (1 MiB of nibbles, about a millisecond to decompress) and zstd
    /// level 9: on the benchmark instance larger blocks or higher levels gained a few percent
    /// in size for several times the compression time (README, "Database format").
    fn default() -> Self {
        EncodeOptions {
            block_positions: 1 << 21,
            level: 9,
        }
    }
}

/// What the manifest records about a tier's compressed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BdbRecord {
    /// File name inside the database directory.
    pub file: String,
    /// Size in bytes.
    pub bytes: u64,
    /// xxh3-64 of the whole file except its last 8 bytes (the trailer), hex.
    pub checksum: String,
}

/// One block's place in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRef {
    pub offset: u64,
    pub len: u32,
    /// Escaped positions in the block.
    pub escapes: u32,
    /// xxh3-64 of the compressed frame.
    pub checksum: u64,
}

/// The fixed header fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub tier: u32,
    pub states: u64,
    pub fingerprint: u64,
    pub block_positions: u32,
    /// Bits per code: 4 or 8.
    pub width: u8,
    pub level: i8,
    /// Entry of each direct code.
    pub symbols: Vec<u16>,
    pub blocks: u32,
    pub index_offset: u64,
}

impl Header {
    fn escape(&self) -> u8 {
        ((1u16 << self.width) - 1) as u8
    }

    fn packed_len(&self, positions: usize) -> usize {
        (positions * self.width as usize).div_ceil(8)
    }

    /// Positions in block `b`.
    pub fn block_len(&self, b: u32) -> usize {
        let start = b as u64 * self.block_positions as u64;
        (self.states - start).min(self.block_positions as u64) as usize
    }

    fn encode(&self) -> Vec<u8> {
        let mut h = vec![0u8; HEADER];
        h[0..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&self.tier.to_le_bytes());
        h[16..24].copy_from_slice(&self.states.to_le_bytes());
        h[24..32].copy_from_slice(&self.fingerprint.to_le_bytes());
        h[32..36].copy_from_slice(&self.block_positions.to_le_bytes());
        h[36] = self.width;
        h[37] = self.level as u8;
        h[38..40].copy_from_slice(&(self.symbols.len() as u16).to_le_bytes());
        h[40..44].copy_from_slice(&self.blocks.to_le_bytes());
        h[48..56].copy_from_slice(&self.index_offset.to_le_bytes());
        for s in &self.symbols {
            h.extend_from_slice(&s.to_le_bytes());
        }
        h
    }
}

/// Codes for a tier: the distinct entries by descending frequency (ties by entry bits, so the
/// output is deterministic), the width, and the code of every entry bit pattern.
struct CodeBook {
    width: u8,
    symbols: Vec<u16>,
    /// Code of each `u16` entry; escaped entries map to the escape code.
    code: Vec<u8>,
}

impl CodeBook {
    fn build(entries: &[u16]) -> CodeBook {
        let counts = entries
            .par_chunks(1 << 16)
            .fold(
                || vec![0u64; 1 << 16],
                |mut c, chunk| {
                    for &e in chunk {
                        c[e as usize] += 1;
                    }
                    c
                },
            )
            .reduce(
                || vec![0u64; 1 << 16],
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x += y;
                    }
                    a
                },
            );
        let mut present: Vec<(u64, u16)> = counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(e, &c)| (c, e as u16))
            .collect();
        present.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        // Nibbles when at most one position in 64 needs an escape.
        let beyond_15: u64 = present.iter().skip(15).map(|p| p.0).sum();
        let width = if beyond_15 * 64 <= entries.len() as u64 {
            4
        } else {
            8
        };
        let direct = ((1usize << width) - 1).min(present.len());
        let escape = ((1u16 << width) - 1) as u8;
        let mut code = vec![escape; 1 << 16];
        for (i, p) in present[..direct].iter().enumerate() {
            code[p.1 as usize] = i as u8;
        }
        CodeBook {
            width,
            symbols: present[..direct].iter().map(|p| p.1).collect(),
            code,
        }
    }
}

/// The decompressed content of one block: packed codes, then the escaped entries.
fn block_payload(book: &CodeBook, entries: &[u16]) -> (Vec<u8>, u32) {
    let escape = ((1u16 << book.width) - 1) as u8;
    let mut out = Vec::with_capacity((entries.len() * book.width as usize).div_ceil(8) + 64);
    let mut escaped = Vec::new();
    let mut code = |e: u16| {
        let c = book.code[e as usize];
        if c == escape {
            escaped.push(e);
        }
        c
    };
    if book.width == 4 {
        for pair in entries.chunks(2) {
            let lo = code(pair[0]);
            let hi = pair.get(1).map_or(0, |&e| code(e));
            out.push(lo | (hi << 4));
        }
    } else {
        out.extend(entries.iter().map(|&e| code(e)));
    }
    for e in &escaped {
        out.extend_from_slice(&e.to_le_bytes());
    }
    (out, escaped.len() as u32)
}

/// Encodes a tier's entries (every one a valid solved entry) into the bytes of a `.bdb` file.
pub fn encode(
    tier: u32,
    fingerprint: u64,
    entries: &[u16],
    opts: &EncodeOptions,
) -> Result<Vec<u8>> {
    if opts.block_positions == 0 {
        return Err(Error::Internal("block size must be positive".into()));
    }
    let book = CodeBook::build(entries);
    let frames: Vec<Result<(Vec<u8>, u32)>> = entries
        .par_chunks(opts.block_positions as usize)
        .map(|chunk| {
            let (payload, escapes) = block_payload(&book, chunk);
            let frame = zstd::bulk::compress(&payload, opts.level)
                .map_err(|e| Error::Internal(format!("zstd: {e}")))?;
            Ok((frame, escapes))
        })
        .collect();
    let mut header = Header {
        tier,
        states: entries.len() as u64,
        fingerprint,
        block_positions: opts.block_positions,
        width: book.width,
        level: opts.level.clamp(i8::MIN as i32, i8::MAX as i32) as i8,
        symbols: book.symbols,
        blocks: frames.len() as u32,
        index_offset: 0,
    };
    let mut body = Vec::new();
    let mut index = Vec::with_capacity(frames.len() * INDEX_ENTRY);
    let head_len = HEADER as u64 + 2 * header.symbols.len() as u64;
    for f in frames {
        let (frame, escapes) = f?;
        index.extend_from_slice(&(head_len + body.len() as u64).to_le_bytes());
        index.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        index.extend_from_slice(&escapes.to_le_bytes());
        index.extend_from_slice(&xxh3_64(&frame).to_le_bytes());
        body.extend_from_slice(&frame);
    }
    header.index_offset = head_len + body.len() as u64;
    let mut out = header.encode();
    out.extend_from_slice(&body);
    out.extend_from_slice(&index);
    let meta = meta_checksum(&out[..head_len as usize], &index);
    out[56..64].copy_from_slice(&meta.to_le_bytes());
    let whole = xxh3_64(&out);
    out.extend_from_slice(&whole.to_le_bytes());
    Ok(out)
}

/// Checksum of the header (its checksum field zeroed), symbol table and index: checked on
/// every open, so a damaged header or index is refused before any probe.
fn meta_checksum(head: &[u8], index: &[u8]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&head[..56]);
    h.update(&[0u8; 8]);
    h.update(&head[HEADER..]);
    h.update(index);
    h.digest()
}

/// Encodes `entries` and writes `dir/tier-KKKK.bdb` atomically.
pub fn write_tier(
    dir: &Path,
    tier: u32,
    fingerprint: u64,
    entries: &[u16],
    opts: &EncodeOptions,
) -> Result<BdbRecord> {
    let bytes = encode(tier, fingerprint, entries, opts)?;
    let checksum = u64::from_le_bytes(bytes[bytes.len() - TRAILER..].try_into().expect("8"));
    let file = file_name(tier);
    let written =
        crate::store::write_atomic(&dir.join(&file), |w: &mut dyn Write| w.write_all(&bytes))?;
    Ok(BdbRecord {
        file,
        bytes: written,
        checksum: format!("{checksum:016x}"),
    })
}

/// A decoded block: its packed codes and escaped entries, ready for probes.
#[derive(Debug)]
pub struct Block {
    width: u8,
    positions: usize,
    codes: Vec<u8>,
    /// Offsets (within the block) of escaped positions, ascending.
    escape_at: Vec<u32>,
    escaped: Vec<u16>,
}

impl Block {
    /// Bytes this block holds in memory (for the cache's budget).
    pub fn heap_bytes(&self) -> usize {
        self.codes.len() + 4 * self.escape_at.len() + 2 * self.escaped.len()
    }

    pub fn len(&self) -> usize {
        self.positions
    }

    pub fn is_empty(&self) -> bool {
        self.positions == 0
    }

    #[inline]
    fn code(&self, j: usize) -> u8 {
        if self.width == 4 {
            (self.codes[j / 2] >> ((j & 1) * 4)) & 15
        } else {
            self.codes[j]
        }
    }

    /// The entry of position `j` of the block.
    #[inline]
    pub fn entry(&self, symbols: &[u16], j: usize) -> Entry {
        let c = self.code(j) as usize;
        if c < symbols.len() {
            return Entry(symbols[c]);
        }
        // Decoding checked that every code is direct or the escape, and that the escapes
        // line up with the escaped entries.
        let k = self
            .escape_at
            .binary_search(&(j as u32))
            .expect("escape offsets cover every escape code");
        Entry(self.escaped[k])
    }

    /// Appends every entry of the block to `out`.
    pub fn entries_into(&self, symbols: &[u16], out: &mut Vec<u16>) {
        let mut next_escape = 0;
        out.reserve(self.positions);
        for j in 0..self.positions {
            let c = self.code(j) as usize;
            if c < symbols.len() {
                out.push(symbols[c]);
            } else {
                out.push(self.escaped[next_escape]);
                next_escape += 1;
            }
        }
    }
}

/// Bytes of a `.bdb` file: a map or a buffer.
enum Bytes {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// An opened `.bdb` file. Opening checks magic, version, fingerprint, tier, size and the
/// header/index checksum; each block is checked against its own checksum when decoded.
pub struct BdbFile {
    path: std::path::PathBuf,
    bytes: Bytes,
    header: Header,
    index: Vec<BlockRef>,
}

impl BdbFile {
    /// Opens `path`, expecting `tier` with `states` positions of the game with `fingerprint`.
    pub fn open(path: &Path, tier: u32, states: u64, fingerprint: u64) -> Result<BdbFile> {
        let file = std::fs::File::open(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::Missing(format!(
                    "tier {tier}: {} is missing from the database",
                    path.display()
                ))
            } else {
                Error::io(path, e)
            }
        })?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let bytes = if len == 0 {
            Bytes::Owned(Vec::new())
        } else {
            // SAFETY: database files are written once under a temporary name and renamed
            // into place, never modified in place, so the mapped bytes do not change.
            Bytes::Map(unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?)
        };
        Self::from_bytes(path, bytes, tier, states, fingerprint)
    }

    /// Parses a file held in memory (tests, tools).
    pub fn from_vec(
        path: &Path,
        bytes: Vec<u8>,
        tier: u32,
        states: u64,
        fingerprint: u64,
    ) -> Result<BdbFile> {
        Self::from_bytes(path, Bytes::Owned(bytes), tier, states, fingerprint)
    }

    fn from_bytes(
        path: &Path,
        bytes: Bytes,
        tier: u32,
        states: u64,
        fingerprint: u64,
    ) -> Result<BdbFile> {
        let corrupt = |why: String| Error::corrupt(path, why);
        let b: &[u8] = &bytes;
        if b.len() < HEADER + TRAILER {
            return Err(corrupt(format!(
                "{} bytes, shorter than a header (truncated?)",
                b.len()
            )));
        }
        if &b[0..8] != MAGIC {
            return Err(corrupt("not a bawo database file (bad magic)".into()));
        }
        let u16_at = |o: usize| u16::from_le_bytes(b[o..o + 2].try_into().expect("2"));
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4"));
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8"));
        let version = u32_at(8);
        if version != VERSION {
            return Err(Error::Mismatch(format!(
                "{}: database format version {version}, this program reads version {VERSION}",
                path.display()
            )));
        }
        let nsym = u16_at(38) as usize;
        let head_len = HEADER + 2 * nsym;
        let blocks = u32_at(40);
        let index_offset = u64_at(48);
        let index_len = blocks as u64 * INDEX_ENTRY as u64;
        let expected = index_offset
            .checked_add(index_len)
            .and_then(|x| x.checked_add(TRAILER as u64));
        if expected != Some(b.len() as u64) || (index_offset as usize) < head_len {
            return Err(corrupt(format!(
                "{} bytes, but the header describes a different length (truncated?)",
                b.len()
            )));
        }
        let index_bytes = &b[index_offset as usize..index_offset as usize + index_len as usize];
        if meta_checksum(&b[..head_len], index_bytes) != u64_at(56) {
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
            symbols: (0..nsym).map(|i| u16_at(HEADER + 2 * i)).collect(),
            blocks,
            index_offset,
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
        let width_ok = matches!(header.width, 4 | 8);
        let block_ok = header.block_positions > 0
            && header.states.div_ceil(header.block_positions as u64) == blocks as u64;
        if !width_ok || !block_ok || nsym >= (1usize << header.width.min(8)) {
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
        let mut index = Vec::with_capacity(blocks as usize);
        for (i, e) in index_bytes.chunks_exact(INDEX_ENTRY).enumerate() {
            let r = BlockRef {
                offset: u64::from_le_bytes(e[0..8].try_into().expect("8")),
                len: u32::from_le_bytes(e[8..12].try_into().expect("4")),
                escapes: u32::from_le_bytes(e[12..16].try_into().expect("4")),
                checksum: u64::from_le_bytes(e[16..24].try_into().expect("8")),
            };
            let end = r.offset.checked_add(r.len as u64);
            if r.offset < head_len as u64 || end.is_none_or(|x| x > index_offset) {
                return Err(corrupt(format!("block {i} lies outside the file")));
            }
            index.push(r);
        }
        Ok(BdbFile {
            path: path.to_path_buf(),
            bytes,
            header,
            index,
        })
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn blocks(&self) -> u32 {
        self.header.blocks
    }

    pub fn symbols(&self) -> &[u16] {
        &self.header.symbols
    }

    /// The block holding position `index` and the offset within it.
    pub fn locate(&self, index: u64) -> (u32, usize) {
        let b = self.header.block_positions as u64;
        ((index / b) as u32, (index % b) as usize)
    }

    /// Size of the file in bytes.
    pub fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
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

    /// Checks block `b`'s checksum without decompressing it.
    pub fn check_block(&self, b: u32) -> Result<()> {
        let r = self.index[b as usize];
        let frame = &self.bytes[r.offset as usize..r.offset as usize + r.len as usize];
        if xxh3_64(frame) != r.checksum {
            return Err(self.block_corrupt(b, "checksum does not match"));
        }
        Ok(())
    }

    /// Checks the whole-file checksum in the trailer; returns it.
    pub fn check_file(&self) -> Result<u64> {
        let n = self.bytes.len() - TRAILER;
        let stored = u64::from_le_bytes(self.bytes[n..].try_into().expect("8"));
        if xxh3_64(&self.bytes[..n]) != stored {
            return Err(Error::corrupt(&self.path, "file checksum does not match"));
        }
        Ok(stored)
    }

    /// The whole-file checksum as stored in the trailer.
    pub fn stored_checksum(&self) -> u64 {
        let n = self.bytes.len() - TRAILER;
        u64::from_le_bytes(self.bytes[n..].try_into().expect("8"))
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
        self.check_block(b)?;
        let r = self.index[b as usize];
        let frame = &self.bytes[r.offset as usize..r.offset as usize + r.len as usize];
        let positions = self.header.block_len(b);
        let packed = self.header.packed_len(positions);
        let expect = packed + 2 * r.escapes as usize;
        let mut payload = zstd::bulk::decompress(frame, expect)
            .map_err(|e| self.block_corrupt(b, format!("does not decompress: {e}")))?;
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
            for (k, &byte) in payload[..packed].iter().enumerate() {
                // Most bytes hold two direct codes; test both nibbles at once.
                if byte & 15 >= nsym || byte >> 4 >= nsym {
                    note(2 * k, byte & 15);
                    if 2 * k + 1 < positions {
                        note(2 * k + 1, byte >> 4);
                    }
                }
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

    /// Every entry of the tier, blocks decoded in parallel.
    pub fn decode_all(&self) -> Result<Vec<u16>> {
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
mod tests {
    use super::*;
    use crate::value::Value;

    fn sample(n: usize, spread: u32) -> Vec<u16> {
        let mut x = 12345u64;
        (0..n)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let d = ((x >> 33) as u32 % spread) + (i as u32 % 3);
                if (x >> 20).is_multiple_of(17) {
                    Entry::DRAW.0
                } else if d % 2 == 1 {
                    Entry::decided(Value::Win, d).0
                } else {
                    Entry::decided(Value::Loss, d).0
                }
            })
            .collect()
    }

    fn round_trip(entries: &[u16], block: u32) -> BdbFile {
        let opts = EncodeOptions {
            block_positions: block,
            level: 3,
        };
        let bytes = encode(7, 42, entries, &opts).unwrap();
        let f = BdbFile::from_vec(Path::new("t.bdb"), bytes, 7, entries.len() as u64, 42).unwrap();
        assert_eq!(f.decode_all().unwrap(), entries);
        for (i, &e) in entries.iter().enumerate().step_by(97) {
            let (b, j) = f.locate(i as u64);
            assert_eq!(f.decode_block(b).unwrap().entry(f.symbols(), j), Entry(e));
        }
        f.check_file().unwrap();
        f
    }

    #[test]
    fn nibbles_with_escapes_round_trip() {
        // Few symbols, a rare tail: 4-bit codes with some escapes.
        let mut e = sample(10_001, 12);
        for i in (0..e.len()).step_by(500) {
            e[i] = Entry::decided(Value::Loss, 400 + i as u32 / 500).0;
        }
        let f = round_trip(&e, 1000);
        assert_eq!(f.header().width, 4);
        assert!(f.index.iter().any(|r| r.escapes > 0));
    }

    #[test]
    fn bytes_round_trip() {
        let f = round_trip(&sample(5_003, 300), 777);
        assert_eq!(f.header().width, 8);
    }

    #[test]
    fn tiny_and_uniform_tiers_round_trip() {
        round_trip(&[Entry::decided(Value::Loss, 0).0], 4);
        round_trip(&[Entry::DRAW.0; 9], 4);
        round_trip(&[], 4);
    }

    #[test]
    fn damage_is_reported_not_decoded() {
        let entries = sample(4000, 10);
        let opts = EncodeOptions {
            block_positions: 1000,
            level: 3,
        };
        let good = encode(1, 5, &entries, &opts).unwrap();
        let path = Path::new("t.bdb");
        // Every single flipped byte is caught at open or when its block is decoded.
        for at in 0..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0x40;
            let caught = match BdbFile::from_vec(path, bad, 1, 4000, 5) {
                Err(_) => true,
                Ok(f) => {
                    let block_bad = (0..f.blocks()).any(|b| f.decode_block(b).is_err());
                    let in_trailer = at >= good.len() - TRAILER;
                    f.check_file().is_err() && (block_bad || in_trailer)
                }
            };
            assert!(caught, "flip at byte {at} went unnoticed");
        }
        for cut in [1, 8, 100, good.len() - 1] {
            let bad = good[..good.len() - cut].to_vec();
            assert!(BdbFile::from_vec(path, bad, 1, 4000, 5).is_err());
        }
        assert!(matches!(
            BdbFile::from_vec(path, good, 1, 4000, 6),
            Err(Error::Mismatch(_))
        ));
    }
}
