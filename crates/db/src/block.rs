//! One decoded block of a `.bdb` file: packed codes and escaped entries, the unit the block
//! cache keeps and probes read.

use bawo_games::value::Entry;

/// A decoded block: its packed codes and escaped entries, ready for probes.
#[derive(Debug)]
pub struct Block {
    pub(super) width: u8,
    pub(super) positions: usize,
    pub(super) codes: Vec<u8>,
    /// Offsets (within the block) of escaped positions, ascending.
    pub(super) escape_at: Vec<u32>,
    pub(super) escaped: Vec<u16>,
}

impl Block {
    /// Bytes this block holds in memory (for the cache's budget).
    pub fn heap_bytes(&self) -> usize {
        self.codes.len() + 4 * self.escape_at.len() + 2 * self.escaped.len()
    }

    /// Positions in the block.
    pub fn len(&self) -> usize {
        self.positions
    }

    /// Whether the block holds no positions.
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
