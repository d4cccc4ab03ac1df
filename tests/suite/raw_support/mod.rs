//! The raw (`.tbl`) entries of a finished tier of a run solved with `keep_tables`: what the
//! solver computed, before the database format substitutes don't-care entries.

use std::path::Path;

use bawo_solve::Manifest;
use bawo_store::table;

/// Every entry of `tier`'s raw table in the run directory `dir`, checked against `m`.
pub fn raw_entries(dir: &Path, m: &Manifest, tier: u32) -> Vec<u16> {
    let r = m.record(tier).unwrap();
    let (_, data) = table::open_table(
        &dir.join(&r.file),
        tier,
        r.counts.states,
        m.fingerprint_value(),
        true,
    )
    .unwrap();
    data.entries().to_vec()
}
