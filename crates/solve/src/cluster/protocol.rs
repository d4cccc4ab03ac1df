//! What rank 0 tells the other ranks, in order, by broadcast: the game, each finished tier's
//! compressed file and anchored bits (the lower tiers every rank looks up), the tier to solve
//! next with every rank's slice of it, and the end.

use serde::{Deserialize, Serialize};

use super::comm::Comm;
use bawo_games::error::{Error, Result};
use bawo_store::manifest::FileRecord;
use bawo_store::Checksum;

/// A command of rank 0 to the other ranks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    /// The game of the run, as its descriptor.
    Game {
        /// The game's descriptor.
        descriptor: String,
    },
    /// A finished tier: its `.bdb` file's `bytes` follow in broadcasts of at most
    /// [`FILE_PIECE`] bytes, then its anchored bits (`crate::flags`, 1 bit a position)
    /// in one broadcast; `checksum` is the manifest's of its raw table.
    Lower {
        /// The tier (its seeds).
        tier: u32,
        /// Positions in the tier.
        states: u64,
        /// Checksum of the tier's raw table, as the manifest records it.
        checksum: Checksum,
        /// The tier's file record.
        file: FileRecord,
        /// Bytes of the `.bdb` file that follow.
        bytes: u64,
    },
    /// Solve this tier together; rank `r` owns `starts[r]..starts[r + 1]`.
    Tier {
        /// The tier (its seeds).
        tier: u32,
        /// Positions in the tier.
        states: u64,
        /// Where each rank's slice starts, then the tier's size.
        starts: Vec<u64>,
    },
    /// The run is over (finished, already done, or nothing was solved): leave.
    Done,
}

/// Bytes of a file sent in one broadcast: what a rank holds of it at once.
pub const FILE_PIECE: usize = 16 << 20;

/// On rank 0: sends `cmd` to every rank.
pub fn send(comm: &mut Comm, cmd: &Command) -> Result<()> {
    if comm.released {
        return Err(Error::Internal(
            "a cluster command after the others were let go".into(),
        ));
    }
    comm.released = *cmd == Command::Done;
    let mut bytes = serde_json::to_vec(cmd)
        .map_err(|e| Error::Internal(format!("cannot encode a cluster command: {e}")))?;
    comm.broadcast_bytes(&mut bytes);
    Ok(())
}

/// On the other ranks: the next command of rank 0.
pub fn receive(comm: &mut Comm) -> Result<Command> {
    let mut bytes = Vec::new();
    comm.broadcast_bytes(&mut bytes);
    serde_json::from_slice(&bytes)
        .map_err(|e| Error::Internal(format!("unreadable cluster command from rank 0: {e}")))
}
