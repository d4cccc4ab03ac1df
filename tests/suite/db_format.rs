//! The compressed tier files through the library: every tier of real solves round-trips
//! through the format (default and tiny blocks, nibble and byte codes), and `verify` finds a
//! deliberately altered entry.

use crate::raw_support;

use std::path::Path;

use bawo_db::format::{self, BdbFile, EncodeOptions};
use bawo_db::memory::{self, ReadBudget};
use bawo_db::verify::{verify, verify_within, VerifyOptions};
use bawo_db::Database;
use bawo_db::{Entry, Value};
use bawo_games::game::bawo::{Bawo, BawoRules};
use bawo_games::game::Game;
use bawo_solve::run::SolveConfig;
use bawo_solve::solve;
use bawo_solve::tier::Silent;
use bawo_solve::Manifest;
use raw_support::raw_entries;

fn solve_into(dir: &Path, n: u32, lap_cap: u64, rules: &str, seeds: u32) -> Bawo {
    let game = Bawo::new(n, lap_cap, BawoRules::parse(rules).unwrap()).unwrap();
    let mut cfg = SolveConfig::new(seeds, dir);
    // The raw tables are what these tests compare the database with.
    cfg.keep_tables = true;
    solve(&game, &cfg, &Silent).unwrap();
    game
}

/// Re-encodes `tier` of the database in `dir` from `entries` with `opts`, updating the
/// manifest, as a tool repacking a database would.
fn repack(dir: &Path, tier: u32, entries: &[u16], opts: &EncodeOptions) {
    let mut m = Manifest::load(dir).unwrap().unwrap();
    let rec = format::write_tier(dir, tier, m.fingerprint_value(), entries, opts).unwrap();
    m.tiers.iter_mut().find(|r| r.tier == tier).unwrap().bdb = Some(rec);
    m.save(dir).unwrap();
}

#[test]
fn every_tier_round_trips_through_the_format() {
    // Draws appear with the kichwa relay; plain rules have none at this size.
    for rules in ["", "kichwa=relay,capture=occupied"] {
        let dir = tempfile::tempdir().unwrap();
        let game = solve_into(dir.path(), 2, 16, rules, 9);
        let m = Manifest::load(dir.path()).unwrap().unwrap();
        let db = Database::open(dir.path()).unwrap();
        for r in &m.tiers {
            let raw = raw_entries(dir.path(), &m, r.tier);
            let bdb = r.bdb.as_ref().expect("solve writes .bdb files");
            assert_eq!(db.tier_entries(r.tier).unwrap(), raw, "tier {}", r.tier);
            for (i, &e) in raw.iter().enumerate().step_by(7) {
                assert_eq!(db.probe(r.tier, i as u64).unwrap(), Entry(e));
            }
            // Tiny blocks: many blocks per tier, every one decoded on its own.
            for block in [1, 3, 64] {
                let opts = EncodeOptions {
                    block_positions: block,
                    level: 1,
                };
                let bytes = format::encode(r.tier, m.fingerprint_value(), &raw, &opts).unwrap();
                let f = BdbFile::from_vec(
                    Path::new(&bdb.file),
                    bytes,
                    r.tier,
                    r.counts.states,
                    m.fingerprint_value(),
                )
                .unwrap();
                assert_eq!(f.decode_all().unwrap(), raw);
                f.check_file().unwrap();
            }
        }
        // Probes through the game agree with the raw tables for every position of a tier.
        let t = m.tiers.last().unwrap();
        let raw = raw_entries(dir.path(), &m, t.tier);
        for i in 0..t.counts.states {
            let pos = game.position(t.tier, i);
            assert_eq!(
                db.probe_position(&game, &pos).unwrap(),
                Entry(raw[i as usize])
            );
        }
    }
}

#[test]
fn database_works_without_raw_tables() {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 2, 16, "", 8);
    let m = Manifest::load(dir.path()).unwrap().unwrap();
    let expected: Vec<Vec<u16>> = m
        .tiers
        .iter()
        .map(|r| raw_entries(dir.path(), &m, r.tier))
        .collect();
    for r in &m.tiers {
        std::fs::remove_file(dir.path().join(&r.file)).unwrap();
    }
    let db = Database::open(dir.path()).unwrap();
    for (r, want) in m.tiers.iter().zip(&expected) {
        assert_eq!(&db.tier_entries(r.tier).unwrap(), want);
    }
    assert!(verify(&db, &VerifyOptions::default()).unwrap().ok());
}

#[test]
fn a_sample_larger_than_the_database_checks_every_position_once() {
    // Regression: `verify --sample 99999999999` allocated a list of that many picks (1.6 TB)
    // and aborted.
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 2, 16, "", 8);
    let db = Database::open(dir.path()).unwrap();
    let total: u64 = db.manifest().tiers.iter().map(|r| r.counts.states).sum();
    let report = verify(
        &db,
        &VerifyOptions {
            sample: Some(99_999_999_999),
            seed: 1,
        },
    )
    .unwrap();
    assert!(report.ok(), "{report:?}");
    assert_eq!(report.checked, total);
}

#[test]
fn verify_names_an_altered_position() {
    let dir = tempfile::tempdir().unwrap();
    let game = solve_into(dir.path(), 2, 16, "", 9);
    let db = Database::open(dir.path()).unwrap();
    let report = verify(&db, &VerifyOptions::default()).unwrap();
    assert!(report.ok(), "{report:?}");
    assert_eq!(
        report.checked,
        db.manifest()
            .tiers
            .iter()
            .map(|r| r.counts.states)
            .sum::<u64>()
    );
    drop(db);

    // The first position of the top tier that has a move: no position before it in the tier
    // can have it as a successor, so it is the first bad position reported.
    let m = Manifest::load(dir.path()).unwrap().unwrap();
    let top = m.tiers.last().unwrap().tier;
    let mut entries = raw_entries(dir.path(), &m, top);
    let index = (0..entries.len() as u64)
        .find(|&i| !game.moves(&game.position(top, i)).is_empty())
        .unwrap();
    let old = Entry(entries[index as usize]);
    let altered = match old.value().unwrap() {
        Value::Win => Entry::decided(Value::Loss, old.depth().unwrap() + 1),
        _ => Entry::decided(Value::Win, 1),
    };
    entries[index as usize] = altered.0;
    repack(dir.path(), top, &entries, &EncodeOptions::default());

    let db = Database::open(dir.path()).unwrap();
    let report = verify(&db, &VerifyOptions::default()).unwrap();
    assert!(!report.ok());
    assert!(
        report.bad_blocks.is_empty(),
        "checksums of a re-encoded tier are fine"
    );
    let first = &report.bad_positions[0];
    assert_eq!((first.tier, first.index), (top, index));
    let pos = game.position(top, index);
    assert_eq!(first.board, game.board_counts(&pos));
    assert_eq!(first.stored, format!("{altered:?}"));
    assert_eq!(first.expected, format!("{old:?}"));

    // A sample as large as the database (or larger) checks every position, so it finds it too.
    let sampled = verify(
        &db,
        &VerifyOptions {
            sample: Some(3 * m.tiers.iter().map(|r| r.counts.states).sum::<u64>()),
            seed: 7,
        },
    )
    .unwrap();
    assert!(sampled
        .bad_positions
        .iter()
        .any(|b| (b.tier, b.index) == (top, index)));
}

#[test]
fn a_sample_names_only_positions_that_disagree_and_counts_every_pick() {
    // `verify --sample` gathers its lookups (each block they touch decoded once); what it
    // reports is checked here against probes through the block cache, one position at a time.
    let dir = tempfile::tempdir().unwrap();
    let game = solve_into(dir.path(), 2, 16, "", 9);
    let m = Manifest::load(dir.path()).unwrap().unwrap();
    let total: u64 = m.tiers.iter().map(|r| r.counts.states).sum();
    // Every 5th position with a move in tiers 7 and 9 gets the other value.
    for t in [7, 9] {
        let mut entries = raw_entries(dir.path(), &m, t);
        for i in (0..entries.len() as u64).step_by(5) {
            if game.moves(&game.position(t, i)).is_empty() {
                continue;
            }
            let old = Entry(entries[i as usize]);
            entries[i as usize] = match old.value().unwrap() {
                Value::Win => Entry::decided(Value::Loss, old.depth().unwrap() + 1).0,
                _ => Entry::decided(Value::Win, 1).0,
            };
        }
        repack(dir.path(), t, &entries, &EncodeOptions::default());
    }
    let db = Database::open(dir.path()).unwrap();
    let k = total / 2;
    for (threads, budget) in [(1, None), (2, Some(96u64 << 20))] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let opts = VerifyOptions {
            sample: Some(k),
            seed: 11,
        };
        let report = pool.install(|| match budget {
            None => verify(&db, &opts).unwrap(),
            Some(b) => verify_within(&db, &opts, &ReadBudget::new(b, threads).unwrap()).unwrap(),
        });
        assert_eq!(report.checked, k);
        assert!(report.bad_blocks.is_empty(), "{report:?}");
        assert!(report.mismatches > 0 && !report.bad_positions.is_empty());
        for b in &report.bad_positions {
            let pos = game.position(b.tier, b.index);
            let mut succ = Vec::new();
            game.successors(&pos, &mut succ);
            let want = bawo_db::verify::expected_entry(&succ, |t, i| db.probe(t, i)).unwrap();
            let have = db.probe(b.tier, b.index).unwrap();
            assert_ne!(
                have, want,
                "tier {} index {} named but agrees",
                b.tier, b.index
            );
            assert_eq!(b.stored, format!("{have:?}"));
            assert_eq!(b.expected, format!("{want:?}"));
        }
        // The same seed draws the same picks: the same report.
        let again = pool.install(|| verify(&db, &opts).unwrap());
        assert_eq!(again.mismatches, report.mismatches);
    }
}

/// A budget for `verify_within` that leaves `spare` bytes for the tiers it keeps packed.
fn budget_with_spare(spare: u64) -> ReadBudget {
    let cache = 8 << 20;
    ReadBudget {
        budget: memory::READ_OVERHEAD + cache + memory::PER_WORKER + spare,
        workers: 1,
        cache,
    }
}

#[test]
fn verify_reports_the_same_under_every_budget() {
    // An entry of a middle tier altered: the position itself and the positions of the tiers
    // above whose moves reach it disagree. Whether the tiers are kept packed for lookups
    // (no budget), only the small ones are (a few KiB), or none is (every lookup a probe and
    // every tier checked a block at a time), the report must be the same.
    let dir = tempfile::tempdir().unwrap();
    let game = solve_into(dir.path(), 2, 16, "", 9);
    let m = Manifest::load(dir.path()).unwrap().unwrap();
    let tier = m.tiers[m.tiers.len() / 2 + 1].tier;
    let mut entries = raw_entries(dir.path(), &m, tier);
    let index = (0..entries.len() as u64)
        .rev()
        .find(|&i| !game.moves(&game.position(tier, i)).is_empty())
        .unwrap();
    let old = Entry(entries[index as usize]);
    let altered = match old.value().unwrap() {
        Value::Loss => Entry::decided(Value::Win, 1),
        _ => Entry::decided(Value::Loss, 0),
    };
    entries[index as usize] = altered.0;
    let opts = EncodeOptions {
        block_positions: 500,
        level: 1,
    };
    repack(dir.path(), tier, &entries, &opts);

    let db = Database::open(dir.path()).unwrap();
    let reports: Vec<_> = [None, Some(4 << 10), Some(0)]
        .into_iter()
        .map(|spare| {
            let mem = spare.map_or(ReadBudget::unbounded(2), budget_with_spare);
            verify_within(&db, &VerifyOptions::default(), &mem).unwrap()
        })
        .collect();
    let first = &reports[0];
    assert!(first.bad_blocks.is_empty(), "{first:?}");
    assert!(first
        .bad_positions
        .iter()
        .any(|b| (b.tier, b.index) == (tier, index)));
    for r in &reports[1..] {
        assert_eq!(
            (r.checked, r.mismatches, &r.bad_positions),
            (first.checked, first.mismatches, &first.bad_positions)
        );
    }
}

#[test]
fn cache_keeps_blocks_within_budget() {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 2, 16, "", 9);
    let m = Manifest::load(dir.path()).unwrap().unwrap();
    let top = m.tiers.last().unwrap();
    let entries = raw_entries(dir.path(), &m, top.tier);
    repack(
        dir.path(),
        top.tier,
        &entries,
        &EncodeOptions {
            block_positions: 512,
            level: 3,
        },
    );
    // Every block but the tier's last holds 512 positions in at least 256 bytes of codes, so
    // under a budget of 511 bytes no three blocks (two of them full) fit together.
    let db = Database::open_with_cache(dir.path(), 511).unwrap();
    for i in (0..top.counts.states).step_by(97) {
        assert_eq!(db.probe(top.tier, i).unwrap(), Entry(entries[i as usize]));
        assert!(db.cache().len() <= 2);
    }
    db.cache().clear();
    assert!(db.cache().is_empty());
}
