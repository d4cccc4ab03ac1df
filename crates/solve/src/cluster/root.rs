//! Rank 0: the run itself (manifest, ledger, lower tiers, compressed files, resume) is the
//! single-process solver's [`solve_with`]; only each unfinished tier is handed to
//! [`RootSolver`], which ships the finished tiers the other ranks lack, solves its own slice
//! with them, gathers every slice's entries and flags and writes the tier's table and flags
//! file with the same code as one process, so its `.bdb` file substitutes the same don't-care
//! entries. Before any of that, every tier's slices are cut by estimated work and
//! checked against the smallest rank's `--mem` ([`super::memory`]).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::time::Instant;

use super::comm::Comm;
use super::memory::{self, TierCheck};
use super::protocol::{self, Command, FILE_PIECE};
use super::slice::{packed_flags_len, solve_slice, unpack_flags, FLAGS_PER_BYTE};
use super::slices::{Slices, TierSample, EVEN_SLICES_ENV};
use super::traffic::TierTraffic;
use crate::counts::{TierCounts, TierTimings};
use crate::flags::{flags_path_beside, FlagWriter};
use crate::run::build::Compressor;
use crate::run::{solve_with, RunProgress, SolveConfig, SolveReport, TierSolver};
use crate::tier::checkpoint::Checkpoints;
use crate::tier::tables::Tables;
use crate::tier::{Lower, SolvedTier, TierOptions, TierProgress, TierTask};
use bawo_games::error::{Error, Result};
use bawo_games::game::Game;
use bawo_store::table;

/// The zstd level of the anchored bits sent with each finished tier.
const ANCHORED_LEVEL: i32 = 3;

/// Rank 0's tier solver.
pub struct RootSolver<'c> {
    comm: RefCell<&'c mut Comm>,
    /// Tiers whose compressed files every rank has.
    shipped: RefCell<BTreeSet<u32>>,
    traffic: RefCell<Vec<TierTraffic>>,
    /// Every tier's slices, cut before the run.
    slices: BTreeMap<u32, Slices>,
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
    // Every rank's own budget: the smallest must hold every rank's slice.
    let budget = comm.min_u64(cfg.budget);
    let slices = plan_slices(game, cfg, comm.size, budget)?;
    // The slices' lists store whole indices: the disk model and plan should say so.
    let cfg = &SolveConfig {
        keys: false,
        ..cfg.clone()
    };
    let solver = RootSolver {
        comm: RefCell::new(comm),
        shipped: RefCell::new(BTreeSet::new()),
        traffic: RefCell::new(Vec::new()),
        slices,
    };
    let sink = Compressor::for_game(game.name());
    let report = solve_with(game, cfg, progress, &sink, &solver)?;
    let RootSolver { comm, traffic, .. } = solver;
    protocol::send(comm.into_inner(), &Command::Done)?;
    Ok((report, traffic.into_inner()))
}

/// Every tier's slices, cut at equal estimated work (equal counts with
/// [`EVEN_SLICES_ENV`]), refused up front where the largest slice of a tier does not fit
/// `budget`.
fn plan_slices<G: Game>(
    game: &G,
    cfg: &SolveConfig,
    ranks: usize,
    budget: u64,
) -> Result<BTreeMap<u32, Slices>> {
    let even = std::env::var_os(EVEN_SLICES_ENV).is_some();
    let mut tiers = Vec::new();
    for tier in game.tiers_up_to(cfg.seeds)? {
        let states = game.tier_size(tier)?;
        let sample = TierSample::take(game, tier, states);
        let slices = if even {
            Slices::even(states, ranks)
        } else {
            sample.balanced(ranks)
        };
        tiers.push((tier, states, sample, slices));
    }
    let checks: Vec<TierCheck<'_>> = tiers
        .iter()
        .map(|(tier, states, sample, slices)| TierCheck {
            tier: *tier,
            states: *states,
            sample,
            slices,
        })
        .collect();
    memory::check(budget, ranks, rayon::current_num_threads(), &checks)?;
    Ok(tiers.into_iter().map(|(t, _, _, s)| (t, s)).collect())
}

impl RootSolver<'_> {
    /// Sends the other ranks every finished tier they do not have yet, its compressed file in
    /// pieces, then its anchored bits from `tables` (empty where unknown, which only makes
    /// fewer positions don't-care, on every rank alike); returns the bytes that left rank 0.
    fn ship_lower(&self, ckpt: &Checkpoints<'_>, tables: &Tables) -> Result<u64> {
        let mut comm = self.comm.borrow_mut();
        let mut shipped = self.shipped.borrow_mut();
        let mut sent = 0;
        for rec in &ckpt.manifest.tiers {
            if shipped.contains(&rec.tier) {
                continue;
            }
            let file = rec.bdb.clone().ok_or_else(|| {
                Error::Input(bawo_games::game::InputError::new(format!(
                    "tier {} of {} has no compressed file to send to the other ranks; \
                     solve it again with --force",
                    rec.tier,
                    ckpt.dir.display()
                )))
            })?;
            let path = ckpt.dir.join(&file.file);
            let mut f = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
            let bytes = f.metadata().map_err(|e| Error::io(&path, e))?.len();
            // From here on the others wait in a collective: an error must stop them all.
            comm.busy = true;
            protocol::send(
                &mut comm,
                &Command::Lower {
                    tier: rec.tier,
                    states: rec.counts.states,
                    checksum: rec.checksum,
                    file,
                    bytes,
                },
            )?;
            let mut piece = Vec::new();
            let mut left = bytes;
            while left > 0 {
                let n = left.min(FILE_PIECE as u64) as usize;
                piece.resize(n, 0);
                f.read_exact(&mut piece).map_err(|e| Error::io(&path, e))?;
                comm.broadcast_bytes(&mut piece);
                left -= n as u64;
            }
            // Compressed: neighbouring positions in index order tend to share the bit.
            let mut bits = match tables.anchored_bits(rec.tier) {
                Some(b) => zstd::bulk::compress(b.as_bytes(), ANCHORED_LEVEL)
                    .map_err(|e| Error::Internal(format!("cannot compress anchored bits: {e}")))?,
                None => Vec::new(),
            };
            comm.broadcast_bytes(&mut bits);
            comm.busy = false;
            sent += (bytes + bits.len() as u64) * (comm.size as u64 - 1);
            shipped.insert(rec.tier);
        }
        Ok(sent)
    }
}

impl<G: Game> TierSolver<G> for RootSolver<'_> {
    /// Every tier's compressed file is shipped to the other ranks before the next tier
    /// ([`RootSolver::ship_lower`]): rank 0 compresses each tier before the next starts.
    fn compresses_beside(&self) -> bool {
        false
    }

    fn retires_lower(&self) -> bool {
        false
    }

    fn solve_tier(
        &self,
        game: &G,
        task: TierTask<'_>,
        lower: &mut Lower<'_>,
        _opts: &TierOptions,
        ckpt: &mut Checkpoints<'_>,
        progress: &dyn TierProgress,
    ) -> Result<SolvedTier> {
        let t0 = Instant::now();
        self.comm.borrow_mut().take_wait();
        // A checkpoint inside the tier (of a single-process run) is not used: the cluster
        // solves whole tiers.
        let tier = task.tier;
        let states = game.tier_size(tier)?;
        let lower_bytes = self.ship_lower(ckpt, lower.tables())?;
        let mut comm = self.comm.borrow_mut();
        let slices = match self.slices.get(&tier) {
            Some(s) if s.starts().last() == Some(&states) => s.clone(),
            _ => Slices::even(states, comm.size),
        };
        comm.busy = true;
        protocol::send(
            &mut comm,
            &Command::Tier {
                tier,
                states,
                starts: slices.starts().to_vec(),
            },
        )?;
        let out = solve_slice(&mut comm, game, tier, &slices, lower.tables(), progress)?;
        let solved_at = t0.elapsed();
        let fp = ckpt.manifest.fingerprint_value();
        let mut counts = TierCounts {
            seeds: game.tier_seeds(tier),
            ..Default::default()
        };
        // Every slice's entries, in rank order, into the tier's table, and its flags beside
        // it, as one process writes them.
        progress.phase("finish", states, 0);
        let mut flags = FlagWriter::create(&flags_path_beside(task.table_path))?;
        let (header, bytes) =
            table::write_table_streaming(task.table_path, tier, states, fp, |put| {
                counts.add(&out.entries);
                put(&out.entries)?;
                flags.push(&unpack_flags(&out.flags, out.entries.len()))?;
                progress.advance(out.entries.len() as u64);
                for r in 1..comm.size {
                    comm.receive_from(r, slices.len(r), &mut |piece: &[u16]| {
                        counts.add(piece);
                        progress.advance(piece.len() as u64);
                        put(piece)
                    })?;
                    let mut left = slices.len(r);
                    let packed = packed_flags_len(left);
                    comm.receive_from(r, packed, &mut |piece: &[u8]| {
                        let n = left.min((FLAGS_PER_BYTE * piece.len()) as u64);
                        left -= n;
                        flags.push(&unpack_flags(piece, n as usize))
                    })?;
                }
                Ok(())
            })?;
        flags.finish()?;
        let wall = t0.elapsed();
        // The other ranks' entries and packed flags, which came to rank 0.
        let gathered: u64 = (1..comm.size)
            .map(|r| 2 * slices.len(r) + packed_flags_len(slices.len(r)))
            .sum();
        let traffic = TierTraffic::gather(
            &mut comm,
            tier,
            counts.seeds,
            states,
            wall,
            &out,
            lower_bytes + gathered,
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
