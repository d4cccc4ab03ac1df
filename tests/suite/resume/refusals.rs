//! Leftovers of a killed run are ignored; runs that cannot go on fail cleanly (a full disk, an unwritable directory, a held lock),
//! resumes with other parameters are refused, and a copied or --tmp-sharing run resumes alone.

use super::damage::{abort_mid_tier, checkpoint_of, mid_phase_runs};
use super::*;

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
    // changed cells in the slot the checkpoint does not refer to (or, out of core, in the
    // plain cells beside the packed slot it names), built predecessor files the
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
                for cells in [format!("cells-{r}.a"), format!("packed-{r}.a")] {
                    let cells = c.work.join(cells);
                    if !c.logs.iter().any(|(p, _)| *p == cells) {
                        std::fs::write(&cells, &junk).unwrap();
                    }
                }
            }
        }
        std::fs::write(dir.join(".manifest.json.tmp"), &junk).unwrap();
        let tier = manifest(&dir)["current"]["tier"].as_u64().unwrap();
        std::fs::write(dir.join(format!(".tier-{tier:04}.tbl.tmp")), &junk).unwrap();
        std::fs::write(dir.join(format!("tier-{tier:04}.tbl")), &junk).unwrap();
        // Resumed holding no cells in memory, so that every range's plain cells are used:
        // those left by the killed run must not be.
        let none_held = [("BAWO_HELD_CELLS", "0".to_string())];
        assert_ok(&bawo_env(&inst.resume(&dir), &none_held), &phase);
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
fn logs_that_close_their_files_between_writes_give_the_same_tables() {
    // A large tier has more due logs than the process may hold open files (Kigogo's 9-seed
    // tier: 200,000 of them against a limit of 20,000), so past a limit the logs close their
    // files between writes and reopen them at their end. With a limit of one, every log of
    // this run does, through a kill and a resume: the same tables as a run that never closes.
    let inst = N2_RANGES;
    let few = [("BAWO_OPEN_LOGS", "1".to_string())];
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let whole = root.path().join("whole");
    assert_ok(
        &bawo_env(&inst.solve(&whole), &few),
        "a run closing its logs",
    );
    assert_same_solve(&clean, &whole, "a run closing its logs");
    let dir = root.path().join("killed");
    assert!(aborted_with(&inst.solve(&dir), inst.tiers() + 3, &few));
    assert_ok(&bawo_env(&inst.resume(&dir), &few), "resume");
    assert_same_solve(&clean, &dir, "a killed run closing its logs, resumed");
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

/// `args` with checkpoints far apart: inside a tier only the one that ends the predecessor
/// phase is taken.
fn rare_checkpoints(mut args: Vec<String>) -> Vec<String> {
    let at = args.iter().position(|a| a == "--checkpoint-secs").unwrap();
    args[at + 1] = "3600".to_string();
    args
}

#[test]
fn a_full_disk_in_the_finish_after_copies_went_resumes_to_the_same_tables() {
    full_disk_in_the_finish(&[]);
}

#[test]
fn a_full_disk_in_a_finish_written_in_place_resumes_to_the_same_tables() {
    // Every table written through maps of its pieces, sealed and flagged on a thread of
    // their own, as the finish does for ranges of megabytes.
    full_disk_in_the_finish(&[("BAWO_IN_PLACE_FROM", "0".to_string())]);
}

fn full_disk_in_the_finish(env: &[(&str, String)]) {
    // No cells held and no checkpoint in the attractor: every range it changes lives in
    // plain cells beside its checkpointed packed slot, and the finish deletes those of each
    // range once it is in the table. A write that fails in the finish must leave what the
    // resume needs: it redoes the attractor from the checkpointed slots.
    let inst = N3_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let none_held = [&[("BAWO_HELD_CELLS", "0".to_string())], env].concat();
    let mut limit = 3000u64;
    let mut in_a_table = 0;
    loop {
        let dir = root.path().join(format!("full{limit}"));
        let full = ("BAWO_FAIL_WRITES_AFTER", limit.to_string());
        let out = bawo_env(
            &rare_checkpoints(inst.solve(&dir)),
            &[&[full], none_held.as_slice()].concat(),
        );
        if out.status.success() {
            assert_same_solve(&clean, &dir, "a run that fit the disk");
            break;
        }
        let what = format!("disk full after {limit} bytes");
        assert_fails(&out, 1, "No space left on device", &what);
        if text(&out.stderr).contains(".tbl") {
            in_a_table += 1;
        }
        if dir.join("manifest.json").exists() {
            let resumed = bawo_env(&rare_checkpoints(inst.resume(&dir)), &none_held);
            assert_ok(&resumed, &what);
        } else {
            assert_ok(&bawo(&inst.solve(&dir)), &what);
        }
        assert_same_solve(&clean, &dir, &what);
        limit = limit * 6 / 5;
    }
    assert!(in_a_table >= 2, "{in_a_table} failures in a table's finish");
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

#[test]
fn a_resumed_run_counts_its_own_work_files_as_disk_it_holds() {
    // The disk check before a resume compares what the run still needs with the free space.
    // The tier in progress's work files are in both: the model's need counts them, and the
    // free space has already lost them. Regression: a Kigogo 9-seed run stopped in its largest
    // tier was refused on resume, "needing" 71.9 GB with 61.7 GB free while 16 GB of that
    // need were its own work files.
    let inst = N2_RANGES;
    let root = scratch();
    let (_, dir) = mid_phase_runs(inst, root.path())
        .into_iter()
        .max_by_key(|(_, d)| run_dir::dir_size(&d.join("work")))
        .unwrap();
    let held = run_dir::dir_size(&dir.join("work"));
    let fresh = root.path().join("fresh");
    let mut dry = inst.solve(&fresh);
    dry.extend(strings(&["--dry-run", "--json"]));
    let peak = common::cli::json(&bawo(&dry))["peak_disk"]
        .as_u64()
        .unwrap();
    assert!(held > 0 && held < peak, "held {held}, peak {peak}");
    let free = |bytes: u64| [("BAWO_FREE_DISK", bytes.to_string())];
    // Too little even counting what it holds: refused, nothing touched.
    let before = snapshot(&dir);
    let out = bawo_env(&inst.resume(&dir), &free((peak - held) / 8));
    assert_fails(&out, 1, "not enough free disk", "a resume short of disk");
    assert_eq!(before, snapshot(&dir), "a refused resume changed the run");
    // The whole run's peak less what it holds is free: it fits, and resumes.
    let clean = solve_clean(inst, root.path());
    assert_ok(&bawo_env(&inst.resume(&dir), &free(peak - held)), "resume");
    assert_same_solve(&clean, &dir, "a resume counting its own work files");
}

#[test]
fn a_run_naming_more_logs_than_it_may_open_files_resumes() {
    // A resume reopens every log its checkpoint names (Kigogo 9's attractor: 85,000 due logs
    // against a limit of 20,000 open files). Regression: the resume held each one open and
    // stopped with "Too many open files"; past a quarter of the limit they close again at once.
    const LIMIT: usize = 48;
    // Kigogo's 4-seed tier: 249,900 stored positions in 16 ranges, levels up to 97.
    let inst = Instance {
        game: &["--game", "kigogo", "--seeds", "4"],
        range_bits: Some("14"),
    };
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let (_, dir) = mid_phase_runs(inst, root.path())
        .into_iter()
        .max_by_key(|(_, d)| checkpoint_of(d).map_or(0, |c| c.logs.len()))
        .unwrap();
    let logs = checkpoint_of(&dir).unwrap().logs.len();
    assert!(logs > LIMIT, "the checkpoint names only {logs} logs");
    let mut resume = Command::new("sh");
    resume
        .arg("-c")
        .arg(format!("ulimit -n {LIMIT} && exec \"$@\""))
        .arg("sh")
        .arg(common::cli::BIN)
        .args(inst.resume(&dir))
        .env_remove("BAWO_OPEN_LOGS")
        .stdin(std::process::Stdio::null());
    let out = resume.output().unwrap();
    assert_ok(
        &out,
        &format!("a resume naming {logs} logs with {LIMIT} files"),
    );
    assert_same_solve(&clean, &dir, "a resume of more logs than open files");
}
