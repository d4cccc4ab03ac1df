//! Nothing a directory says is trusted: the manifest's checksum is an unkeyed hash that anyone
//! can write again, so a re-signed manifest that names files outside its directory, counts
//! that do not add up or tiers out of order is refused as damage (exit 1) before any file is
//! read; the manifest and the tier files are read only as regular files of bounded size; and
//! `compact` writes only into a new or empty directory outside its source, under the lock.

use std::path::Path;

use bawo_db::Manifest;

use crate::common;
use common::cli::{assert_fails, assert_ok, bawo, bawo_env, bawo_stdin, json, text};
use common::run_dir::scratch;

const GAME: [&str; 6] = ["--n", "2", "--lap-cap", "8", "--seeds", "8"];

fn solve(dir: &Path, seeds: &str) {
    let mut args = vec!["solve", "--quiet", "--out", dir.to_str().unwrap()];
    args.extend_from_slice(&GAME[..4]);
    args.extend_from_slice(&["--seeds", seeds]);
    assert_ok(&bawo(&args), "solve");
}

/// Rewrites the manifest of `dir` after `edit`, with a fresh (valid) checksum of its own.
fn resign(dir: &Path, edit: impl FnOnce(&mut Manifest)) {
    let mut m = Manifest::load(dir).unwrap().expect("a manifest");
    edit(&mut m);
    m.save(dir).unwrap();
}

fn db_cmd(cmd: &str, dir: &Path) -> std::process::Output {
    let d = dir.to_str().unwrap();
    match cmd {
        "query" => bawo(&[
            "query",
            "--db",
            d,
            "--board",
            "0,0,2,2,2,2,0,0",
            "--to-move",
            "A",
        ]),
        _ => bawo(&[cmd, "--db", d]),
    }
}

#[test]
fn tier_records_naming_files_outside_the_directory_are_refused() {
    let t = scratch("bawo-trust-");
    let db = t.path().join("db");
    solve(&db, "8");
    let m = Manifest::load(&db).unwrap().unwrap();
    let last = m.tiers.last().unwrap().clone();
    let own = last.bdb.clone().unwrap().file;
    // A copy of the tier's own file outside the directory: a reader that follows the record
    // finds a perfectly good file there.
    let outside = t.path().join("outside.bdb");
    std::fs::copy(db.join(&own), &outside).unwrap();
    let cases: Vec<(&str, String)> = vec![
        ("bdb ..", "../outside.bdb".to_string()),
        ("bdb absolute", outside.to_str().unwrap().to_string()),
        ("bdb other tier", "tier-0000.bdb".to_string()),
        ("bdb sub/", format!("./{own}")),
    ];
    for (what, name) in cases {
        let d = t.path().join(what.replace([' ', '/'], "_"));
        copy_dir(&db, &d);
        let tier = last.tier;
        resign(&d, |m| {
            let r = m.tiers.iter_mut().find(|r| r.tier == tier).unwrap();
            r.bdb.as_mut().unwrap().file = name.clone();
        });
        for cmd in ["query", "stats", "verify"] {
            let out = db_cmd(cmd, &d);
            assert_fails(&out, 1, "not its own", &format!("{what}: {cmd}"));
        }
        let out = bawo(&[
            "solve",
            "--quiet",
            "--resume",
            "--out",
            d.to_str().unwrap(),
            "--n",
            "2",
            "--lap-cap",
            "8",
            "--seeds",
            "9",
        ]);
        assert_eq!(out.status.code(), Some(1), "{what}: solve --resume");
        assert!(outside.exists(), "{what}: the outside file survives");
    }
    // The raw table's name likewise.
    let d = t.path().join("tbl");
    copy_dir(&db, &d);
    resign(&d, |m| m.tiers[0].file = "/etc/passwd".to_string());
    assert_fails(&db_cmd("stats", &d), 1, "not its own", "tbl absolute");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn manifest_and_tier_files_are_read_only_as_bounded_regular_files() {
    let t = scratch("bawo-trust-");
    let db = t.path().join("db");
    solve(&db, "8");
    // A manifest that is /dev/zero: refused at once, not read forever.
    let d = t.path().join("zero");
    copy_dir(&db, &d);
    std::fs::remove_file(d.join("manifest.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("manifest.json")).unwrap();
    assert_fails(
        &db_cmd("stats", &d),
        1,
        "not a regular file",
        "manifest /dev/zero",
    );
    // A manifest of 17 MiB (sparse): too large.
    let d = t.path().join("big");
    copy_dir(&db, &d);
    let f = std::fs::OpenOptions::new()
        .append(true)
        .open(d.join("manifest.json"))
        .unwrap();
    f.set_len(17 << 20).unwrap();
    assert_fails(&db_cmd("stats", &d), 1, "too large", "manifest 17 MiB");
    // A tier file that is /dev/zero.
    let d = t.path().join("bdbzero");
    copy_dir(&db, &d);
    let own = Manifest::load(&d).unwrap().unwrap().tiers[0]
        .bdb
        .clone()
        .unwrap()
        .file;
    std::fs::remove_file(d.join(&own)).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join(&own)).unwrap();
    let out = db_cmd("stats", &d);
    assert_fails(&out, 1, "not a regular file", "bdb /dev/zero");
}

#[test]
fn manifest_counts_that_do_not_add_up_are_refused() {
    let t = scratch("bawo-trust-");
    let db = t.path().join("db");
    solve(&db, "8");
    type Edit = fn(&mut Manifest);
    let cases: [(&str, Edit, &str); 4] = [
        (
            "win = u64::MAX",
            |m| m.tiers[1].counts.win = u64::MAX,
            "add up",
        ),
        (
            "states off by one",
            |m| {
                m.tiers[1].counts.states += 1;
                m.tiers[1].counts.draw += 1;
            },
            "the game's tier holds",
        ),
        (
            "duplicate tier",
            |m| {
                let r = m.tiers[1].clone();
                m.tiers.insert(1, r);
            },
            "ascending",
        ),
        ("descending", |m| m.tiers.swap(0, 1), "ascending"),
    ];
    for (what, edit, needle) in cases {
        let d = t.path().join(what.replace([' ', '='], "_"));
        copy_dir(&db, &d);
        resign(&d, edit);
        for cmd in ["query", "stats", "verify"] {
            assert_fails(&db_cmd(cmd, &d), 1, needle, &format!("{what}: {cmd}"));
        }
    }
}

#[test]
fn verify_counts_every_missing_tier_file() {
    let t = scratch("bawo-trust-");
    let db = t.path().join("db");
    solve(&db, "13");
    let m = Manifest::load(&db).unwrap().unwrap();
    assert!(m.tiers.len() >= 12, "{} tiers", m.tiers.len());
    let gone = m.tiers.len() - 1;
    for r in &m.tiers[1..] {
        std::fs::remove_file(db.join(&r.bdb.as_ref().unwrap().file)).unwrap();
    }
    let out = db_cmd("verify", &db);
    assert_fails(
        &out,
        1,
        &format!("{gone} damaged files or blocks"),
        "verify, tiers missing",
    );
}

fn compact(src: &Path, out: &Path) -> std::process::Output {
    bawo(&[
        "compact",
        "--quiet",
        "--db",
        src.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
}

#[test]
fn compact_writes_only_a_new_directory_outside_its_finished_source() {
    let t = scratch("bawo-trust-");
    let db = t.path().join("db");
    solve(&db, "8");
    // An unfinished run is refused, naming its finished tiers.
    let u = t.path().join("unfinished");
    copy_dir(&db, &u);
    resign(&u, |m| m.complete = false);
    let out = compact(&u, &t.path().join("u-out"));
    assert_fails(&out, 2, "finished tiers:", "compact of an unfinished run");
    // A user's file in --out is never overwritten.
    let o = t.path().join("users");
    std::fs::create_dir_all(&o).unwrap();
    std::fs::write(o.join("notes.txt"), "mine").unwrap();
    assert_fails(
        &compact(&db, &o),
        2,
        "not empty",
        "compact into a user's folder",
    );
    assert_eq!(
        std::fs::read_to_string(o.join("notes.txt")).unwrap(),
        "mine"
    );
    // Even a user's file named like a compaction's own, in a folder with no manifest: only
    // the tier files a compaction's ledger records count as its leftovers.
    let o = t.path().join("users-tier");
    std::fs::create_dir_all(&o).unwrap();
    std::fs::write(o.join("tier-0003.bdb"), "mine").unwrap();
    assert_fails(
        &compact(&db, &o),
        2,
        "not empty",
        "compact over a user's tier-0003.bdb",
    );
    assert_eq!(
        std::fs::read_to_string(o.join("tier-0003.bdb")).unwrap(),
        "mine"
    );
    // A compaction killed before its manifest: the next one takes its files as its own.
    let o = t.path().join("killed");
    assert_ok(&compact(&db, &o), "compact");
    std::fs::remove_file(o.join("manifest.json")).unwrap();
    assert_ok(
        &compact(&db, &o),
        "compact over a killed compaction's tier files",
    );
    // Inside the source, or holding it.
    let inside = db.join("sub");
    assert_fails(
        &compact(&db, &inside),
        2,
        "inside",
        "compact into the source",
    );
    assert!(!inside.exists(), "nothing created inside the source");
    assert_fails(
        &compact(&db, t.path()),
        2,
        "holds the database",
        "out holds src",
    );
    // A dangling symlink.
    let dangling = t.path().join("dangling");
    std::os::unix::fs::symlink(t.path().join("nowhere"), &dangling).unwrap();
    assert_fails(
        &compact(&db, &dangling),
        2,
        "symbolic link",
        "dangling --out",
    );
    // Leftovers of a killed compaction are removed by the next one.
    let o = t.path().join("again");
    std::fs::create_dir_all(&o).unwrap();
    let left = o.join(".tier-0003.bdb.AbC123.tmp");
    std::fs::write(&left, "half").unwrap();
    assert_ok(&compact(&db, &o), "compact over its own leftovers");
    assert!(!left.exists(), "leftover temporary file removed");
    // The lock a solve takes: a held lock on --out refuses a second compaction.
    let o = t.path().join("locked");
    std::fs::create_dir_all(&o).unwrap();
    let _held = bawo_store::lock::acquire(&o).unwrap();
    let out = compact(&db, &o);
    assert_ne!(out.status.code(), Some(0), "compact under another's lock");
    assert!(!o.join("manifest.json").exists());
}

#[test]
fn echoed_input_is_short_and_play_reads_bounded_lines() {
    let t = scratch("bawo-trust-");
    let db = t.path().join("db");
    solve(&db, "8");
    let d = db.to_str().unwrap();
    let pos = ["--board", "0,0,2,2,2,2,0,0", "--to-move", "A"];
    let long = "x".repeat(2000);
    let out = bawo(&[&["query", "--db", d, "--after", &long][..], &pos].concat());
    assert_fails(&out, 2, "...", "query --after <2000 characters>");
    assert!(text(&out.stderr).len() < 400, "{}", text(&out.stderr));
    // Invalid UTF-8 and an over-long line are refused like other garbage, then q quits.
    let mut input = b"\xff\xfe\n".to_vec();
    input.extend(std::iter::repeat_n(b'y', 100_000));
    input.extend(b"\nq\n");
    let out = bawo_stdin(&[&["play", "--db", d][..], &pos].concat(), &input);
    assert_ok(&out, "play with garbage lines");
    let shown = text(&out.stdout);
    assert!(shown.contains("not UTF-8"), "{shown}");
    assert!(shown.contains("more than 4096 bytes"), "{shown}");
    assert!(shown.contains("game left unfinished"), "{shown}");
    assert!(shown.len() < 20_000, "the long line is not echoed");
}

#[test]
fn plan_messages_say_what_they_mean() {
    let out = bawo(&["solve", "--dry-run", "--n", "8", "--seeds", "200"]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!all.contains("18446744073709551615"), "{all}");
    let t = scratch("bawo-trust-");
    let o = t.path().join("m");
    let out = bawo(
        &[
            &["solve", "--mem", "1", "--out", o.to_str().unwrap()][..],
            &GAME,
        ]
        .concat(),
    );
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!all.contains("(0 MiB)"), "{all}");
    let out = bawo(&["compact", "--db", "x", "--out", "y", "--threads", "1000"]);
    assert!(
        !text(&out.stderr).contains("a solve"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_run_stopped_inside_a_tier_is_read_as_unfinished_not_damaged() {
    // Regression: the readers kept the solver's checkpoint with its keys sorted, so its
    // checksum never matched and every run stopped inside a tier read as damaged.
    let t = scratch("bawo-trust-");
    let run = t.path().join("run");
    let mut args = vec!["solve", "--quiet", "--checkpoint-secs", "0", "--out"];
    args.push(run.to_str().unwrap());
    args.extend_from_slice(&GAME);
    let _ = bawo_env(&args, &[("BAWO_ABORT_AFTER_CHECKPOINTS", "12".to_string())]);
    let m = common::run_dir::manifest(&run);
    assert_eq!(m["complete"], false);
    assert!(
        m["current"].is_object(),
        "the run stopped inside a tier: {m}"
    );
    let stats = json(&bawo(&["stats", "--json", "--db", run.to_str().unwrap()]));
    assert_eq!(stats["complete"], false, "{stats}");
    let out = bawo(&[
        "query",
        "--db",
        run.to_str().unwrap(),
        "--board",
        "0,0,0,1,0,0,0,0",
    ]);
    assert_ok(&out, "query of a finished tier");
    assert_fails(&db_cmd("verify", &run), 1, "unfinished", "verify");
}
