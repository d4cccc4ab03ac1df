//! Hand-worked Bao la Kiswahili positions (`RULES.md` §3). Every expected board below was
//! worked out by hand from the rules text; the comments show the sowing seed by seed.
//!
//! Boards are written as four rows in `RULES.md` order — row 0 North back, 1 North front,
//! 2 South front, 3 South back — each with columns 0..7 from South's left. In the notation a
//! player's pits are `a1`..`a8` (front) and `b1`..`b8` (back) counted from that player's own
//! left, so South's `a3` is row 2 column 2 and `b2` row 3 column 1; North's `a1` is row 1
//! column 7. Circuit order (clockwise) for South is a1..a8 then b8..b1.

use bawo_games::game::bao::{Bao, BaoPosition, BaoRules};
use bawo_games::game::{Game, LabelledMove, MoveOutcome, Side};

mod north;

type Rows = [[u8; 8]; 4];

fn game() -> Bao {
    Bao::new(BaoRules::default())
}

fn board(rows: Rows) -> [u8; 32] {
    let mut b = [0u8; 32];
    for (r, row) in rows.iter().enumerate() {
        b[8 * r..8 * r + 8].copy_from_slice(row);
    }
    b
}

fn rows_of(b: &[u8; 32]) -> Rows {
    let mut rows = [[0u8; 8]; 4];
    for (r, row) in rows.iter_mut().enumerate() {
        row.copy_from_slice(&b[8 * r..8 * r + 8]);
    }
    rows
}

fn mtaji(rows: Rows, side: Side) -> BaoPosition {
    BaoPosition::mtaji(board(rows), side)
}

fn labels(moves: &[LabelledMove<BaoPosition>]) -> Vec<String> {
    let mut l: Vec<String> = moves.iter().map(|m| m.label.clone()).collect();
    l.sort();
    l
}

/// The position a legal move leads to (panics if the move is not legal).
fn after(moves: &[LabelledMove<BaoPosition>], label: &str) -> (BaoPosition, u32) {
    let m = moves
        .iter()
        .find(|m| m.label == label)
        .unwrap_or_else(|| panic!("{label} is not among {:?}", labels(moves)));
    match m.outcome {
        MoveOutcome::Position(q) => (q, m.captured),
        MoveOutcome::MoverLoses => panic!("{label} loses at once"),
    }
}

fn total(p: &BaoPosition) -> u32 {
    p.seeds()
}

#[test]
fn opening_position_and_its_four_takasa_moves() {
    let g = game();
    let start = g.start_position().unwrap();
    // Each front row 0 0 0 0 6 2 2 0 from its owner's left; North's left is column 7.
    assert_eq!(
        rows_of(&start.board),
        [
            [0; 8],
            [0, 2, 2, 6, 0, 0, 0, 0],
            [0, 0, 0, 0, 6, 2, 2, 0],
            [0; 8]
        ]
    );
    assert_eq!(start.hands, [22, 22]);
    assert_eq!(start.houses, [true, true]);
    assert_eq!(start.side, Side::A);
    let moves = g.moves(&start);
    // No capture: South's occupied front pits (columns 4, 5, 6) face North columns 4, 5, 6,
    // all empty. Takasa: the functional house a5 is excluded while a6 and a7 (two seeds each)
    // qualify; each may be sown either way.
    assert_eq!(labels(&moves), ["a6<", "a6>", "a7<", "a7>"]);
    let south = |label: &str| {
        let (q, captured) = after(&moves, label);
        assert_eq!(captured, 0);
        assert_eq!(q.hands, [21, 22]);
        assert_eq!(q.houses, [true, true]);
        assert_eq!(q.side, Side::B);
        assert_eq!(rows_of(&q.board)[..2], rows_of(&start.board)[..2]);
        [rows_of(&q.board)[2], rows_of(&q.board)[3]]
    };
    // a6>: a6 2+1 = 3 lifted; a7 2->3, a8 0->1, b8 0->1: empty before, the move ends.
    assert_eq!(
        south("a6>"),
        [[0, 0, 0, 0, 6, 0, 3, 1], [0, 0, 0, 0, 0, 0, 0, 1]]
    );
    // a6<: 3 lifted; a5 (house) 6->7, a4 0->1, a3 0->1: ends.
    assert_eq!(south("a6<"), [[0, 0, 1, 1, 7, 0, 2, 0], [0; 8]]);
    // a7>: a7 2+1 = 3 lifted; a8 0->1, b8 0->1, b7 0->1: ends.
    assert_eq!(
        south("a7>"),
        [[0, 0, 0, 0, 6, 2, 0, 1], [0, 0, 0, 0, 0, 0, 1, 1]]
    );
    // a7<: 3 lifted; a6 2->3, a5 6->7, a4 0->1: ends.
    assert_eq!(south("a7<"), [[0, 0, 0, 1, 7, 3, 0, 0], [0; 8]]);
}

#[test]
fn mtaji_central_capture_keeps_the_direction() {
    let g = game();
    // South: a1 = 2, a3 = 1, a5 = 2. North front: column 2 (facing a3) = 1, column 6 = 1.
    let p = mtaji(
        [
            [0; 8],
            [0, 0, 1, 0, 0, 0, 1, 0],
            [2, 0, 1, 0, 2, 0, 0, 0],
            [0; 8],
        ],
        Side::A,
    );
    let moves = g.moves(&p);
    // a1> : a2 0->1, a3 1->2 ends on a3, which held a seed, facing 1: capture.
    // a5< : a4 0->1, a3 1->2: capture as well. a1< (b1, b2) and a5> (a6, a7) end in empty
    // pits without capturing: capture is mandatory, so only the two captures are legal.
    assert_eq!(labels(&moves), ["a1>", "a5<"]);
    // a1>: a3 is central (columns 2..5), the move ran clockwise, so the captured seed enters
    // at the left kichwa a1 (emptied at the start): 0->1, empty before, the move ends.
    let (q, captured) = after(&moves, "a1>");
    assert_eq!(captured, 1);
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 0, 0, 0, 0, 1, 0],
            [1, 1, 2, 0, 2, 0, 0, 0],
            [0; 8]
        ]
    );
    // a5<: anti-clockwise, so the seed enters at the right kichwa a8: 0->1, ends.
    let (q, _) = after(&moves, "a5<");
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 0, 0, 0, 0, 1, 0],
            [2, 0, 2, 1, 0, 0, 0, 1],
            [0; 8]
        ]
    );
    assert_eq!(total(&q), total(&p));
}

#[test]
fn kimbi_capture_forces_its_kichwa_even_against_the_direction() {
    let g = game();
    // South: a2 = 1, a4 = 2. North front: column 1 (facing a2) = 2, column 5 = 1.
    let p = mtaji(
        [
            [0; 8],
            [0, 2, 0, 0, 0, 1, 0, 0],
            [0, 1, 0, 2, 0, 0, 0, 0],
            [0; 8],
        ],
        Side::A,
    );
    let moves = g.moves(&p);
    // a4> (a5, a6: empty) captures nothing; a4< captures.
    assert_eq!(labels(&moves), ["a4<"]);
    // a4<: a3 0->1, a2 1->2 ends on a2 (held 1) facing 2: capture 2. a2 is in the left kimbi,
    // so the 2 seeds enter at the left kichwa although the move ran anti-clockwise, and the
    // move turns clockwise: a1 0->1, a2 2->3 ends on a2, which held seeds; its facing pit is
    // empty now, so relay: lift 3, a3 1->2, a4 0->1, a5 0->1 ends (a5 was empty).
    let (q, captured) = after(&moves, "a4<");
    assert_eq!(captured, 2);
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 0, 0, 0, 1, 0, 0],
            [1, 0, 2, 1, 1, 0, 0, 0],
            [0; 8]
        ]
    );
}

#[test]
fn kimbi_capture_for_north_mirrors_south() {
    let g = game();
    // The same position turned round for North: North's a2 is row 1 column 6, a4 column 4;
    // South's column 6 faces North's a2, South's column 2 faces North's a6.
    let p = mtaji(
        [
            [0; 8],
            [0, 0, 0, 0, 2, 0, 1, 0],
            [0, 0, 1, 0, 0, 0, 2, 0],
            [0; 8],
        ],
        Side::B,
    );
    let moves = g.moves(&p);
    assert_eq!(labels(&moves), ["a4<"]);
    // North's a1..a5 after the move are 1 0 2 1 1, i.e. row 1 columns 7..3.
    let (q, _) = after(&moves, "a4<");
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 0, 1, 1, 2, 0, 1],
            [0, 0, 1, 0, 0, 0, 0, 0],
            [0; 8]
        ]
    );
}

#[test]
fn capture_chained_after_a_relay_lap_that_captured_nothing() {
    let g = game();
    // South: a2 = 1, a4 = 2, a5 = 1. North front: column 1 = 2, column 4 = 2, column 6 = 1.
    let p = mtaji(
        [
            [0; 8],
            [0, 2, 0, 0, 2, 0, 1, 0],
            [0, 1, 0, 2, 1, 0, 0, 0],
            [0; 8],
        ],
        Side::A,
    );
    let moves = g.moves(&p);
    // a4> (a5 1->2, a6 0->1: empty) captures nothing; only a4< is legal.
    assert_eq!(labels(&moves), ["a4<"]);
    // a4<: a3 0->1, a2 1->2: capture 2 (column 1). Left kimbi: enter at a1 clockwise,
    //   a1 0->1, a2 2->3: a2 held seeds, facing now empty: relay (no capture this lap),
    //   lift 3: a3 1->2, a4 0->1, a5 1->2: a5 held a seed and faces column 4 (2): capture 2.
    //   a5 is central and the move runs clockwise: enter at a1 again, a1 1->2, a2 0->1:
    //   a2 was empty (lifted), the move ends.
    let (q, captured) = after(&moves, "a4<");
    assert_eq!(captured, 4);
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 0, 0, 0, 0, 1, 0],
            [2, 1, 2, 1, 2, 0, 0, 0],
            [0; 8]
        ]
    );
    assert_eq!(total(&q), total(&p));
}

#[test]
fn a_start_of_sixteen_or_more_never_captures_on_its_first_lap() {
    let g = game();
    // South: a2 = 17, a3 = 1. North front: column 2 (facing a3) = 1.
    let mut rows: Rows = [[0; 8]; 4];
    rows[2][1] = 17;
    rows[2][2] = 1;
    rows[1][2] = 1;
    let p = mtaji(rows, Side::A);
    let moves = g.moves(&p);
    // a2>: 16 seeds go once round (every pit of South's circuit +1, a2 included: a3 = 2),
    // the 17th falls into a3 (2->3), which held seeds and faces an occupied pit — but a start
    // of 16 or more does not capture on its first lap, so there is no capture move at all
    // and both directions are takasa moves.
    assert_eq!(labels(&moves), ["a2<", "a2>"]);
    // Circuit a1..a8, b8..b1 after the round and the 17th seed: 1 1 3 1 1 1 1 1 | 1 ... 1.
    // a2>: relay 3 from a3: a4 a5 a6 (2 each) | 2 from a6: a7 a8 | 2 from a8: b8 b7 |
    //   b6 b5 | b4 b3 | b2 b1 | a1 a2 (a2 1->2) | 2 from a2: a3 0->1, a4 2->3 | 3 from a4:
    //   a5 2->3, a6 0->1, a7 2->3 | 3 from a7: a8 0->1, b8 2->3, b7 0->1: b7 was lifted, the
    //   move ends.
    let (q, captured) = after(&moves, "a2>");
    assert_eq!(captured, 0);
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 1, 0, 0, 0, 0, 0],
            [2, 0, 1, 0, 3, 1, 0, 1],
            // Back row from column 0 (b1) to 7 (b8).
            [0, 2, 0, 2, 0, 2, 1, 3],
        ]
    );
    // a2<: after the round the 17th seed falls into a1 (1->2): relays of 2 from a1: b1 b2 |
    //   b3 b4 | b5 b6 | b7 b8 | a8 a7 | a6 a5 | a4 a3 (a3 2->3) | 3 from a3: a2 1->2,
    //   a1 0->1, b1 2->3 | 3 from b1: b2 0->1, b3 2->3, b4 0->1: ends.
    let (q, captured) = after(&moves, "a2<");
    assert_eq!(captured, 0);
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 1, 0, 0, 0, 0, 0],
            [1, 2, 0, 2, 0, 2, 0, 2],
            [0, 1, 3, 1, 2, 0, 2, 0],
        ]
    );
    assert_eq!(total(&q), total(&p));
}

#[test]
fn takasa_from_the_back_row_only_when_the_front_row_holds_singletons() {
    let g = game();
    // South: a3 = 1, a6 = 1 (singletons), b2 = 2. North front: column 7 = 1 (faces a8).
    let singletons = mtaji(
        [
            [0; 8],
            [0, 0, 0, 0, 0, 0, 0, 1],
            [0, 0, 1, 0, 0, 1, 0, 0],
            [0, 2, 0, 0, 0, 0, 0, 0],
        ],
        Side::A,
    );
    let moves = g.moves(&singletons);
    // No capture (b2> ends in a1, empty; b2< in b4). Every front pit holds at most 1, so
    // the back row may start: b2> (b1 0->1, a1 0->1) and b2< (b3 0->1, b4 0->1).
    assert_eq!(labels(&moves), ["b2<", "b2>"]);
    let (q, _) = after(&moves, "b2>");
    assert_eq!(rows_of(&q.board)[2], [1, 0, 1, 0, 0, 1, 0, 0]);
    assert_eq!(rows_of(&q.board)[3], [1, 0, 0, 0, 0, 0, 0, 0]);
    let (q, _) = after(&moves, "b2<");
    assert_eq!(rows_of(&q.board)[3], [0, 0, 1, 1, 0, 0, 0, 0]);

    // The same with a3 = 2: a front pit holds two, so only a3 may start.
    let mut rows = rows_of(&singletons.board);
    rows[2][2] = 2;
    let moves = g.moves(&mtaji(rows, Side::A));
    assert_eq!(labels(&moves), ["a3<", "a3>"]);
    // a3>: a4 0->1, a5 0->1. a3<: a2 0->1, a1 0->1.
    let (q, _) = after(&moves, "a3>");
    assert_eq!(rows_of(&q.board)[2], [0, 0, 0, 1, 1, 1, 0, 0]);
    let (q, _) = after(&moves, "a3<");
    assert_eq!(rows_of(&q.board)[2], [1, 1, 0, 0, 0, 1, 0, 0]);
}

#[test]
fn a_takasa_that_would_empty_the_front_row_is_refused() {
    let g = game();
    // South's only front seeds: a1 = 3 (the left kichwa). North front: column 7 = 1.
    let lone = mtaji(
        [
            [0; 8],
            [0, 0, 0, 0, 0, 0, 0, 1],
            [3, 0, 0, 0, 0, 0, 0, 0],
            [0; 8],
        ],
        Side::A,
    );
    let moves = g.moves(&lone);
    // a1< would lift the whole front row and sow b1 b2 b3: refused. a1> sows a2 a3 a4.
    assert_eq!(labels(&moves), ["a1>"]);
    let (q, _) = after(&moves, "a1>");
    assert_eq!(rows_of(&q.board)[2], [0, 1, 1, 1, 0, 0, 0, 0]);

    // With 10 seeds a1< would come round to the front row again (b1..b8, then a8 and a7),
    // ending with the front row occupied — still refused: sowing the lone kichwa outward
    // empties the front row the moment it is lifted. a1>: a2..a8, b8 b7 b6.
    let mut rows = rows_of(&lone.board);
    rows[2][0] = 10;
    let moves = g.moves(&mtaji(rows, Side::A));
    assert_eq!(labels(&moves), ["a1>"]);
    let (q, _) = after(&moves, "a1>");
    assert_eq!(rows_of(&q.board)[2], [0, 1, 1, 1, 1, 1, 1, 1]);
    assert_eq!(rows_of(&q.board)[3], [0, 0, 0, 0, 0, 1, 1, 1]);

    // The right kichwa alone, 10 seeds: only a8< (toward the centre).
    let mut rows: Rows = [[0; 8]; 4];
    rows[2][7] = 10;
    rows[1][0] = 1;
    assert_eq!(labels(&g.moves(&mtaji(rows, Side::A))), ["a8<"]);

    // With a4 = 1 as well the front row keeps a seed either way, so both directions are
    // legal: a1< sows b1 b2 b3; a1> sows a2 a3, and a4 1->2 relays 2 into a5 a6.
    let mut rows = rows_of(&lone.board);
    rows[2][3] = 1;
    let moves = g.moves(&mtaji(rows, Side::A));
    assert_eq!(labels(&moves), ["a1<", "a1>"]);
    let (q, _) = after(&moves, "a1<");
    assert_eq!(rows_of(&q.board)[2], [0, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(rows_of(&q.board)[3], [1, 1, 1, 0, 0, 0, 0, 0]);
    let (q, _) = after(&moves, "a1>");
    assert_eq!(rows_of(&q.board)[2], [0, 1, 1, 0, 1, 1, 0, 0]);
}

#[test]
fn a_capture_that_empties_the_front_row_ends_the_game_mid_move() {
    let g = game();
    // South: a2 = 1, a4 = 2. North's only front seeds: column 1 (facing a2) = 3.
    let p = mtaji(
        [
            [0, 0, 0, 0, 0, 0, 0, 2],
            [0, 3, 0, 0, 0, 0, 0, 0],
            [0, 1, 0, 2, 0, 0, 0, 0],
            [0; 8],
        ],
        Side::A,
    );
    let moves = g.moves(&p);
    assert_eq!(labels(&moves), ["a4<"]);
    // a4<: a3 0->1, a2 1->2: capture 3, North's front row is now empty: the move stops and
    // the 3 seeds stay in a2 (2 + 3 = 5) instead of being sown from the kichwa.
    let (q, captured) = after(&moves, "a4<");
    assert_eq!(captured, 3);
    assert_eq!(
        rows_of(&q.board),
        [
            [0, 0, 0, 0, 0, 0, 0, 2],
            [0; 8],
            [0, 5, 1, 0, 0, 0, 0, 0],
            [0; 8]
        ]
    );
    // North, to move with an empty front row, has lost: no legal move.
    assert!(g.moves(&q).is_empty());

    // In the namua stage the placement itself can end the game: the seed goes into a2
    // (1 -> 2), the 3 seeds of North's last front pit are taken and stay there: a2 = 5. No
    // sowing follows, so the move has no arrow.
    let namua = g
        .make_position(&p.board, Side::A, [4, 4], [false, false])
        .unwrap();
    let moves = g.moves(&namua);
    assert_eq!(labels(&moves), ["a2"]);
    let (q, _) = after(&moves, "a2");
    assert_eq!(rows_of(&q.board)[2], [0, 5, 0, 2, 0, 0, 0, 0]);
    assert_eq!(rows_of(&q.board)[1], [0; 8]);
    assert_eq!(q.hands, [3, 4]);
}

#[test]
fn the_house_alone_pays_a_tax_of_two_seeds() {
    let g = game();
    // Namua. South's only front seeds: the standing house a5 = 8. North front: column 0 = 2
    // (facing a1, empty: no capture).
    let mut rows: Rows = [[0; 8]; 4];
    rows[2][4] = 8;
    rows[1][0] = 2;
    let p = g
        .make_position(&board(rows), Side::A, [5, 5], [true, false])
        .unwrap();
    assert!(p.house_functional(Side::A));
    let moves = g.moves(&p);
    // The seed goes into the house (9) and only 2 are lifted (7 stay): a5> sows a6 a7,
    // a5< sows a4 a3; both end in empty pits. The house keeps standing.
    assert_eq!(labels(&moves), ["a5<", "a5>"]);
    let (q, _) = after(&moves, "a5>");
    assert_eq!(rows_of(&q.board)[2], [0, 0, 0, 0, 7, 1, 1, 0]);
    assert_eq!(q.hands, [4, 5]);
    assert_eq!(q.houses, [true, false]);
    assert!(q.house_functional(Side::A));
    let (q, _) = after(&moves, "a5<");
    assert_eq!(rows_of(&q.board)[2], [0, 0, 1, 1, 7, 0, 0, 0]);

    // Without a standing house the pit is ordinary: place (9) and sow all nine, a5> runs
    // a6 a7 a8 b8 b7 b6 b5 b4 b3.
    let plain = g
        .make_position(&board(rows), Side::A, [5, 5], [false, false])
        .unwrap();
    let (q, _) = after(&g.moves(&plain), "a5>");
    assert_eq!(rows_of(&q.board)[2], [0, 0, 0, 0, 0, 1, 1, 1]);
    assert_eq!(rows_of(&q.board)[3], [0, 0, 1, 1, 1, 1, 1, 1]);
}

#[test]
fn safari_and_stop_are_both_offered_after_a_capture_lap_ending_in_the_house() {
    let g = game();
    // Namua. South: a3 = 1, standing house a5 = 6. North front: column 2 (facing a3) = 5,
    // column 7 = 1.
    let rows: Rows = [
        [0; 8],
        [0, 0, 5, 0, 0, 0, 0, 1],
        [0, 0, 1, 0, 6, 0, 0, 0],
        [0; 8],
    ];
    let p = g
        .make_position(&board(rows), Side::A, [3, 3], [true, false])
        .unwrap();
    let moves = g.moves(&p);
    // The seed goes into a3 (2) and captures 5; a3 is central, so either kichwa.
    // a3>: from a1 clockwise: a1 a2 a3 a4 a5, ending in the functional house (6 -> 7, facing
    // North column 4, empty): stop, or safari.
    // a3<: from a8 anti-clockwise: a8 a7 a6 a5 (6 -> 7) a4, ending in a4 (empty).
    assert_eq!(labels(&moves), ["a3<", "a3> safari", "a3> stop"]);
    let (q, captured) = after(&moves, "a3> stop");
    assert_eq!(captured, 5);
    assert_eq!(rows_of(&q.board)[2], [1, 1, 3, 1, 7, 0, 0, 0]);
    assert_eq!(q.houses, [true, false]);
    // Safari: lift the 7 from the house (it stops standing) and sow on clockwise:
    // a6 a7 a8 b8 b7 b6 b5; b5 was empty: the move ends.
    let (q, _) = after(&moves, "a3> safari");
    assert_eq!(rows_of(&q.board)[2], [1, 1, 3, 1, 0, 1, 1, 1]);
    assert_eq!(rows_of(&q.board)[3], [0, 0, 0, 0, 1, 1, 1, 1]);
    assert_eq!(q.houses, [false, false]);
    let (q, _) = after(&moves, "a3<");
    assert_eq!(rows_of(&q.board)[2], [0, 0, 2, 1, 7, 1, 1, 1]);
    assert_eq!(q.hands, [2, 3]);
    for m in &moves {
        if let MoveOutcome::Position(q) = m.outcome {
            assert_eq!(total(&q), total(&p));
        }
    }

    // The same capture with the hand's last seed: the house no longer matters afterwards,
    // but it still offers the choice during this move.
    let last = g
        .make_position(&board(rows), Side::A, [1, 3], [true, false])
        .unwrap();
    let moves = g.moves(&last);
    assert_eq!(labels(&moves), ["a3<", "a3> safari", "a3> stop"]);
    let (q, _) = after(&moves, "a3> stop");
    assert_eq!(q.hands, [0, 3]);
    assert_eq!(q.houses, [false, false]);
}

/// South's circuit a1..a8, b8..b1 holds 0 1 0 1 0 1 0 1 | 3 1 0 1 0 1 0 1: every other pit
/// a singleton and b8 = 3, 11 seeds.
fn never_ending_position() -> BaoPosition {
    mtaji(
        [
            [0; 8],
            // North's only seed faces a1, so no start captures.
            [1, 0, 0, 0, 0, 0, 0, 0],
            [0, 1, 0, 1, 0, 1, 0, 1],
            // Back row from b1 (column 0) to b8 (column 7).
            [1, 0, 1, 0, 1, 0, 1, 3],
        ],
        Side::A,
    )
}

#[test]
fn a_never_ending_move_is_detected() {
    // Only b8 holds two or more (the front row holds singletons, so the back row may start).
    // b8> (circuit index 8, clockwise), lap-start state S0: odd circuit indices 1, even 0,
    // hand 3 at index 8.
    //   3 seeds: idx 9 1->2, 10 0->1, 11 1->2 -> relay 2 from 11: 12, 13 (1->2) -> relay 2
    //   from 13: 14, 15 -> from 15: 0, 1 -> from 1: 2, 3 -> from 3: 4, 5 -> from 5: 6, 7 ->
    //   from 7: 8 0->1, 9 2->3 -> relay 3 from 9.
    //   Now even indices hold 1 and odd 0, hand 3 at index 9: S0 turned one pit on. Each
    //   such round of 8 laps turns it one further, so after 16 rounds S0 is back: the move
    //   never ends. b8< is the mirror image (S0 turns one pit back per round).
    let p = never_ending_position();
    let illegal = Bao::new(BaoRules::parse("never-ending=illegal").unwrap());
    assert!(illegal.moves(&p).is_empty(), "both starts never end");
    let mut succ = Vec::new();
    illegal.successors(&p, &mut succ);
    assert!(succ.is_empty());

    let loss = Bao::new(BaoRules::parse("never-ending=loss").unwrap());
    let moves = loss.moves(&p);
    assert_eq!(labels(&moves), ["b8<", "b8>"]);
    assert!(moves.iter().all(|m| m.outcome == MoveOutcome::MoverLoses));
    // Such a move is why a tier under this rule is not closed (its cells keep four bytes).
    assert!(!loss.closed_tier(11) && illegal.closed_tier(11));

    // One seed fewer in b8 (2) and the sowing ends: b8> drops into b7 (1->2), b6 (0->1).
    let mut rows = rows_of(&p.board);
    rows[3][7] = 2;
    let moves = illegal.moves(&mtaji(rows, Side::A));
    assert_eq!(labels(&moves), ["b8<", "b8>"]);
}

#[test]
fn positions_with_an_empty_front_row_have_no_move() {
    let g = game();
    // South has seeds, but only in the back row: South has lost.
    let mut rows: Rows = [[0; 8]; 4];
    rows[3] = [2, 2, 0, 0, 0, 0, 0, 0];
    rows[1][3] = 1;
    assert!(g.moves(&mtaji(rows, Side::A)).is_empty());
    // North with no seeds at all.
    assert!(g.moves(&mtaji(rows, Side::B)).is_empty());
}

#[test]
fn namua_takasa_uses_non_singletons_and_spares_the_house() {
    let g = game();
    // South: a1 = 1, a3 = 2, house a5 = 6 (standing), a8 = 1. North front: column 6 = 1.
    let rows: Rows = [
        [0; 8],
        [0, 0, 0, 0, 0, 0, 1, 0],
        [1, 0, 2, 0, 6, 0, 0, 1],
        [0; 8],
    ];
    let p = g
        .make_position(&board(rows), Side::A, [2, 2], [true, false])
        .unwrap();
    // No capture (a7 faces the only North seed, and a7 is empty). a3 is the only
    // non-singleton besides the functional house; with the placed seed it holds 3:
    // a3> sows a4 0->1, a5 6->7, a6 0->1; a3< sows a2 0->1, a1 1->2, b1 0->1.
    let moves = g.moves(&p);
    assert_eq!(labels(&moves), ["a3<", "a3>"]);
    let (q, _) = after(&moves, "a3>");
    assert_eq!(rows_of(&q.board)[2], [1, 0, 0, 1, 7, 1, 0, 1]);
    let (q, _) = after(&moves, "a3<");
    assert_eq!(rows_of(&q.board)[2], [2, 1, 0, 0, 6, 0, 0, 1]);
    assert_eq!(rows_of(&q.board)[3], [1, 0, 0, 0, 0, 0, 0, 0]);

    // Only singletons besides the house: any of them, either way.
    let mut rows = rows;
    rows[2][2] = 1;
    let p = g
        .make_position(&board(rows), Side::A, [2, 2], [true, false])
        .unwrap();
    assert_eq!(
        labels(&g.moves(&p)),
        ["a1<", "a1>", "a3<", "a3>", "a8<", "a8>"]
    );
}
