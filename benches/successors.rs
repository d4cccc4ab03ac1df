//! Successor generation for Generalized Bawo on the benchmark instance's largest tier
//! (n = 3, lap cap 64, 16 seeds): moves simulated, filtered, successors ranked.

use std::hint::black_box;

use bawo_games::game::bawo::{Bawo, BawoRules};
use bawo_games::game::Game;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("successors");
    for (n, seeds, lap_cap) in [(3u32, 16u32, 64u64), (4, 14, 64), (2, 12, 6)] {
        let game = Bawo::new(n, lap_cap, BawoRules::default()).unwrap();
        let size = game.tier_size(seeds).unwrap();
        let span = 1u64 << 14;
        // A window from the middle of the tier, covering both sides to move over the run.
        let start = size / 2 - span / 2;
        g.throughput(Throughput::Elements(span));
        g.bench_function(format!("bawo n={n} seeds={seeds} L={lap_cap}"), |b| {
            let mut out = Vec::with_capacity(32);
            b.iter(|| {
                let mut total = 0usize;
                game.visit(seeds, start..start + span, |_, pos| {
                    out.clear();
                    game.successors(black_box(pos), &mut out);
                    total += out.len();
                });
                total
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
