//! Conflicting or absurd options are refused with exit code 2 instead of being silently
//! resolved.

use crate::common::cli::bawo;

fn refused(args: &[&str], needle: &str) {
    let out = bawo(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: '{needle}' not in {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn start_and_to_move_conflict() {
    refused(
        &["moves", "--game", "kigogo", "--start", "--to-move", "B"],
        "--to-move",
    );
    // --start alone still works.
    assert!(bawo(&["moves", "--game", "kigogo", "--start"])
        .status
        .success());
}

#[test]
fn a_rule_key_given_twice_is_refused() {
    refused(
        &[
            "moves",
            "--rules",
            "kichwa=relay,kichwa=off",
            "--board",
            "2,2,2,2",
        ],
        "given twice",
    );
    refused(
        &[
            "moves",
            "--game",
            "kigogo",
            "--rules",
            "never-ending=loss,never-ending=illegal",
            "--start",
        ],
        "given twice",
    );
}

#[test]
fn a_house_named_twice_is_refused() {
    refused(
        &[
            "moves",
            "--game",
            "bao",
            "--board",
            &vec!["2"; 32].join(","),
            "--hands",
            "1,1",
            "--houses",
            "A,A",
        ],
        "twice",
    );
}

#[test]
fn absurd_thread_counts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    refused(
        &[
            "solve",
            "--n",
            "1",
            "--seeds",
            "4",
            "--threads",
            "100000",
            "--out",
            dir.path().to_str().unwrap(),
        ],
        "per core",
    );
}
