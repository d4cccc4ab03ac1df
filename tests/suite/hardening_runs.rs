//! Run directories under stress (issue 10, items 1, 7, 8 and 9): the solver deletes only its
//! own files; an unfinished run never passes for a finished database; every recovery path
//! (`--force` over a damaged manifest, `--resume` after `--tmp` vanished, `--resume --seeds`
//! on a shipped database) leads somewhere; a memory budget above physical memory is refused.

use crate::common;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use common::cli::{assert_fails, assert_ok, bawo, bawo_env, json, text};
use common::run_dir::{self, path_arg};

/// A small Bawo game: tiers 0..=SEEDS with at most 2 * C(17, 7) = 38,896 positions.
const GAME: &[&str] = &["--game", "bawo", "--n", "2", "--lap-cap", "6"];
const SEEDS: u32 = 10;

fn solve_args(dir: &Path, extra: &[&str]) -> Vec<String> {
    let seeds = SEEDS.to_string();
    let mut game = GAME.to_vec();
    game.extend(["--quiet", "--seeds", &seeds]);
    run_dir::solve_args(&game, dir, extra)
}

/// Solves until the `k`-th manifest write, then aborts (fault injection).
fn solve_aborted(dir: &Path, extra: &[&str], k: u64) {
    let out = bawo_env(
        &solve_args(dir, extra),
        &[("BAWO_ABORT_AFTER_CHECKPOINTS", k.to_string())],
    );
    assert!(
        !out.status.success(),
        "expected an abort: {}",
        text(&out.stderr)
    );
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

fn finished_tiers(dir: &Path) -> usize {
    manifest(dir)["tiers"].as_array().unwrap().len()
}

fn plant(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[track_caller]
fn assert_kept(path: &Path, text: &str) {
    let got = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(got, text, "{}", path.display());
}

/// The compressed files of a finished run, by name.
fn bdb_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".bdb"))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    v.sort();
    v
}

fn clean_solve(root: &Path) -> PathBuf {
    let dir = root.join("clean");
    assert_ok(&bawo(&solve_args(&dir, &[])), "clean solve");
    dir
}

// ---------------------------------------------------------------------------------------------
// Item 1: only the solver's own files are deleted

#[test]
fn decoy_files_survive_resume_completion_and_force() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("run");
    solve_aborted(&dir, &[], 5);
    let decoys = [
        (dir.join("notes.txt"), "top"),
        (dir.join("work/thesis/chapter1.tex"), "thesis"),
        // Regression: a tier's work folder was removed whole, with a user's file in it; one
        // of a finished tier, one of the tier in progress, one of a tier still to come.
        (dir.join("work/tier-0001/notes.txt"), "finished tier"),
        (dir.join("work/tier-0004/notes.txt"), "tier in progress"),
        (dir.join("work/tier-0009/notes.txt"), "tier to come"),
    ];
    for (p, t) in &decoys {
        plant(p, t);
    }
    let mut resume = solve_args(&dir, &["--resume"]);
    assert_ok(&bawo(&resume), "resume with decoys");
    for (p, t) in &decoys {
        assert_kept(p, t);
    }
    // The solver's own files are gone from the folders that hold a decoy.
    let left: Vec<_> = std::fs::read_dir(dir.join("work/tier-0009"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["notes.txt"]);
    resume.push("--force".into());
    resume.retain(|a| a != "--resume");
    assert_ok(&bawo(&resume), "--force with decoys");
    for (p, t) in &decoys {
        assert_kept(p, t);
    }
    assert_ok(&bawo(&["verify", "--db", &path_arg(&dir)]), "verify");
}

#[test]
fn force_spares_files_with_solver_names_that_it_did_not_create() {
    let root = tempfile::tempdir().unwrap();
    let dir = clean_solve(root.path());
    // Regression: ownership was by name, so `--force` deleted any `tier-KKKK.tbl`/`.bdb` of the
    // directory (over a damaged manifest) and the solver-named files of any `work/tier-KKKK/`.
    let decoys = [
        (dir.join("tier-0042.tbl"), "a table of mine"),
        (dir.join("tier-0043.bdb"), "a database of mine"),
        (dir.join("work/tier-0042/edges-0.log"), "a log of mine"),
    ];
    for (p, t) in &decoys {
        plant(p, t);
    }
    let out = bawo(&solve_args(&dir, &["--force"]));
    assert_ok(&out, "--force");
    assert!(
        text(&out.stderr).contains("tier-0042.tbl"),
        "no note: {}",
        text(&out.stderr)
    );
    for (p, t) in &decoys {
        assert_kept(p, t);
    }
    // Over a damaged manifest, the ledger still says what is the solver's.
    let mf = dir.join("manifest.json");
    let text_mf = std::fs::read_to_string(&mf).unwrap();
    // Still valid JSON, one count changed (a digit put in front of the first tier's states).
    let damaged = text_mf.replacen("\"states\": ", "\"states\": 1", 1);
    assert_ne!(damaged, text_mf);
    std::fs::write(&mf, damaged).unwrap();
    let ino = std::fs::metadata(dir.join("tier-0001.bdb")).unwrap().ino();
    // Held open so that the old file's inode cannot be freed and handed to the new file (the
    // filesystem reuses a deleted file's inode number, which made this check flaky).
    let _held = std::fs::File::open(dir.join("tier-0001.bdb")).unwrap();
    assert_ok(&bawo(&solve_args(&dir, &["--force"])), "--force, damaged");
    for (p, t) in &decoys {
        assert_kept(p, t);
    }
    // The run's own files were deleted and written again.
    assert_ne!(
        std::fs::metadata(dir.join("tier-0001.bdb")).unwrap().ino(),
        ino
    );
    assert_eq!(
        bdb_files(&dir)
            .into_iter()
            .filter(|(n, _)| n != "tier-0043.bdb")
            .collect::<Vec<_>>(),
        bdb_files(&clean_solve(&root.path().join("again")))
    );
    // A work folder of a tier to solve, not made by the solver, with a work file's name in
    // it: refused rather than written over.
    plant(
        &dir.join("work/tier-0003/edges-0.log"),
        "another log of mine",
    );
    let out = bawo(&solve_args(&dir, &["--force"]));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("which bawo did not create"), "{err}");
    assert_kept(
        &dir.join("work/tier-0003/edges-0.log"),
        "another log of mine",
    );
}

#[test]
fn a_tmp_folder_the_solver_made_is_removed_and_one_given_is_kept() {
    let root = tempfile::tempdir().unwrap();
    // Made by the solver (two levels of it): gone at the end.
    let made = root.path().join("scratch/deep");
    let dir = root.path().join("a");
    assert_ok(
        &bawo(&solve_args(&dir, &["--tmp", &path_arg(&made)])),
        "--tmp made",
    );
    assert!(!root.path().join("scratch").exists());
    // The user's, existing before: kept, empty.
    let given = root.path().join("given");
    std::fs::create_dir(&given).unwrap();
    let dir = root.path().join("b");
    assert_ok(
        &bawo(&solve_args(&dir, &["--tmp", &path_arg(&given)])),
        "--tmp given",
    );
    assert!(given.is_dir());
    assert_eq!(std::fs::read_dir(&given).unwrap().count(), 0);
}

// ---------------------------------------------------------------------------------------------
// Item 7: an unfinished run says so

#[test]
fn an_unfinished_run_says_which_tiers_are_finished() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("run");
    // The first manifest write, then one per finished tier: tiers 0-4 are finished.
    solve_aborted(&dir, &[], 6);
    assert_eq!(finished_tiers(&dir), 5);
    let db = path_arg(&dir);
    let finished = "tiers 0-4 of 0-10 are finished";

    // Regression: "the board holds 10 seeds; the database covers at most 10".
    let mut board = ["0"; 8];
    board[0] = "10";
    let board = board.join(",");
    let q = ["query", "--db", &db, "--board", &board, "--to-move", "A"];
    assert_fails(&bawo(&q), 2, finished, "query of an unfinished tier");
    assert!(text(&bawo(&q).stderr).contains("this board's tier 10 is not"));
    // A board of a finished tier is answered, with a warning.
    let q = [
        "query",
        "--db",
        &db,
        "--board",
        "2,0,0,0,0,0,0,0",
        "--to-move",
        "A",
    ];
    let out = bawo(&q);
    assert_ok(&out, "query of a finished tier");
    assert!(
        text(&out.stderr).contains(finished),
        "{}",
        text(&out.stderr)
    );

    // stats: a line in its output, `complete` in its JSON.
    let out = bawo(&["stats", "--db", &db]);
    assert_ok(&out, "stats");
    assert!(
        text(&out.stdout).contains(finished),
        "{}",
        text(&out.stdout)
    );
    let s = json(&bawo(&["stats", "--db", &db, "--json"]));
    assert_eq!(s["complete"], false);
    assert_eq!(s["finished_tiers"], serde_json::json!([0, 1, 2, 3, 4]));

    // verify fails unless asked for the finished part.
    assert_fails(&bawo(&["verify", "--db", &db]), 1, "--partial", "verify");
    let out = bawo(&["verify", "--db", &db, "--partial"]);
    assert_ok(&out, "verify --partial");
    assert!(text(&out.stderr).contains(finished));

    // export refuses an unfinished tier and warns on a finished one.
    let e = ["export", "--db", &db, "--tier", "7"];
    assert_fails(&bawo(&e), 2, finished, "export of an unfinished tier");
    let out = bawo(&["export", "--db", &db, "--tier", "3"]);
    assert_ok(&out, "export of a finished tier");
    assert!(text(&out.stderr).contains(finished));

    // Finished, it says nothing of the kind.
    assert_ok(&bawo(&solve_args(&dir, &["--resume"])), "resume");
    let s = json(&bawo(&["stats", "--db", &db, "--json"]));
    assert_eq!(s["complete"], true);
    let out = bawo(&["verify", "--db", &db]);
    assert_ok(&out, "verify of the finished run");
    assert!(!text(&out.stderr).contains("unfinished"));
}

#[test]
fn serve_warns_at_start_about_an_unfinished_run() {
    use std::io::BufRead;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("run");
    solve_aborted(&dir, &[], 5);
    let mut child =
        common::cli::clean_command(&["serve", "--db", &path_arg(&dir), "--addr", "127.0.0.1:0"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufReader::new(stderr).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(std::time::Duration::from_secs(30));
    child.kill().unwrap();
    child.wait().unwrap();
    let line = line.expect("no warning on standard error within 30 s");
    assert!(
        line.contains("warning: run (the run in") && line.contains("is unfinished"),
        "{line}"
    );
}

// ---------------------------------------------------------------------------------------------
// Item 8: recovery paths

#[test]
fn force_discards_a_damaged_manifest_and_solves_again() {
    let root = tempfile::tempdir().unwrap();
    let clean = clean_solve(root.path());
    let dir = root.path().join("run");
    solve_aborted(&dir, &[], 6);
    plant(&dir.join("notes.txt"), "mine");
    plant(&dir.join("work/tier-0005/notes.txt"), "mine too");
    let mf = dir.join("manifest.json");
    let text_mf = std::fs::read_to_string(&mf).unwrap();
    // Still valid JSON, one count changed (a digit put in front of the first tier's states).
    let damaged = text_mf.replacen("\"states\": ", "\"states\": 1", 1);
    assert_ne!(damaged, text_mf);
    std::fs::write(&mf, damaged).unwrap();
    // Regression: --force refused it ("does not match its checksum") with no way forward.
    assert_fails(
        &bawo(&solve_args(&dir, &["--resume"])),
        1,
        "does not match its checksum",
        "resume of a damaged manifest",
    );
    assert_ok(&bawo(&solve_args(&dir, &["--force"])), "--force");
    assert_eq!(bdb_files(&dir), bdb_files(&clean));
    assert_kept(&dir.join("notes.txt"), "mine");
    assert_kept(&dir.join("work/tier-0005/notes.txt"), "mine too");

    // Someone else's manifest.json is not ours to discard.
    let other = root.path().join("other");
    plant(&other.join("manifest.json"), "{\"name\": \"my-app\"}");
    let out = bawo(&solve_args(&other, &["--force"]));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_kept(&other.join("manifest.json"), "{\"name\": \"my-app\"}");
}

#[test]
fn resume_after_the_tmp_folder_vanished_redoes_only_the_current_tier() {
    let root = tempfile::tempdir().unwrap();
    let clean = clean_solve(root.path());
    let dir = root.path().join("run");
    let tmp = root.path().join("tmp");
    let extra = ["--tmp", tmp.to_str().unwrap(), "--checkpoint-secs", "0"];
    // Far enough to be inside a tier, past finished tiers.
    let mut k = 40;
    loop {
        let _ = std::fs::remove_dir_all(&dir);
        solve_aborted(&dir, &extra, k);
        if manifest(&dir).get("current").is_some() && finished_tiers(&dir) >= 3 {
            break;
        }
        k += 20;
        assert!(k < 2000, "no checkpoint inside a tier");
    }
    // The finished tiers' compressed files are kept, not written again (their raw tables go
    // at the end of a lean run).
    let ino = std::fs::metadata(dir.join("tier-0000.bdb")).unwrap().ino();
    std::fs::remove_dir_all(&tmp).unwrap();
    // Regression: the resume refused ("start over with --force"), throwing every finished
    // tier away.
    let out = bawo(&solve_args(&dir, &[&extra[..], &["--resume"]].concat()));
    assert_ok(&out, "resume without the work folder");
    assert!(
        text(&out.stderr).contains("finished tiers are kept"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::metadata(dir.join("tier-0000.bdb")).unwrap().ino(),
        ino
    );
    assert_eq!(bdb_files(&dir), bdb_files(&clean));
}

#[test]
fn resume_with_more_seeds_extends_a_shipped_database() {
    let root = tempfile::tempdir().unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bawo-n2-s6");
    let dir = root.path().join("copy");
    std::fs::create_dir(&dir).unwrap();
    for e in std::fs::read_dir(&shipped).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    // Regression: "tier-0000.tbl: No such file or directory".
    let d = path_arg(&dir);
    let out = bawo(&["solve", "--quiet", "--resume", "--seeds", "7", "--out", &d]);
    assert_ok(&out, "--resume --seeds 7 on a shipped database");
    let fresh = root.path().join("fresh");
    let game = ["--game", "bawo", "--n", "2", "--lap-cap", "64"];
    let mut args = vec!["solve", "--quiet", "--seeds", "7", "--out"];
    let f = path_arg(&fresh);
    args.push(&f);
    args.extend(game);
    assert_ok(&bawo(&args), "fresh solve");
    assert_eq!(bdb_files(&dir), bdb_files(&fresh));
    assert_ok(&bawo(&["verify", "--db", &d]), "verify the extended copy");
}

// ---------------------------------------------------------------------------------------------
// Item 9: a budget above physical memory

#[test]
fn a_memory_budget_above_physical_memory_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("run");
    let out = bawo(&solve_args(&dir, &["--mem", "1000T"]));
    assert_fails(&out, 2, "physical memory", "--mem 1000T");
    assert!(!dir.exists());
    let out = bawo_env(
        &solve_args(&dir, &["--mem", "1000T"]),
        &[("BAWO_ALLOW_MEM_ABOVE_PHYSICAL", "1".to_string())],
    );
    assert_ok(&out, "--mem 1000T allowed by the environment");
}
