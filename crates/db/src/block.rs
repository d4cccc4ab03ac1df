//! One decoded block of a `.bdb` file: packed codes and escaped entries, the unit the block
//! cache keeps and probes read.

use bawo_games::value::Entry;

/// The high bit of each nibble of `x` that is at least `n` (1..=15), zero elsewhere: each
/// nibble plus `16 - n` carries out of the nibble exactly then. The low three bits of each
/// nibble are added first (at most 14, so no carry crosses nibbles), then the carry out of
/// bit 3 is the majority of the two top bits and the carry into it.
#[inline]
pub(crate) fn nibbles_at_least(x: u64, n: u8) -> u64 {
    const LOW: u64 = 0x7777_7777_7777_7777;
    const HIGH: u64 = 0x8888_8888_8888_8888;
    if n == 0 {
        return HIGH;
    }
    let c = ((16 - n as u64) & 15) * 0x1111_1111_1111_1111;
    let low = (x & LOW) + (c & LOW);
    ((x & c) | ((x | c) & low)) & HIGH
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nibble_test_agrees_with_one_at_a_time() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for n in 0..=16u8 {
            for _ in 0..2000 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let want = (0..16).fold(0u64, |m, i| {
                    let nib = (rng >> (4 * i)) & 15;
                    m | (u64::from(nib >= n as u64) << (4 * i + 3))
                });
                let got = if n == 16 { 0 } else { nibbles_at_least(rng, n) };
                assert_eq!(got, if n == 16 { 0 } else { want }, "n {n} x {rng:#x}");
            }
        }
    }
}
