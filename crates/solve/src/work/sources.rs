//! Predecessor sources as lists store them: a tier-wide index in four bytes (`u32`) or five
//! ([`U40`]), or a key that names the source together with its target
//! ([`bawo_games::game::kept::KeptHalf`]): a place in a list of moved halves in one byte
//! (`u8`) or two ([`U16`]), or a half's rank in three ([`U24`]) or four. Each is read straight
//! from a mapped file.

use std::path::Path;

use bawo_games::error::{Error, Result};
use bawo_store::bytes::{as_u32, u32_bytes};

/// A source as stored in predecessor lists: `u32` in narrow tiers, [`U40`] in wide ones.
pub trait Source: Copy + Default + Send + Sync + std::fmt::Debug + 'static {
    /// Truncates: callers pass values their tier's codec guarantees to fit.
    fn from_u64(v: u64) -> Self;
    /// The source as a number.
    fn get(self) -> u64;
    /// The sources as bytes, for writing.
    fn bytes(words: &[Self]) -> &[u8];
    /// Sources read back from `bytes` (of the file `path`, for errors).
    fn words<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a [Self]>;
}

impl Source for u32 {
    #[inline]
    fn from_u64(v: u64) -> Self {
        v as u32
    }
    #[inline]
    fn get(self) -> u64 {
        self as u64
    }
    fn bytes(words: &[Self]) -> &[u8] {
        u32_bytes(words)
    }
    fn words<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a [Self]> {
        as_u32(path, bytes)
    }
}

/// A wide tier's source: an index below [`crate::work::graph::WIDE_LIMIT`] in five little-endian bytes, with no
/// alignment, so that lists of them are read straight from a mapped file.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct U40([u8; 5]);

impl Source for U40 {
    #[inline]
    fn from_u64(v: u64) -> Self {
        let b = v.to_le_bytes();
        U40([b[0], b[1], b[2], b[3], b[4]])
    }
    #[inline]
    fn get(self) -> u64 {
        let [a, b, c, d, e] = self.0;
        u64::from_le_bytes([a, b, c, d, e, 0, 0, 0])
    }
    fn bytes(words: &[Self]) -> &[u8] {
        // SAFETY: `U40` is five bytes with alignment 1 and no padding.
        unsafe { std::slice::from_raw_parts(words.as_ptr() as *const u8, 5 * words.len()) }
    }
    fn words<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a [Self]> {
        if !bytes.len().is_multiple_of(5) {
            return Err(Error::corrupt(path, "sources not a multiple of 5 bytes"));
        }
        // SAFETY: as above; every byte pattern is a valid `U40`, and the length is whole.
        Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr() as *const U40, bytes.len() / 5) })
    }
}

/// A key of fewer than 2^24 values in three little-endian bytes, with no alignment.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct U24([u8; 3]);

impl Source for U24 {
    #[inline]
    fn from_u64(v: u64) -> Self {
        let b = v.to_le_bytes();
        U24([b[0], b[1], b[2]])
    }
    #[inline]
    fn get(self) -> u64 {
        let [a, b, c] = self.0;
        u32::from_le_bytes([a, b, c, 0]) as u64
    }
    fn bytes(words: &[Self]) -> &[u8] {
        // SAFETY: `U24` is three bytes with alignment 1 and no padding.
        unsafe { std::slice::from_raw_parts(words.as_ptr() as *const u8, 3 * words.len()) }
    }
    fn words<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a [Self]> {
        if !bytes.len().is_multiple_of(3) {
            return Err(Error::corrupt(path, "sources not a multiple of 3 bytes"));
        }
        // SAFETY: as above; every byte pattern is a valid `U24`, and the length is whole.
        Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr() as *const U24, bytes.len() / 3) })
    }
}

impl Source for u8 {
    #[inline]
    fn from_u64(v: u64) -> Self {
        v as u8
    }
    #[inline]
    fn get(self) -> u64 {
        self as u64
    }
    fn bytes(words: &[Self]) -> &[u8] {
        words
    }
    fn words<'a>(_path: &Path, bytes: &'a [u8]) -> Result<&'a [Self]> {
        Ok(bytes)
    }
}

/// A key below 2^16 in two little-endian bytes, with no alignment.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct U16([u8; 2]);

impl Source for U16 {
    #[inline]
    fn from_u64(v: u64) -> Self {
        U16((v as u16).to_le_bytes())
    }
    #[inline]
    fn get(self) -> u64 {
        u16::from_le_bytes(self.0) as u64
    }
    fn bytes(words: &[Self]) -> &[u8] {
        // SAFETY: `U16` is two bytes with alignment 1 and no padding.
        unsafe { std::slice::from_raw_parts(words.as_ptr() as *const u8, 2 * words.len()) }
    }
    fn words<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a [Self]> {
        if !bytes.len().is_multiple_of(2) {
            return Err(Error::corrupt(path, "sources not a multiple of 2 bytes"));
        }
        // SAFETY: as above; every byte pattern is a valid `U16`, and the length is whole.
        Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr() as *const U16, bytes.len() / 2) })
    }
}
