//! Don't-care entries in the format (`.bdb` version 3): the solver's pass flags them, the
//! writer substitutes them, and every probe still answers the solved entry; a finished run
//! keeps no flags file; Bao's files store every entry as solved.

use crate::raw_support;

use bawo_db::dontcare::{is_dont_care, Scratch};
use bawo_db::Database;
use bawo_games::game::bao::{Bao, BaoRules};
use bawo_games::game::bawo::{Bawo, BawoRules};
use bawo_games::game::Game;
use bawo_games::Entry;
use bawo_solve::run::SolveConfig;
use bawo_solve::tier::Silent;
use bawo_solve::Manifest;
use raw_support::raw_entries;

/// Solves with the raw tables kept and checks every position of every tier: the probe gives
/// the solved entry, a stored entry that differs from it is at a don't-care position. Returns
/// how many stored entries differ from the solved ones.
fn check_every_position<G: Game>(game: &G, seeds: u32, range_bits: Option<u32>) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = SolveConfig::new(seeds, dir.path());
    cfg.keep_tables = true;
    cfg.range_bits = range_bits;
    bawo_solve::solve(game, &cfg, &Silent).unwrap();
    let leftover: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".flags"))
        .collect();
    assert!(leftover.is_empty(), "a finished run kept {leftover:?}");
    let m = Manifest::load(dir.path()).unwrap().unwrap();
    let db = Database::open(dir.path()).unwrap();
    let mut s = Scratch::default();
    let mut substituted = 0;
    for r in &m.tiers {
        let raw = raw_entries(dir.path(), &m, r.tier);
        assert_eq!(db.tier_entries(r.tier).unwrap(), raw, "tier {}", r.tier);
        for (i, &e) in raw.iter().enumerate() {
            let i = i as u64;
            assert_eq!(
                db.probe(r.tier, i).unwrap(),
                Entry(e),
                "tier {} index {i}",
                r.tier
            );
            if db.probe_stored(r.tier, i).unwrap() != Entry(e) {
                let pos = game.position(r.tier, i);
                assert!(
                    is_dont_care(game, r.tier, &pos, &mut s),
                    "tier {} index {i}",
                    r.tier
                );
                substituted += 1;
            }
        }
    }
    substituted
}

#[test]
fn bawo_substitutes_dont_care_entries_and_probes_recover_them() {
    let game = Bawo::new(2, 16, BawoRules::default()).unwrap();
    assert!(check_every_position(&game, 9, None) > 100);
    // Out of core: the flags travel with the cells of several ranges.
    assert!(check_every_position(&game, 9, Some(8)) > 100);
}

#[test]
fn bao_stores_every_entry_as_solved() {
    let game = Bao::new(BaoRules::default());
    assert_eq!(check_every_position(&game, 4, None), 0);
    let dir = tempfile::tempdir().unwrap();
    bawo_solve::solve(&game, &SolveConfig::new(4, dir.path()), &Silent).unwrap();
    let db = Database::open(dir.path()).unwrap();
    for r in &db.manifest().tiers {
        assert!(!db.source(r.tier).unwrap().header().dont_care);
    }
}
