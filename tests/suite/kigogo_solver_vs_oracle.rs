//! Every Bao Kigogo position's value and depth from the solver equals the brute-force oracle's,
//! for every tier up to a few seeds, under both `never-ending` options and several thread
//! counts.
//!
//! No never-ending move exists with at most 6 seeds (a unit test in `src/game/kigogo.rs`
//! checks every start), so here the two options must give the same tables; the
//! options are told apart move by move in `kigogo_moves_vs_oracle.rs` and by hand in
//! `kigogo_rules.rs`.

use crate::common;

use std::collections::HashMap;

use bawo_games::game::kigogo::{Kigogo, KigogoRules};
use common::compare::assert_solver_matches_oracle;
use common::kigogo_oracle::{KOracle, KPos};
use common::{solve_by_rounds, OValue};

fn oracle_values(o: &KOracle, seeds: u32) -> HashMap<KPos, OValue> {
    let positions = o.positions(seeds);
    solve_by_rounds(&positions, |p| o.successors(p))
}

/// Compares every position up to `seeds` with the oracle, once per thread count. On odd
/// thread counts, ranges of 2^17 positions: the largest tiers are solved out of core in
/// several ranges, the smaller ones in one.
fn check(seeds: u32, rules: &str, threads: &[usize]) -> HashMap<KPos, OValue> {
    let o = KOracle::new(rules.contains("never-ending=loss"));
    let expected = oracle_values(&o, seeds);
    let game = Kigogo::new(KigogoRules::parse(rules).unwrap());
    for &t in threads {
        assert_solver_matches_oracle(
            &game,
            seeds,
            t,
            (t % 2 == 1).then_some(17),
            &expected,
            |board, side| {
                let counts: Vec<u8> = board.iter().map(|&c| c as u8).collect();
                game.make_position(&counts, side)
            },
            &format!("rules='{rules}' threads={t}"),
        );
    }
    expected
}

#[test]
fn every_position_up_to_4_seeds_never_ending_illegal() {
    let values = check(4, "", &[1, 2]);
    // The comparison means something only if it covers wins and losses, deep ones too. (There
    // are no draws this low; the solver's draws are compared with the oracle's in the Bawo
    // test.)
    let mut kinds = [0u32; 3];
    let mut deepest = 0;
    for v in values.values() {
        match v {
            OValue::Win(d) => {
                kinds[0] += 1;
                deepest = deepest.max(*d);
            }
            OValue::Loss(d) => {
                kinds[1] += 1;
                deepest = deepest.max(*d);
            }
            OValue::Draw => kinds[2] += 1,
        }
    }
    assert!(kinds[0] > 0 && kinds[1] > 0, "value kinds {kinds:?}");
    assert!(deepest > 20, "deepest decided value only {deepest}");
}

#[test]
fn every_position_up_to_4_seeds_never_ending_loss() {
    check(4, "never-ending=loss", &[2, 3]);
}
