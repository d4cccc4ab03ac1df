//! The `bawo` binary with `--game kigogo`: the opening's moves, JSON shape, a small solve and
//! query, and one-line errors with exit code 2 for bad input.

use crate::common;

use common::cli::{assert_ok, assert_usage_error, bawo, json};

/// An empty board with North's front pit in column 5 holding two seeds, rows separated by `/`.
const NORTH_TWO: &str = "0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,2,0,0,0,0,0,0/\
                         0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0";

#[test]
fn opening_moves_as_json() {
    let v = json(&bawo(&["moves", "--game", "kigogo", "--start", "--json"]));
    let moves = v["moves"].as_array().unwrap();
    // South's 23 pits holding two seeds (all but r2c0), none of them never-ending.
    assert_eq!(moves.len(), 23);
    for m in moves {
        assert_eq!(m["board"].as_array().unwrap().len(), 48);
        assert_eq!(m["to_move"], "B");
        let label = m["move"].as_str().unwrap();
        assert!(
            label.starts_with("r2c") || label.starts_with("r3c"),
            "{label}"
        );
    }
    let out = bawo(&["moves", "--game", "kigogo", "--start"]);
    assert_ok(&out, "moves --start");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("r0 North back"));
    assert!(text.contains("A (South) to move"));
}

#[test]
fn solve_then_query() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().to_str().unwrap();
    let out = bawo(&[
        "solve", "--game", "kigogo", "--seeds", "2", "--out", db, "--quiet",
    ]);
    assert_ok(&out, "solve");
    let v = json(&bawo(&[
        "query",
        "--db",
        db,
        "--board",
        NORTH_TWO,
        "--to-move",
        "B",
        "--json",
    ]));
    // r1c5 sows r1c6, r1c7; South has no seeds left to move: North wins in one ply.
    assert_eq!(v["value"], "WIN");
    assert_eq!(v["depth"], 1);
    assert_eq!(v["moves"][0]["move"], "r1c5");
    assert_usage_error(&["query", "--db", db, "--start"], "covers at most 2");
}

#[test]
fn bad_input_is_refused_in_one_line() {
    assert_usage_error(&["moves", "--game", "kigogo", "--board", "1,2"], "needs 48");
    assert_usage_error(
        &["moves", "--game", "kigogo", "--n", "3", "--start"],
        "--n applies",
    );
    assert_usage_error(
        &[
            "moves",
            "--game",
            "kigogo",
            "--rules",
            "never-ending=draw",
            "--start",
        ],
        "illegal|loss",
    );
    assert_usage_error(
        &[
            "moves",
            "--game",
            "kigogo",
            "--rules",
            "kichwa=relay",
            "--start",
        ],
        "unknown rule option",
    );
    assert_usage_error(
        &[
            "moves",
            "--game",
            "kigogo",
            "--board",
            NORTH_TWO,
            "--to-move",
            "C",
        ],
        "A or B",
    );
    assert_usage_error(
        &["moves", "--game", "chess", "--start"],
        "known: bawo, kigogo",
    );
    assert_usage_error(
        &[
            "solve",
            "--game",
            "kigogo",
            "--seeds",
            "26",
            "--out",
            "/nonexistent/x",
        ],
        "too many for the index type",
    );
}
