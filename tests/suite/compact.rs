//! `bawo compact`: a finished database re-encoded into a new directory answers every position
//! exactly as the original does (stored entries and exact entries alike), passes `verify`,
//! extends with `--resume`, never touches its source, refuses bad input cleanly (exit 2) and
//! a damaged source (exit 1, no database left behind), and stays within `--mem`.

use std::path::Path;

use bawo_db::Database;

use crate::common;
use common::cli::{assert_fails, assert_ok, assert_usage_error, bawo, json, text};
use common::run_dir::snapshot;

/// Solves `game_args` into `dir` quietly.
fn solve(dir: &Path, game_args: &[&str]) {
    let mut args = vec!["solve", "--quiet", "--out", dir.to_str().unwrap()];
    args.extend_from_slice(game_args);
    assert_ok(&bawo(&args), "solve");
}

fn compact(src: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "compact",
        "--db",
        src.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    bawo(&args)
}

/// Every stored and every exact entry of every tier is the same in both databases, and they
/// hold the same tiers with the same counts.
fn assert_same_answers(a: &Path, b: &Path, what: &str) {
    let (da, db) = (Database::open(a).unwrap(), Database::open(b).unwrap());
    let (ma, mb) = (da.manifest(), db.manifest());
    assert_eq!(ma.tiers.len(), mb.tiers.len(), "{what}: tiers");
    assert!(!ma.tiers.is_empty(), "{what}: no tiers");
    for (ra, rb) in ma.tiers.iter().zip(&mb.tiers) {
        assert_eq!(ra.tier, rb.tier, "{what}");
        assert_eq!(ra.counts, rb.counts, "{what}: tier {}", ra.tier);
        for i in 0..ra.counts.states {
            assert_eq!(
                da.probe_stored(ra.tier, i).unwrap(),
                db.probe_stored(ra.tier, i).unwrap(),
                "{what}: stored entry of tier {} index {i}",
                ra.tier
            );
            assert_eq!(
                da.probe(ra.tier, i).unwrap(),
                db.probe(ra.tier, i).unwrap(),
                "{what}: exact entry of tier {} index {i}",
                ra.tier
            );
        }
    }
}

#[test]
fn compacted_databases_answer_as_their_sources_in_every_game() {
    let cases: [(&str, &[&str]); 3] = [
        (
            "bawo n=2 (don't-care entries substituted)",
            &[
                "--game",
                "bawo",
                "--n",
                "2",
                "--seeds",
                "9",
                "--lap-cap",
                "64",
            ],
        ),
        ("kigogo", &["--game", "kigogo", "--seeds", "3"]),
        (
            "bao (entries stored as solved)",
            &["--game", "bao", "--seeds", "3"],
        ),
    ];
    for (what, game) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
        solve(&src, game);
        let before = snapshot(&src);
        // Small blocks, so that tiers span several of them.
        let o = compact(&src, &out, &["--block", "4096", "--level", "19", "--json"]);
        assert_ok(&o, what);
        let v = json(&o);
        assert_eq!(v["block_positions"], 4096, "{what}");
        assert_eq!(v["level"], 19, "{what}");
        assert!(v["bytes_after"].as_u64().unwrap() > 0, "{what}");
        assert_eq!(snapshot(&src), before, "{what}: the source changed");
        assert_same_answers(&src, &out, what);
        let o = bawo(&["verify", "--db", out.to_str().unwrap()]);
        assert_ok(&o, what);
        assert!(text(&o.stdout).contains("0 disagree"), "{what}");
        // Only the database: its manifest, one file per tier and the ledger naming them.
        assert!(!out.join("lock").exists(), "{what}: the lock was left");
        let names: Vec<String> = snapshot(&out).into_keys().collect();
        assert!(
            names
                .iter()
                .all(|n| n == "manifest.json" || n == "owned.json" || n.ends_with(".bdb")),
            "{names:?}"
        );
    }
}

#[test]
fn the_default_settings_shrink_a_database() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
    solve(
        &src,
        &[
            "--game",
            "bawo",
            "--n",
            "3",
            "--seeds",
            "10",
            "--lap-cap",
            "64",
        ],
    );
    let o = compact(&src, &out, &["--json"]);
    assert_ok(&o, "compact");
    let v = json(&o);
    assert_eq!(v["block_positions"], 1 << 23);
    assert_eq!(v["level"], 19);
    assert!(
        v["bytes_after"].as_u64().unwrap() < v["bytes_before"].as_u64().unwrap(),
        "{v}"
    );
    assert_same_answers(&src, &out, "n=3, 10 seeds");
}

#[test]
fn a_compacted_database_extends_with_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, out, direct) = (
        tmp.path().join("src"),
        tmp.path().join("out"),
        tmp.path().join("direct"),
    );
    let game = |s: &'static str| {
        [
            "--game",
            "bawo",
            "--n",
            "2",
            "--seeds",
            s,
            "--lap-cap",
            "64",
        ]
    };
    solve(&src, &game("7"));
    assert_ok(&compact(&src, &out, &["--block", "4096"]), "compact");
    let mut args = vec!["--resume"];
    args.extend_from_slice(&game("9"));
    solve(&out, &args);
    solve(&direct, &game("9"));
    assert_same_answers(&direct, &out, "extended");
}

#[test]
fn bad_arguments_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    solve(
        &src,
        &[
            "--game",
            "bawo",
            "--n",
            "2",
            "--seeds",
            "4",
            "--lap-cap",
            "64",
        ],
    );
    let s = src.to_str().unwrap();
    let fresh = tmp.path().join("fresh");
    let f = fresh.to_str().unwrap();
    // Settings refused before anything is read or created.
    for (extra, needle) in [
        (["--block", "1000"], "--block must be a power of two"),
        (["--block", "2048"], "--block must be a power of two"),
        (["--level", "23"], "--level must be a zstd level"),
        (["--level", "0"], "--level must be a zstd level"),
        (["--mem", "64M"], "cannot hold one encoding worker"),
        (["--threads", "0"], "--threads"),
    ] {
        let mut args = vec!["compact", "--db", s, "--out", f];
        args.extend(extra);
        assert_usage_error(&args, needle);
    }
    assert_usage_error(
        &["compact", "--db", s, "--out", s],
        "not the database itself",
    );
    assert!(!fresh.exists(), "a refused compaction created its --out");
    // An --out that holds a database already is left alone.
    let other = tmp.path().join("other");
    solve(
        &other,
        &[
            "--game",
            "bawo",
            "--n",
            "2",
            "--seeds",
            "3",
            "--lap-cap",
            "64",
        ],
    );
    let before = snapshot(&other);
    assert_usage_error(
        &["compact", "--db", s, "--out", other.to_str().unwrap()],
        "already holds a database",
    );
    assert_eq!(snapshot(&other), before);
    // A file where the directory should go.
    let file = tmp.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    assert_usage_error(
        &["compact", "--db", s, "--out", file.to_str().unwrap()],
        "not a directory",
    );
}

#[test]
fn a_damaged_source_fails_and_leaves_no_database() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
    solve(
        &src,
        &[
            "--game",
            "bawo",
            "--n",
            "2",
            "--seeds",
            "8",
            "--lap-cap",
            "64",
        ],
    );
    let path = src.join("tier-0008.bdb");
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::fs::write(&path, &bytes).unwrap();
    let o = compact(&src, &out, &[]);
    assert_fails(&o, 1, "tier-0008.bdb", "compact of a damaged database");
    assert!(
        !out.join("manifest.json").exists(),
        "a manifest was written"
    );
    // No temporary file is left behind either (the tier files written are in the ledger).
    let left: Vec<String> = snapshot(&out).into_keys().collect();
    assert!(
        left.iter()
            .all(|n| n == "owned.json" || n.ends_with(".bdb")),
        "{left:?}"
    );

    let missing = tmp.path().join("missing");
    let o = compact(&missing, &tmp.path().join("out2"), &[]);
    assert_fails(&o, 1, "holds no database", "compact of nothing");
}
