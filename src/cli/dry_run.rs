//! `solve --dry-run`: the run sized before it starts, as a table or one JSON object.

use bawo_games::units::{human_bytes, human_duration};
use bawo_solve::run::estimate::RunEstimate;

use super::args::print_json;

/// Prints `e`, the estimate of a solve of `descriptor` (nothing was written).
pub fn print(descriptor: &str, e: &RunEstimate, json: bool) {
    if json {
        print_json(e);
        return;
    }
    outln!("{descriptor}: dry run, nothing written");
    outln!(
        "{:>6} {:>14} {:>14} {:>12} {:>10} {:>10} {:>10} {:>9}",
        "seeds",
        "positions",
        "stored",
        "ranges",
        "work disk",
        "written",
        "peak disk",
        "time"
    );
    for t in &e.tiers {
        outln!(
            "{:>6} {:>14} {:>14} {:>12} {:>10} {:>10} {:>10} {:>9}",
            t.seeds,
            t.states,
            t.stored,
            format!("{} x 2^{}", t.ranges, t.range_bits),
            human_bytes(t.work_disk),
            human_bytes(t.bytes_written),
            human_bytes(t.peak_disk),
            human_duration(std::time::Duration::from_secs_f64(t.seconds)),
        );
    }
    outln!(
        "{:>6} {:>14} {:>14} {:>12} {:>10} {:>10} {:>10} {:>9}",
        "all",
        e.states,
        e.stored,
        "",
        "",
        human_bytes(e.bytes_written),
        human_bytes(e.peak_disk),
        human_duration(std::time::Duration::from_secs_f64(e.seconds)),
    );
    outln!(
        "budget {} with {} threads; peak disk {}, {} left at the end, {} written",
        human_bytes(e.budget),
        e.threads,
        human_bytes(e.peak_disk),
        human_bytes(e.final_disk),
        human_bytes(e.bytes_written)
    );
    let p = &e.peak;
    outln!(
        "peak disk while the {}-seed tier is solved, {:.1} bytes per stored position of the largest tier: work files {} (cells {}, packed cells {}, edge logs {}, predecessor lists {}, due logs {}, spilled messages {}), its raw table {} and compressed file {}, the tiers below: raw tables {} and compressed files {}",
        p.seeds,
        p.bytes_per_stored,
        human_bytes(p.work.total() - p.work.table),
        human_bytes(p.work.cells),
        human_bytes(p.work.packed),
        human_bytes(p.work.edges),
        human_bytes(p.work.preds),
        human_bytes(p.work.due),
        human_bytes(p.work.messages),
        human_bytes(p.work.table),
        human_bytes(p.bdb),
        human_bytes(p.lower_tables),
        human_bytes(p.lower_bdb),
    );
    outln!(
        "estimated time {} (from {} positions of the {}-seed tier sampled, {:.2} µs each on one thread)",
        human_duration(std::time::Duration::from_secs_f64(e.seconds)),
        e.sample.positions,
        e.sample.seeds,
        e.sample.seconds_per_position * 1e6
    );
}
