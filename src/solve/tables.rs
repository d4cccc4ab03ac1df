//! Finished tiers, looked up by the successor pass of the tiers above them.

use crate::game::Tier;
use crate::value::Entry;

/// Random access to the entries of finished tiers.
pub trait Lookup: Sync {
    /// The entry of position `index` in `tier`, or [`Entry::UNSOLVED`] when the tier is not
    /// finished (a game bug the successor pass reports).
    fn entry(&self, tier: Tier, index: u64) -> Entry;
}

/// Where a finished tier's entries live.
pub enum TableData {
    Owned(Vec<u16>),
    /// A mapped table file; `offset` is the byte offset of the first entry.
    Mapped {
        map: memmap2::Mmap,
        offset: usize,
    },
}

impl TableData {
    #[inline]
    pub fn entries(&self) -> &[u16] {
        match self {
            TableData::Owned(v) => v,
            TableData::Mapped { map, offset } => {
                let bytes = &map[*offset..];
                // SAFETY: u16 has no invalid bit patterns; the offset is 2-aligned within a
                // page-aligned map (checked by `align_to` leaving no prefix).
                let (pre, mid, _) = unsafe { bytes.align_to::<u16>() };
                assert!(pre.is_empty(), "table entries are not 2-byte aligned");
                mid
            }
        }
    }
}

/// The finished tiers of one solve, indexed by tier id.
#[derive(Default)]
pub struct Tables {
    tiers: Vec<Option<TableData>>,
}

impl Tables {
    pub fn insert(&mut self, tier: Tier, data: TableData) {
        let t = tier as usize;
        if self.tiers.len() <= t {
            self.tiers.resize_with(t + 1, || None);
        }
        self.tiers[t] = Some(data);
    }

    pub fn get(&self, tier: Tier) -> Option<&TableData> {
        self.tiers.get(tier as usize).and_then(Option::as_ref)
    }

    pub fn iter(&self) -> impl Iterator<Item = &TableData> {
        self.tiers.iter().flatten()
    }
}

impl Lookup for Tables {
    #[inline]
    fn entry(&self, tier: Tier, index: u64) -> Entry {
        match self.get(tier) {
            Some(t) => Entry(t.entries()[index as usize]),
            None => Entry::UNSOLVED,
        }
    }
}
