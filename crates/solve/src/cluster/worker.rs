//! Every rank but 0: takes rank 0's commands until the run is over. Finished tiers arrive as
//! their compressed files, in pieces, are decoded into raw tables in this rank's own folder
//! under `--tmp` (no shared filesystem is assumed; don't-care entries are recovered through
//! their moves from the raw tables below, [`restore_with_lower`]) and looked up as one process
//! looks its lower tiers up: copied into memory while they fit the plan's share of this
//! rank's own `--mem`, else mapped with their resident pages bounded. Their anchored bits come
//! with them, for the don't-care flags of the tiers above.

use std::path::Path;
use std::time::Instant;

use super::comm::Comm;
use super::protocol::{self, Command};
use super::slice::solve_slice;
use super::slices::Slices;
use super::traffic::TierTraffic;
use crate::flags::AnchoredBits;
use crate::plan::budget::MemoryPlan;
use crate::sink::StoredTier;
use crate::tier::tables::{resident_if_it_fits, Lookup, Tables};
use crate::tier::Silent;
use bawo_db::stored::restore_with_lower;
use bawo_games::error::{Error, Result};
use bawo_games::game::{AnyGame, Game, Tier};
use bawo_games::value::Entry;
use bawo_store::manifest::{table_file, FileRecord};
use bawo_store::{fingerprint, table, Checksum};

/// Serves rank 0 until it says the run is over; `tmp` is where this rank keeps its copies
/// of the finished tiers (in a folder of its own, removed at the end), `budget` its own
/// `--mem`.
pub fn serve(comm: &mut Comm, tmp: &Path, budget: u64) -> Result<()> {
    let game = match protocol::receive(comm)? {
        Command::Done => return Ok(()),
        Command::Game { descriptor } => AnyGame::from_descriptor(&descriptor)?,
        other => {
            return Err(Error::Internal(format!(
                "rank {} expected the game first, got {other:?}",
                comm.rank
            )))
        }
    };
    // Rank 0 checks every slice against the smallest budget of all ranks.
    comm.min_u64(budget);
    std::fs::create_dir_all(tmp).map_err(|e| Error::io(tmp, e))?;
    let dir = tempfile::Builder::new()
        .prefix(&format!("bawo-rank{}-", comm.rank))
        .tempdir_in(tmp)
        .map_err(|e| Error::io(tmp, e))?;
    bawo_games::with_game!(&game, g => serve_game(comm, g, dir.path(), budget))
}

/// This rank's finished tiers.
struct LowerTiers {
    tables: Tables,
    plan: MemoryPlan,
    /// Bytes of raw tables of the tiers received so far.
    bytes: u64,
}

fn serve_game<G: Game>(comm: &mut Comm, game: &G, dir: &Path, budget: u64) -> Result<()> {
    let fp = fingerprint(&game.descriptor());
    let plan = MemoryPlan::new(budget, None, rayon::current_num_threads(), &[])?;
    let mut lower = LowerTiers {
        tables: Tables::bounded(plan.resident_lower),
        plan,
        bytes: 0,
    };
    loop {
        match protocol::receive(comm)? {
            Command::Done => return Ok(()),
            Command::Lower {
                tier,
                states,
                checksum,
                file,
                bytes,
            } => {
                let got = Received {
                    tier,
                    states,
                    checksum,
                    fp,
                };
                receive_lower(comm, game, dir, &got, &file, bytes, &mut lower)?;
            }
            Command::Tier {
                tier,
                states,
                starts,
            } => {
                let t0 = Instant::now();
                // Time waiting for this command (rank 0 compressing the tier below) is not
                // the tier's.
                comm.take_wait();
                let slices = Slices::from_starts(starts)
                    .filter(|s| s.ranks() == comm.size && s.starts().last() == Some(&states))
                    .ok_or_else(|| Error::Internal(format!("bad slices of tier {tier}")))?;
                let out = solve_slice(comm, game, tier, &slices, &lower.tables, &Silent)?;
                comm.send_to_root(&out.entries);
                comm.send_to_root(&out.flags);
                let seeds = game.tier_seeds(tier);
                TierTraffic::gather(comm, tier, seeds, states, t0.elapsed(), &out, 0);
            }
            Command::Game { .. } => {
                return Err(Error::Internal(format!(
                    "rank {} was sent a second game",
                    comm.rank
                )))
            }
        }
    }
}

/// A finished tier rank 0 sends.
struct Received {
    tier: u32,
    states: u64,
    /// The manifest's checksum of its raw table.
    checksum: Checksum,
    fp: u64,
}

/// Receives a finished tier's compressed file in pieces, checks it, decodes it into a raw
/// table in `dir` (the compressed file is removed then) and adds it to the lookups.
fn receive_lower<G: Game>(
    comm: &mut Comm,
    game: &G,
    dir: &Path,
    got: &Received,
    file: &FileRecord,
    bytes: u64,
    lower: &mut LowerTiers,
) -> Result<()> {
    let &Received {
        tier,
        states,
        checksum,
        fp,
    } = got;
    let name = Path::new(&file.file)
        .file_name()
        .ok_or_else(|| Error::Internal(format!("bad file name {}", file.file)))?;
    let path = dir.join(name);
    bawo_store::write_atomic(&path, |w| {
        let mut piece = Vec::new();
        let mut left = bytes;
        while left > 0 {
            comm.broadcast_bytes(&mut piece);
            w.write_all(&piece)?;
            left = left.saturating_sub(piece.len().max(1) as u64);
        }
        Ok(())
    })?;
    let mut bits = Vec::new();
    comm.broadcast_bytes(&mut bits);
    let local = FileRecord {
        file: name.to_string_lossy().into_owned(),
        ..file.clone()
    };
    let stored = StoredTier {
        dir,
        tier,
        states,
        fingerprint: fp,
        file: &local,
    };
    let tbl = dir.join(table_file(tier));
    let tables = &lower.tables;
    let below = |t: Tier, i: u64| match tables.entry(t, i) {
        Entry::UNSOLVED => Err(Error::Internal(format!(
            "tier {tier} moves into tier {t}, which rank 0 has not sent"
        ))),
        e => Ok(e),
    };
    let (header, _) = table::write_table_streaming(&tbl, tier, states, fp, |put| {
        restore_with_lower(game, &stored, &below, put)
    })?;
    if header.checksum != checksum {
        return Err(Error::corrupt(
            &path,
            "decodes to other entries than the manifest's table",
        ));
    }
    std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
    let (_, data) = table::open_table(&tbl, tier, states, fp, false)?;
    lower.bytes += 2 * states;
    let data = resident_if_it_fits(data, lower.bytes, &lower.plan)?;
    lower.tables.insert(tier, data);
    lower
        .tables
        .insert_anchored(tier, anchored_bits(&bits, states, &path)?);
    Ok(())
}

/// The anchored bits of a tier of `states` positions from what rank 0 sent (compressed; empty
/// when rank 0 does not know them, and then none are anchored on any rank).
fn anchored_bits(sent: &[u8], states: u64, path: &Path) -> Result<AnchoredBits> {
    if sent.is_empty() {
        return Ok(AnchoredBits::default());
    }
    let len = states.div_ceil(8) as usize;
    let bits = zstd::bulk::decompress(sent, len)
        .map_err(|e| Error::corrupt(path, format!("anchored bits do not decompress: {e}")))?;
    if bits.len() != len {
        return Err(Error::corrupt(path, "anchored bits of another length"));
    }
    Ok(AnchoredBits::from_bytes(bits))
}
