//! The one comparison of the solver under test with a brute-force oracle: solve into a fresh
//! directory, then check every position's value and depth and the manifest's counts per tier
//! against the oracle's values. Each game's test supplies only how an oracle position (pit
//! counts, side index) becomes the engine's position.

use std::collections::HashMap;
use std::collections::{BTreeMap, BTreeSet};

use bawo::db::Database;
use bawo::game::{Game, Side};
use bawo::{Entry, Value};

use super::OValue;

/// A position as every oracle writes it: pit counts in the game's documented order, and the
/// side to move (0 for A, 1 for B). Its seed total is its tier.
pub type OraclePos = (Vec<u32>, u8);

/// Solves `game` up to `seeds` into a fresh directory with `threads` workers and ranges of
/// `2^range_bits` positions (`None`: the memory budget's plan, one range for these sizes), and
/// opens the database. This is the solver under test, not part of the oracle.
pub fn solve_into_tempdir<G: Game>(
    game: &G,
    seeds: u32,
    threads: usize,
    range_bits: Option<u32>,
) -> (tempfile::TempDir, Database) {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = bawo::solve::run::SolveConfig::new(seeds, dir.path());
    cfg.range_bits = range_bits;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| bawo::db::solve(game, &cfg, &bawo::solve::tier::Silent))
        .unwrap();
    let db = Database::open(dir.path()).unwrap();
    (dir, db)
}

/// A stored entry as an oracle value; panics on an entry no finished table may hold.
pub fn oracle_value(e: Entry) -> OValue {
    match (e.value(), e.depth()) {
        (Some(Value::Win), Some(d)) => OValue::Win(d),
        (Some(Value::Loss), Some(d)) => OValue::Loss(d),
        (Some(Value::Draw), None) => OValue::Draw,
        _ => panic!("malformed entry {:#06x}", e.0),
    }
}

/// Solves `game` up to `seeds` (see [`solve_into_tempdir`]) and asserts that the database
/// agrees with the oracle's `expected` values, as [`assert_db_matches_oracle`] says. `what`
/// names the instance in failure messages.
#[track_caller]
pub fn assert_solver_matches_oracle<G: Game>(
    game: &G,
    seeds: u32,
    threads: usize,
    range_bits: Option<u32>,
    expected: &HashMap<OraclePos, OValue>,
    position: impl Fn(&[u32], Side) -> G::Position,
    what: &str,
) {
    let (_dir, db) = solve_into_tempdir(game, seeds, threads, range_bits);
    assert_db_matches_oracle(game, &db, expected, position, what);
}

/// Asserts that `db` holds the oracle's value and depth for every position of `expected`
/// (`position` turns an oracle position into the engine's), that its manifest lists exactly
/// the tiers those positions fill, that the oracle covers each of them whole, and that each
/// tier's record counts every position of the tier (the game's tier size) with the oracle's
/// numbers of wins, losses and draws.
#[track_caller]
pub fn assert_db_matches_oracle<G: Game>(
    game: &G,
    db: &Database,
    expected: &HashMap<OraclePos, OValue>,
    position: impl Fn(&[u32], Side) -> G::Position,
    what: &str,
) {
    assert!(!expected.is_empty(), "{what}: the oracle has no positions");
    let mut per_tier: BTreeMap<u32, [u64; 3]> = BTreeMap::new();
    for ((board, side), want) in expected {
        let side = if *side == 0 { Side::A } else { Side::B };
        let e = db.probe_position(game, &position(board, side)).unwrap();
        assert_eq!(
            oracle_value(e),
            *want,
            "{what} board={board:?} side={}",
            side.index()
        );
        let slot = match want {
            OValue::Win(_) => 0,
            OValue::Loss(_) => 1,
            OValue::Draw => 2,
        };
        per_tier.entry(board.iter().sum()).or_default()[slot] += 1;
    }
    let tiers = &db.manifest().tiers;
    assert_eq!(
        tiers.iter().map(|r| r.tier).collect::<BTreeSet<_>>(),
        per_tier.keys().copied().collect::<BTreeSet<_>>(),
        "{what}: the manifest's tiers"
    );
    for r in tiers {
        assert_eq!(
            [r.counts.win, r.counts.loss, r.counts.draw],
            per_tier[&r.tier],
            "{what}: tier {}",
            r.tier
        );
        let size = game.tier_size(r.tier).unwrap();
        assert_eq!(r.counts.states, size, "{what}: tier {} size", r.tier);
        assert_eq!(
            per_tier[&r.tier].iter().sum::<u64>(),
            size,
            "{what}: the oracle does not cover tier {}",
            r.tier
        );
    }
}
