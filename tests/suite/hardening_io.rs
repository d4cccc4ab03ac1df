//! Closed pipes and a failing standard error never panic a command or stop a solve (issue 10,
//! item 4): a reader that closes standard output early ends the command quietly, and log lines
//! that cannot be written are dropped while the solve finishes its run.

use crate::common;

use std::fs::OpenOptions;
use std::path::Path;
use std::process::{Output, Stdio};

use common::cli::{
    assert_fails, assert_ok, assert_usage_error, bawo, bawo_stdin, clean_command, text,
};

/// `solve` of a small Bawo game (n = 2, lap cap 8) up to `seeds` into `dir`, then `extra`.
fn solve_args(dir: &Path, seeds: &str, extra: &[&str]) -> Vec<String> {
    let game = ["--n", "2", "--seeds", seeds, "--lap-cap", "8"];
    crate::common::run_dir::solve_args(&game, dir, extra)
}

/// A Bawo database (n = 2, up to 8 seeds) solved into `dir`.
fn solved(dir: &Path) {
    assert_ok(&bawo(&solve_args(dir, "8", &["--quiet"])), "solve");
}

/// Runs `bawo args` with no input and the given standard output and error.
fn run_with<S: AsRef<std::ffi::OsStr>>(args: &[S], stdout: Stdio, stderr: Stdio) -> Output {
    clean_command(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .output()
        .expect("run bawo")
}

/// `/dev/full`, where every write fails with "no space left".
fn dev_full() -> Stdio {
    Stdio::from(
        OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full"),
    )
}

/// Runs `bawo args` with its standard output a pipe whose reading end is closed at once.
fn with_stdout_closed<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    let mut child = clean_command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run bawo");
    drop(child.stdout.take());
    child.wait_with_output().expect("wait for bawo")
}

/// Runs `bawo args` with standard error going to `/dev/full` (every write fails).
fn with_stderr_full<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    run_with(args, Stdio::piped(), dev_full())
}

#[track_caller]
fn assert_quiet_end(out: &Output, what: &str) {
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert_ne!(out.status.code(), Some(101), "{what}: {err}");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what}: {:?}: {err}",
        out.status
    );
    assert!(err.is_empty(), "{what}: a closed pipe is no error: {err}");
}

#[track_caller]
fn assert_complete(dir: &Path) {
    let manifest = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest");
    let v: serde_json::Value = serde_json::from_str(&manifest).expect("manifest is JSON");
    assert_eq!(v["complete"], serde_json::Value::Bool(true), "{manifest}");
}

const POSITION: [&str; 10] = [
    "--n",
    "2",
    "--lap-cap",
    "8",
    "--board",
    "0,0,2,2,2,2,0,0",
    "--to-move",
    "A",
    "--game",
    "bawo",
];

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    solved(dir.path());
    let db = dir.path().to_str().unwrap();
    let position = POSITION.to_vec();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("moves", [vec!["moves"], position.clone()].concat()),
        (
            "query",
            [vec!["query", "--db", db], position[4..8].to_vec()].concat(),
        ),
        ("stats", vec!["stats", "--db", db]),
        ("stats --json", vec!["stats", "--db", db, "--json"]),
        ("verify", vec!["verify", "--db", db]),
        ("reach", [vec!["reach"], position.clone()].concat()),
        ("export", vec!["export", "--db", db, "--tier", "6"]),
    ];
    for (what, args) in cases {
        assert_quiet_end(&with_stdout_closed(&args), what);
    }
}

#[test]
fn a_solve_with_stdout_closed_finishes_its_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("run");
    let out = with_stdout_closed(&solve_args(&d, "6", &[]));
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{:?}: {err}", out.status);
    assert_complete(&d);
}

#[test]
fn a_solve_with_stderr_full_finishes_its_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("run");
    let out = with_stderr_full(&solve_args(&d, "6", &["--timings"]));
    assert_eq!(out.status.code(), Some(0), "{:?}", out.status);
    assert!(text(&out.stdout).contains("all"), "{}", text(&out.stdout));
    assert_complete(&d);
}

#[test]
fn an_error_with_stderr_full_keeps_its_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-db");
    let out = with_stderr_full(&[
        "query",
        "--db",
        missing.to_str().unwrap(),
        "--board",
        "0,0,2,2,2,2,0,0",
    ]);
    assert_eq!(out.status.code(), Some(1), "{:?}", out.status);
    let usage = with_stderr_full(&["moves", "--board", "0;0;1"]);
    assert_eq!(usage.status.code(), Some(2), "{:?}", usage.status);
}

#[test]
fn a_full_stdout_is_a_one_line_failure() {
    let args = [vec!["moves"], POSITION.to_vec()].concat();
    let out = run_with(&args, dev_full(), Stdio::piped());
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{:?}: {err}", out.status);
    assert!(
        err.starts_with("bawo: cannot write to standard output"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

// Issue 10, items 10 and 11: the README's promises and the error messages.

#[test]
fn play_accepts_after_and_names_its_flags() {
    let dir = tempfile::tempdir().unwrap();
    solved(dir.path());
    let db = dir.path().to_str().unwrap();
    let board = ["--board", "0,0,2,2,2,2,0,0", "--to-move", "A"];
    let out = bawo_stdin(
        &[&["play", "--db", db][..], &board, &["--after", "2"]].concat(),
        "q\n",
    );
    assert_ok(&out, "play --after");
    // After A's move 2 it is B's turn: the game starts there.
    assert!(
        text(&out.stdout).contains("B to move"),
        "{}",
        text(&out.stdout)
    );
    assert_usage_error(&["play", "--db", db, "--after", "2"], "--after needs");
    assert_usage_error(
        &[&["play", "--db", db][..], &board, &["--as", "C"]].concat(),
        "--as must be A or B, not 'C'",
    );
}

#[test]
fn a_board_with_another_separator_says_which_one_to_use() {
    assert_usage_error(
        &["moves", "--n", "2", "--board", "0;0;2;2;2;2;0;0"],
        "separated by ','",
    );
    assert_usage_error(
        &["moves", "--n", "2", "--board", "0 0 2 2 2 2 0 0"],
        "not ' '",
    );
    // Without --n the board's length gives n: the separator is named there too.
    assert_usage_error(&["moves", "--board", "0;0;2;2;2;2;0;0"], "not ';'");
}

#[test]
fn huge_inputs_are_not_echoed_whole() {
    let junk = "x".repeat(100_000);
    for args in [
        vec![
            "moves",
            "--n",
            "2",
            "--board",
            &format!("0,0,0,0,0,0,0,{junk}"),
        ],
        vec![
            "moves",
            "--n",
            "2",
            "--board",
            "0,0,2,2,2,2,0,0",
            "--to-move",
            &junk,
        ],
        vec!["moves", "--board", "0,0,2,2,2,2,0,0", "--param", &junk],
    ] {
        let out = bawo(&args);
        assert_fails(&out, 2, "xxx...", "a 100 kB argument");
        assert!(out.stderr.len() < 400, "{} bytes echoed", out.stderr.len());
    }
}

#[test]
fn a_dangling_symlink_as_out_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
    let out = bawo(&[
        "solve",
        "--n",
        "1",
        "--seeds",
        "2",
        "--out",
        link.to_str().unwrap(),
        "--quiet",
    ]);
    assert_fails(&out, 2, "is a symbolic link to", "dangling --out");
    assert!(!dir.path().join("nowhere").exists());
}

#[test]
fn quiet_prints_only_the_result_table() {
    let dir = tempfile::tempdir().unwrap();
    solved(dir.path());
    let again = bawo(&solve_args(dir.path(), "8", &["--quiet", "--force"]));
    assert_ok(&again, "solve --quiet");
    let stdout = text(&again.stdout);
    assert!(text(&again.stderr).is_empty(), "{}", text(&again.stderr));
    // The descriptor, the header, tiers 0..=8 and the "all" row.
    assert_eq!(stdout.lines().count(), 2 + 9 + 1, "{stdout}");
    assert!(
        !stdout.contains("solved in") && !stdout.contains("compressed"),
        "{stdout}"
    );
}

#[test]
fn a_flipped_version_byte_reads_as_damage() {
    let dir = tempfile::tempdir().unwrap();
    solved(dir.path());
    let file = dir.path().join("tier-0004.bdb");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[10] ^= 0xFF;
    std::fs::write(&file, bytes).unwrap();
    let out = bawo(&["stats", "--db", dir.path().to_str().unwrap()]);
    assert_fails(&out, 1, "damaged header", "a flipped version byte");
}

#[test]
fn write_errors_name_the_file_the_user_gave() {
    let dir = tempfile::tempdir().unwrap();
    solved(dir.path());
    let csv = dir.path().join("tier6.csv");
    let csv_arg = csv.to_str().unwrap();
    let db = dir.path().to_str().unwrap();
    // Regression: a failed export named "<export output>" instead of the file.
    let out = common::cli::bawo_env(
        &["export", "--db", db, "--tier", "6", "--out", csv_arg],
        &[("BAWO_FAIL_WRITES_AFTER", "100".to_string())],
    );
    assert_fails(&out, 1, csv_arg, "export onto a full disk");
    let err = text(&out.stderr);
    assert!(
        !err.contains(".tier6.csv") && !err.contains("<export"),
        "{err}"
    );
    assert!(!csv.exists());
}
