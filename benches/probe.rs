//! Random probes of a compressed database: cold (the block cache emptied before every
//! probe, so each probe opens its block: one zstd frame decompressed and checked) and warm
//! (the blocks already cached), a stored entry alone and a don't-care position's recovered
//! entry (warm); then warm answers with every move's value, and the check and
//! recovery of don't-care positions ([`bawo_db::dontcare`]).
//!
//! The database is the `--n 2 --lap-cap 16 --seeds 12` instance solved into a temporary
//! directory (1.2 million positions, tiers of up to 2^19 positions: every probe decodes a
//! block of the default size or smaller). `BAWO_BENCH_DB=DIR` probes an existing database
//! instead, e.g. the benchmark instance of the README.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};

use bawo_db::dontcare::{is_dont_care, recover, Scratch};
use bawo_db::play::SplitMix64;
use bawo_db::{query, Database};
use bawo_games::game::bawo::{Bawo, BawoRules};
use bawo_games::game::Game;
use bawo_games::with_game;
use bawo_solve::run::SolveConfig;
use bawo_solve::solve;
use bawo_solve::tier::Silent;

fn database() -> (Option<tempfile::TempDir>, PathBuf) {
    if let Ok(dir) = std::env::var("BAWO_BENCH_DB") {
        return (None, PathBuf::from(dir));
    }
    let tmp = tempfile::tempdir().unwrap();
    let game = Bawo::new(2, 16, BawoRules::default()).unwrap();
    let cfg = SolveConfig::new(12, tmp.path());
    solve(&game, &cfg, &Silent).unwrap();
    let path = tmp.path().to_path_buf();
    (Some(tmp), path)
}

/// Random (tier, index) pairs, uniform over positions.
fn picks(db: &Database, n: usize) -> Vec<(u32, u64)> {
    let tiers = db.tier_sizes();
    let total: u64 = tiers.iter().map(|t| t.1).sum();
    let mut rng = SplitMix64::new(99);
    (0..n)
        .map(|_| {
            let mut r = rng.below(total);
            for &(t, s) in &tiers {
                if r < s {
                    return (t, r);
                }
                r -= s;
            }
            unreachable!()
        })
        .collect()
}

fn probes(c: &mut Criterion) {
    let (_keep, dir) = database();
    let db = Database::open(&dir).unwrap();
    let picks = picks(&db, 4096);
    // Open every tier file once, so the cold probes measure block decoding, not opening.
    for r in &db.manifest().tiers {
        db.source(r.tier).unwrap();
    }
    let mut g = c.benchmark_group("probe");
    let mut i = 0;
    g.bench_function("cold", |b| {
        b.iter(|| {
            db.cache().clear();
            let (t, x) = picks[i % picks.len()];
            i += 1;
            black_box(db.probe(t, x).unwrap())
        })
    });
    for &(t, x) in &picks {
        db.probe(t, x).unwrap();
    }
    let mut i = 0;
    g.bench_function("warm", |b| {
        b.iter(|| {
            let (t, x) = picks[i % picks.len()];
            i += 1;
            black_box(db.probe(t, x).unwrap())
        })
    });
    // Issue 12's two warm figures: an entry as stored (no don't-care check), and a
    // don't-care position's exact entry through `Database::probe` (check and recovery).
    let mut i = 0;
    g.bench_function("warm stored entry", |b| {
        b.iter(|| {
            let (t, x) = picks[i % picks.len()];
            i += 1;
            black_box(db.probe_stored(t, x).unwrap())
        })
    });
    let dont_care = with_game!(db.game(), game => {
        let mut s = Scratch::default();
        picks
            .iter()
            .copied()
            .filter(|&(t, x)| is_dont_care(game, t, &game.position(t, x), &mut s))
            .collect::<Vec<_>>()
    });
    let mut i = 0;
    g.bench_function("warm recovered entry", |b| {
        b.iter(|| {
            let (t, x) = dont_care[i % dont_care.len()];
            i += 1;
            black_box(db.probe(t, x).unwrap())
        })
    });
    g.finish();
    with_game!(db.game(), game => moves_and_recovery(c, &db, game, &picks));
}

/// Warm probes that do more than read an entry: a position's answer with every move's value
/// (what `query` and `Probe::probe` do), the check whether a position is don't-care (two plies
/// of move generation, what a prober of don't-care entries pays on every probe), and the
/// recovery of a don't-care position from its successors' stored entries.
fn moves_and_recovery<G: Game>(c: &mut Criterion, db: &Database, game: &G, picks: &[(u32, u64)]) {
    let positions: Vec<(u32, G::Position)> = picks
        .iter()
        .map(|&(t, x)| (t, game.position(t, x)))
        .collect();
    let mut s = Scratch::default();
    let dont_care: Vec<(u32, G::Position)> = positions
        .iter()
        .filter(|(t, p)| is_dont_care(game, *t, p, &mut s))
        .cloned()
        .collect();
    for (_, p) in &positions {
        query(db, game, p).unwrap();
    }
    let mut g = c.benchmark_group("probe");
    let mut i = 0;
    g.bench_function("warm answer with moves", |b| {
        b.iter(|| {
            let (_, p) = &positions[i % positions.len()];
            i += 1;
            black_box(query(db, game, p).unwrap())
        })
    });
    let mut i = 0;
    g.bench_function("warm don't-care check", |b| {
        b.iter(|| {
            let (t, p) = &positions[i % positions.len()];
            i += 1;
            black_box(is_dont_care(game, *t, p, &mut s))
        })
    });
    let mut i = 0;
    g.bench_function("warm don't-care recovery", |b| {
        b.iter(|| {
            let (t, p) = &dont_care[i % dont_care.len()];
            i += 1;
            assert!(is_dont_care(game, *t, p, &mut s));
            black_box(recover(&s, |t, x| db.probe(t, x)).unwrap())
        })
    });
    g.finish();
}

criterion_group!(benches, probes);
criterion_main!(benches);
