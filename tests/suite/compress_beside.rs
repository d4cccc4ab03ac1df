//! A finished tier compressed on a thread of its own while the next tier is solved
//! (`--compress-beside always`; by default only where the solver leaves a core idle): the files
//! are the same as compressing it before the next tier starts (`=0`), a run
//! killed while a tier was being compressed beside the next compresses it when resumed, and a
//! compression that fails beside the next tier stops the run with one line (exit 1), which
//! then resumes.

use crate::common;

use std::path::{Path, PathBuf};

use common::cli::{assert_fails, assert_ok, bawo_env, text};
use common::run_dir::{self, final_files, manifest};
use serde_json::Value as Json;

/// 25,740 positions in 9 tiers (0 to 8 seeds), one range per tier.
const GAME: &[&str] = &[
    "--game",
    "bawo",
    "--n",
    "2",
    "--seeds",
    "8",
    "--lap-cap",
    "6",
];
const LAST_TIER: u32 = 8;

fn scratch() -> tempfile::TempDir {
    run_dir::scratch("bawo-beside-")
}

fn solve_args(dir: &Path, extra: &[&str]) -> Vec<String> {
    let mut game = GAME.to_vec();
    game.extend(["--quiet", "--keep-tables", "--threads", "2"]);
    run_dir::solve_args(&game, dir, extra)
}

fn resume_args(dir: &Path) -> Vec<String> {
    [
        "solve",
        "--resume",
        "--quiet",
        "--keep-tables",
        "--threads",
        "2",
        "--out",
        dir.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Compressing beside the next tier wherever the memory plan holds it (by default only where
/// the solver leaves a core idle).
fn beside(args: &[String]) -> Vec<String> {
    let mut a = args.to_vec();
    a.extend(["--compress-beside".to_string(), "always".to_string()]);
    a
}

/// `bawo args`, compressing beside the next tier.
fn run_beside(args: &[String]) -> std::process::Output {
    bawo_env(&beside(args), &[])
}

/// The run in `dir` is complete and its files and tier records are those of `clean`.
#[track_caller]
fn assert_same(clean: &Path, dir: &Path, what: &str) {
    let (want, got) = (final_files(clean), final_files(dir));
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>(),
        "{what}: files"
    );
    assert_eq!(want.len(), 2 * (LAST_TIER as usize + 1), "{what}: files");
    for (name, bytes) in &want {
        assert!(got[name] == *bytes, "{what}: {name} differs");
    }
    let (m0, m) = (manifest(clean), manifest(dir));
    assert_eq!(m["tiers"], m0["tiers"], "{what}: manifest tier records");
    assert_eq!(m["complete"], Json::Bool(true), "{what}: not complete");
}

/// The tiers the manifest records without a compressed file.
fn without_bdb(dir: &Path) -> Vec<u64> {
    manifest(dir)["tiers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("bdb").is_none())
        .map(|r| r["seeds"].as_u64().unwrap())
        .collect()
}

fn clean_run(root: &Path) -> PathBuf {
    let clean = root.join("clean");
    let out = bawo_env(&solve_args(&clean, &["--compress-beside", "never"]), &[]);
    assert_ok(&out, "serial run");
    clean
}

#[test]
fn compressing_beside_the_next_tier_writes_the_files_of_compressing_before_it() {
    let root = scratch();
    let serial = root.path().join("serial");
    let out = bawo_env(
        &solve_args(&serial, &["--timings", "--compress-beside", "never"]),
        &[],
    );
    assert_ok(&out, "serial run");
    let err = text(&out.stderr);
    assert_eq!(err.matches("beside the next tier").count(), 0, "{err}");
    assert_eq!(err.matches("while the run waited").count(), 9, "{err}");

    let dir = root.path().join("beside");
    let out = run_beside(&solve_args(&dir, &["--timings"]));
    assert_ok(&out, "run compressing beside the next tier");
    let err = text(&out.stderr);
    // Every tier but the last, which has no next tier to be compressed beside.
    assert_eq!(err.matches("beside the next tier").count(), 8, "{err}");
    assert_eq!(err.matches("while the run waited").count(), 1, "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("tier   8:") && l.contains("while the run waited")),
        "{err}"
    );
    assert_same(&serial, &dir, "compressed beside the next tier");
    assert!(without_bdb(&dir).is_empty());
}

#[test]
fn a_run_killed_while_a_tier_is_compressed_beside_the_next_compresses_it_on_resume() {
    let root = scratch();
    let clean = clean_run(root.path());
    // Abort after every manifest write in turn (a checkpoint at every opportunity); where the
    // manifest then records a tier without its compressed file, resume (the file may have
    // been written, unrecorded: every other time it is deleted) and compare with the clean
    // run.
    let mut cut_short = 0;
    for k in 1.. {
        let dir = root.path().join(format!("k{k}"));
        let out = bawo_env(
            &beside(&solve_args(&dir, &["--checkpoint-secs", "0"])),
            &[("BAWO_ABORT_AFTER_CHECKPOINTS", k.to_string())],
        );
        if out.status.success() {
            assert_same(&clean, &dir, "a run that took fewer checkpoints");
            break;
        }
        let missing = without_bdb(&dir);
        assert!(missing.len() <= 1, "k={k}: {missing:?}");
        if let Some(&tier) = missing.first() {
            assert!(
                tier < LAST_TIER as u64,
                "k={k}: the last tier is compressed at once"
            );
            if cut_short % 2 == 1 {
                let _ = std::fs::remove_file(dir.join(format!("tier-{tier:04}.bdb")));
            }
            cut_short += 1;
        }
        let what = format!("aborted after manifest write {k}, tier {missing:?} without .bdb");
        assert_ok(&run_beside(&resume_args(&dir)), &what);
        assert_same(&clean, &dir, &what);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(k < 1000, "the run never finishes");
    }
    // Each tier but the last is recorded before its compression beside the next is joined.
    assert!(cut_short >= LAST_TIER, "only {cut_short} runs cut short");
}

#[test]
fn a_compression_failing_beside_the_next_tier_stops_the_run_and_the_run_resumes() {
    let root = scratch();
    let clean = clean_run(root.path());
    let dir = root.path().join("run");
    // Stop after tier 3 is recorded (the manifest write that records it), then put a folder
    // where tier 4's compressed file goes: its compression beside tier 5 cannot rename its
    // file into place.
    let mut k = 1;
    loop {
        let _ = std::fs::remove_dir_all(&dir);
        let out = bawo_env(
            &beside(&solve_args(&dir, &[])),
            &[("BAWO_ABORT_AFTER_CHECKPOINTS", k.to_string())],
        );
        assert!(
            !out.status.success(),
            "the run ended before tier 3 was recorded"
        );
        let recorded = manifest(&dir)["tiers"].as_array().unwrap().len();
        if recorded == 4 && manifest(&dir).get("current").is_none() {
            break;
        }
        k += 1;
    }
    let blocker = dir.join("tier-0004.bdb");
    let _ = std::fs::remove_file(&blocker);
    std::fs::create_dir_all(blocker.join("in-the-way")).unwrap();
    let out = run_beside(&resume_args(&dir));
    assert_fails(
        &out,
        1,
        "tier-0004.bdb",
        "a compression that cannot write its file",
    );
    // Tier 4 is recorded without its file, and nothing above tier 5 was started.
    assert_eq!(without_bdb(&dir), vec![4]);
    assert!(manifest(&dir)["tiers"].as_array().unwrap().len() <= 6);
    std::fs::remove_dir_all(&blocker).unwrap();
    assert_ok(&run_beside(&resume_args(&dir)), "resumed after the failure");
    assert_same(&clean, &dir, "resumed after a failed compression");
}

#[test]
fn by_default_a_tier_is_compressed_beside_the_next_only_where_the_solver_leaves_a_core() {
    let cores = std::thread::available_parallelism().unwrap().get();
    let root = scratch();
    for threads in [1, cores] {
        let dir = root.path().join(format!("t{threads}"));
        let mut args = vec!["solve".to_string()];
        args.extend(GAME.iter().map(|s| s.to_string()));
        args.extend(
            ["--quiet", "--timings", "--threads", &threads.to_string()]
                .iter()
                .map(|s| s.to_string()),
        );
        args.extend(["--out".to_string(), dir.to_str().unwrap().to_string()]);
        let out = bawo_env(&args, &[]);
        assert_ok(&out, "default run");
        let err = text(&out.stderr);
        let want = if threads < cores { 8 } else { 0 };
        assert_eq!(
            err.matches("beside the next tier").count(),
            want,
            "{threads} threads on {cores} cores: {err}"
        );
    }
}
