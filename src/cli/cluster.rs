//! `solve` under an MPI launcher (`mpirun -np K bawo solve ...`, cargo feature `mpi`): rank 0
//! runs the command as one process would, with each tier split across the ranks; the other
//! ranks serve it and print nothing unless they fail.

use std::cell::RefCell;

use crate::progress::human_bytes;
use bawo_games::error::{Error, Result};
use bawo_games::with_game;
use bawo_solve::cluster::memory::peak_rss;
use bawo_solve::cluster::{solve_root, Cluster, TierTraffic};
use bawo_solve::plan::mem_arg;

use super::args::usage;
use super::solve::{run_with, SolveArgs};

pub fn run(a: SolveArgs) -> Result<()> {
    let mut cluster = Cluster::start()?;
    // Every rank calls MPI from its main thread; the solver's threads are rayon's global pool.
    if let Err(e) = global_threads(a.threads) {
        return fail(&mut cluster, e);
    }
    if cluster.rank() != 0 {
        let tmp = a.tmp.clone().unwrap_or_else(std::env::temp_dir);
        // A --mem that does not parse fails on rank 0 too, which then lets this rank go.
        let budget = a
            .mem
            .as_deref()
            .and_then(|m| mem_arg::parse_size(m).ok())
            .unwrap_or_else(mem_arg::default_budget);
        if let Err(e) = cluster.serve(&tmp, budget) {
            errln!("bawo: rank {}: {e}", cluster.rank());
            cluster.abort(crate::cli::exit_code(&e));
        }
        return Ok(());
    }
    let timings = a.timings;
    let dry_run = a.dry_run;
    let traffic = RefCell::new(Vec::new());
    let cell = RefCell::new(&mut cluster);
    let result = run_with(a, &|game, cfg, reporter| {
        let mut c = cell.borrow_mut();
        let (report, t) = with_game!(game, g => solve_root(&mut c.comm, g, cfg, reporter))?;
        *traffic.borrow_mut() = t;
        Ok(report)
    });
    let cluster = cell.into_inner();
    if let Err(e) = result {
        return fail(cluster, e);
    }
    if dry_run {
        cluster.release()?;
    }
    if timings {
        print_traffic(&traffic.into_inner());
    }
    Ok(())
}

/// Rank 0's error: the others are let go when they wait for a command, else stopped.
fn fail(cluster: &mut Cluster, e: Error) -> Result<()> {
    if cluster.rank() != 0 || cluster.comm.busy {
        errln!("bawo: {e}");
        cluster.abort(crate::cli::exit_code(&e));
    }
    // A run that already released the others cannot send again; an error here changes
    // nothing of the first one, which is what the user needs to see.
    let _ = cluster.release();
    Err(e)
}

fn global_threads(threads: Option<usize>) -> Result<()> {
    if threads == Some(0) {
        return Err(usage("--threads must be at least 1"));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build_global()
        .map_err(|e| Error::Internal(format!("cannot start worker threads: {e}")))
}

/// Each tier's traffic between ranks, how evenly the work was spread, and every rank's peak
/// resident memory, on standard error.
fn print_traffic(tiers: &[TierTraffic]) {
    for t in tiers {
        let levels: Vec<String> = t.level_bytes.iter().map(|b| b.to_string()).collect();
        errln!(
            "mpi tier {:>3}: {} ranks, {:.3}s, {} positions, {} edges, edges {}, levels {} ({} levels), other {}, in MPI {:.0}%, busiest/mean {:.2} (CPU {:.2}, work {:.2}), level bytes [{}]",
            t.tier,
            t.ranks,
            t.seconds,
            t.states,
            t.in_tier_edges,
            human_bytes(t.edge_bytes),
            human_bytes(t.level_bytes.iter().sum()),
            t.level_bytes.len(),
            human_bytes(t.other_bytes),
            100.0 * t.wait_share,
            t.busy_imbalance,
            t.cpu_imbalance,
            t.work_imbalance,
            levels.join(",")
        );
    }
    if let Some(last) = tiers.last() {
        // Rank 0 compressed the last tier after it was gathered: its peak is read now.
        let mut peaks = last.peak_rss.clone();
        if let (Some(p), Some(now)) = (peaks.first_mut(), peak_rss()) {
            *p = (*p).max(now);
        }
        let peaks: Vec<String> = peaks.iter().map(|b| b.to_string()).collect();
        errln!("mpi peak RSS per rank (bytes): {}", peaks.join(" "));
    }
}
