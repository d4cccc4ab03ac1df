//! `--mem` is a hard cap: the peak resident memory of a whole `solve`, `verify` or `stats`
//! process (read from the kernel's accounting of the child, `wait4`) stays within the budget
//! it was given, and a budget below a reader's least is refused up front (exit 2).

use crate::common;
use common::cli::run_measured;

const MIB: u64 = 1 << 20;

/// `bawo solve` of Bawo n = 3, lap cap 64, up to `seeds` seeds into `out`, quietly.
fn solve_n3<'a>(seeds: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "solve",
        "--game",
        "bawo",
        "--n",
        "3",
        "--seeds",
        seeds,
        "--lap-cap",
        "64",
        "--quiet",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn a_budgeted_solve_and_its_readers_stay_within_the_budget() {
    let root = tempfile::tempdir().unwrap();
    let db = root.path().join("n3s15");
    let db = db.to_str().unwrap();
    // 34.8 million positions, the largest tier 15.5 million: before the budget was a hard cap
    // this solve peaked at 215 MiB under `--mem 160M`.
    let (code, _, err, peak) =
        run_measured(&solve_n3("15", db, &["--mem", "160M", "--threads", "2"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        peak <= 160 * MIB,
        "solve --mem 160M peaked at {} MiB",
        peak / MIB
    );

    let (code, out, err, peak) = run_measured(&["stats", "--db", db, "--mem", "100M", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"states\":34767720"), "{out}");
    assert!(
        peak <= 100 * MIB,
        "stats --mem 100M peaked at {} MiB",
        peak / MIB
    );

    // Decoded tiers are kept while they fit beside the buffers, the rest is probed.
    let (code, out, err, peak) =
        run_measured(&["verify", "--db", db, "--mem", "160M", "--threads", "2"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("17383860 stored positions"), "{out}");
    assert!(out.contains(": 0 disagree"), "{out}");
    assert!(
        peak <= 160 * MIB,
        "verify --mem 160M peaked at {} MiB",
        peak / MIB
    );
}

#[test]
fn readers_refuse_a_budget_below_their_least_and_name_it() {
    let root = tempfile::tempdir().unwrap();
    let db = root.path().join("s8");
    let db = db.to_str().unwrap();
    let (code, _, err, _) = run_measured(&solve_n3("8", db, &[]));
    assert_eq!(code, 0, "{err}");
    for cmd in ["verify", "stats"] {
        let (code, _, err, _) = run_measured(&[cmd, "--db", db, "--mem", "16M"]);
        assert_eq!(code, 2, "{cmd}: {err}");
        let at = err.find("give --mem at least ").expect(&err) + "give --mem at least ".len();
        let least: u64 = err[at..].split(' ').next().unwrap().parse().unwrap();
        let mem = format!("{least}M");
        let (code, _, err, peak) = run_measured(&[cmd, "--db", db, "--mem", &mem]);
        assert_eq!(code, 0, "{cmd} --mem {mem}: {err}");
        assert!(
            peak <= least * MIB,
            "{cmd} --mem {mem} peaked at {} MiB",
            peak / MIB
        );
    }
}

/// `compact --mem` is a hard cap on the process's peak resident memory (read from the
/// kernel's accounting of the child, `wait4`), and the compacted database counts what its
/// source counts.
#[test]
fn compact_stays_within_mem() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, out) = (tmp.path().join("src"), tmp.path().join("out"));
    let (src_s, out_s) = (src.to_str().unwrap(), out.to_str().unwrap());
    let (code, _, err, _) = run_measured(&solve_n3("12", src_s, &[]));
    assert_eq!(code, 0, "{err}");
    let (code, _, err, peak) = run_measured(&[
        "compact",
        "--db",
        src_s,
        "--out",
        out_s,
        "--mem",
        "200M",
        "--threads",
        "2",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(peak <= 200 * MIB, "peak {peak} over --mem 200M");
    let counts = |db: &str| {
        let (code, out, err, _) = run_measured(&["stats", "--db", db, "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let tiers = v["tiers"].as_array().unwrap().clone();
        let keys = ["states", "win", "loss", "draw"];
        tiers
            .iter()
            .map(|t| keys.map(|k| t[k].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        counts(src_s),
        counts(out_s),
        "stats of the compacted database"
    );
}

#[test]
fn the_last_tier_is_not_copied_into_memory_after_it_is_solved() {
    // Bao's mtaji with 8 seeds is one tier, whose 123 MB raw table alone is near `--mem
    // 128M`: the run kept every finished tier in memory for the tiers above (all tiers below
    // fit the budget's share, there being none), and copied this one in too after solving
    // it, though no tier reads it (it peaked at 152 MiB).
    let root = tempfile::tempdir().unwrap();
    let db = root.path().join("bao8");
    let db = db.to_str().unwrap();
    let args = [
        "solve",
        "--game",
        "bao",
        "--seeds",
        "8",
        "--mem",
        "128M",
        "--threads",
        "2",
        "--quiet",
        "--out",
        db,
    ];
    let (code, _, err, peak) = run_measured(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        peak <= 128 * MIB,
        "solve --mem 128M peaked at {} MiB",
        peak / MIB
    );
}
