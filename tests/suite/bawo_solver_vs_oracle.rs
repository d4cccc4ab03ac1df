//! Every position's value and depth from the solver equals the brute-force oracle's, on many
//! small Generalized Bawo instances: n = 1, 2, 3, lap caps that truncate often and ones that
//! (almost) never do, every rule option, 1, 2 and 4 threads.

use crate::common;

use std::collections::HashMap;

use bawo_games::game::bawo::{Bawo, BawoRules};
use bawo_games::game::Game;
use common::bawo_oracle::{OPos, Oracle};
use common::compare::assert_solver_matches_oracle;
use common::{solve_by_rounds, OValue};

const RULES: [&str; 4] = [
    "",
    "kichwa=relay",
    "capture=occupied",
    "kichwa=relay,capture=occupied",
];

fn oracle_values(o: &Oracle, seeds: u32) -> HashMap<OPos, OValue> {
    let positions = o.positions(seeds);
    solve_by_rounds(&positions, |p| o.successors(p))
}

fn check(n: u32, seeds: u32, lap_cap: u64, rules: &str, threads: &[usize]) {
    let o = Oracle::new(
        n as usize,
        lap_cap,
        rules.contains("kichwa=relay"),
        rules.contains("capture=occupied"),
    );
    let expected = oracle_values(&o, seeds);
    let game = Bawo::new(n, lap_cap, BawoRules::parse(rules).unwrap()).unwrap();
    // Ranges of a quarter of the largest tier, so the largest tiers are solved out of core in
    // several ranges (and the smaller ones in one), alternating with thread counts.
    let largest = game.tier_size(seeds).unwrap();
    let quarter = (64 - (largest / 4).max(1).leading_zeros()).max(2);
    for (k, &t) in threads.iter().enumerate() {
        let bits = if k % 2 == 0 { quarter } else { 30 };
        assert_solver_matches_oracle(
            &game,
            seeds,
            t,
            Some(bits),
            &expected,
            |board, side| {
                let counts: Vec<u8> = board.iter().map(|&c| c as u8).collect();
                game.make_position(&counts, side)
            },
            &format!("n={n} L={lap_cap} rules='{rules}' threads={t}"),
        );
    }
}

#[test]
fn n1_every_rule_and_lap_cap() {
    for rules in RULES {
        for lap_cap in [1, 2, 3, 4, 5, 6, 1000] {
            check(1, 12, lap_cap, rules, &[1, 2]);
        }
    }
}

#[test]
fn n2_every_rule_and_lap_cap() {
    for rules in RULES {
        for lap_cap in [3, 4, 5, 6, 16, 5000] {
            check(2, 8, lap_cap, rules, &[1, 4]);
        }
    }
}

#[test]
fn n2_more_seeds_and_thread_counts() {
    check(2, 10, 6, "", &[1, 2, 4]);
    check(2, 10, 64, "kichwa=relay", &[1, 2, 4]);
}

#[test]
fn n3_truncating_and_not() {
    for rules in RULES {
        for lap_cap in [3, 6, 100] {
            check(3, 6, lap_cap, rules, &[2]);
        }
    }
    check(3, 7, 5, "capture=occupied", &[1, 4]);
}

#[test]
fn instances_with_draws_are_covered() {
    // The comparison is only meaningful if some instances have draws, wins and losses at
    // depth > 1; make sure the matrix above exercises them.
    let mut draws = 0;
    let mut deep = 0;
    for rules in RULES {
        for lap_cap in [3, 4, 5, 6, 1000] {
            let o = Oracle::new(
                1,
                lap_cap,
                rules.contains("relay"),
                rules.contains("occupied"),
            );
            for v in oracle_values(&o, 12).values() {
                match v {
                    OValue::Draw => draws += 1,
                    OValue::Win(d) | OValue::Loss(d) if *d > 3 => deep += 1,
                    _ => {}
                }
            }
        }
    }
    assert!(draws > 0, "no draws in the n = 1 instances");
    assert!(deep > 0, "no deep wins or losses in the n = 1 instances");
}
