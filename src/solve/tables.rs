//! Finished tiers, looked up by the successor pass of the tiers above them.

use crate::game::Tier;
pub use crate::store::table::TableData;
use crate::value::Entry;

/// Random access to the entries of finished tiers.
pub trait Lookup: Sync {
    /// The entry of position `index` in `tier`, or [`Entry::UNSOLVED`] when the tier is not
    /// finished (a game bug the successor pass reports).
    fn entry(&self, tier: Tier, index: u64) -> Entry;
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

    /// Drops every mapped table's pages from this process's memory.
    pub fn release(&self) {
        self.iter().for_each(TableData::release);
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
