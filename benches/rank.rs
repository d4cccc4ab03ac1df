//! Ranking, unranking and stepping weak compositions (n = 3 boards: 12 pits, 16 seeds).

use std::hint::black_box;

use bawo_games::rank::Ranker;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let r = Ranker::new(12, 255);
    let seeds = 16;
    let count = r.count(seeds).unwrap();
    let indices: Vec<u64> = (0..4096u64)
        .map(|i| i.wrapping_mul(2_654_435_761) % count)
        .collect();
    let boards: Vec<Vec<u8>> = indices
        .iter()
        .map(|&i| {
            let mut b = vec![0u8; 12];
            r.unrank(seeds, i, &mut b);
            b
        })
        .collect();
    let mut g = c.benchmark_group("rank");
    g.throughput(Throughput::Elements(indices.len() as u64));
    g.bench_function("rank", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|x| r.rank(black_box(x)))
                .fold(0u64, u64::wrapping_add)
        })
    });
    g.bench_function("unrank", |b| {
        let mut out = vec![0u8; 12];
        b.iter(|| {
            for &i in &indices {
                r.unrank(seeds, black_box(i), &mut out);
            }
            out[0]
        })
    });
    g.bench_function("next", |b| {
        let mut cur = vec![0u8; 12];
        r.first(seeds, &mut cur);
        b.iter(|| {
            for _ in 0..indices.len() {
                if !r.next(&mut cur) {
                    r.first(seeds, &mut cur);
                }
            }
            cur[0]
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
