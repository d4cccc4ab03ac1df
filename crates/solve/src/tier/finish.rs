//! A solved tier's finish: its cells become the raw table, its don't-care flags the file
//! beside it, and its counts are taken on the way.

use std::path::Path;

use rayon::prelude::*;

use crate::cell;
use crate::counts::TierCounts;
use crate::flags::{flags_path_beside, FlagWriter};
use crate::tier::{Job, TierProgress};
use bawo_games::error::{Error, Result};
use bawo_games::game::Game;
use bawo_store::bytes::{as_u32, map_ro};
use bawo_store::table;

impl<G: Game> Job<'_, G> {
    /// Writes the table and the flags, range by range, and counts the tier.
    pub(super) fn finish(
        &mut self,
        table_path: &Path,
        fingerprint: u64,
        progress: &dyn TierProgress,
    ) -> Result<(TierCounts, table::TableHeader, u64)> {
        let mut counts = TierCounts {
            seeds: self.game.tier_seeds(self.tier),
            ..Default::default()
        };
        // The pass's don't-care flags go beside the table (`crate::flags`).
        let mut flags = FlagWriter::create(&flags_path_beside(table_path))?;
        let (header, bytes) = table::write_table_streaming(
            table_path,
            self.tier,
            self.st.states,
            fingerprint,
            |put| {
                for r in 0..self.ranges {
                    let path = self.cells_path(r);
                    let map;
                    let cells = match self.held.words(r) {
                        Some(c) => c,
                        None => {
                            map = map_ro(&path)?
                                .ok_or_else(|| Error::corrupt(&path, "empty cell file"))?;
                            as_u32(&path, &map)?
                        }
                    };
                    let entries: Vec<u16> =
                        cells.par_iter().map(|&c| cell::final_entry(c).0).collect();
                    counts.add(&entries);
                    put(&entries)?;
                    flags.push(cells)?;
                    progress.advance(1);
                }
                Ok(())
            },
        )?;
        flags.finish()?;
        let table = std::fs::metadata(table_path).map_or(0, |m| m.len());
        self.note_disk(table);
        Ok((counts, header, bytes))
    }
}
