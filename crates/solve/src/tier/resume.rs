//! Resuming a tier from its checkpoint: every file the checkpoint names is reopened and
//! checked (committed logs cut back to their committed length, cell slots and predecessor
//! files against their checksums) before any work continues.

use crate::plan::budget::MAX_RANGE_BITS;
use crate::tier::checkpoint::{Phase, TierState};
use crate::tier::{Job, TierOptions};
use crate::work::edgelog;
use crate::work::graph::EdgeCodec;
use crate::work::{LogName, WorkFile};
use bawo_games::error::{Error, Result};
use bawo_games::game::{Game, Tier};
use bawo_store::append::AppendLog;
use bawo_store::bytes::file_checksum;

impl<'g, G: Game> Job<'g, G> {
    /// Reopens a checkpointed tier, checking every file the checkpoint refers to.
    pub(super) fn resume(
        game: &'g G,
        tier: Tier,
        st: TierState,
        opts: &TierOptions,
    ) -> Result<Self> {
        let states = game.tier_size(tier)?;
        let fits = EdgeCodec::new(st.wide, st.range_bits).fits(states);
        if st.tier != tier || st.states != states || st.range_bits > MAX_RANGE_BITS || !fits {
            return Err(Error::Mismatch(format!(
                "the checkpoint is of tier {} with {} positions, expected tier {tier} with {states}",
                st.tier, st.states
            )));
        }
        if !st.work.is_dir() {
            return Err(Error::Missing(format!(
                "the checkpoint's work directory {} is gone; start over with --force",
                st.work.display()
            )));
        }
        let ranges = states.div_ceil(1u64 << st.range_bits).max(1) as usize;
        let mut job = Job::empty(game, tier, st, ranges, opts.plan.messages);
        job.keys = crate::tier::key_frames(game, tier, job.st.keys)?;
        let logs = job.st.logs.clone();
        let mut edges: Vec<Option<AppendLog>> = (0..ranges).map(|_| None).collect();
        for (&name, committed) in &logs {
            let path = job.path(name.file());
            // An edge log is cut where its pieces begin, for the predecessor phase's readers.
            let framing = matches!(name, LogName::Edges(_)).then_some(edgelog::FRAMING);
            let log = AppendLog::resume_framed(&path, *committed, framing)?;
            let out_of_bounds =
                || Error::corrupt(&path, format!("log '{name}': range out of bounds"));
            match name {
                LogName::Edges(r) => *edges.get_mut(r).ok_or_else(out_of_bounds)? = Some(log),
                LogName::Cells(r) | LogName::Packed(r) => {
                    if name != crate::tier::blocksink::cell_log(job.resident, r) {
                        return Err(Error::corrupt(
                            &path,
                            format!("log '{name}': the wrong kind of cells for the tier"),
                        ));
                    }
                    *job.cell_logs.get_mut(r).ok_or_else(out_of_bounds)? = Some(log)
                }
                LogName::Due { level, range } => {
                    if range >= ranges {
                        return Err(out_of_bounds());
                    }
                    job.due.insert((level, range), log);
                }
            }
        }
        if job.st.phase >= Phase::Predecessors {
            if job.st.slots.len() != ranges {
                return Err(Error::corrupt(
                    &job.st.work,
                    "cell slots missing from the checkpoint",
                ));
            }
            for r in 0..ranges {
                let rec = job.st.slots[r].clone();
                // Packed cells are unpacked by the attractor into the plain slot a.
                if rec.packed {
                    job.packed_now[r] = Some(rec.slot);
                } else {
                    job.slot[r] = rec.slot;
                }
                let path = job.current_cells_path(r);
                let len = std::fs::metadata(&path)
                    .map_err(|e| Error::io(&path, e))?
                    .len();
                if !rec.packed && len != (job.width.bytes() * job.range_len(r)) as u64 {
                    return Err(Error::corrupt(&path, "cell file has the wrong length"));
                }
                if file_checksum(&path)? != rec.checksum {
                    return Err(Error::corrupt(
                        &path,
                        "cell file does not match its checksum",
                    ));
                }
                job.pinned[r] = !rec.packed;
            }
            for (r, &sum) in job.st.preds.iter().enumerate() {
                let path = job.path(WorkFile::Preds(r));
                if file_checksum(&path)? != sum {
                    return Err(Error::corrupt(
                        &path,
                        "predecessor file does not match its checksum",
                    ));
                }
            }
        }
        if job.st.phase <= Phase::Predecessors {
            // Edge logs of ranges whose predecessor lists the checkpoint holds were deleted:
            // an empty stand-in keeps the indices (the next checkpoint deletes it). Created only
            // now, after every file the checkpoint names has been checked, so that a damaged
            // checkpoint is refused before anything is written.
            let built = if job.st.phase == Phase::Predecessors {
                job.st.next as usize
            } else {
                0
            };
            for (r, e) in edges.into_iter().enumerate() {
                let log = match e {
                    Some(log) => log,
                    None if r < built => AppendLog::create(&job.path(WorkFile::Edges(r)))?,
                    None => {
                        return Err(Error::corrupt(
                            &job.st.work,
                            "edge logs missing from the checkpoint",
                        ))
                    }
                };
                job.edge_logs.push(log);
            }
        }
        crate::work::remove_unnamed_due_logs(&job.st.work, |level, range| {
            job.due.contains_key(&(level, range))
        })?;
        Ok(job)
    }
}
