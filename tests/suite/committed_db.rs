//! The small database committed under `data/`, which the crate's doctest and
//! `examples/probe.rs` open, still works: it holds only what a finished database needs, it
//! verifies (through the binary and the library), and every position's value and depth is the
//! brute-force oracle's. A change of the file format or of the solver's answers that the
//! committed files no longer match fails here, not first in the documentation.

use crate::common;

use bawo_db::{verify, Bawo, BawoRules, Database, VerifyOptions};
use common::bawo_oracle::Oracle;
use common::cli::{assert_ok, bawo, text};
use common::compare::assert_db_matches_oracle;
use common::solve_by_rounds;

/// The committed database: Generalized Bawo, n = 2, lap cap 64, every position of at most 6
/// seeds (`bawo solve --game bawo --n 2 --lap-cap 64 --seeds 6 --out data/bawo-n2-s6`).
const DB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/bawo-n2-s6");
const SEEDS: u32 = 6;

fn open() -> Database {
    Database::open(std::path::Path::new(DB)).unwrap()
}

#[test]
fn holds_the_manifest_and_one_compressed_file_per_tier_only() {
    let mut names: Vec<String> = std::fs::read_dir(DB)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut want = vec!["manifest.json".to_string()];
    want.extend((0..=SEEDS).map(|t| format!("tier-{t:04}.bdb")));
    assert_eq!(names, want, "no lock, work or raw table files");
    let db = open();
    assert!(db.manifest().complete);
    assert_eq!(
        db.manifest().game,
        "bawo n=2 lap-cap=64 kichwa=off capture=any"
    );
}

#[test]
fn verifies_through_the_binary_and_the_library() {
    let out = bawo(&["verify", "--db", DB]);
    assert_ok(&out, "verify");
    assert!(
        text(&out.stdout).contains(": 0 disagree"),
        "{}",
        text(&out.stdout)
    );

    let report = verify(&open(), &VerifyOptions::default()).unwrap();
    assert!(report.ok(), "{report:?}");
    // Every board of at most 6 seeds in 8 pits, C(6 + 8, 8) = 3003, stored with A to move
    // (with B to move each is answered by its mirror, so each check covers both).
    assert_eq!(report.checked, 3003);
    assert_eq!(report.files, u64::from(SEEDS) + 1);
}

#[test]
fn every_position_is_the_oracles() {
    let oracle = Oracle::new(2, 64, false, false);
    let positions = oracle.positions(SEEDS);
    let expected = solve_by_rounds(&positions, |p| oracle.successors(p));
    let game = Bawo::new(2, 64, BawoRules::parse("").unwrap()).unwrap();
    assert_db_matches_oracle(
        &game,
        &open(),
        &expected,
        |board, side| {
            let counts: Vec<u8> = board.iter().map(|&c| c as u8).collect();
            game.make_position(&counts, side)
        },
        "data/bawo-n2-s6",
    );
}

/// `Probe`, the library's way in, answers every position typed as text (either side to move)
/// with the oracle's value and depth, and its moves with the oracle's outcomes of the
/// positions they lead to (for the mover: the successor's value flipped, one ply deeper).
#[test]
fn the_probe_api_answers_every_position_and_move_as_the_oracle() {
    use bawo_db::{PositionSpec, Probe, Side, Value};
    use common::{OSucc, OValue};
    let oracle = Oracle::new(2, 64, false, false);
    let positions = oracle.positions(SEEDS);
    let expected = solve_by_rounds(&positions, |p| oracle.successors(p));
    let probe = Probe::open(DB).unwrap();
    let as_pair = |v: &OValue| match *v {
        OValue::Win(d) => (Value::Win, Some(d)),
        OValue::Loss(d) => (Value::Loss, Some(d)),
        OValue::Draw => (Value::Draw, None),
    };
    let mut moves_checked = 0;
    for pos in &positions {
        let board: Vec<String> = pos.0.iter().map(u32::to_string).collect();
        let side = if pos.1 == 0 { Side::A } else { Side::B };
        let answer = probe
            .probe(&PositionSpec::new(&board.join(","), side))
            .unwrap();
        assert_eq!(
            (answer.value, answer.depth),
            as_pair(&expected[pos]),
            "{pos:?}"
        );
        let mut want: Vec<(Value, Option<u32>)> = oracle
            .successors(pos)
            .iter()
            .map(|s| match s {
                OSucc::To(q) => {
                    let (v, d) = as_pair(&expected[q]);
                    (v.flip(), d.map(|d| d + 1))
                }
                OSucc::MoverLoses => (Value::Loss, Some(1)),
            })
            .collect();
        let mut got: Vec<(Value, Option<u32>)> =
            answer.moves.iter().map(|m| (m.value, m.depth)).collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{pos:?}");
        moves_checked += got.len();
    }
    assert_eq!(positions.len(), 2 * 3003);
    assert!(moves_checked > 3000, "{moves_checked} moves");
}
