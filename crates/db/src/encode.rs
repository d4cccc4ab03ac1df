//! Encoding a tier's entries into a `.bdb` file: the code book, packed blocks, zstd frames,
//! the index and the checksums (the layout is described in [`super::format`]).

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rayon::prelude::*;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use super::layout::{
    file_name, meta_checksum, Header, HEADER, INDEX_ENTRY, MAX_BLOCK_POSITIONS, TRAILER,
};
use bawo_games::error::{Error, Result};
use bawo_store::manifest::FileRecord;
use bawo_store::table::TableData;
use bawo_store::Checksum;

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

/// Which positions of the tier are don't-care (by tier index), when the writer substitutes
/// their entries.
pub type DontCare<'a> = &'a (dyn Fn(u64) -> bool + Sync);

/// What the encoder asks of a don't-care test: [`DontCare`] for tools, a concrete closure
/// for the solver's compressor, whose test then inlines into the loop over the entries
/// (asked twice per position of every tier) instead of a call through a pointer.
pub trait IsDontCare: Fn(u64) -> bool + Sync {}

impl<F: Fn(u64) -> bool + Sync + ?Sized> IsDontCare for F {}

/// Calls `f` with each entry of the block starting at tier index `first`, as stored: with
/// `dont_care`, each don't-care entry but the block's first is a copy of the stored entry
/// before it, so runs of equal entries grow (the reader recovers the true entries through
/// their moves). The stored entries are never gathered: a copy of every block cost its pages
/// faulted in and zeroed, twice a tier.
fn for_each_stored<D: IsDontCare + ?Sized>(
    entries: &[u16],
    first: u64,
    dont_care: Option<&D>,
    mut f: impl FnMut(u16),
) {
    let Some(dc) = dont_care else {
        entries.iter().for_each(|&e| f(e));
        return;
    };
    let mut prev = 0u16;
    for (j, &e) in entries.iter().enumerate() {
        let stored = if j > 0 && dc(first + j as u64) {
            prev
        } else {
            e
        };
        f(stored);
        prev = stored;
    }
}

/// One value per worker thread of the current pool: what a tier's encoding keeps from block
/// to block (a histogram, a zstd context, a payload buffer) instead of allocating it again.
fn per_thread<T: Default>() -> Vec<Mutex<T>> {
    (0..rayon::current_num_threads().max(1))
        .map(|_| Mutex::new(T::default()))
        .collect()
}

/// The calling worker thread's value of `slots` (made by [`per_thread`] in the same pool, so
/// no two threads share one and the lock is never contended).
fn this_threads<T>(slots: &[Mutex<T>]) -> MutexGuard<'_, T> {
    let slot = rayon::current_thread_index().unwrap_or(0) % slots.len();
    slots[slot].lock().expect("per-thread lock")
}

impl CodeBook {
    /// Counts the stored entries (blocks of `block` positions) `batch` at a time, calling
    /// `release` after each batch (so a mapped table's pages never pile up), and builds the
    /// codes.
    fn build<D: IsDontCare + ?Sized>(
        entries: &[u16],
        block: usize,
        batch: usize,
        dont_care: Option<&D>,
        release: &dyn Fn(),
    ) -> CodeBook {
        // One histogram per worker thread for the whole tier (512 KiB each): one per block
        // or per split of each batch was mapped and zeroed again every time.
        let slots: Vec<Mutex<Vec<u64>>> = per_thread();
        for (k, part) in entries.chunks(batch.max(1)).enumerate() {
            let first = (k * batch) as u64;
            part.par_chunks(block).enumerate().for_each(|(b, chunk)| {
                let mut c = this_threads(&slots);
                if c.is_empty() {
                    c.resize(1 << 16, 0);
                }
                let first = first + (b * block) as u64;
                for_each_stored(chunk, first, dont_care, |e| c[e as usize] += 1);
            });
            release();
        }
        let counts = slots
            .into_iter()
            .map(|m| m.into_inner().expect("per-thread lock"))
            .filter(|c| !c.is_empty())
            .fold(vec![0u64; 1 << 16], add_counts);
        Self::from_counts(&counts, entries.len() as u64)
    }

    fn from_counts(counts: &[u64], len: u64) -> CodeBook {
        let mut present: Vec<(u64, u16)> = counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(e, &c)| (c, e as u16))
            .collect();
        present.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        // Nibbles when at most one position in 64 needs an escape.
        let beyond_15: u64 = present.iter().skip(15).map(|p| p.0).sum();
        let width = if beyond_15 * 64 <= len { 4 } else { 8 };
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

fn add_counts(mut a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}

/// The decompressed content of one block (its entries as stored, [`for_each_stored`]) into
/// `out`: packed codes, then the escaped entries; returns how many were escaped.
fn block_payload<D: IsDontCare + ?Sized>(
    book: &CodeBook,
    entries: &[u16],
    first: u64,
    dont_care: Option<&D>,
    out: &mut Vec<u8>,
) -> u32 {
    let escape = ((1u16 << book.width) - 1) as u8;
    out.clear();
    out.reserve((entries.len() * book.width as usize).div_ceil(8) + 64);
    let mut escaped = Vec::new();
    let mut code = |e: u16| {
        let c = book.code[e as usize];
        if c == escape {
            escaped.push(e);
        }
        c
    };
    if book.width == 4 {
        // Two codes a byte, the first in the low nibble; an odd last one alone.
        let mut low = None;
        for_each_stored(entries, first, dont_care, |e| match low.take() {
            None => low = Some(code(e)),
            Some(lo) => out.push(lo | (code(e) << 4)),
        });
        out.extend(low);
    } else {
        for_each_stored(entries, first, dont_care, |e| out.push(code(e)));
    }
    for e in &escaped {
        out.extend_from_slice(&e.to_le_bytes());
    }
    escaped.len() as u32
}

/// Bytes the encoder reads back at a time to checksum the file it wrote.
const READ_BACK: usize = 1 << 20;

/// Encodes a tier's entries (every one a valid solved entry) into `out`, streaming: the codes
/// are counted and the blocks compressed one batch (a block per thread) at a time and each
/// batch's frames written before the next is compressed, calling `release` after each batch
/// so the pages of a mapped table are dropped as they are read. The header, whose block
/// index offset and checksum are known only at the end, is written last over a placeholder;
/// the whole-file checksum is then taken by reading the file back. Holds at most a block per
/// thread (entries, codes, frame and zstd's working memory) and the index (24 bytes per
/// block). With `dont_care`, don't-care entries are substituted (`stored_block`) and the
/// header says so. Errors name `path`. Returns the file's length and checksum.
#[allow(clippy::too_many_arguments)]
pub fn encode_to<W: Read + Write + Seek, D: IsDontCare + ?Sized>(
    out: &mut W,
    path: &Path,
    tier: u32,
    fingerprint: u64,
    entries: &[u16],
    dont_care: Option<&D>,
    release: &dyn Fn(),
    opts: &EncodeOptions,
) -> Result<(u64, Checksum)> {
    if opts.block_positions == 0 || opts.block_positions > MAX_BLOCK_POSITIONS {
        return Err(Error::Internal(format!(
            "block size must be 1 to {MAX_BLOCK_POSITIONS} positions, not {}",
            opts.block_positions
        )));
    }
    let io = |e| Error::io(path, e);
    let block = opts.block_positions as usize;
    let batch = block * rayon::current_num_threads().max(1);
    let book = CodeBook::build(entries, block, batch, dont_care, release);
    let mut header = Header {
        tier,
        states: entries.len() as u64,
        fingerprint,
        block_positions: opts.block_positions,
        width: book.width,
        level: opts.level.clamp(i8::MIN as i32, i8::MAX as i32) as i8,
        symbols: book.symbols.clone(),
        blocks: entries.len().div_ceil(block) as u32,
        index_offset: 0,
        dont_care: dont_care.is_some(),
    };
    let head_len = HEADER as u64 + 2 * header.symbols.len() as u64;
    out.seek(SeekFrom::Start(0)).map_err(io)?;
    write(out, path, &vec![0u8; head_len as usize])?;
    let mut offset = head_len;
    let mut index = Vec::with_capacity(header.blocks as usize * INDEX_ENTRY);
    // One zstd context per thread for the whole tier: a fresh context per block allocated
    // and zeroed its working memory again every time (a tenth of a solve's page faults).
    // They go with this call, so what is held between tiers does not change.
    // The same holds for each thread's payload buffer, kept from block to block.
    type Slot = (Option<zstd::bulk::Compressor<'static>>, Vec<u8>);
    let contexts: Vec<Mutex<Slot>> = per_thread();
    // Codes block `chunk` (starting at tier index `first`) and compresses it: the frame and
    // the count of escaped entries.
    let code_block = |chunk: &[u16], first: u64| -> Result<(Vec<u8>, u32)> {
        let zstd_err = |e: std::io::Error| Error::Internal(format!("zstd: {e}"));
        let mut guard = this_threads(&contexts);
        let (ctx, payload) = &mut *guard;
        let escapes = block_payload(&book, chunk, first, dont_care, payload);
        if ctx.is_none() {
            *ctx = Some(zstd::bulk::Compressor::new(opts.level).map_err(zstd_err)?);
        }
        let frame = ctx
            .as_mut()
            .expect("made above")
            .compress(payload)
            .map_err(zstd_err)?;
        Ok((frame, escapes))
    };
    for (k, part) in entries.chunks(batch).enumerate() {
        let first = (k * batch) as u64;
        let frames: Vec<Result<(Vec<u8>, u32)>> = part
            .par_chunks(block)
            .enumerate()
            .map(|(b, chunk)| code_block(chunk, first + (b * block) as u64))
            .collect();
        release();
        for f in frames {
            let (frame, escapes) = f?;
            index.extend_from_slice(&offset.to_le_bytes());
            index.extend_from_slice(&(frame.len() as u32).to_le_bytes());
            index.extend_from_slice(&escapes.to_le_bytes());
            index.extend_from_slice(&xxh3_64(&frame).to_le_bytes());
            write(out, path, &frame)?;
            offset += frame.len() as u64;
        }
    }
    header.index_offset = offset;
    write(out, path, &index)?;
    let mut head = header.encode();
    let meta = meta_checksum(&head, &index);
    head[56..64].copy_from_slice(&meta.to_le_bytes());
    out.seek(SeekFrom::Start(0)).map_err(io)?;
    write(out, path, &head)?;
    // The whole-file checksum covers the header just written: read everything back.
    out.seek(SeekFrom::Start(0)).map_err(io)?;
    let end = offset + index.len() as u64;
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; READ_BACK];
    let mut left = end;
    while left > 0 {
        let n = (left as usize).min(READ_BACK);
        out.read_exact(&mut buf[..n]).map_err(io)?;
        hasher.update(&buf[..n]);
        left -= n as u64;
    }
    let whole = hasher.digest();
    write(out, path, &whole.to_le_bytes())?;
    Ok((end + TRAILER as u64, Checksum(whole)))
}

/// Writes all of `bytes`, failing as a full disk would once the fault-injection budget
/// ([`bawo_store::fault`]) is spent.
fn write<W: Write>(out: &mut W, path: &Path, bytes: &[u8]) -> Result<()> {
    bawo_store::fault::check_write(bytes.len(), path)?;
    out.write_all(bytes).map_err(|e| Error::io(path, e))
}

/// Encodes a tier's entries into the bytes of a `.bdb` file held in memory (tests, tools).
pub fn encode(
    tier: u32,
    fingerprint: u64,
    entries: &[u16],
    opts: &EncodeOptions,
) -> Result<Vec<u8>> {
    let mut out = std::io::Cursor::new(Vec::new());
    encode_to(
        &mut out,
        Path::new("(memory)"),
        tier,
        fingerprint,
        entries,
        None::<DontCare<'_>>,
        &|| {},
        opts,
    )?;
    Ok(out.into_inner())
}

/// Encodes `entries` and writes `dir/tier-KKKK.bdb` atomically.
pub fn write_tier(
    dir: &Path,
    tier: u32,
    fingerprint: u64,
    entries: &[u16],
    opts: &EncodeOptions,
) -> Result<FileRecord> {
    write_tier_released(
        dir,
        tier,
        fingerprint,
        entries,
        None::<DontCare<'_>>,
        &|| {},
        opts,
    )
}

/// [`write_tier`], substituting don't-care entries where `dont_care` says (tools).
pub fn write_tier_with(
    dir: &Path,
    tier: u32,
    fingerprint: u64,
    entries: &[u16],
    dont_care: Option<DontCare<'_>>,
    opts: &EncodeOptions,
) -> Result<FileRecord> {
    write_tier_released(dir, tier, fingerprint, entries, dont_care, &|| {}, opts)
}

/// Encodes a raw table (copied or mapped) and writes `dir/tier-KKKK.bdb` atomically, dropping
/// the table's mapped pages as they are read, and calling `release` too after each batch
/// (for other maps the encoding reads, such as the don't-care flags): the solver's
/// compression of a finished tier. With `dont_care`, don't-care entries are substituted.
pub fn write_table_tier<D: IsDontCare + ?Sized>(
    dir: &Path,
    tier: u32,
    fingerprint: u64,
    table: &TableData,
    dont_care: Option<&D>,
    release: &dyn Fn(),
    opts: &EncodeOptions,
) -> Result<FileRecord> {
    let release = || {
        table.release();
        release();
    };
    write_tier_released(
        dir,
        tier,
        fingerprint,
        table.entries(),
        dont_care,
        &release,
        opts,
    )
}

/// Streams the file into an exclusively created temporary file next to its place, syncs it
/// and renames it there, calling `release` after each batch of blocks.
pub(crate) fn write_tier_released<D: IsDontCare + ?Sized>(
    dir: &Path,
    tier: u32,
    fingerprint: u64,
    entries: &[u16],
    dont_care: Option<&D>,
    release: &dyn Fn(),
    opts: &EncodeOptions,
) -> Result<FileRecord> {
    let file = file_name(tier);
    let path = dir.join(&file);
    let mut tmp = bawo_store::temp_file_for(&path)?;
    let (bytes, checksum) = encode_to(
        tmp.as_file_mut(),
        &path,
        tier,
        fingerprint,
        entries,
        dont_care,
        release,
        opts,
    )?;
    tmp.as_file().sync_all().map_err(|e| Error::io(&path, e))?;
    tmp.persist(&path).map_err(|e| Error::io(&path, e.error))?;
    bawo_store::sync_dir(dir)?;
    Ok(FileRecord {
        file,
        bytes,
        checksum,
    })
}
