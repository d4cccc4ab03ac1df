//! The database commands through the binary: damage is reported as corruption (exit 1,
//! never a wrong answer or a panic), refusals are explained, `verify` passes on a good
//! database, `stats --json` agrees with `solve --json`, `play` finishes a game from a pipe,
//! `export` writes every position.

use crate::common;

use std::path::Path;
use std::process::Output;

use bawo_db::format::{self, BdbFile, EncodeOptions};
use bawo_db::{query, Database};
use bawo_games::game::{Game, MoveOutcome};
use bawo_games::with_game;
use bawo_solve::Manifest;
use common::cli::{assert_fails, bawo, bawo_stdin, text};

const GAME: [&str; 4] = ["--n", "2", "--lap-cap", "16"];
const SEEDS: &str = "9";

/// Solves the small instance into `dir` (extra args such as rules appended); returns the
/// `solve --json` summary.
fn solve(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let d = dir.to_str().unwrap();
    let mut args = vec!["solve", "--seeds", SEEDS, "--out", d, "--json", "-q"];
    args.extend(GAME);
    args.extend(extra);
    let out = bawo(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Solves, then removes the raw tables: what a shipped database holds.
fn shipped(dir: &Path) {
    solve(dir, &[]);
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "tbl") {
            std::fs::remove_file(p).unwrap();
        }
    }
}

/// `--board` and `--to-move` of position `index` of `tier`.
fn position_args(dir: &Path, tier: u32, index: u64) -> (String, String) {
    let db = Database::open(dir).unwrap();
    with_game!(db.game(), g => {
        let p = g.position(tier, index);
        let board: Vec<String> = g.board_counts(&p).iter().map(u32::to_string).collect();
        (board.join(","), g.side_to_move(&p).letter().to_string())
    })
}

fn query_at(dir: &Path, tier: u32, index: u64) -> Output {
    let (board, side) = position_args(dir, tier, index);
    bawo(&[
        "query",
        "--db",
        dir.to_str().unwrap(),
        "--board",
        &board,
        "--to-move",
        &side,
    ])
}

fn verify(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["verify", "--db", dir.to_str().unwrap()];
    args.extend(extra);
    bawo(&args)
}

/// Re-encodes `tier` with small blocks so that damage hits one block of several.
fn small_blocks(dir: &Path, tier: u32) -> BdbFile {
    let db = Database::open(dir).unwrap();
    let entries = db.tier_entries(tier).unwrap();
    let mut m = Manifest::load(dir).unwrap().unwrap();
    let opts = EncodeOptions {
        block_positions: 1000,
        level: 3,
    };
    let rec = format::write_tier(dir, tier, m.fingerprint_value(), &entries, &opts).unwrap();
    m.tiers.iter_mut().find(|r| r.tier == tier).unwrap().bdb = Some(rec.clone());
    m.save(dir).unwrap();
    BdbFile::open(
        &dir.join(&rec.file),
        tier,
        entries.len() as u64,
        m.fingerprint_value(),
    )
    .unwrap()
}

/// Damage reported as such: exit code 1, one line naming the corruption, no panic.
#[track_caller]
fn assert_corrupt(out: &Output, what: &str) {
    assert_fails(out, 1, "corrupted", what);
}

#[test]
fn verify_passes_and_query_answers_without_raw_tables() {
    let dir = tempfile::tempdir().unwrap();
    shipped(dir.path());
    let out = verify(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("0 disagree"));
    // The rate of the forward pass is named.
    assert!(
        text(&out.stdout).contains(" M positions/s): 0 disagree"),
        "{}",
        text(&out.stdout)
    );
    let out = verify(dir.path(), &["--sample", "500"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = query_at(dir.path(), 9, 1234);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("for the side to move"));
}

#[test]
fn flipped_byte_in_a_block_is_reported_as_corruption() {
    let dir = tempfile::tempdir().unwrap();
    shipped(dir.path());
    let f = small_blocks(dir.path(), 9);
    let path = f.path().to_path_buf();
    // Flip a byte in the middle of block 2's frame.
    let (block, _) = f.locate(2500);
    let mut bytes = std::fs::read(&path).unwrap();
    drop(f);
    let offset = {
        // The block index sits before the 8-byte trailer; entry `block` starts with the
        // frame's offset and length.
        let index_offset = u64::from_le_bytes(bytes[48..56].try_into().unwrap()) as usize;
        let e = &bytes[index_offset + 24 * block as usize..];
        let off = u64::from_le_bytes(e[0..8].try_into().unwrap()) as usize;
        let len = u32::from_le_bytes(e[8..12].try_into().unwrap()) as usize;
        off + len / 2
    };
    bytes[offset] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();

    let out = query_at(dir.path(), 9, 2500);
    assert_corrupt(&out, "query");
    assert!(text(&out.stderr).contains(&format!("block {block}")));
    // Positions in other blocks still answer.
    let out = query_at(dir.path(), 9, 10);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let out = verify(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(
        report.contains(&format!("block {block} (positions")),
        "{report}"
    );
    assert!(!text(&out.stderr).contains("panicked"));
    // A sample finds it too.
    let out = verify(dir.path(), &["--sample", "100"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains(&format!("block {block} (positions")));
}

#[test]
fn truncated_file_is_reported_as_corruption() {
    let dir = tempfile::tempdir().unwrap();
    shipped(dir.path());
    let path = dir.path().join(format::file_name(8));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
    let out = query_at(dir.path(), 8, 77);
    assert_corrupt(&out, "query");
    assert!(text(&out.stderr).contains("truncated"));
    let out = verify(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("tier-0008.bdb"));
    // An empty file too.
    std::fs::write(&path, b"").unwrap();
    assert_corrupt(&query_at(dir.path(), 8, 77), "empty file");
}

#[test]
fn refusals_are_explained() {
    let dir = tempfile::tempdir().unwrap();
    shipped(dir.path());
    // A tier file from a database built with other rules.
    let other = tempfile::tempdir().unwrap();
    solve(other.path(), &["--rules", "kichwa=relay"]);
    std::fs::copy(
        other.path().join(format::file_name(7)),
        dir.path().join(format::file_name(7)),
    )
    .unwrap();
    let out = query_at(dir.path(), 7, 5);
    assert_fails(&out, 1, "other rules", "a tier file of other rules");
    let out = verify(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));

    // A missing tier file.
    std::fs::remove_file(dir.path().join(format::file_name(7))).unwrap();
    let out = query_at(dir.path(), 7, 5);
    assert_fails(&out, 1, "missing", "a missing tier file");

    // A position beyond the seeds the database covers is a usage error.
    let d = dir.path().to_str().unwrap();
    let out = bawo(&[
        "query",
        "--db",
        d,
        "--board",
        "5,5,0,0,0,0,0,0",
        "--to-move",
        "A",
    ]);
    assert_fails(&out, 2, "", "a board of too many seeds");
    let out = bawo(&["export", "--db", d, "--tier", "40"]);
    assert_fails(&out, 2, "", "export of a tier beyond the database");
    let out = bawo(&["export", "--db", d, "--tier", "3", "--format", "xml"]);
    assert_eq!(out.status.code(), Some(2));
    let out = bawo(&["stats", "--db", d, "--plot", "x.gif"]);
    assert_fails(&out, 2, "", "a picture format that is not supported");
}

#[test]
fn stats_json_counts_agree_with_the_solve_summary() {
    let dir = tempfile::tempdir().unwrap();
    let summary = solve(dir.path(), &[]);
    let d = dir.path().to_str().unwrap();
    let svg = dir.path().join("stats.svg");
    let png = dir.path().join("stats.png");
    let out = bawo(&[
        "stats",
        "--db",
        d,
        "--json",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["states", "win", "loss", "draw", "max_depth"] {
        assert_eq!(stats[key], summary[key], "{key}");
    }
    let tiers = summary["tiers"].as_array().unwrap();
    assert_eq!(stats["tiers"].as_array().unwrap().len(), tiers.len());
    for (s, t) in stats["tiers"].as_array().unwrap().iter().zip(tiers) {
        // What the solve wrote is the solve's alone; every count is shared.
        let solve_only = ["bytes_written", "peak_disk"];
        for (key, v) in t.as_object().unwrap() {
            if !solve_only.contains(&key.as_str()) {
                assert_eq!(&s[key], v, "tier {} {key}", t["seeds"]);
            }
        }
        let hist_sum = |k: &str| -> u64 {
            s[k].as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .sum()
        };
        assert_eq!(hist_sum("win_depths"), t["win"].as_u64().unwrap());
        assert_eq!(hist_sum("loss_depths"), t["loss"].as_u64().unwrap());
    }
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") && picture.contains("depth"));

    let out = bawo(&["stats", "--db", d, "--plot", png.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
}

/// The labels a human would type to play from `(board, side)`: always the first legal move,
/// while the engine plays the database's best move.
fn scripted_game(dir: &Path, board: &str, side: &str) -> Vec<String> {
    let db = Database::open(dir).unwrap();
    with_game!(db.game(), g => {
        let spec = bawo_games::game::PositionSpec::new(board, bawo_games::game::Side::parse(side).unwrap());
        let mut pos = g.parse_position(&spec).unwrap();
        let human = g.side_to_move(&pos);
        let mut lines = Vec::new();
        for _ in 0..200 {
            let moves = g.moves(&pos);
            if moves.is_empty() {
                return lines;
            }
            let label = if g.side_to_move(&pos) == human {
                lines.push(moves[0].label.clone());
                moves[0].label.clone()
            } else {
                query(&db, g, &pos).unwrap().moves[0].label.clone()
            };
            match moves.into_iter().find(|m| m.label == label).unwrap().outcome {
                MoveOutcome::Position(q) => pos = q,
                MoveOutcome::MoverLoses => return lines,
            }
        }
        panic!("the scripted game did not end")
    })
}

#[test]
fn play_driven_by_stdin_finishes_a_game() {
    let dir = tempfile::tempdir().unwrap();
    shipped(dir.path());
    let d = dir.path().to_str().unwrap();
    // Find a position whose game under this script lasts a few moves.
    let (board, side, lines) = (0..2000)
        .map(|i| {
            let (b, s) = position_args(dir.path(), 9, i * 13);
            let lines = scripted_game(dir.path(), &b, &s);
            (b, s, lines)
        })
        .find(|(_, _, l)| l.len() >= 3)
        .expect("a game of several moves");
    let mut input = String::from("not-a-move\n\n");
    for l in &lines {
        input.push_str(l);
        input.push('\n');
    }
    let out = bawo_stdin(
        &["play", "--db", d, "--board", &board, "--to-move", &side],
        &input,
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}{stdout}", text(&out.stderr));
    assert!(stdout.contains("is not a legal move"), "{stdout}");
    assert!(
        stdout.contains("engine (") && stdout.contains("plays"),
        "{stdout}"
    );
    assert!(stdout.contains("game over after"), "{stdout}");

    // `q` and the end of input both leave with exit code 0.
    for input in ["q\n", ""] {
        let out = bawo_stdin(&["play", "--db", d, "--seed", "5"], input);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(text(&out.stdout).contains("quit after 0 plies"));
    }
}

#[test]
fn export_writes_every_position_of_a_tier() {
    let dir = tempfile::tempdir().unwrap();
    shipped(dir.path());
    let d = dir.path().to_str().unwrap();
    let out = bawo(&["export", "--db", d, "--tier", "5", "--format", "csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let csv = text(&out.stdout);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "index,p0,p1,p2,p3,p4,p5,p6,p7,to_move,value,depth"
    );
    let rows: Vec<&str> = lines.collect();
    let db = Database::open(dir.path()).unwrap();
    // Every position of either side to move: two rows per stored entry, A then B.
    let entries = db.tier_entries(5).unwrap();
    assert_eq!(rows.len() as u64, 2 * db.record(5).unwrap().counts.states);
    assert_eq!(rows.len(), 2 * entries.len());
    let mut boards = std::collections::HashSet::new();
    for (r, row) in rows.iter().enumerate() {
        let f: Vec<&str> = row.split(',').collect();
        let i = r / 2;
        assert_eq!(f[0], i.to_string(), "row {r}: the entry's index");
        assert_eq!(f[9], if r % 2 == 0 { "A" } else { "B" });
        let seeds: u32 = f[1..9].iter().map(|x| x.parse::<u32>().unwrap()).sum();
        assert_eq!(seeds, 5);
        let e = bawo_games::Entry(entries[i]);
        assert_eq!(f[10], e.value().unwrap().as_str());
        assert_eq!(f[11], e.depth().map(|d| d.to_string()).unwrap_or_default());
        assert!(
            boards.insert((f[1..10].join(","), f[9].to_string())),
            "row {r} twice"
        );
    }
    // Each row agrees with what `query` answers for its position.
    for row in rows.iter().step_by(37) {
        let f: Vec<&str> = row.split(',').collect();
        let out = bawo(&[
            "query",
            "--db",
            d,
            "--board",
            &f[1..9].join(","),
            "--to-move",
            f[9],
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
        assert_eq!(v["value"], f[10], "{row}");
    }
    let file = dir.path().join("t5.csv");
    let out = bawo(&[
        "export",
        "--db",
        d,
        "--tier",
        "5",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), csv);
}
