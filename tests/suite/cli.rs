//! The command line end to end: JSON shapes, exit codes (0 ok, 1 failure, 2 usage error), and
//! one-line errors instead of panics.

use crate::common;

use common::cli::{assert_fails, assert_ok, assert_usage_error, bawo, json, sorted_keys, text};

#[test]
fn solve_json_has_the_documented_keys_and_sums() {
    let dir = tempfile::tempdir().unwrap();
    let out = bawo(&[
        "solve",
        "--game",
        "bawo",
        "--n",
        "2",
        "--seeds",
        "8",
        "--lap-cap",
        "5",
        "--out",
        dir.path().to_str().unwrap(),
        "--json",
        "--quiet",
        "--threads",
        "2",
    ]);
    let v = json(&out);
    assert_eq!(
        sorted_keys(&v),
        ["draw", "loss", "max_depth", "states", "tiers", "win"]
    );
    let tiers = v["tiers"].as_array().unwrap();
    assert_eq!(tiers.len(), 9);
    let mut states = 0;
    for t in tiers {
        for key in ["seeds", "states", "win", "loss", "draw"] {
            assert!(t.get(key).is_some(), "tier lacks {key}");
        }
        let s = t["states"].as_u64().unwrap();
        assert_eq!(
            s,
            t["win"].as_u64().unwrap() + t["loss"].as_u64().unwrap() + t["draw"].as_u64().unwrap()
        );
        states += s;
    }
    assert_eq!(v["states"].as_u64().unwrap(), states);
    // n = 2: C(k + 7, 7) boards with k seeds, two sides: sum over k <= 8 is 2 * C(16, 8).
    assert_eq!(states, 2 * 12870);

    // Query a position of that database.
    let q = json(&bawo(&[
        "query",
        "--db",
        dir.path().to_str().unwrap(),
        "--board",
        "0,0,2,2,2,2,0,0",
        "--to-move",
        "A",
        "--json",
    ]));
    assert_eq!(sorted_keys(&q), ["depth", "moves", "value"]);
    for m in q["moves"].as_array().unwrap() {
        assert_eq!(sorted_keys(m), ["depth", "move", "value"]);
    }
    // The value of the position is the value of its best move.
    let best = &q["moves"][0];
    assert_eq!(q["value"], best["value"]);
    assert_eq!(q["depth"], best["depth"]);

    // A board with more seeds than the database holds is a usage error.
    assert_usage_error(
        &[
            "query",
            "--db",
            dir.path().to_str().unwrap(),
            "--board",
            "0,0,2,2,2,2,0,9",
        ],
        "covers at most 8",
    );
}

#[test]
fn solve_refuses_a_directory_of_another_game() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let ok = bawo(&[
        "solve",
        "--n",
        "1",
        "--seeds",
        "3",
        "--lap-cap",
        "4",
        "--out",
        d,
        "--quiet",
    ]);
    assert_ok(&ok, "first solve");
    let out = bawo(&[
        "solve",
        "--n",
        "1",
        "--seeds",
        "3",
        "--lap-cap",
        "5",
        "--out",
        d,
        "--quiet",
    ]);
    assert_fails(&out, 1, "holds a solve of", "a solve with another lap cap");
}

#[test]
fn reach_reports_from_a_perspective() {
    let v = json(&bawo(&[
        "reach",
        "--game",
        "bawo",
        "--n",
        "2",
        "--lap-cap",
        "16",
        "--board",
        "0,0,2,2,2,2,0,0",
        "--to-move",
        "A",
        "--json",
    ]));
    assert_eq!(
        sorted_keys(&v),
        [
            "draw",
            "initial",
            "initial_depth",
            "loss",
            "perspective",
            "states",
            "states_with_reserves",
            "win"
        ]
    );
    assert_eq!(v["perspective"], "A");
    let s = v["states"].as_u64().unwrap();
    assert_eq!(
        s,
        v["win"].as_u64().unwrap() + v["loss"].as_u64().unwrap() + v["draw"].as_u64().unwrap()
    );
}

#[test]
fn moves_json_shape() {
    let v = json(&bawo(&[
        "moves",
        "--game",
        "bawo",
        "--n",
        "2",
        "--lap-cap",
        "16",
        "--board",
        "0,0,2,2,2,2,0,0",
        "--to-move",
        "A",
        "--json",
    ]));
    let moves = v["moves"].as_array().unwrap();
    // A may start pits 2 and 3 (the only own pits with two or more seeds).
    let labels: Vec<&str> = moves.iter().map(|m| m["move"].as_str().unwrap()).collect();
    assert_eq!(labels, ["2", "3"]);
    for m in moves {
        assert_eq!(
            sorted_keys(m),
            ["board", "captured", "discarded", "move", "to_move"]
        );
        assert_eq!(m["to_move"], "B");
        assert_eq!(m["board"].as_array().unwrap().len(), 8);
    }
}

#[test]
fn bad_input_is_a_one_line_usage_error() {
    let base = [
        "moves",
        "--game",
        "bawo",
        "--n",
        "2",
        "--lap-cap",
        "16",
        "--to-move",
        "A",
    ];
    let with = |extra: &[&'static str]| {
        let mut v: Vec<&str> = base.to_vec();
        v.extend_from_slice(extra);
        v
    };
    assert_usage_error(&with(&["--board", "0,0,2,2,2,2,0"]), "needs 8");
    assert_usage_error(&with(&["--board", "0,0,2,2,2,2,0,-1"]), "negative");
    assert_usage_error(&with(&["--board", "0,0,2,2,2,2,0,x"]), "not a seed count");
    assert_usage_error(&with(&["--board", "0,0,2,,2,2,0,0"]), "empty field");
    assert_usage_error(
        &with(&["--board", "0,0,2,2,2,2,0,0", "--rules", "kichwa=on"]),
        "kichwa",
    );
    assert_usage_error(
        &with(&["--board", "0,0,2,2,2,2,0,0", "--rules", "speed=fast"]),
        "unknown rule option",
    );
    assert_usage_error(
        &["moves", "--n", "0", "--lap-cap", "4", "--board", "0"],
        "--n must be between 1 and 8",
    );
    assert_usage_error(
        &[
            "moves",
            "--n",
            "2",
            "--lap-cap",
            "0",
            "--board",
            "0,0,0,0,0,0,0,0",
        ],
        "--lap-cap must be at least 1",
    );
    assert_usage_error(
        &[
            "moves",
            "--n",
            "2",
            "--lap-cap",
            "4",
            "--board",
            "0,0,0,0,0,0,0,0",
            "--to-move",
            "C",
        ],
        "A or B",
    );
    assert_usage_error(
        &[
            "solve",
            "--n",
            "8",
            "--seeds",
            "64",
            "--lap-cap",
            "3",
            "--out",
            "/nonexistent/x",
        ],
        "too many for the index type",
    );
    assert_usage_error(
        &["moves", "--game", "chess", "--board", "0"],
        "unknown game",
    );
    // clap's own usage errors also exit with 2.
    assert_eq!(bawo(&["solve", "--seeds", "x"]).status.code(), Some(2));
}

#[test]
fn query_without_a_database_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let out = bawo(&[
        "query",
        "--db",
        dir.path().to_str().unwrap(),
        "--board",
        "0,0,0,0",
    ]);
    assert_fails(&out, 1, "no database", "query of an empty directory");
}

#[test]
fn a_finished_solve_answers_smaller_budgets_without_rewriting_its_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let base = ["solve", "--n", "1", "--lap-cap", "4", "--out", d, "--quiet"];
    let run = |seeds: &str, extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(&["--seeds", seeds]);
        args.extend_from_slice(extra);
        bawo(&args)
    };
    assert_ok(&run("6", &[]), "solve 6 seeds");
    let manifest = std::fs::read(dir.path().join("manifest.json")).unwrap();
    for extra in [&[][..], &["--resume"][..]] {
        let out = run("4", extra);
        assert_ok(&out, "solve 4 seeds");
        assert!(text(&out.stderr).contains("already holds"));
        // Five tiers (0..=4) reported, nothing rewritten.
        let v = json(&run("4", &["--json"]));
        assert_eq!(v["tiers"].as_array().unwrap().len(), 5);
        assert_eq!(
            std::fs::read(dir.path().join("manifest.json")).unwrap(),
            manifest
        );
    }
}
