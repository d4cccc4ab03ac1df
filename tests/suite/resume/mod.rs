//! Checkpoints and resume through the real binary: a run interrupted at every checkpoint (and
//! interrupted again while resuming) ends byte-identical to an uninterrupted one; damaged
//! checkpoint files are refused, never trusted; leftovers of a killed run are ignored; a full
//! disk, an unwritable directory and a held lock fail cleanly; resuming with other parameters
//! is refused.
//!
//! Interruptions use the fault-injection switches of `bawo_store::fault`:
//! `BAWO_ABORT_AFTER_CHECKPOINTS=k` aborts the process right after its k-th manifest write, and
//! `BAWO_FAIL_WRITES_AFTER=bytes` makes writes fail with ENOSPC past that many bytes.
//!
//! Runs use `--checkpoint-secs 0` (a checkpoint at every opportunity), which syncs files
//! hundreds of times per run: scratch directories go to `/dev/shm` when there is one, where a
//! sync costs nothing (on a busy disk a run takes seconds instead of milliseconds). Without
//! `/dev/shm`, the runs interrupted at every checkpoint interrupt every third one instead.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::cli::{assert_fails, assert_ok, bawo, bawo_env, text};
use common::run_dir::{self, final_files, manifest, path_arg, snapshot};
use serde_json::Value as Json;

mod carried;
mod damage;
mod refusals;

// ---------------------------------------------------------------------------------------------
// Instances

/// A small instance: its game flags, and the range size that cuts its largest tiers into
/// several ranges (`None`: one range per tier, the in-memory path).
#[derive(Clone, Copy)]
struct Instance {
    game: &'static [&'static str],
    range_bits: Option<&'static str>,
}

const N2_GAME: &[&str] = &[
    "--game",
    "bawo",
    "--n",
    "2",
    "--seeds",
    "8",
    "--lap-cap",
    "6",
];

/// 25,740 positions in 9 tiers (the largest 12,870), one range per tier.
const N2: Instance = Instance {
    game: N2_GAME,
    range_bits: None,
};

/// The same in ranges of 2,048 positions: the largest tier in 7 ranges and 7 pass blocks.
const N2_RANGES: Instance = Instance {
    game: N2_GAME,
    range_bits: Some("11"),
};

/// n = 3 (12 pits): the largest tier, 24,752 positions, in 7 ranges of 4,096.
const N3_RANGES: Instance = Instance {
    game: &[
        "--game",
        "bawo",
        "--n",
        "3",
        "--seeds",
        "6",
        "--lap-cap",
        "6",
    ],
    range_bits: Some("12"),
};

/// n = 1, captures from occupied pits only: 176 draws among 3,640 positions, depths up to 15
/// (many attractor levels); the largest tier, 910 positions, in 4 ranges of 256.
const N1_DRAWS: Instance = Instance {
    game: &[
        "--game",
        "bawo",
        "--n",
        "1",
        "--seeds",
        "12",
        "--lap-cap",
        "5",
        "--rules",
        "capture=occupied",
    ],
    range_bits: Some("8"),
};

/// n = 2 with lap cap 4: 18 draws, one range per tier.
const N2_DRAWS: Instance = Instance {
    game: &[
        "--game",
        "bawo",
        "--n",
        "2",
        "--seeds",
        "8",
        "--lap-cap",
        "4",
    ],
    range_bits: None,
};

/// Bao mtaji, 4 seeds: one closed tier of 52,360 stored positions in 13 ranges of 4,096,
/// whose cells take two bytes out of core.
const BAO4_RANGES: Instance = Instance {
    game: &["--game", "bao", "--seeds", "4"],
    range_bits: Some("12"),
};

fn strings(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

impl Instance {
    fn tiers(&self) -> u64 {
        let i = self.game.iter().position(|&a| a == "--seeds").unwrap();
        self.game[i + 1].parse::<u64>().unwrap() + 1
    }

    /// `solve` of this instance into `dir`, checkpointing at every opportunity.
    fn solve(&self, dir: &Path) -> Vec<String> {
        let mut a = strings(&["solve"]);
        a.extend(strings(self.game));
        if let Some(b) = self.range_bits {
            a.extend(strings(&["--range-bits", b]));
        }
        a.extend(strings(&[
            "--quiet",
            "--checkpoint-secs",
            "0",
            "--threads",
            "2",
        ]));
        a.extend(["--out".to_string(), path_arg(dir)]);
        a
    }

    /// `solve --resume` of the run in `dir`: the game and its parameters come from the manifest.
    fn resume(&self, dir: &Path) -> Vec<String> {
        self.resume_with(dir, "2", true)
    }

    fn resume_with(&self, dir: &Path, threads: &str, range_bits: bool) -> Vec<String> {
        let mut a = strings(&["solve", "--resume", "--quiet", "--checkpoint-secs", "0"]);
        a.extend(strings(&["--threads", threads]));
        if let (true, Some(b)) = (range_bits, self.range_bits) {
            a.extend(strings(&["--range-bits", b]));
        }
        a.extend(["--out".to_string(), path_arg(dir)]);
        a
    }
}

// ---------------------------------------------------------------------------------------------
// Running the binary

/// Runs `args` with an abort after the k-th checkpoint. True when the process aborted there,
/// false when it finished before taking k checkpoints.
fn aborted(args: &[String], k: u64) -> bool {
    aborted_with(args, k, &[])
}

/// [`aborted`] with more environment variables.
fn aborted_with(args: &[String], k: u64, env: &[(&str, String)]) -> bool {
    let mut env = env.to_vec();
    env.push(("BAWO_ABORT_AFTER_CHECKPOINTS", k.to_string()));
    let out = bawo_env(args, &env);
    if out.status.success() {
        return false;
    }
    let err = text(&out.stderr);
    assert_eq!(
        out.status.signal(),
        Some(6),
        "k={k}: expected SIGABRT from the fault injection, got {:?}: {err}",
        out.status
    );
    assert!(
        err.contains(&format!("aborting after checkpoint {k}")),
        "k={k}: {err}"
    );
    true
}

// ---------------------------------------------------------------------------------------------
// Run directories

/// A scratch directory, in memory where possible (see the module notes).
fn scratch() -> tempfile::TempDir {
    run_dir::scratch("bawo-resume-")
}

fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(listing(&p));
            } else {
                out.push(p.display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// The run in `dir` is complete, byte-identical to the uninterrupted run in `clean` (every
/// `.tbl` and `.bdb` file, and the manifest's tier records), and left no work files behind.
#[track_caller]
fn assert_same_solve(clean: &Path, dir: &Path, what: &str) {
    let want = final_files(clean);
    let got = final_files(dir);
    assert!(!want.is_empty(), "the clean run has no tables");
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>(),
        "{what}: final files"
    );
    for (name, bytes) in &want {
        assert!(
            got[name] == *bytes,
            "{what}: {name} differs from the uninterrupted run"
        );
    }
    let (m0, m) = (manifest(clean), manifest(dir));
    assert_eq!(m["tiers"], m0["tiers"], "{what}: manifest tier records");
    assert_eq!(m["complete"], Json::Bool(true), "{what}: not complete");
    assert!(m.get("current").is_none(), "{what}: a checkpoint is left");
    assert!(
        !dir.join("work").exists(),
        "{what}: work files left behind: {:?}",
        listing(&dir.join("work"))
    );
}

fn phase_of(dir: &Path) -> String {
    match manifest(dir).get("current") {
        Some(c) => c["phase"].as_str().unwrap().to_string(),
        None => "between tiers".to_string(),
    }
}

/// Stops a run of `inst` in `dir` (with `env`) at its first checkpoint in the attractor, and
/// gives that checkpoint's number.
fn stopped_in_attractor(inst: Instance, dir: &Path, env: &[(&str, String)]) -> u64 {
    let mut k = 1;
    while aborted_with(&inst.solve(dir), k, env) && phase_of(dir) != "attractor" {
        std::fs::remove_dir_all(dir).unwrap();
        k += 1;
    }
    assert_eq!(phase_of(dir), "attractor");
    k
}

fn solve_clean(inst: Instance, root: &Path) -> PathBuf {
    let clean = root.join("clean");
    assert_ok(&bawo(&inst.solve(&clean)), "uninterrupted run");
    clean
}

// ---------------------------------------------------------------------------------------------
// Interrupted at every checkpoint

/// How a run interrupted at its k-th checkpoint is brought to its end.
struct Plan {
    /// Further interruptions while resuming (each counted from the resuming process's start).
    later: Vec<u64>,
    /// Threads of the final resume.
    threads: &'static str,
    /// The final resume repeats `--range-bits` (without it, later tiers use the memory plan).
    range_bits: bool,
}

fn varied(k: u64) -> Plan {
    Plan {
        later: match k % 4 {
            0 => vec![],
            1 => vec![1 + k % 3],
            2 => vec![2, 1],
            _ => vec![1 + k % 5, 3, 1],
        },
        threads: ["1", "2", "3"][(k % 3) as usize],
        range_bits: !k.is_multiple_of(5),
    }
}

/// Interrupts a run of `inst` at its k-th checkpoint for every k (every third without
/// `/dev/shm`), resumes it as `plan` says, and compares the result with an uninterrupted run.
/// Returns the number of checkpoints of an uninterrupted run (counted by raising k until a run
/// finishes before its k-th checkpoint).
fn interrupt_everywhere(inst: Instance, plan: impl Fn(u64) -> Plan) -> u64 {
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let mut phases = BTreeSet::new();
    let stride = if root.path().starts_with("/dev/shm") {
        1
    } else {
        3
    };
    let mut k = 1;
    loop {
        let dir = root.path().join(format!("k{k}"));
        if !aborted(&inst.solve(&dir), k) {
            assert_same_solve(
                &clean,
                &dir,
                &format!("a run that took fewer than {k} checkpoints"),
            );
            break;
        }
        phases.insert(phase_of(&dir));
        let p = plan(k);
        let mut done = Vec::new();
        for &k2 in &p.later {
            if !aborted(&inst.resume(&dir), k2) {
                break;
            }
            done.push(k2);
        }
        let what = format!("interrupted at checkpoint {k}, then while resuming at {done:?}");
        let out = bawo(&inst.resume_with(&dir, p.threads, p.range_bits));
        assert_ok(&out, &what);
        assert_same_solve(&clean, &dir, &what);
        std::fs::remove_dir_all(&dir).unwrap();
        k += stride;
        assert!(k < 5000, "the run never finishes");
    }
    // With a stride, step back from the first k that was too large to the exact count.
    let mut checkpoints = k - 1;
    while checkpoints > k - stride {
        let dir = root.path().join(format!("count{checkpoints}"));
        if aborted(&inst.solve(&dir), checkpoints) {
            break;
        }
        checkpoints -= 1;
    }
    for phase in ["between tiers", "successors", "predecessors", "attractor"] {
        assert!(
            phases.contains(phase),
            "no interruption in phase {phase}: {phases:?}"
        );
    }
    // A start, at least one checkpoint in each phase of most tiers, one per finished tier.
    assert!(
        checkpoints > 2 * inst.tiers() + 2,
        "only {checkpoints} checkpoints for {} tiers",
        inst.tiers()
    );
    checkpoints
}

#[test]
fn interrupted_at_every_checkpoint_one_range_per_tier() {
    let n = interrupt_everywhere(N2, varied);
    eprintln!("{n} checkpoints, each one interrupted and resumed");
}

#[test]
fn interrupted_at_every_checkpoint_in_ranges() {
    let n = interrupt_everywhere(N2_RANGES, varied);
    eprintln!("{n} checkpoints, each one interrupted and resumed");
}

#[test]
fn interrupted_at_every_checkpoint_n3_in_ranges() {
    let n = interrupt_everywhere(N3_RANGES, varied);
    eprintln!("{n} checkpoints, each one interrupted and resumed");
}

#[test]
fn interrupted_at_every_checkpoint_with_draws() {
    let root = scratch();
    let clean = solve_clean(N1_DRAWS, root.path());
    let draws: u64 = manifest(&clean)["tiers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["draw"].as_u64().unwrap())
        .sum();
    assert!(draws > 0, "the instance has no draws");
    let n = interrupt_everywhere(N1_DRAWS, varied);
    eprintln!("{n} checkpoints, each one interrupted and resumed");
}

#[test]
fn interrupted_at_every_checkpoint_with_some_cells_held() {
    // Out of core the attractor holds the cells of the ranges its share holds in memory and
    // maps the others' files; here 1 KiB: one of the two ranges of 256 of the largest tiers.
    // Interrupted at every checkpoint, resumed with the same share or with every range held
    // or none, the tables are those of a run that held every range.
    let inst = N1_DRAWS;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let some = [("BAWO_HELD_CELLS", "1024".to_string())];
    let dir = root.path().join("uninterrupted");
    assert_ok(&bawo_env(&inst.solve(&dir), &some), "one range held");
    assert_same_solve(&clean, &dir, "one range held");
    // The same with every table written in place (the finish of ranges of megabytes).
    let dir = root.path().join("in-place");
    let in_place = [some[0].clone(), ("BAWO_IN_PLACE_FROM", "0".to_string())];
    assert_ok(&bawo_env(&inst.solve(&dir), &in_place), "written in place");
    assert_same_solve(&clean, &dir, "one range held, tables written in place");
    let mut attractor = 0;
    for k in 1.. {
        let dir = root.path().join(format!("k{k}"));
        if !aborted_with(&inst.solve(&dir), k, &some) {
            break;
        }
        attractor += u64::from(phase_of(&dir) == "attractor");
        let held = ["1024", "0", "1000000"][k as usize % 3].to_string();
        let out = bawo_env(&inst.resume(&dir), &[("BAWO_HELD_CELLS", held.clone())]);
        let what = format!("interrupted at checkpoint {k}, resumed holding {held} bytes");
        assert_ok(&out, &what);
        assert_same_solve(&clean, &dir, &what);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(k < 5000, "the run never finishes");
    }
    assert!(
        attractor > 5,
        "only {attractor} interruptions in the attractor"
    );
}

#[test]
fn interrupted_again_and_again_with_draws() {
    // Every resume is interrupted after two more checkpoints until the run finishes.
    let inst = N2_DRAWS;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let dir = root.path().join("run");
    assert!(aborted(&inst.solve(&dir), 2));
    let mut resumes = 1;
    while aborted(&inst.resume(&dir), 2) {
        resumes += 1;
        assert!(resumes < 1000, "no progress");
    }
    assert!(resumes > 10, "only {resumes} resumes");
    assert_same_solve(&clean, &dir, "interrupted every second checkpoint");
}

#[test]
fn interrupted_with_work_files_elsewhere() {
    // --tmp puts the work files outside the run directory; the checkpoint remembers where.
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    for k in [3, 17, 30, 45, 60, 71] {
        let dir = root.path().join(format!("k{k}"));
        let tmp = root.path().join(format!("tmp{k}"));
        let mut args = inst.solve(&dir);
        args.extend(["--tmp".to_string(), path_arg(&tmp)]);
        assert!(aborted(&args, k));
        // Resumed with the same --tmp. Without it, a tier in progress under --tmp is a usage
        // error that names the --tmp and changes nothing (no path is taken from the manifest
        // but those the run derives from --out and --tmp).
        if k % 2 == 0 {
            let before = std::fs::read(dir.join("manifest.json")).unwrap();
            let out = bawo(&inst.resume(&dir));
            if !out.status.success() {
                assert_fails(&out, 2, "resume with that --tmp", "resume without --tmp");
                let after = std::fs::read(dir.join("manifest.json")).unwrap();
                assert!(before == after, "a refused resume rewrote the manifest");
            }
        }
        let mut again = inst.resume(&dir);
        again.extend(["--tmp".to_string(), path_arg(&tmp)]);
        assert_ok(&bawo(&again), "resume");
        assert_same_solve(&clean, &dir, &format!("--tmp, interrupted at {k}"));
        assert_eq!(
            listing(&tmp),
            Vec::<String>::new(),
            "work files left in --tmp"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The last tier's lower tables

/// The run's files beside its manifest (not the work files) whose names end in `ext`.
fn top_files(dir: &Path, ext: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(ext))
        .collect();
    out.sort();
    out
}

/// A run of `inst` in `dir` (with `extra` arguments) killed at the first checkpoint of its
/// last tier's attractor.
fn killed_in_last_attractor(inst: Instance, dir: &Path, extra: &[&str]) {
    let last = inst.tiers() - 1;
    let mut args = inst.solve(dir);
    args.extend(strings(extra));
    for k in 1.. {
        let _ = std::fs::remove_dir_all(dir);
        assert!(aborted(&args, k), "no checkpoint in the attractor");
        let m = manifest(dir);
        if m["current"]["tier"].as_u64() == Some(last) && phase_of(dir) == "attractor" {
            return;
        }
        assert!(k < 5000, "the run never reaches its last tier");
    }
}

#[test]
fn the_last_tier_deletes_the_lower_raw_tables_once_its_pass_is_over() {
    // Out of core, the last tier's attractor needs no lower tier, and the finished run keeps
    // only compressed files: the raw tables and flags files below go once its pass is over,
    // where its work files are at their largest. A run killed there resumes without decoding
    // them again, and ends as an uninterrupted run; one whose work files were lost too
    // decodes them and solves the tier again.
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let dir = root.path().join("run");
    killed_in_last_attractor(inst, &dir, &[]);
    let recorded = manifest(&dir)["tiers"].as_array().unwrap().len() as u64;
    assert_eq!(recorded, inst.tiers() - 1, "every tier below is finished");
    assert_eq!(top_files(&dir, ".tbl"), Vec::<String>::new(), "raw tables");
    assert_eq!(top_files(&dir, ".flags"), Vec::<String>::new(), "flags");
    assert_eq!(top_files(&dir, ".bdb").len() as u64, recorded, "compressed");
    // Killed again at the resumed run's first checkpoint: nothing was decoded before it.
    assert!(
        aborted(&inst.resume(&dir), 1),
        "the resume took no checkpoint"
    );
    assert_eq!(
        top_files(&dir, ".tbl"),
        Vec::<String>::new(),
        "decoded on resume"
    );
    assert_ok(&bawo(&inst.resume(&dir)), "resume in the attractor");
    assert_same_solve(&clean, &dir, "resumed after the lower tables were deleted");

    // The same, with the tier's work files gone: its pass runs again on decoded tables.
    let lost = root.path().join("lost");
    killed_in_last_attractor(inst, &lost, &[]);
    std::fs::remove_dir_all(lost.join("work")).unwrap();
    let out = bawo(&inst.resume(&lost));
    assert_ok(&out, "resume without work files");
    assert!(text(&out.stderr).contains("finished tiers are kept"));
    assert_same_solve(&clean, &lost, "the last tier solved again");

    // With --keep-tables the raw tables stay.
    let kept = root.path().join("kept");
    killed_in_last_attractor(inst, &kept, &["--keep-tables"]);
    assert_eq!(
        top_files(&kept, ".tbl").len() as u64,
        inst.tiers() - 1,
        "--keep-tables"
    );
}
