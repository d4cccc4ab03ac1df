//! Tiers of more than 2^32 positions: their plan, and the wide (40-bit source) path they take.
//!
//! A tier that large is far beyond a test, so the narrow/wide boundary is a parameter
//! (`SolveConfig::wide_above`, or `BAWO_WIDE_ABOVE` for the binary): here it is set to 0, so
//! that every tier of a small instance takes the wide path, in one range and in several. The
//! results must equal the brute-force oracle's, and every table and database file must be
//! byte-identical to the narrow path's; an interrupted wide run resumes to the same files.
//! Each is solved with predecessor keys (`SolveConfig::keys`, where the game names sources by
//! them) and without, and the files are the same.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

use bawo_db::Database;
use bawo_games::game::bao::{Bao, BaoPosition, BaoRules};
use bawo_games::game::bawo::{Bawo, BawoRules};
use bawo_games::game::kigogo::{Kigogo, KigogoRules};
use bawo_games::game::{Game, Side};
use bawo_solve::run::{plan_run, SolveConfig, NARROW_LIMIT};
use common::compare::{assert_db_matches_oracle, OraclePos};
use common::{solve_by_rounds, OValue};

/// Solves `game` up to `seeds` in `dir` with ranges of `2^range_bits`, the wide path above
/// `wide_above` positions and predecessor keys where the game has them and `keys` is set, on
/// two threads.
fn solve_in(
    game: &impl Game,
    dir: &Path,
    seeds: u32,
    range_bits: Option<u32>,
    wide_above: u64,
    keys: bool,
) {
    let mut cfg = SolveConfig::new(seeds, dir);
    cfg.range_bits = range_bits;
    cfg.wide_above = wide_above;
    cfg.keys = keys;
    // The raw tables are compared too, not only the compressed files.
    cfg.keep_tables = true;
    // The plan stores keys exactly where asked for and the game names sources by them.
    let tiers = game.tiers_up_to(seeds).unwrap();
    let plan = plan_run(game, &tiers, &cfg).unwrap();
    for &t in &tiers {
        // One byte: a place in a list of moved halves, none of them longer than 256 here.
        let want = if keys && game.kept_half(t).is_some() {
            1
        } else {
            0
        };
        assert_eq!(plan.tier(t).unwrap().keys, want, "tier {t}");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| bawo_solve::solve(game, &cfg, &bawo_solve::tier::Silent))
        .unwrap();
}

/// Every tier's table and database file in `dir`, by name.
fn tier_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".tbl") || name.ends_with(".bdb") {
            files.insert(name, std::fs::read(e.path()).unwrap());
        }
    }
    files
}

/// Solves `game` narrow in one range, then wide in one range and in ranges of
/// `2^range_bits`: the wide databases equal the oracle's values and every file equals the
/// narrow solve's, byte for byte.
fn check_wide<G: Game>(
    game: &G,
    seeds: u32,
    range_bits: u32,
    expected: &HashMap<OraclePos, OValue>,
    position: impl Fn(&[u32], Side) -> G::Position + Copy,
) {
    let narrow = tempfile::tempdir().unwrap();
    solve_in(game, narrow.path(), seeds, None, NARROW_LIMIT, false);
    let want = tier_files(narrow.path());
    assert_eq!(
        want.len() as u64,
        2 * game.tiers_up_to(seeds).unwrap().len() as u64
    );
    // Wide with keys (where the game has them) and without, and narrow with keys.
    let runs = [
        (None, 0, true),
        (Some(range_bits), 0, true),
        (None, 0, false),
        (Some(range_bits), 0, false),
        (Some(range_bits), NARROW_LIMIT, true),
    ];
    for (bits, wide_above, keys) in runs {
        let wide = tempfile::tempdir().unwrap();
        solve_in(game, wide.path(), seeds, bits, wide_above, keys);
        let db = Database::open(wide.path()).unwrap();
        let what = format!(
            "{} wide above {wide_above}, range bits {bits:?}, keys {keys}",
            game.descriptor()
        );
        assert_db_matches_oracle(game, &db, expected, position, &what);
        let got = tier_files(wide.path());
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>()
        );
        for (name, bytes) in &want {
            assert!(
                &got[name] == bytes,
                "{what}: {name} differs from the narrow solve"
            );
        }
    }
}

#[test]
fn bawo_wide_path_matches_the_oracle_and_the_narrow_files() {
    let oracle = common::bawo_oracle::Oracle::new(2, 6, false, false);
    let expected = solve_by_rounds(&oracle.positions(8), |p| oracle.successors(p));
    let game = Bawo::new(2, 6, BawoRules::parse("").unwrap()).unwrap();
    // The largest tier (12,870 positions) in 7 ranges of 2,048.
    check_wide(&game, 8, 11, &expected, |board, side| {
        let counts: Vec<u8> = board.iter().map(|&c| c as u8).collect();
        game.make_position(&counts, side)
    });
}

#[test]
fn kigogo_wide_path_matches_the_oracle_and_the_narrow_files() {
    let oracle = common::kigogo_oracle::KOracle::new(false);
    let expected = solve_by_rounds(&oracle.positions(4), |p| oracle.successors(p));
    let game = Kigogo::new(KigogoRules::parse("").unwrap());
    check_wide(&game, 4, 12, &expected, |board, side| {
        let counts: Vec<u8> = board.iter().map(|&c| c as u8).collect();
        game.make_position(&counts, side)
    });
}

#[test]
fn bao_wide_path_matches_the_oracle_and_the_narrow_files() {
    let oracle = common::bao_oracle::BaoOracle {
        never_ending_loses: false,
    };
    let expected = solve_by_rounds(&oracle.positions(4), |p| oracle.successors(p));
    let game = Bao::new(BaoRules::parse("").unwrap());
    check_wide(&game, 4, 12, &expected, |board, side| {
        let mut b = [0u8; 32];
        for (b, &c) in b.iter_mut().zip(board) {
            *b = c as u8;
        }
        BaoPosition::mtaji(b, side)
    });
}

#[test]
fn bawo_n5_with_17_seeds_is_planned_with_a_wide_top_tier() {
    // 31,810,737,420 positions of both sides (sum of 2 C(k + 19, 19), k <= 17); tier 17
    // alone stores C(36, 19) = 8,597,496,600 entries (A to move), more than 2^32. (With 16
    // seeds, 14,615,744,220 positions, the top tier stores 4,059,928,950: narrow.)
    let game = Bawo::new(5, 64, BawoRules::parse("").unwrap()).unwrap();
    let tiers = game.tiers_up_to(17).unwrap();
    let mut cfg = SolveConfig::new(17, "unused");
    cfg.budget = 64 << 30;
    let plan = plan_run(&game, &tiers, &cfg).expect("a 2^32+ tier is planned, not refused");
    let stored: u64 = plan.tiers.iter().map(|t| t.states).sum();
    assert_eq!(stored * 2, 31_810_737_420);
    assert_eq!(plan.tiers.last().unwrap().states, 8_597_496_600);
    assert!(plan.tiers.last().unwrap().wide);
    for t in &plan.tiers {
        assert_eq!(t.wide, t.states > NARROW_LIMIT, "tier {}", t.tier);
        assert!(t.ranges << t.range_bits >= t.states, "tier {}", t.tier);
        assert!(t.range_bits <= 30);
    }
    let top = plan.tier(17).unwrap();
    assert_eq!(top.states, 8_597_496_600);
    assert!(top.wide && !plan.tier(16).unwrap().wide);
}

/// `solve` of Bawo n = 2, 8 seeds, lap cap 6 into `dir` through the binary, checkpointing at
/// every opportunity, in ranges of 2^11 positions.
fn cli_solve(dir: &Path, resume: bool) -> Vec<String> {
    let mut a: Vec<String> = ["solve", "--game", "bawo", "--n", "2", "--lap-cap", "6"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if resume {
        a.push("--resume".into());
    }
    for s in [
        "--seeds",
        "8",
        "--range-bits",
        "11",
        "--quiet",
        "--checkpoint-secs",
        "0",
        "--threads",
        "2",
        "--out",
    ] {
        a.push(s.into());
    }
    a.push(dir.to_str().unwrap().into());
    a
}

#[test]
fn an_interrupted_wide_run_resumes_to_the_narrow_files() {
    let narrow = tempfile::tempdir().unwrap();
    common::cli::assert_ok(
        &common::cli::bawo(&cli_solve(narrow.path(), false)),
        "narrow",
    );
    let want = tier_files(narrow.path());
    let wide = [("BAWO_WIDE_ABOVE", "0".to_string())];
    // Interrupted in the successor pass, the predecessors and the attractor of various tiers.
    let mut in_tier = 0;
    for k in [3u64, 20, 40, 70] {
        let dir = tempfile::tempdir().unwrap();
        let mut env = wide.to_vec();
        env.push(("BAWO_ABORT_AFTER_CHECKPOINTS", k.to_string()));
        let out = common::cli::bawo_env(&cli_solve(dir.path(), false), &env);
        assert_eq!(
            out.status.signal(),
            Some(6),
            "k={k}: the run ends before checkpoint {k}"
        );
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("manifest.json")).unwrap())
                .unwrap();
        // A checkpoint inside a tier records the width its work files were written in.
        if let Some(current) = manifest["current"].as_object() {
            assert_eq!(current["wide"], serde_json::Value::Bool(true), "k={k}");
            in_tier += 1;
        }
        let out = common::cli::bawo_env(&cli_solve(dir.path(), true), &wide);
        common::cli::assert_ok(&out, &format!("resume after checkpoint {k}"));
        assert!(tier_files(dir.path()) == want, "k={k}: files differ");
    }
    assert!(
        in_tier >= 2,
        "only {in_tier} interruptions fell inside a tier"
    );
}

#[test]
fn bawo_n5_positions_near_2_32_round_trip_through_their_indices() {
    let game = Bawo::new(5, 64, BawoRules::parse("").unwrap()).unwrap();
    let size = game.tier_size(17).unwrap();
    assert_eq!(size, 8_597_496_600);
    let half = size / 2;
    for index in [
        0,
        half - 1,
        half,
        (1 << 32) - 1,
        1 << 32,
        (1 << 32) + 1,
        size - 1,
    ] {
        let pos = game.position(17, index);
        assert_eq!(game.locate(&pos).unwrap(), (17, index), "index {index}");
        // Only positions with A to move are stored.
        assert_eq!(game.side_to_move(&pos), Side::A, "index {index}");
        assert_eq!(game.board_counts(&pos).iter().sum::<u32>(), 17);
    }
    // Visiting across 2^32 steps through the same positions as unranking each.
    let mut seen = Vec::new();
    game.visit(17, (1 << 32) - 2..(1 << 32) + 2, |i, p| {
        seen.push((i, game.locate(p).unwrap()))
    });
    let want: Vec<_> = ((1u64 << 32) - 2..(1 << 32) + 2)
        .map(|i| (i, (17, i)))
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn a_tier_beyond_2_40_positions_is_refused_before_anything_is_written() {
    // Bawo n = 8: tier 15 stores C(46, 31) = 511,738,760,544 entries (wide, planned), tier 16
    // C(47, 31) = 1,503,232,609,098, more than the five-byte sources of predecessor lists hold.
    let game = Bawo::new(8, 64, BawoRules::parse("").unwrap()).unwrap();
    let mut cfg = SolveConfig::new(15, "unused");
    cfg.budget = 64 << 30;
    let plan = plan_run(&game, &game.tiers_up_to(15).unwrap(), &cfg).unwrap();
    assert!(plan.tier(15).unwrap().wide);
    let err = plan_run(&game, &game.tiers_up_to(16).unwrap(), &cfg).unwrap_err();
    assert!(err.to_string().contains("at most 2^40"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let args = ["solve", "--n", "8", "--seeds", "16", "--dry-run", "--out"];
    let mut args: Vec<&str> = args.to_vec();
    args.push(out.to_str().unwrap());
    common::cli::assert_usage_error(&args, "tier 16 has 1503232609098 positions");
    assert!(!out.exists(), "nothing is written");
}

/// Sets the work format of the checkpoint of the tier in progress in `dir`'s manifest (saved
/// with its checksum, as an earlier version would have written it).
fn set_checkpoint_format(dir: &Path, format: u32) {
    let mut m = bawo_solve::Manifest::load(dir).unwrap().unwrap();
    m.current.as_mut().expect("a tier in progress").format = format;
    m.save(dir).unwrap();
}

#[test]
fn work_files_of_the_previous_format_are_read_in_narrow_tiers_and_redone_in_wide_ones() {
    let plain = tempfile::tempdir().unwrap();
    common::cli::assert_ok(&common::cli::bawo(&cli_solve(plain.path(), false)), "plain");
    let want = tier_files(plain.path());
    // Format 3 stored wide sources in 8 bytes; narrow files are the same in format 4, which
    // stored sources where format 5 may store keys (a format-4 checkpoint with keys is not
    // one an earlier version wrote: solved again).
    let cases = [
        ("0", "1", 3, true),
        ("1000000000", "1", 3, false),
        ("1000000000", "1", 4, false),
        ("1000000000", "0", 4, true),
    ];
    for (wide, no_keys, format, redone) in cases {
        let dir = tempfile::tempdir().unwrap();
        let env = [
            ("BAWO_WIDE_ABOVE", wide.to_string()),
            ("BAWO_NO_KEYS", no_keys.to_string()),
            ("BAWO_ABORT_AFTER_CHECKPOINTS", "40".to_string()),
        ];
        let out = common::cli::bawo_env(&cli_solve(dir.path(), false), &env);
        assert_eq!(out.status.signal(), Some(6), "wide above {wide}");
        set_checkpoint_format(dir.path(), format);
        let env = [("BAWO_WIDE_ABOVE", wide.to_string())];
        let out = common::cli::bawo_env(&cli_solve(dir.path(), true), &env);
        common::cli::assert_ok(&out, &format!("resume, wide above {wide}"));
        let err = common::cli::text(&out.stderr);
        assert_eq!(
            err.contains("written by an earlier version"),
            redone,
            "wide above {wide}, no keys {no_keys}, format {format}: {err}"
        );
        assert!(
            tier_files(dir.path()) == want,
            "wide above {wide}: files differ"
        );
    }
}

#[test]
fn checkpoints_whose_keys_are_ranks_resume_to_the_same_files() {
    // Earlier builds stored the rank of a source's mover half (three bytes here), this one its
    // place in the list of halves that move to the target's (one byte): a run interrupted
    // with the first resumes with them, at various points of a tier.
    let plain = tempfile::tempdir().unwrap();
    common::cli::assert_ok(&common::cli::bawo(&cli_solve(plain.path(), false)), "plain");
    let want = tier_files(plain.path());
    let mut in_tier = 0;
    for k in [20u64, 40, 70] {
        let dir = tempfile::tempdir().unwrap();
        let env = [
            ("BAWO_RANK_KEYS", "1".to_string()),
            ("BAWO_ABORT_AFTER_CHECKPOINTS", k.to_string()),
        ];
        let out = common::cli::bawo_env(&cli_solve(dir.path(), false), &env);
        assert_eq!(out.status.signal(), Some(6), "k={k}");
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("manifest.json")).unwrap())
                .unwrap();
        if let Some(current) = manifest["current"].as_object() {
            assert_eq!(current["keys"], serde_json::json!(3), "k={k}");
            in_tier += 1;
        }
        let out = common::cli::bawo(&cli_solve(dir.path(), true));
        common::cli::assert_ok(&out, &format!("resume after checkpoint {k}"));
        let err = common::cli::text(&out.stderr);
        assert!(!err.contains("earlier version"), "k={k}: redone: {err}");
        assert!(tier_files(dir.path()) == want, "k={k}: files differ");
    }
    assert!(
        in_tier >= 2,
        "only {in_tier} interruptions fell inside a tier"
    );
}
