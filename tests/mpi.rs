//! One solve split across MPI ranks (`mpirun -np K bawo solve`, cargo feature `mpi`) writes a
//! database byte-identical to one process's, for Bawo with draws, Kigogo and Bao mtaji, with
//! 2 and 3 ranks; with all-to-all exchanges cut into many rounds and slices of equal counts;
//! and after rank 0 is killed mid-run and the run resumed with another number of ranks. One
//! of them is also checked position by position against the brute-force oracle. A budget
//! too small for a rank's slice is refused up front; the least one named keeps every rank's
//! peak resident memory within it.
//!
//! Needs `mpirun` (Open MPI) on the PATH: `.ci/run` installs it.
#![cfg(feature = "mpi")]

#[path = "suite/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use bawo_db::Database;
use bawo_games::game::bawo::{Bawo, BawoRules};
use common::bawo_oracle::Oracle;
use common::cli::{assert_ok, bawo, text, BIN};
use common::compare::assert_db_matches_oracle;
use common::solve_by_rounds;

/// Runs `bawo args` on `ranks` MPI ranks (oversubscribed: tests run on small machines) with
/// the environment `env` passed to every rank.
fn mpirun(ranks: usize, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe", "-np"])
        .arg(ranks.to_string());
    for (k, v) in env {
        c.env(k, v).args(["-x", k]);
    }
    c.arg(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run mpirun (install openmpi-bin)")
}

/// The database files of a run directory and their bytes: the manifest and the compressed
/// tiers. (`owned.json`, the run's ledger, names the directory it was written in.)
fn database_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name == "owned.json" {
            continue;
        }
        files.insert(name.clone(), std::fs::read(dir.join(&name)).unwrap());
    }
    assert!(
        files.contains_key("manifest.json"),
        "{}: {files:?}",
        dir.display()
    );
    files
}

#[track_caller]
fn assert_same_database(one: &Path, other: &Path, what: &str) {
    let a = database_files(one);
    let b = database_files(other);
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{what}: other files"
    );
    assert!(
        a.keys().any(|k| k.ends_with(".bdb")),
        "{what}: no tier to compare"
    );
    for (name, bytes) in &a {
        assert!(bytes == &b[name], "{what}: {name} differs");
    }
}

/// Solves `game` in one process, then with 2 and 3 ranks, and compares the databases.
fn check_identical(game: &[&str], what: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let single = tmp.path().join("single");
    let mut args = vec!["solve", "--quiet", "--threads", "1"];
    args.extend_from_slice(game);
    let with_out = |dir: &Path| {
        let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        a.extend(["--out".into(), dir.display().to_string()]);
        a
    };
    let a = with_out(&single);
    assert_ok(&bawo(&a), &format!("{what}: single process"));
    for ranks in [2, 3] {
        let dir = tmp.path().join(format!("np{ranks}"));
        let a = with_out(&dir);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let out = mpirun(ranks, &a, &[]);
        assert_ok(&out, &format!("{what}: {ranks} ranks"));
        assert_same_database(&single, &dir, &format!("{what}, {ranks} ranks"));
    }
}

#[test]
fn bawo_with_draws_is_identical_on_2_and_3_ranks() {
    check_identical(
        &[
            "--game",
            "bawo",
            "--n",
            "3",
            "--seeds",
            "9",
            "--rules",
            "capture=occupied",
        ],
        "bawo n=3 capture=occupied",
    );
}

#[test]
fn kigogo_is_identical_on_2_and_3_ranks() {
    check_identical(&["--game", "kigogo", "--seeds", "5"], "kigogo");
}

#[test]
fn bao_mtaji_is_identical_on_2_and_3_ranks() {
    check_identical(&["--game", "bao", "--seeds", "5"], "bao");
}

#[test]
fn a_cluster_database_matches_the_oracle() {
    let (n, seeds, lap_cap) = (2, 8, 64);
    let o = Oracle::new(n, lap_cap, false, true);
    let expected = solve_by_rounds(&o.positions(seeds), |p| o.successors(p));
    assert!(
        expected.values().any(|v| *v == common::OValue::Draw),
        "the instance has draws"
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    let dir_s = dir.display().to_string();
    let out = mpirun(
        3,
        &[
            "solve",
            "--quiet",
            "--threads",
            "1",
            "--n",
            "2",
            "--seeds",
            "8",
            "--lap-cap",
            "64",
            "--rules",
            "capture=occupied",
            "--out",
            &dir_s,
        ],
        &[],
    );
    assert_ok(&out, "3 ranks");
    let game = Bawo::new(
        n as u32,
        lap_cap,
        BawoRules::parse("capture=occupied").unwrap(),
    )
    .unwrap();
    let db = Database::open(&dir).unwrap();
    assert_db_matches_oracle(
        &game,
        &db,
        &expected,
        |board, side| {
            let counts: Vec<u8> = board.iter().map(|&c| c as u8).collect();
            game.make_position(&counts, side)
        },
        "bawo n=2 capture=occupied on 3 ranks",
    );
}

#[test]
fn exchanges_cut_into_many_rounds_give_the_same_database() {
    let tmp = tempfile::tempdir().unwrap();
    let game = ["--n", "3", "--seeds", "8", "--rules", "capture=occupied"];
    let single = tmp.path().join("single");
    let chunked = tmp.path().join("chunked");
    let args = |dir: &Path| -> Vec<String> {
        let mut a: Vec<String> = ["solve", "--quiet", "--threads", "1"]
            .iter()
            .chain(game.iter())
            .map(|s| s.to_string())
            .collect();
        a.extend(["--out".into(), dir.display().to_string()]);
        a
    };
    assert_ok(&bawo(&args(&single)), "single process");
    let a = args(&chunked);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    // At most 7 elements (3 edges) per round to each rank: every exchange of a real tier takes
    // many rounds. Slices of equal counts, not of equal work: the database is the same.
    let out = mpirun(
        3,
        &a,
        &[("BAWO_MPI_ROUND", "21"), ("BAWO_MPI_EVEN_SLICES", "1")],
    );
    assert_ok(&out, "3 ranks, tiny rounds");
    assert_same_database(&single, &chunked, "tiny rounds");
}

#[test]
fn a_killed_run_resumes_on_another_number_of_ranks() {
    let tmp = tempfile::tempdir().unwrap();
    let game = ["--n", "3", "--seeds", "10", "--rules", "capture=occupied"];
    let single = tmp.path().join("single");
    let dir = tmp.path().join("killed");
    let args = |dir: &Path, extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = ["solve", "--quiet", "--threads", "1"]
            .iter()
            .chain(game.iter())
            .chain(extra.iter())
            .map(|s| s.to_string())
            .collect();
        a.extend(["--out".into(), dir.display().to_string()]);
        a
    };
    assert_ok(&bawo(&args(&single, &[])), "single process");
    let a = args(&dir, &[]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    // Rank 0 aborts right after its fourth manifest write: some tiers are finished.
    let out = mpirun(2, &a, &[("BAWO_ABORT_AFTER_CHECKPOINTS", "4")]);
    assert!(
        !out.status.success(),
        "the run was killed: {}",
        text(&out.stderr)
    );
    let manifest = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"complete\": false"), "{manifest}");
    assert!(
        manifest.contains("\"tier\": 1"),
        "some tiers finished: {manifest}"
    );
    // Lower tiers are sent to every rank again: another number of ranks resumes it.
    let a = args(&dir, &["--resume"]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let out = mpirun(3, &a, &[]);
    assert_ok(&out, "resumed on 3 ranks");
    assert_same_database(&single, &dir, "killed on 2 ranks, resumed on 3");
}

#[test]
fn a_usage_error_on_every_rank_is_one_error_and_exit_code_2() {
    let out = mpirun(2, &["solve", "--n", "0", "--quiet"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{}",
        text(&out.stderr)
    );
}

/// The peak resident memory of every rank, from `--timings`.
fn peaks(stderr: &str) -> Vec<u64> {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("mpi peak RSS per rank (bytes): "))
        .unwrap_or_else(|| panic!("no peak line: {stderr}"));
    line.split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect()
}

/// Each rank keeps its own `--mem`: a budget too small for the slices is refused before any
/// work (exit 2) with the least budget per rank, and under that budget no rank's peak
/// resident memory passes it.
#[test]
fn each_rank_is_refused_or_kept_within_its_own_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    let dir_s = dir.display().to_string();
    let game = ["--n", "3", "--seeds", "9", "--rules", "capture=occupied"];
    let args = |mem: &str| -> Vec<String> {
        [
            "solve",
            "--quiet",
            "--timings",
            "--threads",
            "1",
            "--mem",
            mem,
        ]
        .iter()
        .chain(game.iter())
        .chain(["--out", &dir_s].iter())
        .map(|s| s.to_string())
        .collect()
    };
    // Enough for one process, not for a rank's slice beside the MPI library and the
    // exchange buffers: refused before any work, naming the least budget per rank.
    let a = args("150M");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let out = mpirun(2, &a, &[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("per rank is too small for tier"), "{err}");
    let least: u64 = err
        .split("give --mem at least ")
        .nth(1)
        .and_then(|r| r.split(" MiB").next())
        .and_then(|m| m.parse().ok())
        .unwrap_or_else(|| panic!("no least budget named: {err}"));
    assert!(least > 150, "{err}");
    assert!(!dir.join("manifest.json").exists(), "nothing was written");
    assert!(!err.contains("panicked"), "{err}");
    // The budget named is accepted, and no rank's peak resident memory passes it.
    let mem = format!("{least}M");
    let a = args(&mem);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let out = mpirun(2, &a, &[]);
    assert_ok(&out, "2 ranks with the least budget named");
    let p = peaks(&text(&out.stderr));
    assert_eq!(p.len(), 2, "{p:?}");
    for (rank, &b) in p.iter().enumerate() {
        assert!(
            b > 0 && b <= least << 20,
            "rank {rank}: peak {b} > {least} MiB"
        );
    }
}
