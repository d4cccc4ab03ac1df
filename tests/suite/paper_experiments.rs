//! The paper's Experiments 3 and 4 (RULES.md §1, "Paper check"), derived from the rules by hand.

use bawo_db::{Database, Value};
use bawo_games::game::bawo::{Bawo, BawoRules};
use bawo_games::game::{Game, MoveOutcome, Side};
use bawo_solve::run::SolveConfig;
use bawo_solve::solve;
use bawo_solve::tier::Silent;

/// Experiment 3: n = 4, L = 6, 11 seeds, one pit of 10. A lifts the 10, drops six (pits 1..=6),
/// the sixth drop reaches the cap, the four still in hand are discarded: 7 seeds stay on the
/// board (the six sown plus the lone seed elsewhere), 4 are discarded.
#[test]
fn experiment_3_truncation_keeps_7_of_11() {
    let g = Bawo::new(4, 6, BawoRules::default()).unwrap();
    let mut board = [0u8; 16];
    board[0] = 10;
    board[12] = 1; // B's back row, out of A's way
    let pos = g.make_position(&board, Side::A);
    let moves = g.moves(&pos);
    assert_eq!(moves.len(), 1, "only the 10-seed pit may start");
    let m = &moves[0];
    assert_eq!(m.label, "0");
    assert_eq!(m.discarded, 4);
    assert_eq!(m.captured, 0);
    let MoveOutcome::Position(q) = &m.outcome else {
        panic!()
    };
    let kept: u32 = q.board[..16].iter().map(|&c| c as u32).sum();
    assert_eq!(kept, 7);
    let mut expected = [0u8; 16];
    expected[1..=6].fill(1);
    expected[12] = 1;
    assert_eq!(&q.board[..16], &expected);
}

/// Experiment 4: [1,1,1,1,1,1,1,1]: no pit may start (R5), the mover has no legal move and
/// loses at once; the solver stores LOSS with depth 0 for both sides to move.
#[test]
fn experiment_4_singletons_are_a_terminal_loss() {
    let g = Bawo::new(2, 16, BawoRules::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = SolveConfig::new(8, dir.path());
    solve(&g, &cfg, &Silent).unwrap();
    let db = Database::open(dir.path()).unwrap();
    for side in [Side::A, Side::B] {
        let pos = g.make_position(&[1; 8], side);
        assert!(g.moves(&pos).is_empty());
        let e = db.probe_position(&g, &pos).unwrap();
        assert_eq!(e.value(), Some(Value::Loss));
        assert_eq!(e.depth(), Some(0));
    }
}
