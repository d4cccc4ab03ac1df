//! The one comparison of the solver under test with a brute-force oracle: solve into a fresh
//! directory, then check every position's value and depth and the manifest's counts per tier
//! against the oracle's values. Each game's test supplies only how an oracle position (pit
//! counts, side index) becomes the engine's position.

use std::collections::HashMap;
use std::collections::{BTreeMap, BTreeSet};

use bawo_db::Database;
use bawo_db::{Entry, Value};
use bawo_games::game::{Game, Side};

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
    let mut cfg = bawo_solve::run::SolveConfig::new(seeds, dir.path());
    cfg.range_bits = range_bits;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| bawo_solve::solve(game, &cfg, &bawo_solve::tier::Silent))
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
/// (`position` turns an oracle position into the engine's), with either side to move: a
/// position with B to move is probed as itself, which the game locates at its mirror's entry,
/// so every B position is checked against the oracle's own value for it. Also that its
/// manifest lists exactly the tiers those positions fill, that the oracle covers each of them
/// whole, and that each tier's record counts its stored entries (the game's tier size, the
/// positions with A to move) with the oracle's numbers of wins, losses and draws among them,
/// while the counts shown to users ([`bawo_solve::Summary::from_stored`]) are the oracle's
/// for both sides.
#[track_caller]
pub fn assert_db_matches_oracle<G: Game>(
    game: &G,
    db: &Database,
    expected: &HashMap<OraclePos, OValue>,
    position: impl Fn(&[u32], Side) -> G::Position,
    what: &str,
) {
    assert!(!expected.is_empty(), "{what}: the oracle has no positions");
    // Per tier and side to move: wins, losses, draws.
    let mut per_tier: BTreeMap<u32, [[u64; 3]; 2]> = BTreeMap::new();
    for ((board, side), want) in expected {
        let side = if *side == 0 { Side::A } else { Side::B };
        let pos = position(board, side);
        assert_eq!(game.side_to_move(&pos), side, "{what}: the position's side");
        let e = db.probe_position(game, &pos).unwrap();
        assert_eq!(
            oracle_value(e),
            *want,
            "{what} board={board:?} side={}",
            side.index()
        );
        if side == Side::B {
            // Answered through the mirror: the entry of the mirror, with A to move.
            let m = game.mirror(&pos);
            assert_eq!(game.side_to_move(&m), Side::A, "{what}: mirror's side");
            assert_eq!(game.locate(&pos).unwrap(), game.locate(&m).unwrap());
        }
        let slot = match want {
            OValue::Win(_) => 0,
            OValue::Loss(_) => 1,
            OValue::Draw => 2,
        };
        per_tier.entry(board.iter().sum()).or_default()[side.index()][slot] += 1;
    }
    let tiers = &db.manifest().tiers;
    assert_eq!(
        tiers.iter().map(|r| r.tier).collect::<BTreeSet<_>>(),
        per_tier.keys().copied().collect::<BTreeSet<_>>(),
        "{what}: the manifest's tiers"
    );
    let mut both = [0u64; 3];
    for r in tiers {
        let [a, b] = per_tier[&r.tier];
        // The oracle, which knows nothing of mirrors, finds as many positions of each value
        // with B to move as with A to move.
        assert_eq!(a, b, "{what}: tier {} sides", r.tier);
        assert_eq!(
            [r.counts.win, r.counts.loss, r.counts.draw],
            a,
            "{what}: tier {}",
            r.tier
        );
        let size = game.tier_size(r.tier).unwrap();
        assert_eq!(r.counts.states, size, "{what}: tier {} size", r.tier);
        assert_eq!(
            a.iter().sum::<u64>(),
            size,
            "{what}: the oracle does not cover tier {}",
            r.tier
        );
        assert_eq!(game.tier_positions(r.tier).unwrap(), 2 * size);
        for k in 0..3 {
            both[k] += a[k] + b[k];
        }
    }
    let stored: Vec<_> = tiers.iter().map(|r| r.counts.clone()).collect();
    let shown = bawo_solve::Summary::from_stored(&stored);
    assert_eq!([shown.win, shown.loss, shown.draw], both, "{what}: summary");
    assert_eq!(
        shown.states,
        expected.len() as u64,
        "{what}: summary states"
    );
}
