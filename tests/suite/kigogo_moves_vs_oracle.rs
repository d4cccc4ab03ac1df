//! The engine's legal moves equal the oracle's on random Bao Kigogo positions (labels,
//! resulting boards, captures, never-ending starts under both options), and every move keeps
//! the invariants of the rules: seeds conserved, only the mover's pits start, the singleton
//! rule respected, captures only from one opponent column.

use crate::common;

use bawo_games::game::kigogo::{Kigogo, KigogoPosition, KigogoRules};
use bawo_games::game::{Game, MoveOutcome, Side, Successor};
use common::kigogo_oracle::{cycle, KOracle, KResult};
use proptest::prelude::*;

/// A move reduced to what both implementations can say: label, board after (`None` for an
/// immediate loss), seeds captured.
type Flat = (String, Option<Vec<u32>>, u32);

fn engine_moves(g: &Kigogo, p: &KigogoPosition) -> Vec<Flat> {
    let mut v: Vec<Flat> = g
        .moves(p)
        .into_iter()
        .map(|m| match m.outcome {
            MoveOutcome::Position(q) => {
                assert_eq!(q.side, p.side.other());
                (m.label, Some(g.board_counts(&q)), m.captured)
            }
            MoveOutcome::MoverLoses => (m.label, None, m.captured),
        })
        .collect();
    v.sort();
    v
}

fn oracle_moves(o: &KOracle, p: &KigogoPosition) -> Vec<Flat> {
    let b: Vec<u32> = p.board.iter().map(|&c| c as u32).collect();
    let mut v: Vec<Flat> = o
        .legal(&b, p.side.index() as u8)
        .into_iter()
        .map(|m| match m.result {
            KResult::Ends(board, cap) => (m.label, Some(board), cap),
            KResult::NeverEnding => (m.label, None, 0),
        })
        .collect();
    v.sort();
    v
}

fn owns(side: Side, pit: usize) -> bool {
    match side {
        Side::A => pit >= 24,
        Side::B => pit < 24,
    }
}

fn label_pit(label: &str) -> usize {
    let (r, c) = label[1..].split_once('c').unwrap();
    12 * r.parse::<usize>().unwrap() + c.parse::<usize>().unwrap()
}

fn check_successors(g: &Kigogo, p: &KigogoPosition, got: &[Flat]) {
    let mut succ = Vec::new();
    g.successors(p, &mut succ);
    let mut want: Vec<Successor> = got
        .iter()
        .map(|(_, b, _)| match b {
            Some(b) => {
                let counts: Vec<u8> = b.iter().map(|&c| c as u8).collect();
                let q = g.make_position(&counts, p.side.other());
                let (tier, index) = g.locate(&q).unwrap();
                Successor::Position { tier, index }
            }
            None => Successor::MoverLoses,
        })
        .collect();
    want.sort();
    succ.sort();
    assert_eq!(succ, want);
}

/// Compares engine and oracle under both options and checks the invariants; returns the
/// number of never-ending starts seen (under `loss`).
fn check_position(p: &KigogoPosition) -> usize {
    let mut never = 0;
    for (rules, loses) in [("never-ending=illegal", false), ("never-ending=loss", true)] {
        let g = Kigogo::new(KigogoRules::parse(rules).unwrap());
        let o = KOracle::new(loses);
        let got = engine_moves(&g, p);
        assert_eq!(
            got,
            oracle_moves(&o, p),
            "{rules} board={:?} side={:?}",
            p.board,
            p.side
        );

        // The solver's successors are the same moves, ranked (where the tier can be indexed:
        // the solver never asks for more).
        let seeds: u32 = p.board.iter().map(|&c| c as u32).sum();
        if g.tier_size(seeds).is_ok() {
            check_successors(&g, p, &got);
        }

        let before: u32 = p.board.iter().map(|&c| c as u32).sum();
        let any_big = (0..48).any(|q| owns(p.side, q) && p.board[q] >= 2);
        for (label, after, captured) in &got {
            let start = label_pit(label);
            assert!(owns(p.side, start), "{label} is not the mover's");
            if any_big {
                assert!(p.board[start] >= 2, "{label} starts with too few seeds");
            } else {
                assert_eq!(p.board[start], 1, "{label} is not a singleton step");
            }
            let Some(after) = after else {
                assert!(loses);
                never += 1;
                continue;
            };
            let total: u32 = after.iter().sum();
            assert_eq!(total + captured, before, "{label}: seeds not conserved");
            if !any_big {
                // A singleton step moves one seed to the next pit of the cycle, empty before.
                let c = cycle(p.side.index() as u8);
                let i = c.iter().position(|&q| q == start).unwrap();
                let next = c[(i + 1) % 24];
                assert_eq!(p.board[next], 0);
                assert_eq!((after[start], after[next]), (0, 1));
            }
            // The opponent's pits only lose seeds, and only in one column, front pit first.
            let lost: Vec<usize> = (0..48)
                .filter(|&q| !owns(p.side, q))
                .filter(|&q| after[q] != p.board[q] as u32)
                .collect();
            for &q in &lost {
                assert_eq!(
                    after[q], 0,
                    "{label}: opponent pit {q} changed but not emptied"
                );
            }
            assert!(lost.len() <= 2);
            if let [a, b] = lost[..] {
                assert_eq!(a % 12, b % 12, "{label}: captures from two columns");
            }
            assert_eq!(lost.is_empty(), *captured == 0);
        }
    }
    never
}

fn side() -> impl Strategy<Value = Side> {
    prop_oneof![Just(Side::A), Just(Side::B)]
}

fn to_board(v: Vec<u8>) -> [u8; 48] {
    v.try_into().unwrap()
}

/// Mostly empty pits and small counts, like endgames.
fn sparse() -> impl Strategy<Value = [u8; 48]> {
    prop::collection::vec(prop_oneof![6 => Just(0u8), 3 => 1u8..3, 1 => 2u8..7], 48)
        .prop_map(to_board)
}

/// Only zeros and ones on the mover's side sometimes: singleton play.
fn singletons() -> impl Strategy<Value = [u8; 48]> {
    prop::collection::vec(prop_oneof![2 => Just(0u8), 1 => Just(1u8)], 48).prop_map(to_board)
}

/// Crowded boards (up to 240 seeds): long relays, laps over the whole cycle.
fn dense() -> impl Strategy<Value = [u8; 48]> {
    prop::collection::vec(0u8..=5, 48).prop_map(to_board)
}

/// A few big pits among sparse ones (at most 255 seeds in all): hands of 24 or more, laps
/// that pass every pit of the cycle, the start pit included.
fn heavy() -> impl Strategy<Value = [u8; 48]> {
    (
        sparse(),
        prop::collection::vec((0usize..48, 20u8..=70), 1..4),
    )
        .prop_map(|(mut board, big)| {
            for (p, n) in big {
                board[p] = n;
            }
            board
        })
        .prop_filter("at most 255 seeds", |b| {
            b.iter().map(|&c| c as u32).sum::<u32>() <= 255
        })
}

/// The never-ending pattern of `kigogo_rules.rs`, rotated round the mover's cycle and nudged
/// in a few pits, which keeps some starts never-ending and breaks others.
const PATTERN: [u8; 24] = [
    5, 3, 2, 1, 0, 4, 3, 2, 1, 0, 4, 3, 2, 1, 0, 4, 3, 2, 1, 0, 4, 3, 2, 1,
];

fn near_never_ending() -> impl Strategy<Value = KigogoPosition> {
    (
        side(),
        0usize..24,
        prop::collection::vec((0usize..24, prop_oneof![Just(-1i8), Just(1i8)]), 0..3),
        sparse(),
    )
        .prop_map(|(side, rot, nudges, mut board)| {
            let c = cycle(side.index() as u8);
            let mut ring = [0u8; 24];
            for i in 0..24 {
                ring[(i + rot) % 24] = PATTERN[i];
            }
            for (i, d) in nudges {
                ring[i] = (ring[i] as i8 + d).max(0) as u8;
            }
            for i in 0..24 {
                board[c[i]] = ring[i];
            }
            KigogoPosition { board, side }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn sparse_positions_agree(board in sparse(), side in side()) {
        check_position(&KigogoPosition { board, side });
    }

    #[test]
    fn singleton_positions_agree(board in singletons(), side in side()) {
        check_position(&KigogoPosition { board, side });
    }

    #[test]
    fn dense_positions_agree(board in dense(), side in side()) {
        check_position(&KigogoPosition { board, side });
    }

    #[test]
    fn heavy_positions_agree(board in heavy(), side in side()) {
        check_position(&KigogoPosition { board, side });
    }

    #[test]
    fn near_never_ending_positions_agree(p in near_never_ending()) {
        check_position(&p);
    }
}

#[test]
fn every_rotation_of_the_never_ending_pattern_agrees() {
    // Not left to chance: each rotation on each side has a never-ending start (the pattern's
    // 5), and both implementations must find it.
    let mut never = 0;
    for side in [Side::A, Side::B] {
        let c = cycle(side.index() as u8);
        for rot in 0..24 {
            let mut board = [0u8; 48];
            for i in 0..24 {
                board[c[(i + rot) % 24]] = PATTERN[i];
            }
            let n = check_position(&KigogoPosition { board, side });
            assert!(n >= 1, "side {side:?} rotation {rot}");
            never += n;
        }
    }
    assert!(never >= 48);
}

/// Turning the board half round (pit `(r, c)` to `(3 - r, 11 - c)`, i.e. pit `p` to `47 - p`)
/// swaps the players (RULES.md §2): South's back row r3 (sown c0→c11) becomes North's back
/// row r0 (sown c11→c0), South's front row r2 (sown c11→c0) North's front row r1 (sown
/// c0→c11), each column's front pits still face each other, and the opening is mapped onto
/// itself (its empty r1c11 and r2c0 trade places). So North's moves are South's moves on the
/// turned board, turned back.
fn turn(b: &[u8; 48]) -> [u8; 48] {
    let mut out = [0u8; 48];
    for p in 0..48 {
        out[47 - p] = b[p];
    }
    out
}

fn turned_moves(p: &KigogoPosition, rules: &str) -> (Vec<Flat>, Vec<Flat>) {
    let g = Kigogo::new(KigogoRules::parse(rules).unwrap());
    let direct = engine_moves(&g, p);
    let q = KigogoPosition {
        board: turn(&p.board),
        side: p.side.other(),
    };
    // The engine's mirror, which the databases store one side to move by, is this turn.
    assert_eq!(g.mirror(p), q);
    let mut back: Vec<Flat> = engine_moves(&g, &q)
        .into_iter()
        .map(|(label, after, captured)| {
            let after = after.map(|a| {
                let mut v = vec![0u32; 48];
                for (i, c) in a.into_iter().enumerate() {
                    v[47 - i] = c;
                }
                v
            });
            let pit = 47 - label_pit(&label);
            (format!("r{}c{}", pit / 12, pit % 12), after, captured)
        })
        .collect();
    back.sort();
    (direct, back)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn north_plays_like_south_on_the_turned_board(board in prop_oneof![sparse(), singletons(), dense(), heavy()], side in side()) {
        for rules in ["never-ending=illegal", "never-ending=loss"] {
            let (direct, back) = turned_moves(&KigogoPosition { board, side }, rules);
            prop_assert_eq!(direct, back);
        }
    }
}

#[test]
fn the_opening_is_symmetric_under_the_half_turn() {
    let g = Kigogo::new(KigogoRules::default());
    let p = g.start_position().unwrap();
    assert_eq!(turn(&p.board), p.board);
    // So North, were it to move first, would have the mirror images of South's 23 moves.
    let north = KigogoPosition {
        board: p.board,
        side: Side::B,
    };
    let (direct, back) = turned_moves(&north, "");
    assert_eq!(direct.len(), 23);
    assert_eq!(direct, back);
}
