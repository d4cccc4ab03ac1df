//! The byte layout of a `.bdb` file shared by its writer ([`super::encode`]) and its reader
//! ([`super::format`]): constants, the header, the index entries, the metadata checksum. The
//! layout is described in `docs/format.md`; everything is little-endian.

/// The first bytes of a compressed tier file.
pub const MAGIC: &[u8; 8] = b"BAWO-BDB";
/// Format version of `.bdb` files (2: a tier's entries are its positions with A to move; a
/// position with B to move is answered by its mirror; 3: a file may store don't-care entries,
/// [`FLAG_DONT_CARE`]; 4: the entries in the tier order of run-directory format 5, by the
/// halves of the board).
pub const VERSION: u32 = 4;
/// Header flag (byte 44): the entries of don't-care positions (`super::dontcare`) are
/// replaced by whatever compresses best, so a reader recovers them through their moves.
pub const FLAG_DONT_CARE: u8 = 1;
/// Bytes of the header.
pub const HEADER: usize = 64;
/// Bytes per block in the index.
pub const INDEX_ENTRY: usize = 24;
/// Bytes of the trailer (whole-file checksum).
pub const TRAILER: usize = 8;
/// The most positions a block holds. A probe decompresses a block into one buffer (up to three
/// bytes a position with its escapes), so a reader refuses a header that claims larger blocks
/// instead of allocating what a forged header asks, and the writer never writes them (the
/// solver writes blocks of 2^21 positions, `bawo compact` at most this many).
pub const MAX_BLOCK_POSITIONS: u32 = 1 << 26;

/// File name of a tier's compressed file.
pub fn file_name(tier: u32) -> String {
    bawo_store::manifest::bdb_file(tier)
}

/// One block's place in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRef {
    /// Byte offset of the block in the file.
    pub offset: u64,
    /// Bytes of the block.
    pub len: u32,
    /// Escaped positions in the block.
    pub escapes: u32,
    /// xxh3-64 of the compressed frame.
    pub checksum: u64,
}

/// The fixed header fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The tier (its seeds).
    pub tier: u32,
    /// Positions in the tier.
    pub states: u64,
    /// Fingerprint of the game and ranking.
    pub fingerprint: u64,
    /// Positions per block.
    pub block_positions: u32,
    /// Bits per code: 4 or 8.
    pub width: u8,
    /// Compression level the blocks were written with.
    pub level: i8,
    /// Entry of each direct code.
    pub symbols: Vec<u16>,
    /// Blocks in the file.
    pub blocks: u32,
    /// Byte offset of the block index.
    pub index_offset: u64,
    /// Whether don't-care entries are substituted ([`FLAG_DONT_CARE`]).
    pub dont_care: bool,
}

impl Header {
    pub(super) fn escape(&self) -> u8 {
        ((1u16 << self.width) - 1) as u8
    }

    pub(super) fn packed_len(&self, positions: usize) -> usize {
        (positions * self.width as usize).div_ceil(8)
    }

    /// Positions in block `b`.
    pub fn block_len(&self, b: u32) -> usize {
        let start = b as u64 * self.block_positions as u64;
        (self.states - start).min(self.block_positions as u64) as usize
    }

    pub(super) fn encode(&self) -> Vec<u8> {
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
        h[44] = if self.dont_care { FLAG_DONT_CARE } else { 0 };
        h[48..56].copy_from_slice(&self.index_offset.to_le_bytes());
        for s in &self.symbols {
            h.extend_from_slice(&s.to_le_bytes());
        }
        h
    }
}

/// Checksum of the header (its checksum field zeroed), symbol table and index: checked on
/// every open, so a damaged header or index is refused before any probe.
pub(super) fn meta_checksum(head: &[u8], index: &[u8]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&head[..56]);
    h.update(&[0u8; 8]);
    h.update(&head[HEADER..]);
    h.update(index);
    h.digest()
}
