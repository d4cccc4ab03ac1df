//! Where a tier's passed blocks go: each block's working cells appended to its range's cell
//! log, and its due positions (coded by the pass's workers as [`crate::work::duelog`] pieces, per
//! attractor level) appended to the due logs of their level. The successor pass of
//! [`crate::tier`] hands blocks here, one behind the pass of the next.

use std::collections::BTreeMap;
use std::path::Path;

use crate::work::duelog::{level_pieces, push_at_level};
use crate::work::{LogName, WorkFile};
use bawo_games::error::Result;
use bawo_store::append::AppendLog;
use bawo_store::bytes::u32_bytes;

/// `(level, offset)` pairs bucketed by level, in the order given, each offset masked to a
/// range of `2^range_bits` positions.
pub fn by_level(items: &[(u32, u32)], range_bits: u32) -> Vec<Vec<u32>> {
    let mask = 1u32.checked_shl(range_bits).map_or(u32::MAX, |v| v - 1);
    let mut by_level: Vec<Vec<u32>> = Vec::new();
    for &(level, idx) in items {
        push_at_level(&mut by_level, level, idx & mask);
    }
    by_level
}

/// `(level, offset)` pairs bucketed by level as [`by_level`] does, each level's offsets
/// coded as one due-log piece ([`level_pieces`]); a level with none is empty.
pub fn due_pieces(items: &[(u32, u32)], range_bits: u32) -> Vec<Vec<u8>> {
    level_pieces(&mut by_level(items, range_bits))
}

/// The log of range `r`'s cells from the successor pass: plain in a tier of one range (its
/// cells are then changed in place, mapped), else packed, a zstd frame per block
/// ([`crate::tier::packed`]).
pub fn cell_log(resident: bool, r: usize) -> LogName {
    if resident {
        LogName::Cells(r)
    } else {
        LogName::Packed(r)
    }
}

/// A block whose successors were passed, its cells and due positions not yet logged.
pub struct Logged {
    pub start: u64,
    pub cells: Vec<u32>,
    /// Due-log pieces per level ([`crate::tier::pass::BlockOutput::due`]).
    pub due: Vec<Vec<u8>>,
}

/// The logs a block's cells and due positions go to ([`crate::tier`]'s `Job::block_sink`).
pub struct BlockSink<'a> {
    pub work: &'a Path,
    pub range_bits: u32,
    pub resident: bool,
    pub cell_logs: &'a mut [Option<AppendLog>],
    pub due: &'a mut BTreeMap<(u32, usize), AppendLog>,
}

impl BlockSink<'_> {
    /// Appends a passed block's cells to its range's cell log and queues its due positions;
    /// gives back the cells' buffer for the next block.
    pub fn log(&mut self, block: Logged) -> Result<Vec<u32>> {
        let r = (block.start >> self.range_bits) as usize;
        if self.cell_logs[r].is_none() {
            let name = cell_log(self.resident, r);
            let log = AppendLog::create(&self.work.join(name.file().name()))?;
            self.cell_logs[r] = Some(log);
        }
        let log = self.cell_logs[r].as_ref().expect("created above");
        if self.resident {
            log.append(u32_bytes(&block.cells))?;
        } else {
            log.append(&crate::tier::packed::frame(&block.cells)?)?;
        }
        for (level, pieces) in block.due.iter().enumerate() {
            if !pieces.is_empty() {
                self.due_log(level as u32, r)?.append(pieces)?;
            }
        }
        Ok(block.cells)
    }

    pub fn due_log(&mut self, level: u32, r: usize) -> Result<&AppendLog> {
        if !self.due.contains_key(&(level, r)) {
            let path = self.work.join(WorkFile::Due { level, range: r }.name());
            let log = AppendLog::create(&path)?;
            let log = if self.resident { log.hold() } else { log };
            self.due.insert((level, r), log);
        }
        Ok(&self.due[&(level, r)])
    }

    /// Appends the `(level, offset in range r)` pairs of `batches`, taken in order, to the
    /// due logs of their level: each batch is bucketed by level and coded as one due-log
    /// piece per level by a worker, then the pieces are appended level by level in batch
    /// order.
    pub fn queue_batches(&mut self, r: usize, batches: &[Vec<(u32, u32)>]) -> Result<()> {
        use rayon::prelude::*;
        let range_bits = self.range_bits;
        let pieces: Vec<Vec<Vec<u8>>> = batches
            .par_iter()
            .map(|b| due_pieces(b, range_bits))
            .collect();
        let levels = pieces.iter().map(Vec::len).max().unwrap_or(0);
        for level in 0..levels {
            for piece in pieces.iter().filter_map(|b| b.get(level)) {
                if !piece.is_empty() {
                    self.due_log(level as u32, r)?.append(piece)?;
                }
            }
        }
        Ok(())
    }
}
