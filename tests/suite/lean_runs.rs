//! Sizing a run before it starts (`solve --dry-run`) and lean runs: a finished run keeps only
//! its compressed files and manifest (`--keep-tables` keeps the raw tables too), is extended
//! with `--resume --seeds S+k` to exactly what a direct solve of S+k gives, reports what each
//! tier wrote and its peak disk, and holds at most 1.2 times the size of its `.bdb` files.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::cli::{assert_fails, assert_ok, bawo, bawo_env, json};
use common::run_dir::path_arg;

const GAME: [&str; 6] = ["--game", "bawo", "--n", "2", "--lap-cap", "64"];

/// `bawo solve` of the n = 2 game up to `seeds` into `dir`, with `extra` flags.
fn solve(dir: &Path, seeds: u32, extra: &[&str]) -> std::process::Output {
    let seeds = seeds.to_string();
    let out = path_arg(dir);
    let mut args = vec!["solve", "--quiet", "--seeds", &seeds, "--out", &out];
    args.extend(GAME);
    args.extend(extra);
    bawo(&args)
}

/// Every file of a run directory, by name, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            let name = e.file_name().into_string().unwrap();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

fn with_suffix(dir: &Path, suffix: &str) -> BTreeMap<String, Vec<u8>> {
    files(dir)
        .into_iter()
        .filter(|(n, _)| n.ends_with(suffix))
        .collect()
}

#[test]
fn a_dry_run_writes_nothing_and_counts_what_a_solve_counts() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("run");
    let out = solve(&dir, 8, &["--dry-run", "--json"]);
    assert_ok(&out, "dry run");
    assert!(!dir.exists(), "a dry run made its run directory");
    let plan = json(&out);
    let solved = solve(&dir, 8, &["--json"]);
    assert_ok(&solved, "solve");
    let solved = json(&solved);
    assert_eq!(plan["states"], solved["states"]);
    // One side to move is stored: each stored entry stands for two positions.
    assert_eq!(
        plan["stored"].as_u64().unwrap() * 2,
        solved["states"].as_u64().unwrap()
    );
    let (p, s) = (
        plan["tiers"].as_array().unwrap(),
        solved["tiers"].as_array().unwrap(),
    );
    assert_eq!(p.len(), s.len());
    for (p, s) in p.iter().zip(s) {
        assert_eq!(p["seeds"], s["seeds"]);
        assert_eq!(p["states"], s["states"], "tier of {} seeds", s["seeds"]);
        assert!(p["ranges"].as_u64().unwrap() >= 1);
    }
    for key in [
        "peak_disk",
        "final_disk",
        "bytes_written",
        "budget",
        "threads",
    ] {
        assert!(plan[key].as_u64().is_some(), "dry run lacks {key}: {plan}");
    }
    assert!(plan["seconds"].as_f64().unwrap() >= 0.0);
    assert!(plan["peak_disk"].as_u64() >= plan["final_disk"].as_u64());

    // Over a finished run, a dry run of more seeds changes nothing there either.
    let before = files(&dir);
    let out = solve(&dir, 10, &["--dry-run", "--resume"]);
    assert_ok(&out, "dry run of an extension");
    assert!(common::cli::text(&out.stdout).contains("dry run, nothing written"));
    assert_eq!(files(&dir), before, "a dry run changed the run directory");
}

/// The instance of the issue: 14,615,744,220 positions, one tier above 2^32. While the solver
/// indexes at most 2^32 - 1 positions per tier the plan refuses it by name; once that limit is
/// gone the dry run must answer, in seconds, with the count.
#[test]
fn a_dry_run_of_fourteen_billion_positions_answers_at_once() {
    let t = std::time::Instant::now();
    let out = bawo(&[
        "solve",
        "--game",
        "bawo",
        "--n",
        "5",
        "--seeds",
        "16",
        "--dry-run",
        "--json",
    ]);
    if out.status.success() {
        assert_eq!(json(&out)["states"].as_u64(), Some(14_615_744_220));
        assert!(t.elapsed().as_secs() < 30, "took {:?}", t.elapsed());
    } else {
        common::cli::assert_fails(&out, 2, "positions per tier", "the 2^32 tier limit");
    }
}

#[test]
fn a_finished_run_keeps_only_the_database_unless_told_to_keep_the_tables() {
    let root = tempfile::tempdir().unwrap();
    let (lean, kept) = (root.path().join("lean"), root.path().join("kept"));
    assert_ok(&solve(&lean, 8, &[]), "lean solve");
    assert_ok(&solve(&kept, 8, &["--keep-tables"]), "solve keeping tables");
    let names: Vec<String> = files(&lean).into_keys().collect();
    assert!(
        names
            .iter()
            .all(|n| n == "manifest.json" || n == "owned.json" || n.ends_with(".bdb")),
        "a lean run left {names:?}"
    );
    assert!(!lean.join("work").exists());
    assert_eq!(
        with_suffix(&kept, ".tbl").len(),
        9,
        "--keep-tables: a table per tier"
    );
    assert_eq!(with_suffix(&lean, ".bdb"), with_suffix(&kept, ".bdb"));
    // Both answer queries alike.
    for dir in [&lean, &kept] {
        let d = path_arg(dir);
        let out = bawo(&["verify", "--db", &d]);
        assert_ok(&out, "verify");
    }
}

#[test]
fn extending_a_lean_run_gives_what_a_direct_solve_gives() {
    let root = tempfile::tempdir().unwrap();
    let (extended, direct) = (root.path().join("extended"), root.path().join("direct"));
    assert_ok(&solve(&extended, 6, &[]), "lean solve of 6 seeds");
    assert!(with_suffix(&extended, ".tbl").is_empty());
    let out = solve(&extended, 9, &["--resume", "--json"]);
    assert_ok(&out, "--resume --seeds 9");
    let v = json(&out);
    // The tiers this run solved say what they wrote; the ones it found finished do not.
    for t in v["tiers"].as_array().unwrap() {
        let solved_here = t["seeds"].as_u64().unwrap() > 6;
        assert_eq!(t.get("bytes_written").is_some(), solved_here, "{t}");
        if solved_here {
            assert!(t["bytes_written"].as_u64().unwrap() > 0, "{t}");
            assert!(t["peak_disk"].as_u64().unwrap() > 0, "{t}");
        }
    }
    assert_ok(&solve(&direct, 9, &[]), "direct solve of 9 seeds");
    assert_eq!(
        with_suffix(&extended, ".bdb"),
        with_suffix(&direct, ".bdb"),
        "the extended run differs from the direct one"
    );
    assert!(
        with_suffix(&extended, ".tbl").is_empty(),
        "the extension is lean too"
    );
    let tiers = |d: &Path| {
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join("manifest.json")).unwrap()).unwrap();
        m["tiers"].clone()
    };
    assert_eq!(tiers(&extended), tiers(&direct));
}

#[test]
fn a_finished_run_is_at_most_a_fifth_larger_than_its_database() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("run");
    let d = path_arg(&dir);
    let out = bawo(&[
        "solve",
        "--quiet",
        "--game",
        "bawo",
        "--n",
        "3",
        "--lap-cap",
        "64",
        "--seeds",
        "12",
        "--out",
        &d,
    ]);
    assert_ok(&out, "solve n = 3, 12 seeds");
    let size = |m: &BTreeMap<String, Vec<u8>>| m.values().map(|b| b.len() as u64).sum::<u64>();
    let all = size(&files(&dir));
    let bdb = size(&with_suffix(&dir, ".bdb"));
    assert!(
        all as f64 <= 1.2 * bdb as f64,
        "the run directory holds {all} bytes, its .bdb files {bdb}"
    );
}

#[test]
fn a_run_that_does_not_fit_the_free_disk_is_refused_unless_told_to_start_anyway() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("run");
    let d = path_arg(&dir);
    let args = |extra: &[&'static str]| {
        let mut a: Vec<String> = ["solve", "--quiet", "--seeds", "10", "--out"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.push(d.clone());
        a.extend(GAME.iter().chain(extra).map(|s| s.to_string()));
        a
    };
    // What the dry run says the run needs at its peak.
    let plan = json(&bawo(&[args(&["--dry-run", "--json"]), vec![]].concat()));
    let peak = plan["peak_disk"].as_u64().unwrap();
    assert!(peak > 0, "{plan}");
    let free = |bytes: u64| [("BAWO_FREE_DISK", bytes.to_string())];
    let out = bawo_env(&args(&[]), &free(peak / 2));
    assert_fails(&out, 1, "not enough free disk", "a run twice the free disk");
    assert!(
        common::cli::text(&out.stderr).contains("--no-disk-check"),
        "the message names the way out"
    );
    assert!(!dir.exists(), "a refused run writes nothing");
    // Room for the peak: it runs; and --no-disk-check starts whatever the disk says.
    assert_ok(&bawo_env(&args(&[]), &free(peak * 2)), "a run that fits");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_ok(
        &bawo_env(&args(&["--no-disk-check"]), &free(peak / 2)),
        "--no-disk-check",
    );
}

#[test]
fn extending_a_lean_run_refuses_a_damaged_database_file() {
    // A lean run has no raw tables: resuming decodes each `.bdb` and checks it in the same
    // read, so damage anywhere in the file (header, a block, the index, the trailer) must
    // still be refused before anything is written.
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("lean");
    assert_ok(&solve(&dir, 6, &[]), "lean solve of 6 seeds");
    let before_bdb = with_suffix(&dir, ".bdb");
    for name in ["tier-0004.bdb", "tier-0006.bdb"] {
        let path = dir.join(name);
        let good = before_bdb[name].clone();
        let len = good.len();
        let damages: Vec<(String, Vec<u8>)> = [0, 20, 70, len / 2, len - 30, len - 9, len - 1]
            .into_iter()
            .map(|at| {
                let mut bad = good.clone();
                bad[at] ^= 0x24;
                (format!("byte {at} flipped"), bad)
            })
            .chain([("cut short".to_string(), good[..len - 1].to_vec())])
            .collect();
        for (what, bad) in damages {
            std::fs::write(&path, &bad).unwrap();
            let out = solve(&dir, 7, &["--resume"]);
            assert_fails(&out, 1, "corrupted", &format!("{name} {what}"));
            // No table decoded from it is left behind, and no other database file changed.
            let mut now = with_suffix(&dir, ".bdb");
            now.insert(name.to_string(), good.clone());
            assert!(
                now == before_bdb,
                "{name} {what}: the refused resume changed the run"
            );
            assert!(
                with_suffix(&dir, ".tbl").is_empty(),
                "{name} {what}: a table was left"
            );
            std::fs::write(&path, &good).unwrap();
        }
    }
    assert_ok(&solve(&dir, 7, &["--resume"]), "the repaired run resumes");
}
