//! Encoding a tier's entries into a `.bdb` file: the code book, packed blocks, zstd frames,
//! the index and the checksums (the layout is described in [`super::format`]).

use std::io::Write;
use std::path::Path;

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::layout::{file_name, meta_checksum, Header, HEADER, INDEX_ENTRY, TRAILER};
use crate::error::{Error, Result};
use crate::store::manifest::FileRecord;
use crate::store::Checksum;

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

/// Encodes `entries` and writes `dir/tier-KKKK.bdb` atomically.
pub fn write_tier(
    dir: &Path,
    tier: u32,
    fingerprint: u64,
    entries: &[u16],
    opts: &EncodeOptions,
) -> Result<FileRecord> {
    let bytes = encode(tier, fingerprint, entries, opts)?;
    let checksum = u64::from_le_bytes(bytes[bytes.len() - TRAILER..].try_into().expect("8"));
    let file = file_name(tier);
    let written =
        crate::store::write_atomic(&dir.join(&file), |w: &mut dyn Write| w.write_all(&bytes))?;
    Ok(FileRecord {
        file,
        bytes: written,
        checksum: Checksum(checksum),
    })
}
