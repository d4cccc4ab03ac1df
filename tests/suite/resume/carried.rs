//! What a checkpoint carries to the run that resumes it: the width of its cells, a checkpoint
//! of the version before read as it was written, the positions its attractor decided, and
//! the memory budget the run was given.

use super::*;

#[test]
fn a_closed_tier_in_two_byte_cells_resumes_to_the_tables_of_four() {
    // Bao's one tier keeps its out-of-core cells in two bytes. Whatever its held share, and
    // interrupted at checkpoints all through the tier and resumed with another share (or
    // resumed from a checkpoint of four-byte cells, which it keeps), the tables are those of
    // four-byte cells, which are those of the tier solved in one range.
    let inst = BAO4_RANGES;
    let root = scratch();
    let clean = root.path().join("clean");
    let four = [("BAWO_WIDE_CELLS", "1".to_string())];
    assert_ok(&bawo_env(&inst.solve(&clean), &four), "four-byte cells");
    // The same tables as one range (the in-memory path) gives.
    let one_range = Instance {
        range_bits: None,
        ..inst
    };
    assert_same_solve(&clean, &solve_clean(one_range, root.path()), "one range");
    for (held, wide) in [("0", "0"), ("20000", "0"), ("20000", "1"), ("1000000", "0")] {
        let dir = root.path().join(format!("held-{held}-wide-{wide}"));
        let env = [
            ("BAWO_HELD_CELLS", held.to_string()),
            ("BAWO_WIDE_CELLS", wide.to_string()),
        ];
        let what = format!("{held} bytes held, wide cells {wide}");
        assert_ok(&bawo_env(&inst.solve(&dir), &env), &what);
        assert_same_solve(&clean, &dir, &what);
    }
    let mut attractor = 0;
    for k in 1.. {
        let dir = root.path().join(format!("k{k}"));
        let wide = if k % 3 == 1 { "1" } else { "0" };
        let env = [
            ("BAWO_HELD_CELLS", "20000".to_string()),
            ("BAWO_WIDE_CELLS", wide.to_string()),
        ];
        if !aborted_with(&inst.solve(&dir), k, &env) {
            break;
        }
        let checkpoint = manifest(&dir)["current"].clone();
        if phase_of(&dir) == "attractor" {
            attractor += 1;
            assert_eq!(
                checkpoint["narrow_cells"],
                Json::Bool(wide == "0"),
                "k={k}: {checkpoint}"
            );
        }
        // The checkpoint's width is kept whatever the resume's plan would choose.
        let held = ["0", "20000", "1000000"][k as usize % 3].to_string();
        let env = [
            ("BAWO_HELD_CELLS", held.clone()),
            (
                "BAWO_WIDE_CELLS",
                if wide == "1" { "0" } else { "1" }.to_string(),
            ),
        ];
        let out = bawo_env(&inst.resume(&dir), &env);
        let what = format!("interrupted at checkpoint {k} (wide {wide}), resumed holding {held}");
        assert_ok(&out, &what);
        assert_same_solve(&clean, &dir, &what);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(k < 5000, "the run never finishes");
    }
    assert!(
        attractor > 3,
        "only {attractor} interruptions in the attractor"
    );
    // A checkpoint of two-byte cells marked as an earlier version's work (format 5, whose
    // cells were four bytes) is not read as such: its tier is solved again.
    let dir = root.path().join("format-5");
    let env = [("BAWO_HELD_CELLS", "0".to_string())];
    stopped_in_attractor(inst, &dir, &env);
    let mut m = bawo_solve::Manifest::load(&dir).unwrap().unwrap();
    m.current.as_mut().expect("a tier in progress").format = 5;
    m.save(&dir).unwrap();
    let out = bawo_env(&inst.resume(&dir), &env);
    assert_ok(&out, "resume of a format-5 checkpoint of two-byte cells");
    let err = text(&out.stderr);
    assert!(err.contains("written by an earlier version"), "{err}");
    assert_same_solve(&clean, &dir, "solved again");
}

#[test]
fn a_checkpoint_written_before_two_byte_cells_resumes_where_it_stopped() {
    // Regression: the manifest's own checksum was checked on this version's re-serialization
    // of what it read, which added the checkpoint's newer field (`narrow_cells`), so every
    // run stopped by the version before was refused as corrupted (a Kigogo 9 run in the
    // attractor of its last tier).
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let dir = root.path().join("earlier");
    let mut k = stopped_in_attractor(inst, &dir, &[]);
    // The manifest as that version wrote it: work format 5, no `narrow_cells`, its checksum
    // over that text.
    let path = dir.join("manifest.json");
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.contains("\"narrow_cells\": false") && written.contains("\"format\": 6"));
    let mut earlier: Vec<&str> = written
        .lines()
        .filter(|l| !l.contains("\"narrow_cells\""))
        .collect();
    let last_field = earlier.len() - 2;
    assert!(earlier[last_field].trim_start().starts_with("\"checksum\""));
    earlier[last_field] = "  \"checksum\": \"\"";
    let earlier = earlier.join("\n").replace("\"format\": 6", "\"format\": 5") + "\n";
    let (sealed, _) = bawo_store::self_sum::seal(&earlier).unwrap();
    std::fs::write(&path, sealed).unwrap();
    let out = bawo(&inst.resume(&dir));
    assert_ok(&out, "resume of the version before's checkpoint");
    let err = text(&out.stderr);
    assert!(!err.contains("earlier version"), "solved again: {err}");
    assert_same_solve(&clean, &dir, "resumed from the version before's checkpoint");
    // This version's checkpoints in the attractor count the positions decided so far, for
    // the progress of the run that resumes them.
    let deeper = root.path().join("deeper");
    let mut counts: Vec<(u64, u64, u64, u64)> = Vec::new();
    while counts.iter().filter(|c| c.1 > 1).count() < 3 && aborted(&inst.solve(&deeper), k) {
        if phase_of(&deeper) == "attractor" {
            let current = &manifest(&deeper)["current"];
            let field = |f: &str| current[f].as_u64().unwrap_or(0);
            counts.push((
                field("tier"),
                field("next"),
                field("decided"),
                field("states"),
            ));
        }
        std::fs::remove_dir_all(&deeper).unwrap();
        k += 3;
    }
    assert!(counts.iter().any(|&(_, next, _, _)| next > 1), "{counts:?}");
    for w in counts.windows(2) {
        assert!(w[0].0 != w[1].0 || w[0].2 <= w[1].2, "{counts:?}");
    }
    for &(_, next, decided, states) in &counts {
        assert!(
            decided <= states && (next <= 1 || decided > 0),
            "{counts:?}"
        );
    }
}

#[test]
fn a_resume_without_mem_keeps_the_budget_the_run_was_given() {
    let inst = N2_RANGES;
    let root = scratch();
    let clean = solve_clean(inst, root.path());
    let with = |mut args: Vec<String>, extra: &[&str]| {
        args.retain(|a| a != "--quiet");
        args.extend(strings(extra));
        args
    };
    // Given --mem: recorded, and kept by resumes that give none (which say so).
    let dir = root.path().join("given");
    assert!(aborted(&with(inst.solve(&dir), &["--mem", "160M"]), 3));
    assert_eq!(manifest(&dir)["mem"], Json::from(160u64 << 20));
    assert!(aborted(&inst.resume(&dir), 2));
    let out = bawo(&with(inst.resume(&dir), &[]));
    assert_ok(&out, "resume without --mem");
    let err = text(&out.stderr);
    assert!(
        err.contains("resuming with the run's memory budget, --mem")
            && err.contains("give --mem to change it"),
        "{err}"
    );
    assert_same_solve(&clean, &dir, "resumed with the recorded budget");
    assert_eq!(manifest(&dir)["mem"], Json::from(160u64 << 20));
    // A recorded budget this machine cannot give is refused as a given one would be, and
    // --mem on the resume is the way out.
    let dir = root.path().join("too-large");
    assert!(aborted(&with(inst.solve(&dir), &["--mem", "160M"]), 3));
    let mut m = bawo_solve::Manifest::load(&dir).unwrap().unwrap();
    m.mem = Some(1 << 60);
    m.save(&dir).unwrap();
    let out = bawo(&inst.resume(&dir));
    assert_fails(
        &out,
        2,
        "a budget this machine cannot give",
        "recorded 1 EiB",
    );
    assert_ok(
        &bawo(&with(inst.resume(&dir), &["--mem", "160M"])),
        "--mem given",
    );
    assert_same_solve(&clean, &dir, "resumed with --mem after a refused budget");
    // A resume that gives --mem records the new budget.
    let dir = root.path().join("changed");
    assert!(aborted(&with(inst.solve(&dir), &["--mem", "160M"]), 3));
    assert!(aborted(&with(inst.resume(&dir), &["--mem", "200M"]), 1));
    assert_eq!(manifest(&dir)["mem"], Json::from(200u64 << 20));
    // Not given: nothing recorded, and each start takes its machine's default.
    let dir = root.path().join("default");
    assert!(aborted(&inst.solve(&dir), 3));
    assert!(manifest(&dir).get("mem").is_none());
    let out = bawo(&with(inst.resume(&dir), &[]));
    assert_ok(&out, "resume of a run given no --mem");
    assert!(!text(&out.stderr).contains("memory budget"));
    assert_same_solve(&clean, &dir, "resumed with the default budget");
}
