//! Rank 0: the run itself (manifest, ledger, lower tiers, compressed files, resume) is the
//! single-process solver's [`solve_with`]; only each unfinished tier is handed to
//! [`RootSolver`], which ships the finished tiers the other ranks lack, solves its own slice
//! with them, gathers every slice's entries and writes the tier's table with the same code
//! as one process.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::time::Instant;

use super::comm::Comm;
use super::protocol::{self, Command};
use super::slice::solve_slice;
use super::slices::Slices;
use super::traffic::TierTraffic;
use crate::db::build::Compressor;
use crate::error::{Error, Result};
use crate::game::Game;
use crate::solve::checkpoint::Checkpoints;
use crate::solve::counts::{TierCounts, TierTimings};
use crate::solve::run::{solve_with, RunProgress, SolveConfig, SolveReport, TierSolver};
use crate::solve::tables::Tables;
use crate::solve::tier::{Lower, SolvedTier, TierOptions, TierProgress, TierTask};
use crate::store::table;

/// Rank 0's tier solver.
pub struct RootSolver<'c> {
    comm: RefCell<&'c mut Comm>,
    /// Tiers whose compressed files every rank has.
    shipped: RefCell<BTreeSet<u32>>,
    traffic: RefCell<Vec<TierTraffic>>,
}

/// Solves every tier of `cfg` across the ranks of `comm` (called on rank 0 while the others
/// run [`super::worker::serve`]); returns the report and each solved tier's traffic.
pub fn solve_root<G: Game>(
    comm: &mut Comm,
    game: &G,
    cfg: &SolveConfig,
    progress: &dyn RunProgress,
) -> Result<(SolveReport, Vec<TierTraffic>)> {
    protocol::send(
        comm,
        &Command::Game {
            descriptor: game.descriptor(),
        },
    )?;
    let solver = RootSolver {
        comm: RefCell::new(comm),
        shipped: RefCell::new(BTreeSet::new()),
        traffic: RefCell::new(Vec::new()),
    };
    let report = solve_with(game, cfg, progress, &Compressor::default(), &solver)?;
    let RootSolver { comm, traffic, .. } = solver;
    protocol::send(comm.into_inner(), &Command::Done)?;
    Ok((report, traffic.into_inner()))
}

impl RootSolver<'_> {
    /// Sends the other ranks every finished tier they do not have yet; returns the bytes
    /// that left rank 0.
    fn ship_lower(&self, ckpt: &Checkpoints<'_>) -> Result<u64> {
        let mut comm = self.comm.borrow_mut();
        let mut shipped = self.shipped.borrow_mut();
        let mut bytes = 0;
        for rec in &ckpt.manifest.tiers {
            if shipped.contains(&rec.tier) {
                continue;
            }
            let file = rec.bdb.clone().ok_or_else(|| {
                Error::Input(crate::game::InputError::new(format!(
                    "tier {} of {} has no compressed file to send to the other ranks; \
                     solve it again with --force",
                    rec.tier,
                    ckpt.dir.display()
                )))
            })?;
            let path = ckpt.dir.join(&file.file);
            let mut payload = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
            comm.busy = true;
            protocol::send(
                &mut comm,
                &Command::Lower {
                    tier: rec.tier,
                    states: rec.counts.states,
                    file,
                },
            )?;
            comm.broadcast_bytes(&mut payload);
            comm.busy = false;
            bytes += payload.len() as u64 * (comm.size as u64 - 1);
            shipped.insert(rec.tier);
        }
        Ok(bytes)
    }
}

impl<G: Game> TierSolver<G> for RootSolver<'_> {
    fn solve_tier(
        &self,
        game: &G,
        task: TierTask<'_>,
        lower: &Lower<'_, Tables>,
        _opts: &TierOptions,
        ckpt: &mut Checkpoints<'_>,
        _progress: &dyn TierProgress,
    ) -> Result<SolvedTier> {
        let t0 = Instant::now();
        self.comm.borrow_mut().take_wait();
        // A checkpoint inside the tier (of a single-process run) is not used: the cluster
        // solves whole tiers.
        let tier = task.tier;
        let states = game.tier_size(tier)?;
        let lower_bytes = self.ship_lower(ckpt)?;
        let mut comm = self.comm.borrow_mut();
        comm.busy = true;
        protocol::send(&mut comm, &Command::Tier { tier, states })?;
        let slices = Slices::even(states, comm.size);
        let out = solve_slice(&mut comm, game, tier, &slices, lower.lookup)?;
        let solved_at = t0.elapsed();
        let fp = ckpt.manifest.fingerprint_value();
        let mut counts = TierCounts {
            seeds: game.tier_seeds(tier),
            ..Default::default()
        };
        let (header, bytes) =
            table::write_table_streaming(task.table_path, tier, states, fp, |put| {
                counts.add(&out.entries);
                put(&out.entries)?;
                for r in 1..comm.size {
                    comm.receive_from(r, slices.len(r), &mut |piece: &[u16]| {
                        counts.add(piece);
                        put(piece)
                    })?;
                }
                Ok(())
            })?;
        let wall = t0.elapsed();
        let traffic = TierTraffic::gather(
            &mut comm,
            tier,
            counts.seeds,
            states,
            wall,
            &out,
            lower_bytes + 2 * (states - slices.len(0)),
        );
        self.traffic.borrow_mut().push(traffic);
        comm.busy = false;
        Ok(SolvedTier {
            counts,
            timings: TierTimings {
                successors: solved_at,
                finish: wall - solved_at,
                in_tier_edges: out.edges,
                levels: out.level_bytes.len() as u32,
                ranges: 1,
                ..Default::default()
            },
            header,
            bytes,
        })
    }
}
