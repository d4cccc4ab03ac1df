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

// ---------------------------------------------------------------------------------------------
// North's geometry, worked on paper from `RULES.md` §3 alone. North sits at row 0's side and
// faces South, so North's left is column 7: North's front pits a1..a8 are row 1 columns 7..0,
// its back pits b1..b8 row 0 columns 7..0. Clockwise seen from above runs along North's front
// row from its left to its right, i.e. row 1 from column 7 toward column 0, then on into row 0
// at column 0 (North's b8) and along row 0 toward column 7 (b1), then back into row 1 column 7.
// The left kichwa is row 1 column 7 (kimbi: columns 7 and 6), the right kichwa row 1 column 0
// (kimbi: columns 0 and 1). Facing pits share a column.
// ---------------------------------------------------------------------------------------------

#[test]
fn north_central_capture_clockwise_enters_at_column_seven() {
    let g = game();
    // North: a1 (col 7) = 2, a3 (col 5) = 1. South: col 5 = 1 (faces North's a3), col 0 = 1.
    let p = mtaji(
        [
            [0; 8],
            [0, 0, 0, 0, 0, 1, 0, 2],
            [1, 0, 0, 0, 0, 1, 0, 0],
            [0; 8],
        ],
        Side::B,
    );
    let moves = g.moves(&p);
    // a1> (clockwise, toward column 0): col 6 0->1, col 5 1->2: held a seed, faces South col 5
    // (1): capture. a1< (outward): row 0 col 7 (b1), col 6 (b2), both empty: no capture, so
    // illegal while a capture exists.
    assert_eq!(labels(&moves), ["a1>"]);
    // Column 5 is North's a3 (index 2, central): the move ran clockwise, so the seed enters at
    // the left kichwa, column 7 (emptied by the lift): 0->1, empty before: the move ends.
    let (q, captured) = after(&moves, "a1>");
    assert_eq!(captured, 1);
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 0, 0, 0, 2, 1, 1],
            [1, 0, 0, 0, 0, 0, 0, 0],
            [0; 8]
        ]
    );
}

#[test]
fn north_central_capture_anticlockwise_enters_at_column_zero() {
    let g = game();
    // North: a4 (col 4) = 1, a6 (col 2) = 2. South: col 4 = 3 (faces North's a4), col 7 = 1.
    let p = mtaji(
        [
            [0; 8],
            [0, 0, 2, 0, 1, 0, 0, 0],
            [0, 0, 0, 0, 3, 0, 0, 1],
            [0; 8],
        ],
        Side::B,
    );
    let moves = g.moves(&p);
    // a6< (anti-clockwise, toward column 7): col 3 0->1, col 4 1->2: capture 3. a6> runs
    // col 1, col 0 (empty): no capture.
    assert_eq!(labels(&moves), ["a6<"]);
    // Column 4 is North's a4 (index 3, central), anti-clockwise: the 3 seeds enter at North's
    // right kichwa, column 0, and run toward the centre: col 0 0->1, col 1 0->1, col 2 (lifted)
    // 0->1: empty before, the move ends.
    let (q, captured) = after(&moves, "a6<");
    assert_eq!(captured, 3);
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [1, 1, 1, 1, 2, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 0, 1],
            [0; 8]
        ]
    );
}

#[test]
fn north_kimbi_and_just_inside_it() {
    let g = game();
    // Right kimbi (col 1, North's a7), reached clockwise: North a5 (col 3) = 2, a7 (col 1) = 1;
    // South col 1 = 2, col 6 = 1.
    let p = mtaji(
        [
            [0; 8],
            [0, 1, 0, 2, 0, 0, 0, 0],
            [0, 2, 0, 0, 0, 0, 1, 0],
            [0; 8],
        ],
        Side::B,
    );
    let moves = g.moves(&p);
    // a5>: col 2 0->1, col 1 1->2: capture 2. a5< runs col 4, col 5 (empty): no capture.
    assert_eq!(labels(&moves), ["a5>"]);
    // Kimbi of North's right end: the 2 seeds enter at column 0 and run toward the centre
    // (anti-clockwise, the move turns): col 0 0->1, col 1 2->3: held seeds, faces South col 1
    // (now empty): relay 3 anti-clockwise: col 2 1->2, col 3 (lifted) 0->1, col 4 0->1: ends.
    let (q, captured) = after(&moves, "a5>");
    assert_eq!(captured, 2);
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [1, 0, 2, 1, 1, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 1, 0],
            [0; 8]
        ]
    );

    // Just inside it (col 2, North's a6, index 5 — central), reached clockwise: North a4
    // (col 4) = 2, a6 (col 2) = 1; South col 2 = 1, col 0 = 1.
    let p = mtaji(
        [
            [0; 8],
            [0, 0, 1, 0, 2, 0, 0, 0],
            [1, 0, 1, 0, 0, 0, 0, 0],
            [0; 8],
        ],
        Side::B,
    );
    let moves = g.moves(&p);
    // a4>: col 3 0->1, col 2 1->2: capture 1. a4<: col 5, col 6: nothing.
    assert_eq!(labels(&moves), ["a4>"]);
    // Central and clockwise: the seed enters at the LEFT kichwa, column 7, 0->1: ends.
    let (q, _) = after(&moves, "a4>");
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 2, 1, 0, 0, 0, 1],
            [1, 0, 0, 0, 0, 0, 0, 0],
            [0; 8]
        ]
    );

    // The same with 9 seeds in South's col 2: they enter at column 7 and run clockwise along
    // the whole front row (cols 7..0, one each) and on into North's back row at column 0
    // (b8), which was empty: the move ends.
    let mut rows = rows_of(&p.board);
    rows[2][2] = 9;
    let moves = g.moves(&mtaji(rows, Side::B));
    assert_eq!(labels(&moves), ["a4>"]);
    let (q, captured) = after(&moves, "a4>");
    assert_eq!(captured, 9);
    assert_eq!(
        rows_of(&q.board),
        [
            [1, 0, 0, 0, 0, 0, 0, 0],
            // col 0..7: 0+1, 0+1, 2+1, 1+1, 0+1, 0+1, 0+1, 0+1
            [1, 1, 3, 2, 1, 1, 1, 1],
            [1, 0, 0, 0, 0, 0, 0, 0],
            [0; 8]
        ]
    );
}

#[test]
fn north_capture_in_the_kichwa_itself_sows_into_the_capturing_pit() {
    let g = game();
    // North: a1 (col 7) = 1, a3 (col 5) = 2. South: col 7 = 1 (faces North's a1), col 3 = 1.
    let p = mtaji(
        [
            [0; 8],
            [0, 0, 0, 0, 0, 2, 0, 1],
            [0, 0, 0, 1, 0, 0, 0, 1],
            [0; 8],
        ],
        Side::B,
    );
    let moves = g.moves(&p);
    // a3< (anti-clockwise, toward column 7): col 6 0->1, col 7 1->2: capture 1. a3> runs
    // col 4, col 3 (empty): nothing.
    assert_eq!(labels(&moves), ["a3<"]);
    // Left kimbi: the seed enters at the left kichwa, column 7 — the capturing pit itself —
    // and the move turns clockwise: col 7 2->3, a lap of one seed ending in an occupied pit
    // whose facing pit is now empty: relay 3 clockwise: col 6 1->2, col 5 (lifted) 0->1,
    // col 4 0->1: ends.
    let (q, captured) = after(&moves, "a3<");
    assert_eq!(captured, 1);
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 0, 0, 1, 1, 2, 0],
            [0, 0, 0, 1, 0, 0, 0, 0],
            [0; 8]
        ]
    );
}

#[test]
fn north_back_row_start_captures_on_its_first_lap() {
    let g = game();
    // North: b1 (row 0 col 7) = 2, a2 (row 1 col 6) = 1. South: col 6 = 1 (faces North's
    // a2), col 3 = 1.
    let p = mtaji(
        [
            [0, 0, 0, 0, 0, 0, 0, 2],
            [0, 0, 0, 0, 0, 0, 1, 0],
            [0, 0, 0, 1, 0, 0, 1, 0],
            [0; 8],
        ],
        Side::B,
    );
    let moves = g.moves(&p);
    // b1> (clockwise: from b1 on into the front row at column 7): col 7 0->1, col 6 1->2:
    // capture 1. b1< runs row 0 col 6, col 5 (empty): nothing.
    assert_eq!(labels(&moves), ["b1>"]);
    // Left kimbi: enter at col 7 clockwise: 1->2, held a seed, facing South col 7 empty:
    // relay 2: col 6 2->3, col 5 0->1: ends.
    let (q, _) = after(&moves, "b1>");
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 0, 0, 0, 1, 3, 0],
            [0, 0, 0, 1, 0, 0, 0, 0],
            [0; 8]
        ]
    );
}

#[test]
fn north_lone_kichwa_is_sown_toward_the_centre_at_either_end() {
    let g = game();
    // North's only front seeds: a1 (col 7) = 3. South: col 3 = 1 (facing North col 3, empty).
    let mut rows: Rows = [[0; 8]; 4];
    rows[1][7] = 3;
    rows[2][3] = 1;
    let moves = g.moves(&mtaji(rows, Side::B));
    // Toward the centre from column 7 is clockwise: cols 6, 5, 4 get one each; a1< would go
    // into row 0 and is refused.
    assert_eq!(labels(&moves), ["a1>"]);
    let (q, _) = after(&moves, "a1>");
    assert_eq!(rows_of(&q.board)[1], [0, 0, 0, 0, 1, 1, 1, 0]);
    assert_eq!(rows_of(&q.board)[0], [0; 8]);

    // The right kichwa, column 0: toward the centre is anti-clockwise: cols 1, 2, 3.
    let mut rows: Rows = [[0; 8]; 4];
    rows[1][0] = 3;
    rows[2][3] = 1;
    let moves = g.moves(&mtaji(rows, Side::B));
    assert_eq!(labels(&moves), ["a8<"]);
    let (q, _) = after(&moves, "a8<");
    assert_eq!(rows_of(&q.board)[1], [0, 1, 1, 1, 0, 0, 0, 0]);
}

#[test]
fn north_capture_that_empties_south_front_row_keeps_the_seeds() {
    let g = game();
    // North: a4 (col 4) = 2, a6 (col 2) = 1. South's only front seeds: col 2 = 3.
    let p = mtaji(
        [
            [0; 8],
            [0, 0, 1, 0, 2, 0, 0, 0],
            [0, 0, 3, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 0, 4],
        ],
        Side::B,
    );
    let moves = g.moves(&p);
    // a4>: col 3 0->1, col 2 1->2: capture 3; South's front row is empty: the game ends and
    // the 3 seeds stay in col 2 (2 + 3 = 5). a4<: col 5, col 6: nothing.
    assert_eq!(labels(&moves), ["a4>"]);
    let (q, captured) = after(&moves, "a4>");
    assert_eq!(captured, 3);
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 5, 1, 0, 0, 0, 0],
            [0; 8],
            [0, 0, 0, 0, 0, 0, 0, 4]
        ]
    );
    assert_eq!(total(&q), total(&p));
    // South keeps 4 seeds in the back row but has an empty front row: no move, lost.
    assert!(g.moves(&q).is_empty());
}

#[test]
fn south_right_kimbi_and_just_inside_it() {
    let g = game();
    // South: a5 (col 4) = 2, a7 (col 6) = 1. North: col 6 = 2 (faces a7), col 0 = 1.
    let p = mtaji(
        [
            [0; 8],
            [1, 0, 0, 0, 0, 0, 2, 0],
            [0, 0, 0, 0, 2, 0, 1, 0],
            [0; 8],
        ],
        Side::A,
    );
    let moves = g.moves(&p);
    // a5>: a6 0->1, a7 1->2: capture 2. a5<: a4, a3 empty: nothing.
    assert_eq!(labels(&moves), ["a5>"]);
    // Right kimbi: enter at a8 anti-clockwise (the move turns): a8 0->1, a7 2->3, facing now
    // empty: relay 3 anti-clockwise: a6 1->2, a5 (lifted) 0->1, a4 0->1: ends.
    let (q, captured) = after(&moves, "a5>");
    assert_eq!(captured, 2);
    assert_eq!(rows_of(&q.board)[2], [0, 0, 0, 1, 1, 2, 0, 1]);
    assert_eq!(rows_of(&q.board)[1], [1, 0, 0, 0, 0, 0, 0, 0]);

    // Just inside (a6, col 5, central), reached clockwise: a4 = 2, a6 = 1, North col 5 = 1.
    let p = mtaji(
        [
            [0; 8],
            [1, 0, 0, 0, 0, 1, 0, 0],
            [0, 0, 0, 2, 0, 1, 0, 0],
            [0; 8],
        ],
        Side::A,
    );
    let moves = g.moves(&p);
    // a4>: a5 0->1, a6 1->2: capture 1. a4<: a3, a2: nothing.
    assert_eq!(labels(&moves), ["a4>"]);
    // Central, clockwise: enter at the LEFT kichwa a1: 0->1, ends.
    let (q, _) = after(&moves, "a4>");
    assert_eq!(rows_of(&q.board)[2], [1, 0, 0, 0, 1, 2, 0, 0]);
    assert_eq!(rows_of(&q.board)[1], [1, 0, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn a_takasa_captures_nothing_even_when_a_later_lap_could() {
    let g = game();
    // South: a1 = 2, a3 = 1, a5 = 1. North: col 4 = 1 (faces a5).
    let p = mtaji(
        [
            [0; 8],
            [0, 0, 0, 0, 1, 0, 0, 0],
            [2, 0, 1, 0, 1, 0, 0, 0],
            [0; 8],
        ],
        Side::A,
    );
    let moves = g.moves(&p);
    // First laps: a1> ends on a3 (held 1, facing North col 2: empty) — no capture; a1< ends
    // on b2 (empty). a3 and a5 are singletons. No capture move exists: takasa, a1 either way
    // (a3 and a5 keep the front row occupied).
    assert_eq!(labels(&moves), ["a1<", "a1>"]);
    // a1>: a2 0->1, a3 1->2: relay 2: a4 0->1, a5 1->2: a5 held a seed and faces North's 1,
    // but a takasa captures nothing: relay 2: a6 0->1, a7 0->1: ends.
    let (q, captured) = after(&moves, "a1>");
    assert_eq!(captured, 0);
    assert_eq!(
        rows_of(&q.board),
        [
            [0; 8],
            [0, 0, 0, 0, 1, 0, 0, 0],
            [0, 1, 0, 1, 0, 1, 1, 0],
            [0; 8]
        ]
    );
}

#[test]
fn north_namua_capture_choice_safari_and_stop() {
    let g = game();
    // Namua, North to move. North: a3 (col 5) = 1, standing house a5 (col 3) = 6. South:
    // col 5 = 5 (faces North's a3), col 0 = 1.
    let rows: Rows = [
        [0; 8],
        [0, 0, 0, 6, 0, 1, 0, 0],
        [1, 0, 0, 0, 0, 5, 0, 0],
        [0; 8],
    ];
    let p = g
        .make_position(&board(rows), Side::B, [3, 3], [false, true])
        .unwrap();
    assert!(p.house_functional(Side::B));
    let moves = g.moves(&p);
    // The seed goes into a3 (1->2) and captures South's 5. a3 is central: either kichwa.
    // a3> (from North's left kichwa, col 7, clockwise): cols 7, 6, 5 (2->3), 4, 3 (house
    //   6->7): the lap ends in the functional house, facing South col 3 (empty): stop or
    //   safari.
    // a3< (from the right kichwa, col 0, anti-clockwise): cols 0, 1, 2, 3 (house 6->7), 4:
    //   col 4 was empty: ends.
    assert_eq!(labels(&moves), ["a3<", "a3> safari", "a3> stop"]);
    let (q, captured) = after(&moves, "a3> stop");
    assert_eq!(captured, 5);
    assert_eq!(rows_of(&q.board)[1], [0, 0, 0, 7, 1, 3, 1, 1]);
    assert_eq!(rows_of(&q.board)[2], [1, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(q.houses, [false, true]);
    assert_eq!(q.hands, [3, 2]);
    // Safari: lift the 7 and sow on clockwise: cols 2, 1, 0, then North's back row from
    // column 0: row 0 cols 0, 1, 2, 3 (b8..b5); col 3 was empty: ends. The house is gone.
    let (q, _) = after(&moves, "a3> safari");
    assert_eq!(rows_of(&q.board)[1], [1, 1, 1, 0, 1, 3, 1, 1]);
    assert_eq!(rows_of(&q.board)[0], [1, 1, 1, 1, 0, 0, 0, 0]);
    assert_eq!(q.houses, [false, false]);
    let (q, _) = after(&moves, "a3<");
    assert_eq!(rows_of(&q.board)[1], [1, 1, 1, 7, 1, 2, 0, 0]);
}

#[test]
fn north_house_tax_and_a_takasa_lap_ending_in_the_house() {
    let g = game();
    // Namua, North to move. North's only front seeds: the standing house a5 (col 3) = 8.
    // South: col 7 = 2 (facing North col 7, empty).
    let mut rows: Rows = [[0; 8]; 4];
    rows[1][3] = 8;
    rows[2][7] = 2;
    let p = g
        .make_position(&board(rows), Side::B, [5, 5], [false, true])
        .unwrap();
    let moves = g.moves(&p);
    // Tax: the seed goes into the house (9), 2 are lifted (7 stay). a5> (clockwise, toward
    // column 0): cols 2, 1. a5<: cols 4, 5. All were empty.
    assert_eq!(labels(&moves), ["a5<", "a5>"]);
    let (q, _) = after(&moves, "a5>");
    assert_eq!(rows_of(&q.board)[1], [0, 1, 1, 7, 0, 0, 0, 0]);
    assert_eq!(q.houses, [false, true]);
    let (q, _) = after(&moves, "a5<");
    assert_eq!(rows_of(&q.board)[1], [0, 0, 0, 7, 1, 1, 0, 0]);

    // North: a3 (col 5) = 1 and the house (col 3) = 6; South's seed at col 0. No capture.
    // Only a3 qualifies (a singleton, the functional house excluded). a3> (clockwise): the
    // placed seed makes 2: col 4 0->1, col 3 (house) 6->7: a takasa lap ending in the
    // functional house ends the move. a3<: cols 6, 7.
    let mut rows: Rows = [[0; 8]; 4];
    rows[1][3] = 6;
    rows[1][5] = 1;
    rows[2][0] = 1;
    let p = g
        .make_position(&board(rows), Side::B, [5, 5], [false, true])
        .unwrap();
    let moves = g.moves(&p);
    assert_eq!(labels(&moves), ["a3<", "a3>"]);
    let (q, _) = after(&moves, "a3>");
    assert_eq!(rows_of(&q.board)[1], [0, 0, 0, 7, 1, 0, 0, 0]);
    assert_eq!(rows_of(&q.board)[0], [0; 8]);
    assert_eq!(q.houses, [false, true]);
    let (q, _) = after(&moves, "a3<");
    assert_eq!(rows_of(&q.board)[1], [0, 0, 0, 6, 0, 0, 1, 1]);
}

#[test]
fn capturing_the_opponents_house_ends_it() {
    let g = game();
    // Namua, South to move. South: a4 (col 3) = 1, facing North's standing house (row 1
    // col 3) = 6. North also has col 7 = 1.
    let mut rows: Rows = [[0; 8]; 4];
    rows[1][3] = 6;
    rows[1][7] = 1;
    rows[2][3] = 1;
    let p = g
        .make_position(&board(rows), Side::A, [3, 3], [false, true])
        .unwrap();
    let moves = g.moves(&p);
    // The seed goes into a4 (2) and the 6 house seeds are captured; a4 is central: either
    // kichwa. a4>: a1..a6 one each, a6 was empty: ends. a4<: a8 a7 a6 a5, a4 2->3, a3: ends.
    assert_eq!(labels(&moves), ["a4<", "a4>"]);
    for (label, front) in [
        ("a4>", [1, 1, 1, 3, 1, 1, 0, 0]),
        ("a4<", [0, 0, 1, 3, 1, 1, 1, 1]),
    ] {
        let (q, captured) = after(&moves, label);
        assert_eq!(captured, 6);
        assert_eq!(rows_of(&q.board)[2], front);
        assert_eq!(rows_of(&q.board)[1], [0, 0, 0, 0, 0, 0, 0, 1]);
        // North's house was emptied by the capture: it never stands again.
        assert_eq!(q.houses, [false, false]);
    }
}

#[test]
fn the_stage_turns_to_mtaji_when_the_hands_run_out() {
    let g = game();
    // South: a3 (col 2) = 2, a8 (col 7) = 1. North: a8 (col 0) = 2, a7 (col 1) = 1. One seed
    // in each hand, no house. Nothing faces an occupied pit.
    let rows: Rows = [
        [0; 8],
        [2, 1, 0, 0, 0, 0, 0, 0],
        [0, 0, 2, 0, 0, 0, 0, 1],
        [0; 8],
    ];
    let p = g
        .make_position(&board(rows), Side::A, [1, 1], [false, false])
        .unwrap();
    // South (namua): takasa from a3, the only non-singleton: place (3), a3> sows a4 a5 a6.
    let (q, _) = after(&g.moves(&p), "a3>");
    assert_eq!(rows_of(&q.board)[2], [0, 0, 0, 1, 1, 1, 0, 1]);
    assert_eq!(q.hands, [0, 1]);
    // North (namua, its last seed): no capture (North's cols 0, 1 face South's empty cols 0,
    // 1). a8 (col 0) is the only non-singleton: place (3); a8< runs toward the centre:
    // col 1 1->2, col 2 0->1, col 3 0->1: ends.
    let (r, _) = after(&g.moves(&q), "a8<");
    assert_eq!(rows_of(&r.board)[1], [0, 2, 1, 1, 0, 0, 0, 0]);
    assert_eq!(r.hands, [0, 0]);
    // South now plays mtaji rules: no seed to place, and a front row of singletons with an
    // empty back row has no start of two or more. No capture either (nothing to start
    // from): South has no legal move and has lost.
    assert!(g.moves(&r).is_empty());
    // Had South kept a seed in hand, it could still place it (a takasa into a singleton).
    let mut r1 = r;
    r1.hands = [1, 0];
    assert!(!g.moves(&r1).is_empty());
}

#[test]
fn a_capture_placed_in_the_functional_house_keeps_it_standing() {
    let g = game();
    // Namua. South's only front seeds: the standing house a5 (col 4) = 6. North: col 4 = 2
    // (faces the house), col 0 = 1.
    let mut rows: Rows = [[0; 8]; 4];
    rows[2][4] = 6;
    rows[1][4] = 2;
    rows[1][0] = 1;
    let p = g
        .make_position(&board(rows), Side::A, [2, 2], [true, false])
        .unwrap();
    let moves = g.moves(&p);
    // A capture is possible, so it is made (no tax): the seed goes into the house (7) and
    // North's 2 are taken. The house is central: either kichwa. a5>: a1 0->1, a2 0->1, ends.
    // a5<: a8 0->1, a7 0->1, ends. The house was not emptied: it still stands, with 7.
    assert_eq!(labels(&moves), ["a5<", "a5>"]);
    for (label, front) in [
        ("a5>", [1, 1, 0, 0, 7, 0, 0, 0]),
        ("a5<", [0, 0, 0, 0, 7, 0, 1, 1]),
    ] {
        let (q, captured) = after(&moves, label);
        assert_eq!(captured, 2);
        assert_eq!(rows_of(&q.board)[2], front);
        assert_eq!(rows_of(&q.board)[1], [1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(q.houses, [true, false]);
        assert!(q.house_functional(Side::A));
    }
}
