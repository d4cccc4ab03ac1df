//! North's side of the board, worked on paper from the rules alone, and the stages'
//! hand-over (houses, namua captures, the turn to mtaji).

use super::*;

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
