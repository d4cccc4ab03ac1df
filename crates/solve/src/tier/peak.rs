//! A tier's peak work disk, which its report gives: the work folder scanned after ranges and
//! levels (sampled, beside the work: [`crate::plan::disk::DiskGauge`]) and where a phase's
//! peak lies, the most of the scans kept.

use crate::counts::WorkDisk;
use crate::tier::checkpoint::Phase;
use crate::tier::Job;
use bawo_games::game::Game;

impl<G: Game> Job<'_, G> {
    /// Notes the disk the work files take now if it is the most so far (the tier's peak,
    /// which its report gives), where a scan is due ([`crate::plan::disk::DiskGauge`]).
    pub(super) fn note_disk(&mut self) {
        let now = (self.st.phase, self.lower_freed);
        if let Some((kinds, (phase, freed))) = self.gauge.sample_behind(&self.st.work, now) {
            self.keep_peak_of(kinds, phase, freed);
        }
    }

    /// [`Job::note_disk`] scanned now: at the end of a phase, and where a phase's peak lies.
    pub(super) fn note_disk_now(&mut self) {
        let kinds = self.gauge.scan(&self.st.work);
        self.keep_peak(kinds);
    }

    /// Keeps `kinds` (the work files and, in the finish, the table so far) as the tier's
    /// peak if it is the most so far.
    pub(super) fn keep_peak(&mut self, kinds: WorkDisk) {
        self.keep_peak_of(kinds, self.st.phase, self.lower_freed);
    }

    /// [`Job::keep_peak`] of a scan taken in `phase`, with `freed` bytes of the lower tiers
    /// deleted by then.
    fn keep_peak_of(&mut self, kinds: WorkDisk, phase: Phase, freed: u64) {
        let extra = kinds.table;
        let now = kinds.total();
        // The largest disk, work files less the lower tiers' files deleted by then.
        if now + self.timings.peak_lower_freed >= self.timings.peak_work_disk + freed {
            self.timings.peak_work_disk = now;
            self.timings.peak_lower_freed = freed;
            self.timings.peak_work = kinds;
            self.timings.peak_phase = if extra > 0 { "finish" } else { phase.name() };
        }
    }
}
