//! Every game's defaults, the same for every command: `solve --game G` with no other flag,
//! and `moves`/`reach` without Bawo's `--n` (taken from the board's length) or `--lap-cap`.

use std::path::Path;
use std::process::{Output, Stdio};

use crate::common::cli::{clean_command, text};

/// Runs `bawo args` in `dir` as working directory (where the default run directory goes).
fn bawo_in(dir: &Path, args: &[&str]) -> Output {
    clean_command(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run bawo")
}

/// `C(n, k)` in exact integers.
fn choose(n: u64, k: u64) -> u64 {
    (1..=k).fold(1, |acc, i| acc * (n + 1 - i) / i)
}

/// Solves `game` with no flag but `--game` in a fresh working directory; checks the default
/// run directory and that the counts cover exactly the positions of `tiers` on `pits` pits.
fn solve_with_defaults(game: &str, descriptor: &str, slug: &str, pits: u64, tiers: &[u64]) {
    let dir = tempfile::tempdir().unwrap();
    let out = bawo_in(dir.path(), &["solve", "--game", game]);
    assert!(out.status.success(), "{game}: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().next(), Some(descriptor), "{stdout}");
    let run = dir.path().join("bawo-db").join(slug);
    assert!(run.join("manifest.json").is_file(), "{}", run.display());
    let stats = bawo_in(
        dir.path(),
        &["stats", "--db", run.to_str().unwrap(), "--json"],
    );
    assert!(stats.status.success(), "{}", text(&stats.stderr));
    let s: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    let want: u64 = tiers
        .iter()
        .map(|&k| 2 * choose(k + pits - 1, pits - 1))
        .sum();
    let n = |key: &str| s[key].as_u64().unwrap();
    assert_eq!(n("states"), want, "{game}");
    assert_eq!(n("win") + n("loss") + n("draw"), want, "{game}");
}

#[test]
fn solve_bawo_with_no_flag_solves_n3_lap_cap_64_up_to_12_seeds() {
    solve_with_defaults(
        "bawo",
        "bawo n=3 lap-cap=64 kichwa=off capture=any",
        "bawo-n3-lap-cap64-kichwaoff-captureany-s12",
        12,
        &(0..=12).collect::<Vec<_>>(),
    );
}

#[test]
fn solve_kigogo_with_no_flag_solves_up_to_5_seeds() {
    solve_with_defaults(
        "kigogo",
        "kigogo never-ending=illegal",
        "kigogo-never-endingillegal-s5",
        48,
        &[0, 1, 2, 3, 4, 5],
    );
}

#[test]
fn solve_bao_with_no_flag_solves_exactly_5_seeds() {
    solve_with_defaults(
        "bao",
        "bao never-ending=illegal",
        "bao-never-endingillegal-s5",
        32,
        &[5],
    );
}

#[test]
fn a_bawo_board_without_n_takes_n_from_its_length() {
    let dir = tempfile::tempdir().unwrap();
    let board = "0,0,2,2,2,2,0,0";
    let given = bawo_in(
        dir.path(),
        &[
            "moves",
            "--n",
            "2",
            "--lap-cap",
            "16",
            "--board",
            board,
            "--json",
        ],
    );
    let inferred = bawo_in(
        dir.path(),
        &["moves", "--lap-cap", "16", "--board", board, "--json"],
    );
    assert!(given.status.success(), "{}", text(&given.stderr));
    assert!(inferred.status.success(), "{}", text(&inferred.stderr));
    assert_eq!(given.stdout, inferred.stdout);
    // Without --lap-cap the default cap (64) applies, as in `solve`.
    let reach_default = bawo_in(dir.path(), &["reach", "--board", board, "--json"]);
    let reach_64 = bawo_in(
        dir.path(),
        &[
            "reach",
            "--n",
            "2",
            "--lap-cap",
            "64",
            "--board",
            board,
            "--json",
        ],
    );
    assert!(
        reach_default.status.success(),
        "{}",
        text(&reach_default.stderr)
    );
    assert_eq!(reach_default.stdout, reach_64.stdout);
    // A board of 13 pits is no Bawo board.
    let bad = bawo_in(
        dir.path(),
        &["moves", "--board", "1,1,1,1,1,1,1,1,1,1,1,1,1"],
    );
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
    assert!(text(&bad.stderr).contains("4n"), "{}", text(&bad.stderr));
}

#[test]
fn parameters_a_game_does_not_take_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["solve", "--game", "kigogo", "--n", "3"][..],
        &["moves", "--game", "bao", "--lap-cap", "3", "--start"],
        &["moves", "--param", "colour=red", "--board", "2,2,2,2"],
        &["moves", "--n", "1", "--param", "n=1", "--board", "2,2,2,2"],
        &["moves", "--n", "x", "--board", "2,2,2,2"],
    ] {
        let out = bawo_in(dir.path(), args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    let out = bawo_in(
        dir.path(),
        &[
            "moves",
            "--param",
            "n=1",
            "--param",
            "lap-cap=4",
            "--board",
            "2,2,2,2",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_board_typed_in_rows_must_have_the_games_rows() {
    let dir = tempfile::tempdir().unwrap();
    // Kigogo: 48 counts, but in rows of 11 and 13 (issue 10, item 3): refused, naming row 2.
    let row = |n: usize| vec!["0"; n].join(",");
    let skewed = [row(12), row(11), row(13), row(12)].join("/");
    let out = bawo_in(
        dir.path(),
        &["moves", "--game", "kigogo", "--board", &skewed],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("row 2 has 11"),
        "{}",
        text(&out.stderr)
    );
    let even = [row(12), row(12), row(12), row(12)].join("/");
    let out = bawo_in(dir.path(), &["moves", "--game", "kigogo", "--board", &even]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Bawo n = 2 in rows of 2.
    let out = bawo_in(
        dir.path(),
        &["moves", "--board", "0,0/2,2/2,2/0,0", "--json"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = bawo_in(dir.path(), &["moves", "--board", "0,0,2/2,2,2/0,0"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}
