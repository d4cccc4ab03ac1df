//! The memory plan: a `--mem` too small for any tier of the run is refused (exit 2) before any
//! tier is solved, with or without `--range-bits`, and the least budget it names suffices; the
//! run's announcement counts the lower tiers' share as held by its last tier only where that
//! tier retires them.

use std::path::Path;
use std::process::Output;

use bawo_games::game::bawo::{Bawo, BawoRules};
use bawo_games::game::Game;
use bawo_games::Error;
use bawo_solve::run::{plan_run, SolveConfig};

use crate::common;
use common::cli::bawo;

const GAME: [&str; 10] = [
    "solve",
    "--game",
    "bawo",
    "--n",
    "3",
    "--seeds",
    "12",
    "--lap-cap",
    "64",
    "--quiet",
];

fn solve(out: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<&str> = GAME.to_vec();
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend(extra);
    bawo(&args)
}

/// The least budget in MiB that an error names.
fn least_mib(stderr: &str) -> u64 {
    let at = stderr
        .find("give --mem at least ")
        .unwrap_or_else(|| panic!("no least budget named: {stderr}"));
    let rest = &stderr[at + "give --mem at least ".len()..];
    rest.split(' ').next().unwrap().parse().unwrap()
}

fn assert_refused_before_any_work(out: &Output, dir: &Path, what: &str) -> u64 {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert!(
        err.contains("the memory budget"),
        "{what}: unclear error: {err}"
    );
    // Nothing was solved: no table, no compressed file, no manifest.
    if dir.exists() {
        let names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names
                .iter()
                .all(|n| !n.starts_with("tier-") && n != "manifest.json"),
            "{what}: the refused run wrote {names:?}"
        );
    }
    least_mib(&err)
}

#[test]
fn a_budget_too_small_is_refused_alike_with_or_without_range_bits() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("run");
    // Regression: `--mem 8M` was refused but `--mem 8M --range-bits 20` was accepted.
    let plain = assert_refused_before_any_work(&solve(&dir, &["--mem", "8M"]), &dir, "--mem 8M");
    let with_bits = assert_refused_before_any_work(
        &solve(&dir, &["--mem", "8M", "--range-bits", "20"]),
        &dir,
        "--mem 8M --range-bits 20",
    );
    // The least budget named is enough, and the solve then succeeds.
    for (least, bits) in [(plain, None), (with_bits, Some("20"))] {
        let mem = format!("{least}M");
        let mut extra = vec!["--mem", mem.as_str()];
        if let Some(b) = bits {
            extra.extend(["--range-bits", b]);
        }
        let ok_dir = root.path().join(format!("ok-{least}-{bits:?}"));
        let out = solve(&ok_dir, &extra);
        assert!(
            out.status.success(),
            "{extra:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_budget_too_small_for_the_largest_tier_fails_before_tier_0() {
    let game = Bawo::new(3, 64, BawoRules::parse("").unwrap()).unwrap();
    let tiers = game.tiers_up_to(12).unwrap();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("run");
    let mut cfg = SolveConfig::new(12, &dir);
    // The least budget for the whole run, then one MiB less: the smallest tiers would fit.
    cfg.budget = 8 << 20;
    let least = match plan_run(&game, &tiers, &cfg) {
        Err(Error::Memory(e)) => e.least_mib,
        other => panic!("expected a memory error, got {other:?}"),
    };
    cfg.budget = (least - 1) << 20;
    assert!(
        plan_run(&game, &tiers[..1], &cfg).is_ok(),
        "tier 0 alone fits"
    );
    let e = bawo_solve::solve(&game, &cfg, &bawo_solve::tier::Silent).unwrap_err();
    assert!(e.is_input(), "{e}");
    match &e {
        Error::Memory(m) => assert!(m.tier > tiers[0], "{e}"),
        other => panic!("expected a memory error, got {other}"),
    }
    assert!(!dir.join("tier-0000.tbl").exists());
    assert!(!dir.join("manifest.json").exists());
    cfg.budget = least << 20;
    bawo_solve::solve(&game, &cfg, &bawo_solve::tier::Silent).expect("the least budget suffices");
}

/// What the run announces (`RunProgress::run_started`): its held shares, kept.
#[derive(Default)]
struct Announced(std::sync::Mutex<Option<Vec<f64>>>);

impl bawo_solve::tier::TierProgress for Announced {}

impl bawo_solve::RunProgress for Announced {
    fn run_started(&self, start: &bawo_solve::RunStart) {
        *self.0.lock().unwrap() = Some(start.held.clone());
    }
}

#[test]
fn the_last_tier_is_announced_holding_the_lower_tiers_share_only_where_it_retires_them() {
    let game = Bawo::new(4, 64, BawoRules::parse("").unwrap()).unwrap();
    let tiers = game.tiers_up_to(10).unwrap();
    let root = tempfile::tempdir().unwrap();
    let announced = |keep_tables: bool| {
        let dir = root.path().join(format!("run-{keep_tables}"));
        let mut cfg = SolveConfig::new(10, &dir);
        cfg.budget = 120 << 20;
        cfg.keep_tables = keep_tables;
        let plan = plan_run(&game, &tiers, &cfg).unwrap();
        let progress = Announced::default();
        bawo_solve::solve(&game, &cfg, &progress).unwrap();
        let held = progress
            .0
            .lock()
            .unwrap()
            .take()
            .expect("the run was announced");
        (*plan.tiers.last().unwrap(), held)
    };
    let (last, retiring) = announced(false);
    let (_, keeping) = announced(true);
    assert!(last.ranges > 1, "the last tier is out of core");
    let (with_lower, without) = (last.held_share(true), last.held_share(false));
    assert!(
        with_lower > without,
        "the lower tiers' share is worth holding"
    );
    assert_eq!(retiring.last(), Some(&with_lower));
    assert_eq!(keeping.last(), Some(&without));
    assert_eq!(retiring.len(), tiers.len());
}
