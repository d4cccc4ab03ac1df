//! Every rank but 0: takes rank 0's commands until the run is over. Finished tiers arrive as
//! their compressed files, are kept in this rank's own folder under `--tmp` (no shared
//! filesystem is assumed) and decoded into memory for the successor pass's lookups.

use std::path::Path;
use std::time::Instant;

use super::comm::Comm;
use super::protocol::{self, Command};
use super::slice::solve_slice;
use super::slices::Slices;
use super::traffic::TierTraffic;
use crate::db::build::Compressor;
use crate::error::{Error, Result};
use crate::game::{AnyGame, Game};
use crate::solve::run::TierSink;
use crate::solve::tables::{TableData, Tables};
use crate::store::fingerprint;

/// Serves rank 0 until it says the run is over; `tmp` is where this rank keeps its copies
/// of the finished tiers (in a folder of its own, removed at the end).
pub fn serve(comm: &mut Comm, tmp: &Path) -> Result<()> {
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
    std::fs::create_dir_all(tmp).map_err(|e| Error::io(tmp, e))?;
    let dir = tempfile::Builder::new()
        .prefix(&format!("bawo-rank{}-", comm.rank))
        .tempdir_in(tmp)
        .map_err(|e| Error::io(tmp, e))?;
    crate::with_game!(&game, g => serve_game(comm, g, dir.path()))
}

fn serve_game<G: Game>(comm: &mut Comm, game: &G, dir: &Path) -> Result<()> {
    let fp = fingerprint(&game.descriptor());
    let sink = Compressor::default();
    let mut tables = Tables::default();
    loop {
        match protocol::receive(comm)? {
            Command::Done => return Ok(()),
            Command::Lower { tier, states, file } => {
                let mut payload = Vec::new();
                comm.broadcast_bytes(&mut payload);
                let name = Path::new(&file.file)
                    .file_name()
                    .ok_or_else(|| Error::Internal(format!("bad file name {}", file.file)))?;
                let path = dir.join(name);
                crate::store::write_atomic(&path, |w| w.write_all(&payload))?;
                sink.check(dir, tier, states, fp, &file)?;
                let mut entries = Vec::with_capacity(states as usize);
                sink.restore(dir, tier, states, fp, &file, &mut |e: &[u16]| {
                    entries.extend_from_slice(e);
                    Ok(())
                })?;
                if entries.len() as u64 != states {
                    return Err(Error::corrupt(
                        &path,
                        "decodes to another number of entries",
                    ));
                }
                tables.insert(tier, TableData::Owned(entries));
            }
            Command::Tier { tier, states } => {
                let t0 = Instant::now();
                // Time waiting for this command (rank 0 compressing the tier below) is not
                // the tier's.
                comm.take_wait();
                let slices = Slices::even(states, comm.size);
                let out = solve_slice(comm, game, tier, &slices, &tables)?;
                comm.send_to_root(&out.entries);
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
