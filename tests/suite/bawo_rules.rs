//! Hand-worked Generalized Bawo positions. Each board was set up on paper from RULES.md §1 (and
//! the paper's R1–R6 and appendix) and each expected result traced seed by seed in the
//! comments; none was copied from the engine. Every case is checked against the engine and
//! against the test oracle (`tests/common/bawo_oracle.rs`), so a misreading in either shows.
//!
//! Reminders from the rules text: pits `0..4n`: A-back `0..n`, A-front `n..2n`, B-front
//! `2n..3n`, B-back `3n..4n`; front pit `n + j` faces `3n - 1 - j`. A sows `p -> p+1 mod 2n`
//! (back row, then front row, then back to pit 0); B sows `2n -> 2n+1 -> ... -> 4n-1 -> 2n`
//! (front row, then back row). Micro-sow: drop, count; at the `L`-th drop stop and discard
//! the hand; at a lap end capture (front row, facing pit occupied), then relay (landing pit
//! held seeds before the drop). The kichwa is A's pit `n`, B's pit `2n`.
//!
//! Facing pits used below: n = 1: 1 <-> 2. n = 2: 2 <-> 5, 3 <-> 4. n = 3: 3 <-> 8, 4 <-> 7,
//! 5 <-> 6. n = 4: 4 <-> 11, 5 <-> 10, 6 <-> 9, 7 <-> 8.

use crate::common;

use bawo_games::game::bawo::{Bawo, BawoRules};
use bawo_games::game::{Game, MoveOutcome, Side};
use common::bawo_oracle::Oracle;

/// What one legal move must do: start pit, resulting board, seeds to the reserve, discarded.
struct Want<'a> {
    start: usize,
    board: &'a [u8],
    captured: u32,
    discarded: u32,
}

/// Asserts that the legal moves of `board` with `side` to move are exactly `want`, in pit
/// order, in both the engine and the oracle.
fn check(n: u32, lap_cap: u64, rules: &str, board: &[u8], side: Side, want: &[Want]) {
    check_engine(n, lap_cap, rules, board, side, want);
    check_oracle(n, lap_cap, rules, board, side, want);
}

/// The engine half of [`check`] (for caps too large for the oracle's one-drop-at-a-time walk).
fn check_engine(n: u32, lap_cap: u64, rules: &str, board: &[u8], side: Side, want: &[Want]) {
    assert_eq!(board.len(), 4 * n as usize);
    let g = Bawo::new(n, lap_cap, BawoRules::parse(rules).unwrap()).unwrap();
    let pos = g.make_position(board, side);
    let moves = g.moves(&pos);
    let got_labels: Vec<String> = moves.iter().map(|m| m.label.clone()).collect();
    let want_labels: Vec<String> = want.iter().map(|w| w.start.to_string()).collect();
    assert_eq!(
        got_labels, want_labels,
        "engine: legal starts (rules '{rules}')"
    );
    for (m, w) in moves.iter().zip(want) {
        let MoveOutcome::Position(q) = &m.outcome else {
            panic!("bawo moves lead to positions")
        };
        assert_eq!(q.side, side.other());
        assert_eq!(
            &q.board[..board.len()],
            w.board,
            "engine: board after {} (rules '{rules}', L={lap_cap})",
            w.start
        );
        assert_eq!(m.captured, w.captured, "engine: captured by {}", w.start);
        assert_eq!(m.discarded, w.discarded, "engine: discarded by {}", w.start);
    }
}

/// The oracle half of [`check`].
fn check_oracle(n: u32, lap_cap: u64, rules: &str, board: &[u8], side: Side, want: &[Want]) {
    let o = Oracle::new(
        n as usize,
        lap_cap,
        rules.contains("kichwa=relay"),
        rules.contains("capture=occupied"),
    );
    let ob: Vec<u32> = board.iter().map(|&c| c as u32).collect();
    let legal = o.legal(&ob, side.index() as u8);
    let starts: Vec<usize> = legal.iter().map(|m| m.start).collect();
    let want_starts: Vec<usize> = want.iter().map(|w| w.start).collect();
    assert_eq!(
        starts, want_starts,
        "oracle: legal starts (rules '{rules}')"
    );
    for (m, w) in legal.iter().zip(want) {
        let wb: Vec<u32> = w.board.iter().map(|&c| c as u32).collect();
        assert_eq!(m.board, wb, "oracle: board after {}", w.start);
        assert_eq!(m.reserve, w.captured, "oracle: captured by {}", w.start);
        assert_eq!(m.discarded, w.discarded, "oracle: discarded by {}", w.start);
    }
}

fn one(start: usize, board: &[u8], captured: u32, discarded: u32) -> Want<'_> {
    Want {
        start,
        board,
        captured,
        discarded,
    }
}

#[test]
fn a_sows_back_row_then_front_row_then_wraps_to_pit_0() {
    // n = 3, A to move: A pit 4 (front) = 3, B back pit 9 = 1 (out of the way).
    // Lift 4 (3): 5 0→1, wrap to 0 0→1, 1 0→1. Pit 1 (back row) was empty: the move ends.
    check(
        3,
        100,
        "",
        &[0, 0, 0, 0, 3, 0, 0, 0, 0, 1, 0, 0],
        Side::A,
        &[one(4, &[1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0], 0, 0)],
    );
}

#[test]
fn b_sows_back_row_then_wraps_to_its_front_row_and_captures() {
    // n = 3, B to move: B back pit 10 = 3; A pit 4 = 2 (front, faces 7), A pit 0 = 1.
    // Lift 10 (3): 11 0→1, wrap to 6 0→1, 7 0→1. Pit 7 is on B's front row and faces
    // n + (3n - 1 - 7) = 3 + 1 = 4, which holds 2.
    // capture=any: the 2 seeds of pit 4 go to B's reserve; pit 7 was empty: the move ends.
    check(
        3,
        100,
        "",
        &[1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0],
        Side::B,
        &[one(10, &[1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1], 2, 0)],
    );
    // capture=occupied: pit 7 was empty before the drop, so nothing is captured.
    check(
        3,
        100,
        "capture=occupied",
        &[1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0],
        Side::B,
        &[one(10, &[1, 0, 0, 0, 2, 0, 1, 1, 0, 0, 0, 1], 0, 0)],
    );
}

#[test]
fn b_capture_with_n_2() {
    // n = 2, B to move: B back pit 7 = 2; A front pits 2 = 3, 3 = 1.
    // Lift 7 (2): wrap to 4 0→1, 5 0→1. Pit 5 (B front) faces 2 + (5 - 5) = 2, holding 3:
    // captured (capture=any); pit 5 was empty, the move ends.
    check(
        2,
        16,
        "",
        &[0, 0, 3, 1, 0, 0, 0, 2],
        Side::B,
        &[one(7, &[0, 0, 0, 1, 1, 1, 0, 0], 3, 0)],
    );
}

#[test]
fn capture_then_relay_from_the_same_pit() {
    // n = 2, A to move: A 0 = 2, A 2 = 1; B 5 = 1 (faces 2), B 6 = 1.
    // Lift 0 (2): 1 0→1, 2 1→2. Lap end on A's front row, facing pit 5 holds 1: captured.
    // Pit 2 held a seed before: relay, lift 2: 3 0→1, 0 0→1. Pit 0 was empty: the move ends.
    check(
        2,
        16,
        "",
        &[2, 0, 1, 0, 0, 1, 1, 0],
        Side::A,
        &[one(0, &[1, 1, 0, 1, 0, 0, 1, 0], 1, 0)],
    );
}

#[test]
fn facing_pits_for_n_4_at_both_ends_of_the_front_row() {
    // n = 4, A to move: A 2 = 2, A 5 = 2; B 8 = 1 (faces 7), B 11 = 5 (faces 4).
    // Lift 2 (2): 3 0→1, 4 0→1: lap end at front pit 4 (j = 0), facing 3n - 1 = 11 (5 seeds):
    //   captured; pit 4 was empty, the move ends.
    // Lift 5 (2): 6 0→1, 7 0→1: lap end at front pit 7 (j = 3), facing 3n - 1 - 3 = 8 (1 seed):
    //   captured; the move ends. Both starts capture, so both are legal.
    check(
        4,
        100,
        "",
        &[0, 0, 2, 0, 0, 2, 0, 0, 1, 0, 0, 5, 0, 0, 0, 0],
        Side::A,
        &[
            one(2, &[0, 0, 0, 1, 1, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], 5, 0),
            one(5, &[0, 0, 2, 0, 0, 0, 1, 1, 0, 0, 0, 5, 0, 0, 0, 0], 1, 0),
        ],
    );
}

#[test]
fn a_lap_round_the_whole_cycle_sows_into_its_start_pit() {
    // n = 1: A back 0, A front 1, B front 2, B back 3. A 0 = 3, B 2 = 1, B 3 = 1.
    // Lift 0 (3): 1 0→1, 0 (the emptied start pit) 0→1, 1 1→2. Pit 1 held a seed before the
    // last drop (from this same lap): capture the facing pit 2 (1 seed), then relay 2:
    // 0 1→2, 1 0→1. Pit 1 was empty: the move ends (facing pit 2 is now empty).
    check(
        1,
        100,
        "",
        &[3, 0, 1, 1],
        Side::A,
        &[one(0, &[2, 1, 0, 1], 1, 0)],
    );
    // capture=occupied agrees: the first landing held a seed, the second has nothing to take.
    check(
        1,
        100,
        "capture=occupied",
        &[3, 0, 1, 1],
        Side::A,
        &[one(0, &[2, 1, 0, 1], 1, 0)],
    );
}

/// Start `[3,0,0,1 | 0,0,1,0]` (n = 2, A to move), no captures possible (B's front is empty).
/// Without a cap: lift 0 (3): 1 0→1 (c1), 2 0→1 (c2), 3 1→2 (c3); relay 2: 0 0→1 (c4),
/// 1 1→2 (c5); relay 2: 2 1→2 (c6), 3 0→1 (c7): pit 3 was empty, the move ends.
const TRUNC: [u8; 8] = [3, 0, 0, 1, 0, 0, 1, 0];

#[test]
fn truncation_at_every_point_of_a_relay() {
    // L = 16: the whole move, 7 drops.
    check(
        2,
        16,
        "",
        &TRUNC,
        Side::A,
        &[one(0, &[1, 0, 2, 1, 0, 0, 1, 0], 0, 0)],
    );
    // L = 3: the cap falls on the last drop of the first lap (c3 into pit 3, hand empty). The
    // cap check comes first: the move ends at once, pit 3 (now 2) does not relay, nothing is
    // discarded.
    check(
        2,
        3,
        "",
        &TRUNC,
        Side::A,
        &[one(0, &[0, 1, 1, 2, 0, 0, 1, 0], 0, 0)],
    );
    // L = 4: the cap falls on c4 (into pit 0) with one seed still in hand: discarded.
    check(
        2,
        4,
        "",
        &TRUNC,
        Side::A,
        &[one(0, &[1, 1, 1, 0, 0, 0, 1, 0], 0, 1)],
    );
    // L = 5: c5 into pit 1 ends the second lap exactly at the cap: no relay from pit 1.
    check(
        2,
        5,
        "",
        &TRUNC,
        Side::A,
        &[one(0, &[1, 2, 1, 0, 0, 0, 1, 0], 0, 0)],
    );
}

#[test]
fn truncation_on_a_lap_end_also_stops_the_capture() {
    // n = 2, A to move: A 0 = 3; B 4 = 2 (faces 3).
    // Lift 0 (3): 1, 2, 3 (0→1 each). L = 4: pit 3 ends the lap on the front row facing 2
    // seeds: captured, and pit 3 was empty, so the move ends.
    check(
        2,
        4,
        "",
        &[3, 0, 0, 0, 2, 0, 0, 0],
        Side::A,
        &[one(0, &[0, 1, 1, 1, 0, 0, 0, 0], 2, 0)],
    );
    // L = 3: the third drop is the L-th: the move ends before the lap-end rules, so no capture.
    check(
        2,
        3,
        "",
        &[3, 0, 0, 0, 2, 0, 0, 0],
        Side::A,
        &[one(0, &[0, 1, 1, 1, 2, 0, 0, 0], 0, 0)],
    );
}

#[test]
fn capture_occupied_refuses_an_empty_landing_and_mandatory_capture_follows() {
    // n = 3, A to move: A 0 = 2, A 3 = 2; B 6 = 1 (faces 5).
    // Start 0 (2): 1 0→1, 2 0→1: ends on the back row, no capture.
    // Start 3 (2): 4 0→1, 5 0→1: lap end on front pit 5, which was empty, facing 6 (1 seed).
    let board = [2, 0, 0, 2, 0, 0, 1, 0, 0, 0, 0, 0];
    // capture=any: start 3 captures 1, so start 0 (no capture) is illegal (R4).
    check(
        3,
        100,
        "",
        &board,
        Side::A,
        &[one(3, &[2, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0], 1, 0)],
    );
    // capture=occupied: pit 5 was empty before the drop, so start 3 captures nothing, and
    // both starts are legal.
    check(
        3,
        100,
        "capture=occupied",
        &board,
        Side::A,
        &[
            one(0, &[0, 1, 1, 2, 0, 0, 1, 0, 0, 0, 0, 0], 0, 0),
            one(3, &[2, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0], 0, 0),
        ],
    );
    // With A 5 = 1 (and no A 0): start 3 (2): 4 0→1, 5 1→2: pit 5 held a seed, so
    // capture=occupied captures 6 (1) too; relay 2: wrap to 0 0→1, 1 0→1: ends on the back row.
    for rules in ["", "capture=occupied"] {
        check(
            3,
            100,
            rules,
            &[0, 0, 0, 2, 0, 1, 1, 0, 0, 0, 0, 0],
            Side::A,
            &[one(3, &[1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], 1, 0)],
        );
    }
}

#[test]
fn mandatory_capture_looks_at_captures_in_later_laps() {
    // n = 2, A to move: A 0 = 2, A 1 = 1, A 3 = 2; B 4 = 3 (faces 3).
    // Start 0 (2): 1 1→2, 2 0→1: lap end on front pit 2, facing 5 is empty: no capture; pit 2
    //   was empty, the move ends. Board [0,2,1,2 | 3,0,0,0].
    // Start 3 (2): wrap to 0 2→3, 1 1→2: back row, relay 2: 2 0→1, 3 0→1: front pit 3 (empty
    //   before) facing 4 (3 seeds). Board [3,0,1,1 | 0,0,0,0] after capturing 3.
    let board = [2, 1, 0, 2, 3, 0, 0, 0];
    // capture=any: only start 3 captures (in its second lap), so start 0 is illegal.
    check(
        2,
        16,
        "",
        &board,
        Side::A,
        &[one(3, &[3, 0, 1, 1, 0, 0, 0, 0], 3, 0)],
    );
    // capture=occupied: start 3's landing pit 3 was empty, so no capture: both legal.
    check(
        2,
        16,
        "capture=occupied",
        &board,
        Side::A,
        &[
            one(0, &[0, 2, 1, 2, 3, 0, 0, 0], 0, 0),
            one(3, &[3, 0, 1, 1, 3, 0, 0, 0], 0, 0),
        ],
    );
}

#[test]
fn singletons_never_start() {
    // n = 2, A to move with singletons only (A 0, 1, 2 = 1) against B 4 = 5: no legal move
    // (R5), whatever B holds.
    check(2, 16, "", &[1, 1, 1, 0, 5, 0, 0, 0], Side::A, &[]);
    // The same for B: B 4, 6, 7 = 1 against A 0 = 4.
    check(2, 16, "", &[4, 0, 0, 0, 1, 0, 1, 1], Side::B, &[]);
    // One pit of two among singletons: only it starts. A 0 = 1, A 1 = 2, A 3 = 1; B 6 = 1.
    // Lift 1 (2): 2 0→1, 3 1→2: front pit 3 faces 4 (empty), relay 2: wrap to 0 1→2,
    // 1 0→1: back row, was empty: the move ends.
    check(
        2,
        16,
        "",
        &[1, 2, 0, 1, 0, 0, 1, 0],
        Side::A,
        &[one(1, &[2, 1, 1, 0, 0, 0, 1, 0], 0, 0)],
    );
}

#[test]
fn kichwa_relay_for_a_sows_the_captured_seeds_on_from_pit_n() {
    // n = 2: A's kichwa is pit 2 (the first front pit after the back row), facing 5.
    // A 0 = 2; B 5 = 3, B 7 = 1.
    let board = [2, 0, 0, 0, 0, 3, 0, 1];
    // kichwa=off: lift 0 (2): 1 0→1, 2 0→1: front pit 2 faces 5 (3): captured to the
    // reserve; pit 2 was empty, the move ends.
    check(
        2,
        16,
        "",
        &board,
        Side::A,
        &[one(0, &[0, 1, 1, 0, 0, 0, 0, 1], 3, 0)],
    );
    // kichwa=relay: the same capture lands in the kichwa, so the 3 seeds go into hand and are
    // sown on from the kichwa: 3 0→1, wrap to 0 0→1, 1 1→2: back row, held a seed: relay 2:
    // 2 1→2, 3 1→2: front pit 3 faces 4 (empty), held a seed: relay 2: 0 1→2, 1 0→1: was
    // empty, the move ends. Nothing went to the reserve (the captured seeds are on A's side).
    check(
        2,
        16,
        "kichwa=relay",
        &board,
        Side::A,
        &[one(0, &[2, 1, 2, 0, 0, 0, 0, 1], 0, 0)],
    );
    // kichwa=relay under the lap cap: L = 4. c1 into 1, c2 into the kichwa 2 (capture-relay,
    // 3 in hand), c3 into 3, c4 into 0 is the L-th drop with 1 seed still in hand: discarded.
    check(
        2,
        4,
        "kichwa=relay",
        &board,
        Side::A,
        &[one(0, &[1, 1, 1, 1, 0, 0, 0, 1], 0, 1)],
    );
    // L = 2: the L-th drop is the one into the kichwa: the move ends before the lap-end rules,
    // so neither capture nor capture-relay happens.
    check(
        2,
        2,
        "kichwa=relay",
        &board,
        Side::A,
        &[one(0, &[0, 1, 1, 0, 0, 3, 0, 1], 0, 0)],
    );
}

#[test]
fn kichwa_relay_leaves_the_kichwas_own_seeds() {
    // The README's decision where RULES.md is silent: the capture-relay replaces the relay at
    // that lap end, so the kichwa keeps its seeds and only the captured ones are sown on.
    // n = 2, A 0 = 2, A 2 = 1; B 5 = 2, B 7 = 1.
    // Lift 0 (2): 1 0→1, 2 1→2: kichwa, facing 5 (2): capture-relay 2 from the kichwa:
    // 3 0→1, wrap to 0 0→1: was empty, the move ends. The kichwa keeps its 2.
    check(
        2,
        16,
        "kichwa=relay",
        &[2, 0, 1, 0, 0, 2, 0, 1],
        Side::A,
        &[one(0, &[1, 1, 2, 1, 0, 0, 0, 1], 0, 0)],
    );
}

#[test]
fn kichwa_relay_for_b_uses_pit_2n_and_counts_for_mandatory_capture() {
    // n = 3: B's kichwa is pit 6 (the first front pit after B's back row), facing 5.
    // A 0 = 1, A 5 = 3; B 9 = 2, B 10 = 2.
    // Start 9 (2): 10 2→3, 11 0→1: back row, was empty: the move ends, no capture.
    // Start 10 (2): 11 0→1 (c1), wrap to 6 0→1 (c2): B's kichwa, facing 5 holds 3: capture.
    let board = [1, 0, 0, 0, 0, 3, 0, 0, 0, 2, 2, 0];
    // kichwa=off: the 3 go to the reserve; pit 6 was empty: the move ends. Start 9 captures
    // nothing and is illegal (R4).
    check(
        3,
        100,
        "",
        &board,
        Side::B,
        &[one(10, &[1, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1], 3, 0)],
    );
    // kichwa=relay: the 3 go into hand and are sown on from pit 6: 7 0→1 (c3), 8 0→1 (c4),
    // 9 2→3 (c5): back row, held seeds: relay 3: 10 0→1 (c6), 11 1→2 (c7), 6 1→2 (c8):
    // kichwa, facing 5 now empty, no capture; held a seed: relay 2: 7 1→2 (c9), 8 1→2 (c10):
    // front pit 8 faces 3 (empty); relay 2: 9 0→1 (c11), 10 1→2 (c12): relay 2: 11 2→3 (c13),
    // 6 0→1 (c14): was empty, facing 5 empty: the move ends. B: 6=1 7=2 8=0 9=1 10=0 11=3
    // (7 = 4 + 3 captured seeds), reserve 0. The capture-relay is a capture for R4, so
    // start 9 stays illegal although no seed reached the reserve.
    check(
        3,
        100,
        "kichwa=relay",
        &board,
        Side::B,
        &[one(10, &[1, 0, 0, 0, 0, 0, 1, 2, 0, 1, 0, 3], 0, 0)],
    );
}

#[test]
fn kichwa_relay_does_not_apply_to_other_front_pits() {
    // n = 3, B to move: B 11 = 3; A 3 = 2 (faces 8), A 0 = 1.
    // Lift 11 (3): wrap to 6 0→1, 7 0→1, 8 0→1: front pit 8 is not B's kichwa (6); it faces
    // 3 + (8 - 8) = 3 (2 seeds): captured to the reserve even under kichwa=relay.
    for rules in ["", "kichwa=relay"] {
        check(
            3,
            100,
            rules,
            &[1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3],
            Side::B,
            &[one(11, &[1, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0], 2, 0)],
        );
    }
    // And A's pit n + 1 = 4 (n = 3) is not A's kichwa: A 2 = 2, B 7 = 4 (faces 4), B 9 = 1.
    // Lift 2 (2): 3 0→1, 4 0→1: front pit 4 faces 7 (4): captured to the reserve.
    for rules in ["", "kichwa=relay"] {
        check(
            3,
            100,
            rules,
            &[0, 0, 2, 0, 0, 0, 0, 4, 0, 1, 0, 0],
            Side::A,
            &[one(2, &[0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0], 4, 0)],
        );
    }
}

#[test]
fn a_move_that_relays_for_ever_is_cut_at_enormous_caps() {
    // n = 1, A 0 = 3, A 1 = 1, B 3 = 1 (B's front pit 2 is empty: nothing is ever captured).
    // Lift 0 (3): 1 1→2 (c1), 0 0→1 (c2), 1 2→3 (c3): relay 3 from 1: 0 1→2 (c4), 1 0→1
    // (c5), 0 2→3 (c6): relay 3 from 0, and the lap-start state (pits [0,1], at 0, 3 in hand)
    // is the first one again: the drops repeat with period 6. After c drops (c mod 6):
    //   1: [0,2] hand 2   2: [1,2] hand 1   3: [1,3] hand 0   4: [2,0] hand 2
    //   5: [2,1] hand 1   0: [3,1] hand 0 (lap ends, relay)
    // so a cap L leaves A's pits as in row L mod 6 and discards the hand. These caps are far
    // beyond the engine's cycle watch (4096 drops), which must skip whole periods exactly.
    let board = [3, 1, 0, 1];
    // 10^12 = 4 (mod 6): [2,0], 2 discarded. (Engine only: the oracle drops one seed at a time.)
    check_engine(
        1,
        1_000_000_000_000,
        "",
        &board,
        Side::A,
        &[one(0, &[2, 0, 0, 1], 0, 2)],
    );
    // 10^12 - 1 = 3 (mod 6): [1,3], the cap falls on a lap end: no relay, nothing discarded.
    check_engine(
        1,
        999_999_999_999,
        "",
        &board,
        Side::A,
        &[one(0, &[1, 3, 0, 1], 0, 0)],
    );
    // 5000 = 2 (mod 6): [1,2], 1 discarded (the oracle can still walk this one).
    check(1, 5000, "", &board, Side::A, &[one(0, &[1, 2, 0, 1], 0, 1)]);
}

#[test]
fn enormous_caps_of_every_residue() {
    // L = 2^64 - 1 = 3 (mod 6), since 2^64 = 4 (mod 6): [1,3], nothing discarded. And
    // L = 10^12 + 2 = 0 (mod 6): the board is back where it started.
    let board = [3, 1, 0, 1];
    check_engine(
        1,
        u64::MAX,
        "",
        &board,
        Side::A,
        &[one(0, &[1, 3, 0, 1], 0, 0)],
    );
    check_engine(
        1,
        1_000_000_000_002,
        "",
        &board,
        Side::A,
        &[one(0, &[3, 1, 0, 1], 0, 0)],
    );
    // 10^12 + 1 = 5 (mod 6): [2,1], 1 discarded; 10^12 + 3 = 1 (mod 6): [0,2], 2 discarded.
    check_engine(
        1,
        1_000_000_000_001,
        "",
        &board,
        Side::A,
        &[one(0, &[2, 1, 0, 1], 0, 1)],
    );
    check_engine(
        1,
        1_000_000_000_003,
        "",
        &board,
        Side::A,
        &[one(0, &[0, 2, 0, 1], 0, 2)],
    );
}
