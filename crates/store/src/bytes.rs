//! Byte views and file maps: the one place where words are seen as bytes and back.
//!
//! Every file this program writes is little-endian, and the program is built only for
//! little-endian hosts (`lib.rs` refuses others at compile time), so a slice of words is its
//! file bytes as they are, and a mapped file is a slice of words once its alignment and length
//! are checked.
//!
//! | item                          | role                                                   |
//! |-------------------------------|--------------------------------------------------------|
//! | [`u16_bytes`], [`u32_bytes`], [`u64_bytes`] | words -> their file bytes                |
//! | [`u32_bytes_mut`]             | words -> their file bytes, to be read into             |
//! | [`as_u16`], [`as_u32`], [`as_u64`] | file bytes -> words, refusing a bad length or alignment |
//! | [`map_ro`], [`map_mut`]       | memory maps of a run's own files                        |
//! | [`file_checksum`]             | the [`Checksum`] of a whole file                        |

use std::fs::{File, OpenOptions};
use std::path::Path;

use memmap2::{Mmap, MmapMut};

use super::checksum::Checksum;
use bawo_games::error::{Error, Result};

/// Any plain integer type: every bit pattern is a value, so bytes can be viewed as it.
///
/// # Safety
/// Implementors must have no padding and no invalid bit patterns.
unsafe trait Word: Copy {}
unsafe impl Word for u16 {}
unsafe impl Word for u32 {}
unsafe impl Word for u64 {}

fn bytes_of<T: Word>(words: &[T]) -> &[u8] {
    // SAFETY: `T` has no padding (trait contract), so its slice is a byte slice of
    // `size_of_val` bytes with the same lifetime.
    unsafe { std::slice::from_raw_parts(words.as_ptr() as *const u8, std::mem::size_of_val(words)) }
}

fn words_of<'a, T: Word>(path: &Path, bytes: &'a [u8], what: &str) -> Result<&'a [T]> {
    // SAFETY: every bit pattern is a valid `T` (trait contract); alignment is checked by
    // `align_to`, which leaves any misaligned head or tail outside `mid`.
    let (pre, mid, post) = unsafe { bytes.align_to::<T>() };
    if !pre.is_empty() || !post.is_empty() {
        return Err(Error::corrupt(
            path,
            format!("length or alignment is not a whole number of {what}"),
        ));
    }
    Ok(mid)
}

/// The file bytes of `u16`s.
pub fn u16_bytes(words: &[u16]) -> &[u8] {
    bytes_of(words)
}

/// The file bytes of `u32`s.
pub fn u32_bytes(words: &[u32]) -> &[u8] {
    bytes_of(words)
}

/// The file bytes of `u64`s.
pub fn u64_bytes(words: &[u64]) -> &[u8] {
    bytes_of(words)
}

/// The file bytes of `u32`s, writable: what a file's bytes are read into.
pub fn u32_bytes_mut(words: &mut [u32]) -> &mut [u8] {
    let len = std::mem::size_of_val(words);
    // SAFETY: `u32` has no padding and every byte pattern is a valid `u32`, and the view
    // borrows the words exclusively for its lifetime.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, len) }
}

/// The file bytes of `u16`s, writable: what a file's bytes are read into.
pub fn u16_bytes_mut(words: &mut [u16]) -> &mut [u8] {
    let len = std::mem::size_of_val(words);
    // SAFETY: `u16` has no padding and every byte pattern is a valid `u16`, and the view
    // borrows the words exclusively for its lifetime.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, len) }
}

/// File bytes as `u16`s (`path` names the file in the error).
pub fn as_u16<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a [u16]> {
    words_of(path, bytes, "entries")
}

/// File bytes as `u32`s.
pub fn as_u32<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a [u32]> {
    words_of(path, bytes, "words")
}

/// File bytes as `u64`s.
pub fn as_u64<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a [u64]> {
    words_of(path, bytes, "edges")
}

/// Advice on how a mapped file's pages at `map` will be read: at random, a page at a time
/// (`sparse`: no readahead), or the kernel's usual readahead. Advice only: contents are the
/// same either way, and elsewhere than Linux it does nothing.
pub fn advise_reads(map: &[u8], sparse: bool) {
    #[cfg(target_os = "linux")]
    if !map.is_empty() {
        let advice = if sparse {
            libc::MADV_RANDOM
        } else {
            libc::MADV_NORMAL
        };
        // SAFETY: `map` is a whole mapping this process made (page aligned); the advice
        // changes how its pages are read in, never what they hold.
        unsafe {
            libc::madvise(map.as_ptr() as *mut libc::c_void, map.len(), advice);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (map, sparse);
}

/// Maps a file read-only; `None` when it is empty (an empty map is not allowed).
pub fn map_ro(path: &Path) -> Result<Option<Mmap>> {
    let f = open_regular(path)?;
    map_file_ro(path, &f)
}

/// Opens `path` for reading, refusing anything but a regular file (a FIFO, a device such as
/// `/dev/zero`, a directory) as damage: it is opened without blocking (a FIFO with no writer
/// would hang `open`) and the open file's own type is checked, so nothing swapped in between
/// a check and the open is read.
pub fn open_regular(path: &Path) -> Result<File> {
    let mut o = OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK);
    }
    let f = o.open(path).map_err(|e| Error::io(path, e))?;
    let meta = f.metadata().map_err(|e| Error::io(path, e))?;
    if !meta.file_type().is_file() {
        return Err(Error::corrupt(path, "not a regular file"));
    }
    Ok(f)
}

/// Reads the whole regular file `path` as text, refusing one over `limit` bytes as damage
/// (without reading more than `limit + 1` bytes of it).
pub fn read_text_bounded(path: &Path, limit: u64) -> Result<String> {
    use std::io::Read;
    let f = open_regular(path)?;
    let mut text = String::new();
    f.take(limit + 1)
        .read_to_string(&mut text)
        .map_err(|e| Error::io(path, e))?;
    if text.len() as u64 > limit {
        return Err(Error::corrupt(
            path,
            format!("too large (over {} MiB)", limit >> 20),
        ));
    }
    Ok(text)
}

/// [`read_text_bounded`], with `Ok(None)` where there is no such file (a run directory's
/// manifest or ledger that was never written).
pub fn read_text_if_present(path: &Path, limit: u64) -> Result<Option<String>> {
    match read_text_bounded(path, limit) {
        Ok(t) => Ok(Some(t)),
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Maps the open file `f` (at `path`) read-only; `None` when it is empty.
pub fn map_file_ro(path: &Path, f: &File) -> Result<Option<Mmap>> {
    if f.metadata().map_err(|e| Error::io(path, e))?.len() == 0 {
        return Ok(None);
    }
    // SAFETY: files of a run are written once and renamed into place, or are work files of
    // the run holding the directory's lock; nobody changes them while this map lives.
    unsafe { Mmap::map(f) }
        .map(Some)
        .map_err(|e| Error::io(path, e))
}

/// Maps a work file for writing in place.
pub fn map_mut(path: &Path) -> Result<MmapMut> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    // SAFETY: work files belong to the run holding the lock, and no other mapping of the file
    // is alive while this one is written.
    unsafe { MmapMut::map_mut(&f) }.map_err(|e| Error::io(path, e))
}

/// Bytes [`file_checksum`] reads at a time.
const CHECKSUM_READ: usize = 1 << 20;

/// The checksum of a whole file, read a megabyte at a time through the page cache. (Mapping
/// it would count every page read in the process's resident memory: a checkpoint hashes up
/// to 16 files side by side, and 16 ranges' cells of 64 MiB mapped at once took a solve
/// under `--mem 4G` 0.75 GB over its cap while their pages came from the disk.)
pub fn file_checksum(path: &Path) -> Result<Checksum> {
    use std::io::Read;
    let mut f = open_regular(path)?;
    let mut hasher = super::checksum::Hasher::new();
    let mut buf = vec![0u8; CHECKSUM_READ];
    loop {
        match f.read(&mut buf) {
            Ok(0) => return Ok(hasher.finish()),
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_bytes_round_trip_and_bad_lengths_are_refused() {
        let words: Vec<u32> = vec![1, 0x0102_0304, u32::MAX];
        let bytes = u32_bytes(&words);
        assert_eq!(&bytes[4..8], &[4, 3, 2, 1]);
        let p = Path::new("f");
        assert_eq!(as_u32(p, bytes).unwrap(), &words[..]);
        assert!(as_u32(p, &bytes[..7]).is_err());
        assert_eq!(as_u16(p, u16_bytes(&[7, 9])).unwrap(), &[7, 9]);
        assert_eq!(as_u64(p, u64_bytes(&[5])).unwrap(), &[5]);
    }

    #[test]
    fn a_file_read_in_pieces_has_the_checksum_of_its_bytes() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        for len in [
            0,
            1,
            4095,
            CHECKSUM_READ,
            CHECKSUM_READ + 1,
            3 * CHECKSUM_READ - 7,
        ] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            std::fs::write(&p, &bytes).unwrap();
            assert_eq!(
                file_checksum(&p).unwrap(),
                Checksum::of(&bytes),
                "{len} bytes"
            );
        }
        assert!(file_checksum(&d.path().join("absent")).is_err());
        assert!(file_checksum(d.path()).is_err(), "a directory is no file");
    }

    #[test]
    fn advice_on_a_map_changes_none_of_its_bytes() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("cells");
        let words: Vec<u32> = (0..300_000u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        std::fs::write(&path, u32_bytes(&words)).unwrap();
        let map = map_ro(&path).unwrap().unwrap();
        for sparse in [true, false, true] {
            advise_reads(&map, sparse);
            assert_eq!(as_u32(&path, &map).unwrap(), &words[..]);
        }
        advise_reads(&[], true);
        let mut m = map_mut(&path).unwrap();
        advise_reads(&m, true);
        m[4] ^= 0xff;
        assert_eq!(m[4], u32_bytes(&words)[4] ^ 0xff);
    }
}
