//! Cells packed with zstd: what an out-of-core tier's checkpoints name instead of a second
//! plain copy of every range.
//!
//! A range's working cells are 4 bytes a position, but they hold little: most positions of a
//! range share a handful of tags, counters and depths, and zstd at its fastest level packs
//! them to a tenth to a sixth of their size (Bawo `n = 4`: 0.3 bytes a position after the
//! successor pass, 0.6 in the middle of the attractor). So out of core the successor pass
//! logs each block's cells as one zstd frame, each attractor checkpoint packs the ranges that
//! changed since the last one, and the working cells are changed in place: no range is ever
//! copied whole to keep a checkpointed slot intact, and the disk holds one plain copy of the
//! cells of the ranges the attractor does not hold in memory, beside their packed slots.
//!
//! A packed file is a sequence of zstd frames whose decoded bytes are the range's cells,
//! wide ([`crate::cell`]) whatever width the attractor keeps them in
//! ([`crate::tier::cells`]); its checksum (of the packed bytes) is the manifest's.

use std::io::{BufReader, Read, Write};
use std::path::Path;

use crate::tier::cells::{narrow_into, CellBuf, CellWidth, Words};
use bawo_games::error::{Error, Result};
use bawo_store::checksum::Hasher;
use bawo_store::Checksum;

/// zstd's level for cells: its fastest; higher levels pack cells a few percent smaller at
/// several times the time.
pub const LEVEL: i32 = 1;

/// Bytes read from a plain cell file at a time while it is packed.
const READ_BUFFER: usize = 1 << 20;

/// One zstd frame of `cells` (a block of the successor pass, appended to its range's log).
pub fn frame(cells: &[u32]) -> Result<Vec<u8>> {
    zstd::bulk::compress(bawo_store::bytes::u32_bytes(cells), LEVEL)
        .map_err(|e| Error::Internal(format!("packing cells: {e}")))
}

/// Packs `cells` into the file at `path` (replacing it; not synced) and gives its checksum.
pub fn pack_words(cells: Words<'_>, path: &Path) -> Result<Checksum> {
    pack_with(path, |enc| {
        cells.each_wide(|w| enc.write_all(bawo_store::bytes::u32_bytes(w)))
    })
}

/// Packs the plain cell file at `from`, of cells of `width`, into the file at `to`
/// (replacing it; not synced) and gives its checksum.
pub fn pack_file(from: &Path, to: &Path, width: CellWidth) -> Result<Checksum> {
    if width == CellWidth::Narrow {
        let map = bawo_store::bytes::map_ro(from)?
            .ok_or_else(|| Error::corrupt(from, "empty cell file"))?;
        return pack_words(Words::of_bytes(from, &map, width)?, to);
    }
    let f = bawo_store::open_no_follow()
        .read(true)
        .open(from)
        .map_err(|e| Error::io(from, e))?;
    let mut input = Naming {
        inner: BufReader::with_capacity(READ_BUFFER, f),
        path: from,
    };
    pack_with(to, |enc| std::io::copy(&mut input, enc).map(|_| ()))
}

/// Reads through, naming the file read in its errors (they surface as the packed file's).
struct Naming<'a, R> {
    inner: R,
    path: &'a Path,
}

impl<R: Read> Read for Naming<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            std::io::Error::new(e.kind(), format!("reading {}: {e}", self.path.display()))
        })
    }
}

/// Packs the wide cells `fill` writes into the file at `to` (replacing it; not synced) and
/// gives its checksum.
fn pack_with(
    to: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<Checksum> {
    let mut hasher = Hasher::new();
    bawo_store::write_renamed(to, false, |w| {
        let mut out = Hashing {
            inner: w,
            hasher: &mut hasher,
            path: to,
        };
        let mut enc = zstd::Encoder::new(&mut out, LEVEL)?;
        fill(&mut enc)?;
        enc.finish()?;
        Ok(())
    })?;
    Ok(hasher.finish())
}

/// Passes writes through, hashing them and counting them against the fault injection's
/// budget of work-file bytes.
struct Hashing<'a> {
    inner: &'a mut dyn Write,
    hasher: &'a mut Hasher,
    path: &'a Path,
}

impl Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        bawo_store::fault::check_write(buf.len(), self.path)
            .map_err(|_| std::io::Error::from_raw_os_error(28))?;
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Decodes the packed file at `path` into `cells`, which it must fill exactly (narrowed
/// where they are narrow).
pub fn unpack_into(path: &Path, cells: &mut CellBuf) -> Result<()> {
    let mut dec = decoder(path)?;
    match cells {
        CellBuf::Wide(w) => {
            let bytes = bawo_store::bytes::u32_bytes_mut(w);
            dec.read_exact(bytes).map_err(|e| bad(path, e))?;
        }
        CellBuf::Narrow(n) => {
            let mut wide = Vec::new();
            for out in n.chunks_mut(NARROW_CHUNK) {
                decode_narrowed(&mut dec, path, out, &mut wide)?;
            }
        }
    }
    ends_here(&mut dec, path)
}

/// Decodes as many wide cells as `out` holds, through `wide`, and narrows them into `out`.
fn decode_narrowed(
    dec: &mut impl Read,
    path: &Path,
    out: &mut [u16],
    wide: &mut Vec<u32>,
) -> Result<()> {
    wide.resize(out.len(), 0);
    dec.read_exact(bawo_store::bytes::u32_bytes_mut(wide))
        .map_err(|e| bad(path, e))?;
    narrow_into(wide, out)
}

/// Wide cells decoded at a time where they are narrowed.
const NARROW_CHUNK: usize = 1 << 18;

/// Decodes the packed file at `from` into the plain cell file at `to` (replacing it; not
/// synced) of cells of `width`, which must come to `len` cells.
pub fn unpack_file(from: &Path, to: &Path, len: usize, width: CellWidth) -> Result<()> {
    let mut dec = decoder(from)?;
    if width == CellWidth::Narrow {
        return unpack_narrow_file(&mut dec, from, to, len);
    }
    let want = 4 * len as u64;
    let mut short = false;
    bawo_store::write_renamed(to, false, |w| {
        bawo_store::fault::check_write(want as usize, to)
            .map_err(|_| std::io::Error::from_raw_os_error(28))?;
        let got = std::io::copy(&mut (&mut dec).take(want), w)?;
        short = got != want;
        Ok(())
    })?;
    if short {
        return Err(Error::corrupt(
            from,
            "packed cells are shorter than the range",
        ));
    }
    ends_here(&mut dec, from)
}

/// [`unpack_file`] into narrow cells, a chunk at a time.
fn unpack_narrow_file(dec: &mut Decoder, from: &Path, to: &Path, len: usize) -> Result<()> {
    // A failure of the packed cells stops the writing (the file is not made) and is
    // returned as itself.
    let mut failed = None;
    let written = bawo_store::write_renamed(to, false, |w| {
        bawo_store::fault::check_write(2 * len, to)
            .map_err(|_| std::io::Error::from_raw_os_error(28))?;
        let (mut wide, mut narrow) = (Vec::new(), vec![0u16; NARROW_CHUNK.min(len)]);
        let mut left = len;
        while left > 0 {
            let n = left.min(NARROW_CHUNK);
            if let Err(e) = decode_narrowed(dec, from, &mut narrow[..n], &mut wide) {
                failed = Some(e);
                return Err(std::io::Error::other("the packed cells failed"));
            }
            w.write_all(bawo_store::bytes::u16_bytes(&narrow[..n]))?;
            left -= n;
        }
        Ok(())
    });
    if let Some(e) = failed {
        return Err(e);
    }
    written?;
    ends_here(dec, from)
}

type Decoder = zstd::Decoder<'static, BufReader<std::fs::File>>;

fn decoder(path: &Path) -> Result<Decoder> {
    let f = bawo_store::open_no_follow()
        .read(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    zstd::Decoder::new(f).map_err(|e| Error::io(path, e))
}

/// Refuses packed bytes that decode to more than their range.
fn ends_here(dec: &mut impl Read, path: &Path) -> Result<()> {
    let mut extra = [0u8; 1];
    match dec.read(&mut extra) {
        Ok(0) => Ok(()),
        Ok(_) => Err(Error::corrupt(
            path,
            "packed cells are longer than the range",
        )),
        Err(e) => Err(bad(path, e)),
    }
}

/// A decoding failure: damaged bytes (the checksum was checked first, so this is a file
/// changed since, or a bug), or an error of the disk.
fn bad(path: &Path, e: std::io::Error) -> Error {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => {
            Error::corrupt(path, "packed cells are shorter than the range")
        }
        std::io::ErrorKind::Other | std::io::ErrorKind::InvalidData => {
            Error::corrupt(path, format!("packed cells do not decode: {e}"))
        }
        _ => Error::io(path, e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(n: u32, seed: u32) -> Vec<u32> {
        (0..n).map(|i| (i / 7) % 5 + seed * (i % 3)).collect()
    }

    #[test]
    fn packed_cells_come_back_the_same_from_memory_files_and_frames() {
        let d = tempfile::tempdir().unwrap();
        let words = cells(100_000, 9);
        let p = d.path().join("packed-0.a");
        let sum = pack_words(Words::Wide(&words), &p).unwrap();
        assert_eq!(sum, bawo_store::bytes::file_checksum(&p).unwrap());
        assert!(std::fs::metadata(&p).unwrap().len() < 100_000);
        let mut back = CellBuf::zeroed(CellWidth::Wide, words.len());
        unpack_into(&p, &mut back).unwrap();
        assert!(matches!(back, CellBuf::Wide(v) if v == words));
        // From a plain file, and back into one.
        let plain = d.path().join("cells-0.a");
        std::fs::write(&plain, bawo_store::bytes::u32_bytes(&words)).unwrap();
        let q = d.path().join("packed-0.b");
        assert_eq!(pack_file(&plain, &q, CellWidth::Wide).unwrap(), sum);
        let out = d.path().join("cells-0.b");
        unpack_file(&q, &out, words.len(), CellWidth::Wide).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&plain).unwrap());
        // Frames appended one after another decode as the cells of every block in order.
        let f = d.path().join("frames");
        let mut bytes = frame(&words[..40_000]).unwrap();
        bytes.extend(frame(&words[40_000..]).unwrap());
        std::fs::write(&f, bytes).unwrap();
        let mut back = CellBuf::zeroed(CellWidth::Wide, words.len());
        unpack_into(&f, &mut back).unwrap();
        assert!(matches!(back, CellBuf::Wide(v) if v == words));
    }

    #[test]
    fn packed_cells_of_the_wrong_length_or_damaged_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let words = cells(10_000, 3);
        let p = d.path().join("p");
        pack_words(Words::Wide(&words), &p).unwrap();
        let err = |e: Error| e.to_string();
        let mut short = CellBuf::zeroed(CellWidth::Wide, 9_999);
        assert!(err(unpack_into(&p, &mut short).unwrap_err()).contains("longer"));
        let mut long = CellBuf::zeroed(CellWidth::Wide, 10_001);
        assert!(err(unpack_into(&p, &mut long).unwrap_err()).contains("shorter"));
        let out = d.path().join("o");
        let wide = CellWidth::Wide;
        assert!(err(unpack_file(&p, &out, 10_001, wide).unwrap_err()).contains("shorter"));
        assert!(err(unpack_file(&p, &out, 9_999, wide).unwrap_err()).contains("longer"));
        let mut bytes = std::fs::read(&p).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0xFF;
        bytes.truncate(bytes.len() - 3);
        std::fs::write(&p, bytes).unwrap();
        let mut back = CellBuf::zeroed(CellWidth::Wide, words.len());
        assert!(unpack_into(&p, &mut back).is_err());
        assert!(unpack_file(&p, &out, words.len(), wide).is_err());
    }

    /// Cells of a closed tier: open ones with counters, terminal losses, wins and losses.
    fn closed(n: u32) -> Vec<u32> {
        use crate::cell::{make, ANCHORED, DONT_CARE, LOSS, OPEN, WIN};
        (0..n)
            .map(|i| match i % 4 {
                0 => make(OPEN, i % 7, 0) | ANCHORED,
                1 => make(LOSS, 0, 0) | ANCHORED | DONT_CARE,
                2 => make(WIN, 0, i % 300) | ANCHORED,
                _ => make(LOSS, 0, 1 + i % 200) | ANCHORED,
            })
            .collect()
    }

    #[test]
    fn narrow_cells_pack_as_their_wide_form_and_come_back_narrow() {
        let d = tempfile::tempdir().unwrap();
        let n = 3 * NARROW_CHUNK as u32 / 2 + 11;
        let wide = closed(n);
        let mut narrow = vec![0u16; wide.len()];
        narrow_into(&wide, &mut narrow).unwrap();
        // The same packed bytes from the wide cells, the narrow ones and a narrow file.
        let (a, b, c) = (d.path().join("a"), d.path().join("b"), d.path().join("c"));
        let sum = pack_words(Words::Wide(&wide), &a).unwrap();
        assert_eq!(pack_words(Words::Narrow(&narrow), &b).unwrap(), sum);
        let plain = d.path().join("plain");
        std::fs::write(&plain, bawo_store::bytes::u16_bytes(&narrow)).unwrap();
        assert_eq!(pack_file(&plain, &c, CellWidth::Narrow).unwrap(), sum);
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&c).unwrap());
        // Back into memory and into a plain file, narrow.
        let mut back = CellBuf::zeroed(CellWidth::Narrow, narrow.len());
        unpack_into(&a, &mut back).unwrap();
        assert!(matches!(&back, CellBuf::Narrow(v) if *v == narrow));
        let out = d.path().join("out");
        unpack_file(&a, &out, narrow.len(), CellWidth::Narrow).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&plain).unwrap());
        // Wrong lengths are refused as for wide cells.
        let w = CellWidth::Narrow;
        let e = unpack_file(&a, &out, narrow.len() + 1, w).unwrap_err();
        assert!(e.to_string().contains("shorter"), "{e}");
        let e = unpack_file(&a, &out, narrow.len() - 1, w).unwrap_err();
        assert!(e.to_string().contains("longer"), "{e}");
        // Cells a closed tier cannot have are refused, not narrowed into others.
        let mut odd = wide.clone();
        odd[NARROW_CHUNK + 3] = crate::cell::make(crate::cell::OPEN, 2, 9);
        pack_words(Words::Wide(&odd), &a).unwrap();
        let mut back = CellBuf::zeroed(CellWidth::Narrow, odd.len());
        assert!(unpack_into(&a, &mut back).is_err());
        let gone = d.path().join("never");
        assert!(unpack_file(&a, &gone, odd.len(), w).is_err());
        assert!(!gone.exists(), "no file is made of cells refused");
    }
}
