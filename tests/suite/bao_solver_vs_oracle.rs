//! Every mtaji position's value and depth from the solver equals the brute-force oracle's
//! (`tests/common/bao_oracle.rs`, an independent reading of `RULES.md` §3), for small seed
//! totals, both `never-ending` options and several thread counts; and the engine's legal moves
//! equal the oracle's, by name and resulting position, on every position of those tiers.

use crate::common;

use std::collections::HashMap;

use bawo_games::game::bao::{Bao, BaoPosition, BaoRules};
use bawo_games::game::{Game, MoveOutcome, Side};
use common::bao_oracle::{BaoOracle, OPos};
use common::compare::assert_solver_matches_oracle;
use common::{solve_by_rounds, OSucc, OValue};

fn game(loss: bool) -> Bao {
    let rules = if loss { "never-ending=loss" } else { "" };
    Bao::new(BaoRules::parse(rules).unwrap())
}

fn engine_board(board: &[u32], side: Side) -> BaoPosition {
    let mut b = [0u8; 32];
    for (b, &c) in b.iter_mut().zip(board) {
        *b = c as u8;
    }
    BaoPosition::mtaji(b, side)
}

fn engine_position(pos: &OPos) -> BaoPosition {
    engine_board(&pos.0, if pos.1 == 0 { Side::A } else { Side::B })
}

/// Compares the tier of `seeds` with the oracle, once per thread count. On odd thread counts,
/// ranges of 2^14 positions, so that the larger tiers are solved out of core in several
/// ranges; on even ones, one range.
fn check(seeds: u32, loss: bool, threads: &[usize]) {
    let oracle = BaoOracle {
        never_ending_loses: loss,
    };
    let positions = oracle.positions(seeds);
    let expected: HashMap<OPos, OValue> = solve_by_rounds(&positions, |p| oracle.successors(p));
    let g = game(loss);
    assert_eq!(positions.len() as u64, g.tier_positions(seeds).unwrap());
    for &t in threads {
        assert_solver_matches_oracle(
            &g,
            seeds,
            t,
            (t % 2 == 1).then_some(14),
            &expected,
            engine_board,
            &format!("seeds={seeds} loss={loss} threads={t}"),
        );
    }
}

#[test]
fn two_to_four_seeds_both_options() {
    for seeds in 2..=4 {
        for loss in [false, true] {
            check(seeds, loss, &[1, 3]);
        }
    }
}

#[test]
fn five_seeds() {
    check(5, false, &[2]);
}

/// The move lists themselves, not only the values they lead to: same names, same results.
#[test]
fn engine_moves_equal_oracle_moves_on_whole_tiers() {
    for seeds in 2..=5 {
        for loss in [false, true] {
            let oracle = BaoOracle {
                never_ending_loses: loss,
            };
            let g = game(loss);
            for pos in oracle.positions(seeds) {
                let mut want: Vec<(String, OSucc<OPos>)> = oracle.legal(&pos.0, pos.1);
                let mut got: Vec<(String, OSucc<OPos>)> = g
                    .moves(&engine_position(&pos))
                    .into_iter()
                    .map(|m| {
                        let s = match m.outcome {
                            MoveOutcome::MoverLoses => OSucc::MoverLoses,
                            MoveOutcome::Position(q) => {
                                assert_eq!(q.hands, [0, 0]);
                                assert_eq!(q.houses, [false, false]);
                                OSucc::To((
                                    q.board.iter().map(|&c| c as u32).collect(),
                                    q.side.index() as u8,
                                ))
                            }
                        };
                        (m.label, s)
                    })
                    .collect();
                want.sort_by(|a, b| a.0.cmp(&b.0));
                got.sort_by(|a, b| a.0.cmp(&b.0));
                assert_eq!(got, want, "board={:?} side={}", pos.0, pos.1);
            }
        }
    }
}
