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
use common::run_dir::{self, final_files, manifest};
use serde_json::Value as Json;

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

fn strings(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn path_arg(p: &Path) -> String {
    p.to_str().expect("utf-8 scratch path").to_string()
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
    assert!(want.len() >= 2, "the clean run has no tables");
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

/// Everything in a run directory, to check that a refused command changed nothing.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    listing(dir)
        .into_iter()
        .filter(|p| !p.ends_with("/lock"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

fn phase_of(dir: &Path) -> String {
    match manifest(dir).get("current") {
        Some(c) => c["phase"].as_str().unwrap().to_string(),
        None => "between tiers".to_string(),
    }
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
// Checkpoints in the middle of each phase

/// What the checkpoint in a run directory's manifest vouches for.
struct Checkpoint {
    phase: String,
    /// Append logs and their committed lengths.
    logs: Vec<(PathBuf, u64)>,
    /// Each range's current cell slot (from the predecessor phase on).
    slots: Vec<PathBuf>,
    /// The other slot of each range (not referred to by the checkpoint).
    spare_slots: Vec<PathBuf>,
    preds: Vec<PathBuf>,
    work: PathBuf,
    ranges: usize,
    next: u64,
}

fn checkpoint_of(dir: &Path) -> Option<Checkpoint> {
    let m = manifest(dir);
    let c = m.get("current")?;
    // Relative to the run directory when inside it.
    let work = dir.join(c["work"].as_str().unwrap());
    let states = c["states"].as_u64().unwrap();
    let bits = c["range_bits"].as_u64().unwrap();
    let ranges = states.div_ceil(1 << bits).max(1) as usize;
    let logs = c["logs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, v)| {
            let file = match name.strip_prefix("cells-") {
                Some(r) => format!("cells-{r}.a"),
                None => format!("{name}.log"),
            };
            (work.join(file), v["len"].as_u64().unwrap())
        })
        .collect();
    let mut slots = Vec::new();
    let mut spare_slots = Vec::new();
    for (r, s) in c["slots"].as_array().unwrap().iter().enumerate() {
        let slot = s["slot"].as_str().unwrap();
        let other = if slot == "a" { "b" } else { "a" };
        slots.push(work.join(format!("cells-{r}.{slot}")));
        spare_slots.push(work.join(format!("cells-{r}.{other}")));
    }
    let preds = (0..c["preds"].as_array().unwrap().len())
        .map(|r| work.join(format!("preds-{r}.bin")))
        .collect();
    Some(Checkpoint {
        phase: c["phase"].as_str().unwrap().to_string(),
        logs,
        slots,
        spare_slots,
        preds,
        work,
        ranges,
        next: c["next"].as_u64().unwrap(),
    })
}

/// Interrupted runs of `inst` in `root`, one per phase, each in a tier of several ranges and
/// in the middle of its phase: the pass with blocks to go, the predecessor phase with ranges
/// built and to go, the attractor with cells in both slots.
fn mid_phase_runs(inst: Instance, root: &Path) -> Vec<(String, PathBuf)> {
    let mut found: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut k = 1;
    while found.len() < 3 {
        let dir = root.join(format!("mid{k}"));
        assert!(aborted(&inst.solve(&dir), k), "the run ended: {found:?}");
        let keep = checkpoint_of(&dir).and_then(|c| {
            let several = c.ranges > 1;
            let wanted = match c.phase.as_str() {
                "successors" => {
                    c.next > 0
                        && c.logs.iter().any(|(p, len)| {
                            *len > 0 && p.file_name().unwrap().to_str().unwrap().contains("due")
                        })
                }
                "predecessors" => c.next > 0 && (c.next as usize) < c.ranges,
                "attractor" => c.slots.iter().any(|s| s.extension().unwrap() == "b"),
                _ => false,
            };
            (several && wanted && !found.contains_key(&c.phase)).then_some(c.phase)
        });
        match keep {
            Some(phase) => {
                found.insert(phase, dir);
            }
            None => std::fs::remove_dir_all(&dir).unwrap(),
        }
        k += 1;
    }
    found.into_iter().collect()
}

/// Interrupts a run of `inst` in `dir` at its k-th checkpoint, for the first k from `from` on
/// that falls inside a tier.
fn abort_mid_tier(inst: Instance, dir: &Path, from: u64) {
    for k in from..from + 100 {
        assert!(aborted(&inst.solve(dir), k), "the run ended");
        if checkpoint_of(dir).is_some() {
            return;
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
    panic!("no checkpoint inside a tier");
}

// ---------------------------------------------------------------------------------------------
// Damaged checkpoints

enum Damage {
    /// Flip every bit of the byte at this offset.
    Flip(u64),
    /// Cut the file to this length.
    Truncate(u64),
    /// Replace the whole file.
    Replace(Vec<u8>),
}

/// Damages `file`, checks that resuming refuses with exit code 1 and a "corrupted" error that
/// names the file and changes nothing, and restores the file.
fn assert_refused(inst: Instance, dir: &Path, file: &Path, damage: Damage) {
    let original = std::fs::read(file).unwrap();
    let mut bytes = original.clone();
    let what = match damage {
        Damage::Flip(at) => {
            bytes[at as usize] ^= 0xFF;
            format!("{} with byte {at} flipped", file.display())
        }
        Damage::Truncate(len) => {
            bytes.truncate(len as usize);
            format!("{} cut to {len} bytes", file.display())
        }
        Damage::Replace(b) => {
            bytes = b;
            format!("{} replaced by {} other bytes", file.display(), bytes.len())
        }
    };
    std::fs::write(file, &bytes).unwrap();
    let before = snapshot(dir);
    let out = bawo(&inst.resume(dir));
    let name = file.file_name().unwrap().to_str().unwrap();
    assert_fails(&out, 1, "corrupted", &what);
    assert!(
        text(&out.stderr).contains(name),
        "{what}: the error does not name the file: {}",
        text(&out.stderr)
    );
    assert!(
        snapshot(dir) == before,
        "{what}: the refused resume changed the run directory"
    );
    std::fs::write(file, &original).unwrap();
}

/// A finished tier's table and compressed file rewritten with two different entries swapped:
/// each whole and consistent with its own checksums, but not the files the manifest records.
fn forged_tier(dir: &Path, rec: &Json, scratch: &Path) -> (Vec<u8>, Vec<u8>) {
    let tier = rec["tier"].as_u64().unwrap() as u32;
    let states = rec["states"].as_u64().unwrap();
    let fp = u64::from_str_radix(manifest(dir)["fingerprint"].as_str().unwrap(), 16).unwrap();
    let path = dir.join(rec["file"].as_str().unwrap());
    let (_, data) = bawo_store::table::open_table(&path, tier, states, fp, true).unwrap();
    let mut entries = data.entries().to_vec();
    let j = entries
        .iter()
        .position(|&e| e != entries[0])
        .expect("two kinds of entries");
    entries.swap(0, j);
    std::fs::create_dir_all(scratch).unwrap();
    let tbl = scratch.join("forged.tbl");
    bawo_store::table::write_table(&tbl, tier, fp, &entries).unwrap();
    let bdb =
        bawo_db::format::write_tier(scratch, tier, fp, &entries, &Default::default()).unwrap();
    (
        std::fs::read(&tbl).unwrap(),
        std::fs::read(scratch.join(bdb.file)).unwrap(),
    )
}

#[test]
fn damaged_checkpoints_are_refused_in_every_phase() {
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    for (phase, dir) in mid_phase_runs(inst, root.path()) {
        let c = checkpoint_of(&dir).unwrap();
        let mut checked = 0;
        for (log, len) in &c.logs {
            if *len == 0 {
                continue;
            }
            assert_refused(inst, &dir, log, Damage::Flip(len / 2));
            assert_refused(inst, &dir, log, Damage::Flip(len - 1));
            assert_refused(inst, &dir, log, Damage::Truncate(len - 1));
            checked += 1;
        }
        assert!(checked > 1, "{phase}: no committed logs to damage");
        for file in c.slots.iter().chain(&c.preds) {
            let len = std::fs::metadata(file).unwrap().len();
            assert_refused(inst, &dir, file, Damage::Flip(len / 3));
            assert_refused(inst, &dir, file, Damage::Truncate(len - 4));
        }
        match phase.as_str() {
            "successors" => assert!(c.slots.is_empty()),
            "predecessors" => assert!(!c.preds.is_empty() && !c.slots.is_empty()),
            _ => assert!(c.preds.len() == c.ranges && c.slots.len() == c.ranges),
        }
        // The finished tiers it builds on.
        let m = manifest(&dir);
        let tiers = m["tiers"].as_array().unwrap();
        assert!(tiers.len() >= 2, "{phase}: no finished tiers");
        // The last finished tier may be recorded without its compressed file yet (it is
        // compressed beside the tier in progress): the last one with a file then.
        let with_bdb = tiers.iter().rev().find(|t| t.get("bdb").is_some()).unwrap();
        for t in [&tiers[0], tiers.last().unwrap()] {
            let tbl = dir.join(t["file"].as_str().unwrap());
            let len = std::fs::metadata(&tbl).unwrap().len();
            assert_refused(inst, &dir, &tbl, Damage::Flip(0));
            assert_refused(inst, &dir, &tbl, Damage::Flip(len - 1));
            assert_refused(inst, &dir, &tbl, Damage::Truncate(len - 2));
        }
        for t in [&tiers[0], with_bdb] {
            let bdb = dir.join(t["bdb"]["file"].as_str().unwrap());
            let len = std::fs::metadata(&bdb).unwrap().len();
            assert_refused(inst, &dir, &bdb, Damage::Flip(len / 2));
            assert_refused(inst, &dir, &bdb, Damage::Truncate(len - 1));
        }
        // Whole, self-consistent files with other entries than the manifest vouches for.
        let last = tiers.last().unwrap();
        let (tbl, _) = forged_tier(&dir, last, &root.path().join("forge"));
        assert_refused(
            inst,
            &dir,
            &dir.join(last["file"].as_str().unwrap()),
            Damage::Replace(tbl),
        );
        let (_, bdb) = forged_tier(&dir, with_bdb, &root.path().join("forge"));
        assert_refused(
            inst,
            &dir,
            &dir.join(with_bdb["bdb"]["file"].as_str().unwrap()),
            Damage::Replace(bdb),
        );
        let mf = dir.join("manifest.json");
        let len = std::fs::metadata(&mf).unwrap().len();
        assert_refused(inst, &dir, &mf, Damage::Truncate(len / 2));
        assert_refused(inst, &dir, &mf, Damage::Truncate(0));
        assert_refused(
            inst,
            &dir,
            &mf,
            Damage::Replace(b"\x00\x01garbage".to_vec()),
        );
        // Repaired, the checkpoint still resumes to the same tables.
        assert_ok(&bawo(&inst.resume(&dir)), &phase);
        assert_same_solve(&clean, &dir, &format!("{phase}: after refusing damage"));
    }
}

#[test]
fn a_missing_work_directory_redoes_only_its_tier() {
    let inst = N2_RANGES;
    let root = scratch();
    let (_, dir) = mid_phase_runs(inst, root.path()).pop().unwrap();
    let c = checkpoint_of(&dir).unwrap();
    std::fs::remove_dir_all(&c.work).unwrap();
    // The tier in progress is solved again; the finished tiers are kept.
    let out = bawo(&inst.resume(&dir));
    assert_ok(&out, "resume after the work directory was removed");
    assert!(text(&out.stderr).contains("finished tiers are kept"));
    let clean = solve_clean(inst, root.path());
    assert_same_solve(&clean, &dir, "resume after a lost work directory");
}

// ---------------------------------------------------------------------------------------------
// Leftovers of a killed run

fn append(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(bytes).unwrap();
}

#[test]
fn leftovers_of_a_killed_run_are_ignored() {
    // A run killed between checkpoints has appended to its logs past their committed length,
    // changed cells in the slot the checkpoint does not refer to, built predecessor files the
    // checkpoint does not list, spilled level messages, and left temporary files. None of it
    // may reach the tables.
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    for (phase, dir) in mid_phase_runs(inst, root.path()) {
        let c = checkpoint_of(&dir).unwrap();
        let junk: Vec<u8> = (0..4096u32).map(|i| (i * 37 + 11) as u8).collect();
        for (log, _) in &c.logs {
            append(log, &junk);
        }
        for slot in &c.spare_slots {
            std::fs::write(slot, &junk).unwrap();
        }
        for r in c.preds.len()..c.ranges {
            std::fs::write(c.work.join(format!("preds-{r}.bin")), &junk).unwrap();
            std::fs::write(c.work.join(format!(".preds-{r}.bin.tmp")), &junk).unwrap();
        }
        for r in 0..c.ranges {
            std::fs::write(c.work.join(format!("msgs-{r}.tmp")), [0u8; 4096]).unwrap();
            // Logs the checkpoint does not know yet.
            std::fs::write(c.work.join(format!("due-40-{r}.log")), &junk).unwrap();
        }
        if c.phase == "successors" {
            for r in 0..c.ranges {
                let cells = c.work.join(format!("cells-{r}.a"));
                if !c.logs.iter().any(|(p, _)| *p == cells) {
                    std::fs::write(&cells, &junk).unwrap();
                }
            }
        }
        std::fs::write(dir.join(".manifest.json.tmp"), &junk).unwrap();
        let tier = manifest(&dir)["current"]["tier"].as_u64().unwrap();
        std::fs::write(dir.join(format!(".tier-{tier:04}.tbl.tmp")), &junk).unwrap();
        std::fs::write(dir.join(format!("tier-{tier:04}.tbl")), &junk).unwrap();
        assert_ok(&bawo(&inst.resume(&dir)), &phase);
        // Temporary names are reused, not cleaned: only the tables and the manifest matter.
        for f in [".manifest.json.tmp", &format!(".tier-{tier:04}.tbl.tmp")] {
            let _ = std::fs::remove_file(dir.join(f));
        }
        assert_same_solve(
            &clean,
            &dir,
            &format!("{phase}: with a killed run's leftovers"),
        );
    }
}

#[test]
fn stale_spilled_messages_of_a_killed_run_are_not_replayed() {
    // With a small message budget the attractor spills level messages to `msgs-R.tmp` files; a
    // run killed (or out of disk space) between a spill and the level's end leaves them behind.
    // (The budget is set directly: a --mem small enough to spill at this size is refused by the
    // memory plan, as it cannot hold the solver's fixed buffers.)
    // Regression: the resumed run appended to those files and replayed the stale messages,
    // finishing with a wrong table and exit code 0.
    let inst = Instance {
        game: &[
            "--game",
            "bawo",
            "--n",
            "3",
            "--seeds",
            "12",
            "--lap-cap",
            "64",
        ],
        range_bits: Some("20"),
    };
    let spill = [("BAWO_MESSAGE_BUDGET", (1u64 << 20).to_string())];
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let dir = root.path().join("run");
    // Up to the last tier with the default checkpoint interval (a checkpoint at the start and
    // one per finished tier), then into the last tier's pass with checkpoints at every step.
    let mut first = inst.solve(&dir);
    let at = first.iter().position(|a| a == "--checkpoint-secs").unwrap();
    first[at + 1] = "600".into();
    assert!(aborted_with(&first, inst.tiers(), &spill));
    assert_eq!(
        manifest(&dir)["tiers"].as_array().unwrap().len() as u64,
        inst.tiers() - 1
    );
    let resume = inst.resume(&dir);
    // The resume's first checkpoint is the manifest it writes at the start.
    assert!(aborted_with(&resume, 2, &spill));
    let c = checkpoint_of(&dir).expect("a checkpoint in the last tier");
    assert_eq!(c.phase, "successors");
    for r in 0..c.ranges {
        std::fs::write(c.work.join(format!("msgs-{r}.tmp")), [0u8; 4096]).unwrap();
    }
    assert_ok(&bawo_env(&resume, &spill), "resume");
    assert_same_solve(&clean, &dir, "resumed over stale spilled messages");
}

// ---------------------------------------------------------------------------------------------
// Failures

#[test]
fn a_full_disk_fails_with_one_line_and_the_run_resumes() {
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let mut limit = 3000u64;
    let mut failed_on = BTreeSet::new();
    loop {
        let dir = root.path().join(format!("full{limit}"));
        let out = bawo_env(
            &inst.solve(&dir),
            &[("BAWO_FAIL_WRITES_AFTER", limit.to_string())],
        );
        if out.status.success() {
            assert_same_solve(&clean, &dir, "a run that fit the disk");
            break;
        }
        let what = format!("disk full after {limit} bytes");
        assert_fails(&out, 1, "No space left on device", &what);
        let err = text(&out.stderr);
        failed_on.insert(if err.contains("/work/") {
            "work file"
        } else if err.contains("manifest") {
            "manifest"
        } else {
            "table"
        });
        if dir.join("manifest.json").exists() {
            // The disk is still full for the first resume, then there is space again.
            let again = bawo_env(
                &inst.resume(&dir),
                &[("BAWO_FAIL_WRITES_AFTER", (limit / 2).to_string())],
            );
            if !again.status.success() {
                assert_fails(&again, 1, "No space left on device", &what);
            }
            assert_ok(&bawo(&inst.resume(&dir)), &what);
        } else {
            // Not even the first manifest was written: there is nothing to resume.
            assert_fails(&bawo(&inst.resume(&dir)), 1, "nothing to resume", &what);
            assert_ok(&bawo(&inst.solve(&dir)), &what);
        }
        assert_same_solve(&clean, &dir, &what);
        limit = limit * 8 / 5;
    }
    assert!(
        failed_on.contains("work file") && failed_on.contains("manifest"),
        "failures hit only {failed_on:?}"
    );
}

#[test]
fn an_unwritable_run_directory_fails_with_exit_code_1() {
    let inst = N2_RANGES;
    let root = scratch();
    let file = root.path().join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    for out in [file.join("run"), file.clone()] {
        let res = bawo(&inst.solve(&out));
        assert_fails(&res, 1, "a-file", "--out under a regular file");
    }
    // Work files that cannot be written: the run directory itself stays resumable.
    let dir = root.path().join("run");
    let mut args = inst.solve(&dir);
    args.extend(["--tmp".to_string(), path_arg(&file.join("tmp"))]);
    assert_fails(&bawo(&args), 1, "a-file", "--tmp under a regular file");
    assert_ok(&bawo(&inst.resume(&dir)), "resume without --tmp");
    let clean = solve_clean(inst, root.path());
    assert_same_solve(&clean, &dir, "after an unwritable --tmp");
}

#[test]
fn a_second_solver_on_a_locked_directory_is_refused() {
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let dir = root.path().join("run");
    abort_mid_tier(inst, &dir, 20);
    // Another solver holds the lock (the kernel's advisory lock, as `bawo solve` takes it).
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(dir.join("lock"))
        .unwrap();
    lock.try_lock().expect("the aborted run released its lock");
    let before = snapshot(&dir);
    let mut force = inst.solve(&dir);
    force.push("--force".into());
    for (args, what) in [
        (inst.resume(&dir), "--resume"),
        (inst.solve(&dir), "plain solve"),
        (force, "--force"),
    ] {
        assert_fails(&bawo(&args), 1, "another solver", what);
        assert!(
            snapshot(&dir) == before,
            "{what}: the refused solver changed the directory"
        );
    }
    drop(lock);
    assert_ok(&bawo(&inst.resume(&dir)), "resume once the lock is free");
    assert_same_solve(&clean, &dir, "after the lock was released");
}

// ---------------------------------------------------------------------------------------------
// Refusals and --force

#[test]
fn resuming_with_other_parameters_is_refused() {
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let dir = root.path().join("run");
    abort_mid_tier(inst, &dir, 25);
    let before = snapshot(&dir);
    let resume = |extra: &[&str]| {
        let mut a = inst.resume(&dir);
        a.extend(strings(extra));
        bawo(&a)
    };
    for (extra, needle) in [
        (&["--n", "3"][..], "n=3"),
        (&["--lap-cap", "5"], "lap-cap=5"),
        (&["--rules", "kichwa=relay"], "kichwa=relay"),
        (&["--rules", "capture=occupied"], "capture=occupied"),
        (&["--seeds", "9"], "--seeds 8, not 9"),
        (&["--seeds", "7"], "--seeds 8, not 7"),
        (&["--game", "kigogo"], "kigogo"),
    ] {
        let what = format!("--resume {extra:?}");
        assert_fails(&resume(extra), 1, needle, &what);
        assert!(snapshot(&dir) == before, "{what}: changed the directory");
    }
    // Without --resume: an unfinished run of the same game is a usage error with a hint...
    assert_fails(&bawo(&inst.solve(&dir)), 2, "--resume", "no --resume");
    // ... and another game's run is refused, even with --force (its tables are not ours to
    // discard).
    let mut other = N3_RANGES.solve(&dir);
    assert_fails(&bawo(&other), 1, "choose another --out", "another game");
    other.push("--force".into());
    assert_fails(
        &bawo(&other),
        1,
        "choose another --out",
        "another game, --force",
    );
    assert!(
        snapshot(&dir) == before,
        "a refused command changed the directory"
    );
    // Flags that agree with the run are accepted.
    assert_ok(&resume(N2_GAME), "--resume with the run's own parameters");
    assert_same_solve(&clean, &dir, "resumed with agreeing flags");
}

#[test]
fn resuming_an_empty_or_missing_directory_is_refused() {
    let inst = N2;
    let root = scratch();
    let empty = root.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_fails(&bawo(&inst.resume(&empty)), 1, "nothing to resume", "empty");
    assert_eq!(
        listing(&empty),
        Vec::<String>::new(),
        "the refusal wrote files"
    );
    let missing = root.path().join("missing");
    assert_fails(
        &bawo(&inst.resume(&missing)),
        1,
        "nothing to resume",
        "missing",
    );
    assert!(!missing.exists(), "the refusal created the directory");
}

#[test]
fn force_discards_the_run_and_solves_again() {
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let dir = root.path().join("run");
    let mut force = inst.solve(&dir);
    force.push("--force".into());
    // An interrupted run with a killed run's leftovers in its work directory.
    abort_mid_tier(inst, &dir, 40);
    let c = checkpoint_of(&dir).unwrap();
    for (log, _) in &c.logs {
        append(log, b"junk");
    }
    assert_ok(&bawo(&force), "--force over an interrupted run");
    assert_same_solve(&clean, &dir, "--force over an interrupted run");
    // A finished run: --resume has nothing to do, --force solves again.
    let before = snapshot(&dir);
    let out = bawo(&inst.resume(&dir));
    assert_ok(&out, "--resume of a finished run");
    assert!(
        text(&out.stderr).contains("already holds"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        snapshot(&dir) == before,
        "--resume of a finished run changed it"
    );
    std::fs::write(dir.join("tier-0003.tbl"), b"damaged").unwrap();
    assert_ok(&bawo(&force), "--force over a finished run");
    assert_same_solve(&clean, &dir, "--force over a finished run");
}

// ---------------------------------------------------------------------------------------------
// Known gaps (see the notes on each)

#[test]
fn an_edited_checkpoint_level_is_refused() {
    // Regression: the manifest had no checksum of its own, so a plausible edit of a
    // checkpoint's `next` was trusted and gave a wrong table with exit code 0.
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let (_, dir) = mid_phase_runs(inst, root.path())
        .into_iter()
        .find(|(p, _)| p == "attractor")
        .unwrap();
    let next = checkpoint_of(&dir).unwrap().next;
    let text = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    let edited = text.replace(
        &format!("\"next\": {next},"),
        &format!("\"next\": {},", next + 1),
    );
    assert_ne!(edited, text);
    std::fs::write(dir.join("manifest.json"), edited).unwrap();
    let out = bawo(&inst.resume(&dir));
    if out.status.success() {
        assert_same_solve(&clean, &dir, "resumed from an edited checkpoint");
    } else {
        assert_fails(&out, 1, "corrupted", "edited checkpoint");
    }
}

#[test]
fn a_copied_run_directory_resumes_on_its_own() {
    // Regression: the checkpoint recorded its work directory as an absolute path, so a copy
    // of a run directory resumed in the original's work files and spoiled its checkpoint.
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    for (phase, original) in mid_phase_runs(inst, root.path()) {
        let copy = root.path().join(format!("copy-{phase}"));
        let status = Command::new("cp")
            .arg("-a")
            .arg(&original)
            .arg(&copy)
            .status()
            .unwrap();
        assert!(status.success());
        assert_ok(&bawo(&inst.resume(&copy)), "resume the copy");
        assert_same_solve(&clean, &copy, &format!("{phase}: the copy"));
        // Moved elsewhere, the original resumes too.
        let moved = root.path().join(format!("moved-{phase}"));
        std::fs::rename(&original, &moved).unwrap();
        assert_ok(&bawo(&inst.resume(&moved)), "resume the original");
        assert_same_solve(&clean, &moved, &format!("{phase}: the original"));
    }
}

#[test]
fn two_runs_may_share_a_tmp_directory() {
    // Regression: work directories under --tmp were named by tier only, so a second run with
    // the same --tmp deleted the first one's checkpointed work files.
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let tmp = root.path().join("tmp");
    let with_tmp = |mut a: Vec<String>| {
        a.extend(["--tmp".to_string(), path_arg(&tmp)]);
        a
    };
    let first = root.path().join("first");
    for k in 40.. {
        assert!(aborted(&with_tmp(inst.solve(&first)), k));
        if checkpoint_of(&first).is_some() {
            break;
        }
        std::fs::remove_dir_all(&first).unwrap();
    }
    let second = root.path().join("second");
    assert_ok(&bawo(&with_tmp(inst.solve(&second))), "second run");
    assert_same_solve(&clean, &second, "second run");
    assert_ok(&bawo(&with_tmp(inst.resume(&first))), "resume the first");
    assert_same_solve(&clean, &first, "first run");
    assert_eq!(
        listing(&tmp),
        Vec::<String>::new(),
        "work files left in --tmp"
    );
}
