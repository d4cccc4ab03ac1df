//! Work shared out chunk by chunk: one task a worker, each taking the next chunk from a
//! common counter until none is left.
//!
//! A rayon iterator cuts a short step into a few pieces up front and cuts further only what
//! another worker steals, so the last piece can be an eighth of the step, done by one worker
//! while the other waits. Out of core the attractor runs tens of thousands of such steps.
//! Here a worker that runs out takes the next chunk, and a step ends at most one chunk after
//! its first worker finds none.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

/// Runs `work` on every chunk of `len` items (`start..end`, at most `chunk` long), each
/// chunk once, with one accumulator per worker that joined (made by `init`); returns the
/// accumulators.
pub fn chunked<A: Send>(
    len: usize,
    chunk: usize,
    init: impl Fn() -> A + Sync,
    work: impl Fn(&mut A, std::ops::Range<usize>) + Sync,
) -> Vec<A> {
    let chunk = chunk.max(1);
    let workers = rayon::current_num_threads().min(len.div_ceil(chunk)).max(1);
    let next = AtomicUsize::new(0);
    let run = || {
        let mut acc = init();
        loop {
            let start = next.fetch_add(chunk, Ordering::Relaxed);
            if start >= len {
                return acc;
            }
            work(&mut acc, start..(start + chunk).min(len));
        }
    };
    if workers == 1 {
        return vec![run()];
    }
    (0..workers)
        .into_par_iter()
        .with_max_len(1)
        .map(|_| run())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_worked_on_once() {
        for (len, chunk) in [(0, 4), (1, 4), (7, 3), (1000, 16), (4096, 4096), (5, 0)] {
            let parts = chunked(
                len,
                chunk,
                Vec::new,
                |seen: &mut Vec<usize>, r: std::ops::Range<usize>| {
                    assert!(r.len() <= chunk.max(1) && !r.is_empty());
                    seen.extend(r)
                },
            );
            let mut all: Vec<usize> = parts.concat();
            all.sort_unstable();
            assert_eq!(all, (0..len).collect::<Vec<_>>(), "len {len} chunk {chunk}");
        }
    }
}
