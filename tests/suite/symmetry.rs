//! Side-to-move symmetry: a tier stores the positions with A to move, and a position with B to
//! move is answered by its mirror. The mirror of every game is an involution that keeps the
//! tier and swaps the side to move, `locate` sends a position and its mirror to one entry, and
//! the stored positions are exactly those with A to move. (That the mirror is a symmetry of the
//! rules is proven against independent definitions in `bawo_properties.rs`,
//! `kigogo_moves_vs_oracle.rs` and `bao_properties.rs`; that the values it answers are the
//! brute-force oracle's, for both sides, in the `*_solver_vs_oracle.rs` tests.) A database
//! written before this layout is refused with one clear line.

use crate::common;

use std::path::Path;

use bawo_games::game::bao::{Bao, BaoPosition, BaoRules};
use bawo_games::game::bawo::{Bawo, BawoRules};
use bawo_games::game::kigogo::{Kigogo, KigogoPosition, KigogoRules};
use bawo_games::game::{Game, MoveOutcome, Side, Successor};
use common::cli::{assert_fails, assert_ok, bawo, text};
use proptest::prelude::*;

/// Every property of the mirror the storage relies on, for one position `p` of `g`.
fn check_mirror<G: Game>(g: &G, p: &G::Position) -> Result<(), TestCaseError> {
    let m = g.mirror(p);
    prop_assert_eq!(&g.mirror(&m), p, "an involution");
    prop_assert_eq!(g.side_to_move(&m), g.side_to_move(p).other());
    prop_assert_ne!(&m, p, "no position is its own mirror");
    let mut seeds = g.board_counts(p);
    let mut mirrored = g.board_counts(&m);
    seeds.sort_unstable();
    mirrored.sort_unstable();
    prop_assert_eq!(seeds, mirrored, "the same pits, moved");
    let (tier, index) = g.locate(p).unwrap();
    prop_assert_eq!(g.locate(&m).unwrap(), (tier, index), "one entry for both");
    prop_assert!(index < g.tier_size(tier).unwrap());
    // The stored position of that entry is whichever of the two has A to move.
    let stored = g.position(tier, index);
    prop_assert_eq!(g.side_to_move(&stored), Side::A);
    let a = if g.side_to_move(p) == Side::A { p } else { &m };
    prop_assert_eq!(&stored, a);
    // Moves lead to positions of the opponent, which are located through their own mirrors;
    // the solver's successors are exactly those (in any order).
    let mut succ = Vec::new();
    g.successors(p, &mut succ);
    let mut from_moves = Vec::new();
    for mv in g.moves(p) {
        match mv.outcome {
            MoveOutcome::Position(q) => {
                prop_assert_eq!(g.side_to_move(&q), g.side_to_move(p).other());
                let (tier, index) = g.locate(&q).unwrap();
                prop_assert_eq!(g.locate(&g.mirror(&q)).unwrap(), (tier, index));
                from_moves.push(Successor::Position { tier, index });
            }
            MoveOutcome::MoverLoses => from_moves.push(Successor::MoverLoses),
        }
    }
    succ.sort_unstable();
    from_moves.sort_unstable();
    prop_assert_eq!(succ, from_moves);
    Ok(())
}

fn side() -> impl Strategy<Value = Side> {
    prop_oneof![Just(Side::A), Just(Side::B)]
}

/// Up to `max` seeds scattered over `pits` pits.
fn board(pits: usize, max: u32) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(0usize..pits, 0..=max as usize).prop_map(move |drops| {
        let mut b = vec![0u8; pits];
        for p in drops {
            b[p] += 1;
        }
        b
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn bawo_mirror((n, lap_cap, board, side) in (1u32..=8, 1u64..=80).prop_flat_map(|(n, l)| {
        (Just(n), Just(l), board(4 * n as usize, 30), side())
    }), relay in any::<bool>()) {
        let rules = if relay { "kichwa=relay" } else { "" };
        let g = Bawo::new(n, lap_cap, BawoRules::parse(rules).unwrap()).unwrap();
        check_mirror(&g, &g.make_position(&board, side))?;
    }

    #[test]
    fn kigogo_mirror(board in board(48, 24), side in side()) {
        let g = Kigogo::new(KigogoRules::default());
        let mut b = [0u8; 48];
        b.copy_from_slice(&board);
        check_mirror(&g, &KigogoPosition { board: b, side })?;
    }

    #[test]
    fn bao_mirror(board in board(32, 12), side in side(), loss in any::<bool>()) {
        let rules = if loss { "never-ending=loss" } else { "" };
        let g = Bao::new(BaoRules::parse(rules).unwrap());
        let mut b = [0u8; 32];
        b.copy_from_slice(&board);
        check_mirror(&g, &BaoPosition::mtaji(b, side))?;
    }
}

#[test]
fn bao_mirror_exchanges_hands_and_houses() {
    let g = Bao::new(BaoRules::default());
    let p = Bao::opening();
    let m = g.mirror(&p);
    assert_eq!(m.side, Side::B);
    // The opening is symmetric: only the side to move changes.
    assert_eq!((m.board, m.hands, m.houses), (p.board, p.hands, p.houses));
    let mut q = p;
    q.hands = [3, 7];
    q.houses = [true, false];
    let m = g.mirror(&q);
    assert_eq!((m.hands, m.houses), ([7, 3], [false, true]));
    assert_eq!(g.mirror(&m), q);
}

/// Every stored position of small tiers has A to move, and every position of either side is
/// reached once as a stored position or the mirror of one: the entries stand for exactly the
/// tier's positions, twice the tier size.
#[test]
fn entries_and_their_mirrors_are_every_position_once() {
    let g = Bawo::new(2, 64, BawoRules::default()).unwrap();
    for tier in 0..=5 {
        let size = g.tier_size(tier).unwrap();
        assert_eq!(g.tier_positions(tier).unwrap(), 2 * size);
        let mut seen = std::collections::HashSet::new();
        g.visit(tier, 0..size, |i, p| {
            assert_eq!(p.side, Side::A);
            assert_eq!(g.locate(p).unwrap(), (tier, i));
            assert!(seen.insert(*p));
            assert!(seen.insert(g.mirror(p)));
        });
        // C(tier + 7, 7) boards, each with either side to move.
        let boards = bawo_games::rank::compositions(tier, 8).unwrap() as usize;
        assert_eq!(seen.len(), 2 * boards);
    }
}

fn solve_small(dir: &Path) {
    let out = bawo(&[
        "solve",
        "--n",
        "2",
        "--seeds",
        "4",
        "--out",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert_ok(&out, "solve");
}

/// Rewrites the manifest's `format` field as an older bawo wrote it (the field is checked
/// before anything else, so its checksum need not match).
fn set_manifest_format(dir: &Path, format: u32) {
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["format"] = format.into();
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn a_database_of_the_older_format_is_refused_with_one_line() {
    // Format 3 stored both sides to move, format 4 ordered a tier by the whole board's
    // composition rank: either would answer wrongly if read.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    solve_small(&db);
    let d = db.to_str().unwrap();
    let board = ["--board", "0,0,2,2,0,0,0,0"];
    for format in [3, 4] {
        set_manifest_format(&db, format);
        for args in [
            vec!["query", "--db", d, board[0], board[1], "--to-move", "B"],
            vec!["stats", "--db", d],
            vec!["verify", "--db", d],
            vec!["export", "--db", d, "--tier", "4"],
            vec!["solve", "--n", "2", "--seeds", "4", "--out", d, "--resume"],
            vec!["solve", "--n", "2", "--seeds", "4", "--out", d],
        ] {
            let out = bawo(&args);
            assert_fails(
                &out,
                1,
                "written by an older version of bawo",
                &args.join(" "),
            );
            let err = text(&out.stderr);
            assert!(err.contains(&format!("database format {format}")), "{err}");
            assert!(err.contains("solve it again"), "{err}");
        }
    }
    // What the message says to do works: --force solves again over it.
    let out = bawo(&[
        "solve", "--n", "2", "--seeds", "4", "--out", d, "--force", "--quiet",
    ]);
    assert_ok(&out, "solve --force over the older database");
    let out = bawo(&["query", "--db", d, board[0], board[1], "--to-move", "B"]);
    assert_ok(&out, "query after solving again");
}

#[test]
fn a_database_of_a_newer_format_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    solve_small(&db);
    set_manifest_format(&db, 99);
    let out = bawo(&["stats", "--db", db.to_str().unwrap()]);
    assert_fails(&out, 1, "written by a newer version of bawo", "stats");
}

#[test]
fn a_tier_file_of_the_older_format_is_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    solve_small(&db);
    // Version field of the header, bytes 8..12 (docs/format.md), as version 1 (both sides) and
    // version 3 (the composition order of the whole board) wrote it.
    let path = db.join("tier-0004.bdb");
    let good = std::fs::read(&path).unwrap();
    for version in [1u32, 3] {
        let mut bytes = good.clone();
        bytes[8..12].copy_from_slice(&version.to_le_bytes());
        std::fs::write(&path, bytes).unwrap();
        let out = bawo(&["stats", "--db", db.to_str().unwrap()]);
        assert_fails(&out, 1, "written by an older version of bawo", "stats");
        assert!(text(&out.stderr).contains("solve it again"));
    }
}
