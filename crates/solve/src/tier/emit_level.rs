//! Step 1 of an attractor level for [`crate::tier`]: the messages of every range's positions
//! due at the level ([`crate::tier::attractor::emit_batches`]), range by range.
//!
//! Out of core a range's due positions are decoded from their log ([`crate::work::duelog`]) on a
//! thread of their own while the range before emits its messages: decoding took a fifth of
//! an out-of-core level with the workers idle (n = 4, 14 seeds, `--mem 256M`). The decoder
//! hands each range over and waits for it to be taken before decoding the next, so beside the
//! range being worked on (which the memory plan counts) it holds one more. It decodes ahead
//! only where that range's positions, at 4 bytes each and at most one per byte of its log,
//! fit what the held cells left of their share ([`HeldCells::spare`]); otherwise the range is
//! decoded when its turn comes. (Counting the prefetch in the plan instead cost Kigogo's
//! 8-seed tier one held range of 146, whose cells the kernel wrote back at most levels:
//! 7.4 GB.)

use std::collections::BTreeMap;
use std::path::PathBuf;

use memmap2::MmapMut;

use crate::tier::attractor::{emit_batches, EmitAt};
use crate::tier::cells::with_slots;
use crate::tier::held::{advise, cells_view, HeldCells};
use crate::tier::messages::Messages;
use crate::tier::Job;
use crate::work::graph::{view_preds_file, PredsView};
use crate::work::WorkFile;
use bawo_games::error::{Error, Result};
use bawo_games::game::Game;
use bawo_store::append::AppendLog;
use bawo_store::bytes::map_ro;

/// A level's messages: held or spilled per target range, or (a tier of one range whose
/// messages fit the budget) the workers' batches to apply as they are; and the positions
/// whose level it was.
pub(super) struct Emitted {
    pub msgs: Messages,
    pub direct: Vec<Vec<u32>>,
    pub decided: u64,
}

/// The positions of range `r` due at `level` (offsets in the range), decoded whole: 4 bytes a
/// position, as the memory plan counts them.
fn decode_due(logs: &BTreeMap<(u32, usize), AppendLog>, level: u32, r: usize) -> Result<Vec<u32>> {
    let Some(log) = logs.get(&(level, r)) else {
        return Ok(Vec::new());
    };
    log.with_bytes(|bytes| crate::work::duelog::decode(bytes, log.path()))?
}

impl<G: Game> Job<'_, G> {
    /// The ranges with positions due at `level`, in order.
    fn due_ranges(&self, level: u32) -> Vec<usize> {
        self.due
            .range((level, 0)..=(level, usize::MAX))
            .filter(|(_, log)| !log.is_empty())
            .map(|(&(_, r), _)| r)
            .collect()
    }

    /// Emits the messages of every position due at `level`; cells are read from `held` or
    /// mapped into `kept`.
    pub(super) fn emit_level(
        &self,
        level: u32,
        held: &mut HeldCells,
        kept: &mut Option<(PathBuf, MmapMut)>,
    ) -> Result<Emitted> {
        let bits = self.st.range_bits;
        let mut out = Emitted {
            msgs: Messages::new(self.ranges, self.message_budget, &self.st.work),
            direct: Vec::new(),
            decided: 0,
        };
        let due_ranges = self.due_ranges(level);
        let spare = held.spare();
        std::thread::scope(|scope| -> Result<()> {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Option<Result<Vec<u32>>>>(0);
            let prefetch = due_ranges.len() > 1 && spare > 0;
            if prefetch {
                let (logs, order) = (&self.due, &due_ranges);
                scope.spawn(move || {
                    for &r in order {
                        let bound = 4 * logs.get(&(level, r)).map_or(0, AppendLog::len);
                        let ahead = (bound <= spare).then(|| decode_due(logs, level, r));
                        if tx.send(ahead).is_err() {
                            break; // the level stopped on an error
                        }
                    }
                });
            }
            for &r in &due_ranges {
                let ahead = if prefetch {
                    rx.recv().map_err(|_| {
                        Error::Internal("the due-position decoder stopped".to_string())
                    })?
                } else {
                    None
                };
                let due = match ahead {
                    Some(due) => due?,
                    None => decode_due(&self.due, level, r)?,
                };
                let len = self.range_len(r);
                let path = self.cells_path(r);
                let cells = cells_view(held, kept, r, &path, self.width, due.len())?;
                let preds_path = self.path(WorkFile::Preds(r));
                let preds_map;
                let preds = match &self.preds_mem[r] {
                    Some((p, _)) => p.view(),
                    None => {
                        preds_map = map_ro(&preds_path)?
                            .ok_or_else(|| Error::corrupt(&preds_path, "empty predecessor file"))?;
                        advise(&preds_map, due.len(), len);
                        view_preds_file(&preds_path, &preds_map, len, self.codec())?
                    }
                };
                let at = EmitAt {
                    level,
                    range_bits: bits,
                    range: r,
                    ranges: self.ranges,
                };
                let keys = self.keys.as_ref();
                let emitted = with_slots!(cells, c => match &preds {
                    PredsView::Byte(p) => emit_batches(c, &due, p, at, keys),
                    PredsView::Pair(p) => emit_batches(c, &due, p, at, keys),
                    PredsView::Short(p) => emit_batches(c, &due, p, at, keys),
                    PredsView::Narrow(p) => emit_batches(c, &due, p, at, keys),
                    PredsView::Wide(p) => emit_batches(c, &due, p, at, keys),
                });
                drop(due);
                out.decided += emitted.decided;
                for (t, batches) in emitted.batches.into_iter().enumerate() {
                    // A tier of one range applies its messages as emitted, in the workers'
                    // batches, where they fit the budget they would have been held under.
                    let bytes: usize = batches.iter().map(|b| 4 * b.len()).sum();
                    if self.ranges == 1 && bytes as u64 <= self.message_budget {
                        out.direct = batches;
                    } else {
                        out.msgs.add(t, batches)?;
                    }
                }
            }
            Ok(())
        })?;
        Ok(out)
    }
}
