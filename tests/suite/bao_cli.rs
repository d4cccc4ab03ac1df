//! The command line with `--game bao`: the opening and its moves, the JSON shape, moves read
//! in the notation, and one-line errors (exit code 2) for bad input.

use crate::common;

use common::cli::{assert_fails, assert_ok, bawo, json};

const EMPTY: &str = "0,0,0,0,0,0,0,0";

#[test]
fn the_opening_and_its_moves() {
    let out = bawo(&["moves", "--game", "bao", "--start"]);
    assert_ok(&out, "moves --start");
    let text = String::from_utf8(out.stdout).unwrap();
    for label in ["a6>", "a6<", "a7>", "a7<"] {
        assert!(text.contains(&format!("move {label:>6} ->")), "{text}");
    }
    assert!(text.contains("hand 22"), "{text}");

    let v = json(&bawo(&["moves", "--game", "bao", "--start", "--json"]));
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 4);
    let m = &moves[0];
    assert_eq!(m["board"].as_array().unwrap().len(), 32);
    assert_eq!(m["to_move"], "B");
    assert_eq!(m["hands"], serde_json::json!([21, 22]));
    assert_eq!(m["houses"], serde_json::json!(["functional", "functional"]));
    assert_eq!(m["stage"], "namua");
}

#[test]
fn moves_are_read_in_the_notation() {
    // After South's a6< (any spelling), North captures: its a5 and a6 face South's new seeds.
    for spelling in ["a6<", " A6 < ", "a6acw"] {
        let v = json(&bawo(&[
            "moves", "--game", "bao", "--start", "--after", spelling, "--json",
        ]));
        let labels: Vec<&str> = v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"].as_str().unwrap())
            .collect();
        assert_eq!(labels, ["a5>", "a5<", "a6>", "a6<"]);
    }
    // A mtaji board given with --board; hands default to empty, no house.
    let board = format!("{EMPTY}/0,0,1,0,0,0,1,0/2,0,1,0,2,0,0,0/{EMPTY}");
    let v = json(&bawo(&[
        "moves",
        "--game",
        "bao",
        "--board",
        &board,
        "--to-move",
        "A",
        "--json",
    ]));
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2);
    assert_eq!(moves[0]["hands"], serde_json::json!([0, 0]));
    assert_eq!(moves[0]["houses"], serde_json::json!(["none", "none"]));
    assert_eq!(moves[0]["stage"], "mtaji");
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    let board = format!("{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}");
    let cases: Vec<Vec<&str>> = vec![
        vec!["--board", "1,2,3"],
        vec!["--board", &board, "--hands", "3"],
        vec!["--board", &board, "--hands=-1,2"],
        vec!["--board", &board, "--houses", "C"],
        vec!["--board", &board, "--hands", "0,2", "--houses", "A"],
        vec!["--board", &board, "--hands", "2,2", "--houses", "A"],
        vec!["--board", &board, "--hands", "60,6"],
        vec!["--start", "--after", "a9>"],
        vec!["--start", "--after", "a5>"],
        vec!["--start", "--after", "a6<, a6< stop"],
        vec!["--board", &board, "--rules", "never-ending=sometimes"],
    ];
    for case in cases {
        let mut args = vec!["moves", "--game", "bao"];
        args.extend(case.iter());
        assert_fails(&bawo(&args), 2, "", &format!("{args:?}"));
    }
}

#[test]
fn solve_and_query_a_small_tier() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    let v = json(&bawo(&[
        "solve",
        "--game",
        "bao",
        "--seeds",
        "3",
        "--out",
        out_dir,
        "--threads",
        "2",
        "--json",
        "--quiet",
    ]));
    // One tier: every board of 3 seeds in 32 pits, C(34, 31) = 5984, for each side to move.
    assert_eq!(v["states"], 2 * 5984);
    assert_eq!(v["tiers"].as_array().unwrap().len(), 1);

    // South: a1 = 2 (the lone kichwa, so only a1> toward the centre); North: one seed in
    // column 2. a1> sows a2, a3 (empty: no capture), and North, with a single seed, has no
    // move: a WIN in 1 for South.
    let board = format!("{EMPTY}/0,0,1,0,0,0,0,0/2,0,0,0,0,0,0,0/{EMPTY}");
    let v = json(&bawo(&[
        "query",
        "--db",
        out_dir,
        "--board",
        &board,
        "--to-move",
        "A",
        "--json",
    ]));
    assert_eq!(v["value"], "WIN");
    assert_eq!(v["depth"], 1);
    assert_eq!(v["moves"][0]["move"], "a1>");

    // Namua positions are in no table.
    let out = bawo(&["query", "--db", out_dir, "--start"]);
    assert_fails(&out, 2, "mtaji positions only", "query --start");
}
