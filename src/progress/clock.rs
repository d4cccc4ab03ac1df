//! The whole-run line's clock: positions and time of the tiers left, and an ETA from the
//! up-front estimate, refined by how long finished tiers really took, then by the pace of the
//! tier in progress's successor pass and attractor (out of core, slower by the cells its
//! attractor changes on disk at every level).

use std::time::{Duration, Instant};

use bawo_games::units::{human_count, human_duration};

use shape::{PassProfile, PassShape};

mod shape;

/// What the whole-run line knows: the estimate made before the run of each tier still to
/// solve, and how the last tier that took long enough to say compared with its estimate
/// (the tiers grow, so the latest finished one is the best guide to the next).
#[derive(Debug, Clone)]
pub struct RunClock {
    start: Instant,
    /// Positions of each tier still to solve, the one in progress first.
    tiers_left: std::collections::VecDeque<TierLeft>,
    /// Time taken over time estimated, for the latest tier that took at least a second.
    ratio: f64,
    /// Positions of tiers finished by this run.
    finished: u64,
    /// When the tier in progress started.
    tier_start: Instant,
    /// The successor pass of the tier in progress, as its bar reports it.
    pass: Option<PassWatch>,
    /// The successor pass's share of a tier's time, from the latest tier that took long
    /// enough to say (before that, [`PASS_SHARE`]), as it would be with every cell held in
    /// memory ([`out_of_core_factor`]).
    pass_share: f64,
    /// Attractor levels of the latest tier that had any.
    levels: Option<u32>,
    /// Attractor levels of the tier in progress so far.
    tier_levels: u32,
    /// The attractor of the tier in progress.
    attractor: Option<AttractorWatch>,
    /// How the latest whole successor pass's time was spread over its positions (before
    /// one has said, evenly): the pass in progress is taken to slow down as it did.
    shape: PassShape,
}

/// The attractor of the tier in progress, in stored positions (one side to move).
#[derive(Debug, Clone, Copy)]
struct AttractorWatch {
    /// Positions decided before it started here (by the run it resumed).
    from: u64,
    /// Positions decided now, those before included.
    decided: u64,
    /// When its first level here ended, and the positions decided then: its pace is taken
    /// from there. A first level decides at once what the pass left decided (39% of Bao
    /// mtaji 10's positions) and the next few little, so a pace taken from the start said
    /// 29% too much there.
    pace_from: Option<(Instant, u64)>,
}

/// A tier still to solve.
#[derive(Debug, Clone, Copy)]
struct TierLeft {
    /// Its positions (both sides to move).
    positions: u64,
    /// The share of its cells its attractor holds in memory.
    held: f64,
    /// Its estimated seconds, as the dry run makes them, out of core included. Each tier
    /// keeps its own: the positions of larger tiers take longer where their cells and the
    /// lower tiers' copies outgrow the memory (Bawo `n = 4` 20 seeds: 72 ns a position in
    /// its 17-seed tier, 106 in its 20-seed tier, which the dry run's out-of-core term
    /// foresees in part), and a ratio taken from a tier in memory and spread by positions
    /// over the tiers after it said a quarter too little.
    estimate: f64,
}

/// The successor pass of the tier in progress: its share of the tier's time is about the
/// same from tier to tier of a run, so once the pass has run a while its own pace says how
/// long the tier will take, far better than an estimate made before the run (the largest
/// tier is most of a run: all of Bao's, 86% of Kigogo 8's positions).
#[derive(Debug, Clone, Copy)]
struct PassWatch {
    /// When it started (or resumed), and the fraction of the pass done then.
    start: Instant,
    from: f64,
    /// Its first report of progress: when, and the fraction done then. Its pace is measured
    /// from there, past the copies of the lower tiers it makes first (seconds, for a large
    /// tier, that would make the pace of its first few percent look slow).
    first: Option<(Instant, f64)>,
    /// The fraction done now.
    fraction: f64,
    /// Its time at each of its reports since the first.
    profile: Option<PassProfile>,
    /// Its time, once the next phase started.
    took: Option<f64>,
    /// Whether the tier's phase after the pass has started.
    ended_at: Option<Instant>,
}

/// The successor pass's share of a tier's time before a tier of the run has measured it:
/// 0.64 on Bawo `n = 4`'s 20-seed tier, 0.42 on Kigogo's 8-seed tier (`--timings`, `--mem
/// 4G`, 2 cores); only 0.26 on Bao mtaji's 11 seeds, a run of one tier whose out-of-core
/// attractor reads from the disk at each of its 186 levels.
const PASS_SHARE: f64 = 0.5;

/// The pass must be this far along (as a fraction) before its pace is taken at all.
const PASS_TRUSTED_AFTER: f64 = 0.02;

/// Until the pass is this far along, its pace is blended with the estimate ([`RunClock::eta`]):
/// a pass's pace falls as it goes (Kigogo 7's 7-seed tier: 40 million positions a second in
/// its first second, 8 over the whole pass), and blended only until a fifth of it, the line
/// said a quarter too little for seconds at a time (Kigogo 7, Bawo `n = 4` 17 seeds, just past
/// a tenth of the run); the estimate is the steadier guide until half of it has run.
const PASS_BLENDED_UNTIL: f64 = 0.5;

/// Out of core, the attractor changes the cells of the ranges it does not hold on disk at
/// every level: the share of cells not held, times the levels, over this many, is how much
/// longer than in memory the rest of a tier takes beside its pass ([`out_of_core_factor`]).
/// Measured (`--timings`, the rest of a tier over its pass, against the tier below's in
/// memory): Kigogo 7 seeds under `--mem 512M` (61% of cells not held, 138 levels in the
/// tier below) 1.54 times, Kigogo 8 under `--mem 4G` (34%, 229) 1.16, Bawo `n = 4` 15 seeds
/// under `--mem 512M` (51%, 30) and 20 seeds under `--mem 4G` (75%, 36) about 1. This many
/// gives 1.34 and 1.31 for the two Kigogo runs (a hundred gave 1.84 and 1.78, the line a
/// quarter too long once Kigogo 8's pass was over).
const LEVELS_PER_DOUBLING: f64 = 250.0;

/// Levels taken for a run's first tier, before any tier has said.
const DEFAULT_LEVELS: u32 = 100;

/// The attractor must have decided this share of its tier's positions before its pace is
/// trusted.
const ATTRACTOR_TRUSTED_AFTER: f64 = 0.1;

/// The finish and the compression after the attractor, as a share of the pass (measured:
/// 0.08 to 0.12 on Bawo `n = 4` 18 seeds, Kigogo 7 and 8).
const FINISH_SHARE: f64 = 0.1;

/// How much longer than in memory the phases after a tier's pass take where its attractor
/// holds `held` of its cells and runs `levels` levels ([`LEVELS_PER_DOUBLING`]).
fn out_of_core_factor(held: f64, levels: Option<u32>) -> f64 {
    let levels = levels.unwrap_or(DEFAULT_LEVELS) as f64;
    1.0 + (1.0 - held).clamp(0.0, 1.0) * levels / LEVELS_PER_DOUBLING
}

/// A tier must take this long for its time to correct the estimate: shorter ones are
/// dominated by fixed costs.
const CALIBRATES_AFTER: Duration = Duration::from_secs(1);

impl RunClock {
    /// A run of tiers of `tiers` positions, estimated to take `estimate` in all, spread over
    /// them by their positions.
    pub fn new(tiers: &[u64], estimate: Duration) -> RunClock {
        RunClock::with_held(tiers, &[], estimate)
    }

    /// [`RunClock::new`], where the attractor of each tier holds `held` of its cells in
    /// memory (a tier not named holds them all).
    pub fn with_held(tiers: &[u64], held: &[f64], estimate: Duration) -> RunClock {
        let positions: u64 = tiers.iter().sum::<u64>().max(1);
        let estimates: Vec<Duration> = tiers
            .iter()
            .map(|&t| estimate.mul_f64(t as f64 / positions as f64))
            .collect();
        RunClock::with_estimates(tiers, held, &estimates)
    }

    /// [`RunClock::with_held`], each tier estimated on its own (`estimates`, one for each of
    /// `tiers`, out of core included).
    pub fn with_estimates(tiers: &[u64], held: &[f64], estimates: &[Duration]) -> RunClock {
        let now = Instant::now();
        RunClock {
            levels: None,
            tier_levels: 0,
            attractor: None,
            start: now,
            tiers_left: tiers
                .iter()
                .enumerate()
                .map(|(i, &positions)| TierLeft {
                    positions,
                    held: held.get(i).copied().unwrap_or(1.0),
                    estimate: estimates.get(i).map_or(0.0, Duration::as_secs_f64),
                })
                .collect(),
            ratio: 1.0,
            finished: 0,
            tier_start: now,
            pass: None,
            pass_share: PASS_SHARE,
            shape: PassShape::even(),
        }
    }

    /// Phase `name` of the tier in progress started at `now`, `done` of `total` units done.
    pub fn phase_started(&mut self, name: &str, total: u64, done: u64, now: Instant) {
        if name == "attractor" {
            self.attractor = Some(AttractorWatch {
                from: done,
                decided: done,
                pace_from: None,
            });
        }
        if name == "successors" && total > 0 {
            let from = done as f64 / total as f64;
            self.pass = Some(PassWatch {
                start: now,
                from,
                first: None,
                fraction: from,
                profile: None,
                took: None,
                ended_at: None,
            });
        } else if let Some(w) = &mut self.pass {
            if w.took.is_none() {
                w.took = Some(now.saturating_duration_since(w.start).as_secs_f64());
                w.ended_at = Some(now);
            }
        }
    }

    /// The attractor of the tier in progress finished `level` at `now`, `decided` positions
    /// decided in all (stored positions: one side to move).
    pub fn level_done(&mut self, level: u32, decided: u64, now: Instant) {
        self.tier_levels = self.tier_levels.max(level + 1);
        if let Some(a) = &mut self.attractor {
            a.decided = decided;
            a.pace_from.get_or_insert((now, decided));
        }
    }

    /// The estimate of the tier in progress, and of the tiers after it, not yet scaled by
    /// the latest ratio.
    fn estimates(&self) -> (f64, f64) {
        let mut tiers = self.tiers_left.iter().map(|t| t.estimate);
        let current = tiers.next().unwrap_or(0.0);
        (current, tiers.sum())
    }

    /// The after-pass phases' time over the pass's, for the tier in progress.
    fn after_pass_ratio(&self) -> f64 {
        let held = self.tiers_left.front().map_or(1.0, |t| t.held);
        (1.0 / self.pass_share - 1.0) * out_of_core_factor(held, self.levels)
    }

    /// The time the attractor in progress needs for the positions it has left, at the pace
    /// measured since its first level here ended, once it has decided enough of what it
    /// had left then to say.
    fn attractor_left(&self, now: Instant) -> Option<f64> {
        let a = self.attractor?;
        let (start, from) = a.pace_from?;
        let stored = self.tiers_left.front()?.positions / bawo_games::game::POSITIONS_PER_ENTRY;
        let here = a.decided.saturating_sub(from) as f64;
        let had_left = stored.saturating_sub(from) as f64;
        let left = stored.saturating_sub(a.decided) as f64;
        let elapsed = now.saturating_duration_since(start).as_secs_f64();
        (here > 0.0 && here >= ATTRACTOR_TRUSTED_AFTER * had_left && elapsed >= 1.0)
            .then(|| elapsed * left / here)
    }

    /// Positions of the tier in progress its attractor has decided, both sides to move as
    /// the run's total counts them, and how many of them this process decided.
    fn in_tier_done(&self) -> (u64, u64) {
        let (Some(a), Some(tier)) = (self.attractor, self.tiers_left.front()) else {
            return (0, 0);
        };
        let both = |n: u64| (n * bawo_games::game::POSITIONS_PER_ENTRY).min(tier.positions);
        (both(a.decided), both(a.decided) - both(a.from))
    }

    /// The successor pass in progress has `done` of `total` positions done at `now`.
    pub fn pass_progress(&mut self, done: u64, total: u64, now: Instant) {
        if let Some(w) = &mut self.pass {
            if w.took.is_none() && total > 0 {
                w.fraction = done as f64 / total as f64;
                if w.first.is_none() && w.fraction > w.from {
                    w.first = Some((now, w.fraction));
                    w.profile = Some(PassProfile::new(w.fraction));
                } else if let (Some((first_at, _)), Some(profile)) = (w.first, &mut w.profile) {
                    let since = now.saturating_duration_since(first_at).as_secs_f64();
                    profile.record(w.fraction, since);
                }
            }
        }
    }

    /// The successor pass in progress since its first report, read against the latest
    /// whole pass's shape: the seconds since that report, the share of a whole pass's time
    /// its positions done so far take, and the share of it run since that report.
    fn pass_seen(&self, now: Instant) -> Option<(f64, f64, f64)> {
        let w = self.pass?;
        let (first_at, first) = w.first?;
        let elapsed = now.saturating_duration_since(first_at).as_secs_f64();
        let done = self.shape.time_share(w.fraction);
        Some((elapsed, done, done - self.shape.time_share(first)))
    }

    /// The time the successor pass in progress needs for the positions it has left, at the
    /// pace measured since its first report, slowing down as the latest whole pass did.
    fn pass_left(&self, now: Instant) -> f64 {
        match self.pass_seen(now) {
            Some((elapsed, done, since)) if since > 0.0 => (1.0 - done) * elapsed / since,
            _ => 0.0,
        }
    }

    /// The time a whole successor pass of the tier in progress takes at the pace measured,
    /// and since when the tier is past it (`None`: still in it), once that pace is known.
    fn pass_time(&self, now: Instant) -> Option<(f64, Option<Instant>)> {
        let w = self.pass?;
        match w.took {
            Some(took) if w.from < 1.0 - PASS_TRUSTED_AFTER => {
                Some((took / (1.0 - w.from), w.ended_at))
            }
            Some(_) => None,
            None => {
                let (first_at, first) = w.first?;
                let (elapsed, _, since) = self.pass_seen(now)?;
                let setup = first_at.saturating_duration_since(w.start).as_secs_f64();
                // A whole pass: its setup, then every position at the pace since, slowing
                // down as the latest whole pass did.
                (w.fraction - first >= PASS_TRUSTED_AFTER && since > 0.0 && elapsed >= 1.0)
                    .then(|| (setup + elapsed / since, None))
            }
        }
    }

    /// A tier of `positions` finished after `took`.
    pub fn tier_finished(&mut self, positions: u64, took: Duration) {
        let (held, estimate) = self
            .tiers_left
            .pop_front()
            .map_or((1.0, 0.0), |t| (t.held, t.estimate));
        self.finished += positions;
        if took >= CALIBRATES_AFTER && estimate > 0.0 {
            self.ratio = (took.as_secs_f64() / estimate).clamp(0.05, 20.0);
        }
        let levels = (self.tier_levels > 0).then_some(self.tier_levels);
        // A whole pass's share of the whole tier's time (a resumed one says nothing), as it
        // would be with every cell held.
        if let Some(w) = self.pass.take() {
            if let (Some(pass), true) = (w.took, w.from == 0.0 && took >= CALIBRATES_AFTER) {
                // Its shape, timed from its first report to its end.
                let timed = pass >= CALIBRATES_AFTER.as_secs_f64();
                if let (Some(profile), Some((first_at, _)), true) = (w.profile, w.first, timed) {
                    let setup = first_at.saturating_duration_since(w.start).as_secs_f64();
                    if let Some(shape) = profile.shape(pass - setup) {
                        self.shape = shape;
                    }
                }
                let after = (took.as_secs_f64() / pass.max(1e-9) - 1.0).max(0.0)
                    / out_of_core_factor(held, levels.or(self.levels));
                self.pass_share = (1.0 / (1.0 + after)).clamp(0.1, 1.0);
            }
        }
        self.levels = levels.or(self.levels);
        self.tier_levels = 0;
        self.attractor = None;
        self.tier_start = Instant::now();
    }

    /// The time the rest of the run should take: the tier in progress's share of the
    /// estimate less the time it has taken, then the tiers after it, all scaled by the
    /// latest ratio. A tier that runs over its share raises the ratio for the tiers after it
    /// and is taken to be nearly done (a twentieth of its time left).
    ///
    /// Once the tier's successor pass has run a while, its pace decides instead: the rest of
    /// the pass at that pace, then the tier's other phases by the pass's share of a tier
    /// (measured on the latest tier), and the tiers after it scaled by how this tier compares
    /// with its estimate.
    pub fn eta(&self, now: Instant) -> Duration {
        if self.tiers_left.is_empty() {
            return Duration::ZERO;
        }
        let (current_estimate, rest) = self.estimates();
        let Some((pass, ended)) = self.pass_time(now) else {
            return Duration::from_secs_f64(self.eta_unseen_pass(now, current_estimate, rest));
        };
        let by_pass = self.eta_by_pass(now, pass, ended, current_estimate, rest);
        // A pass's first percents go faster than the rest (Kigogo 7's 7-seed tier: its pace
        // at 2% put the run's end a third early): until half of it has run, its pace is
        // blended with the estimate, in proportion.
        let trust = match (
            ended,
            self.pass.and_then(|w| w.first.map(|f| (w.fraction, f.1))),
        ) {
            (None, Some((fraction, first))) => {
                // Of what the pass had left at its first report (a resumed pass has less).
                ((fraction - first) / ((1.0 - first) * PASS_BLENDED_UNTIL).max(1e-9)).min(1.0)
            }
            _ => 1.0,
        };
        let blended = if trust < 1.0 {
            trust * by_pass + (1.0 - trust) * self.eta_by_estimate(now, current_estimate, rest)
        } else {
            by_pass
        };
        Duration::from_secs_f64(blended)
    }

    /// [`RunClock::eta`] from the pace of the tier in progress's successor pass (a whole pass
    /// takes `pass`; `ended`: since when the tier is past it) and of its attractor; the
    /// tier was estimated at `estimate`, the tiers after it at `rest` ([`RunClock::estimates`]).
    fn eta_by_pass(
        &self,
        now: Instant,
        pass: f64,
        ended: Option<Instant>,
        estimate: f64,
        rest: f64,
    ) -> f64 {
        let after_ratio = self.after_pass_ratio();
        let after_pass = pass * after_ratio;
        let current_left = match (ended, self.attractor_left(now)) {
            (None, _) => self.pass_left(now) + after_pass,
            // The attractor's own pace, then the finish.
            (Some(_), Some(left)) => left + FINISH_SHARE * pass,
            (Some(at), None) => {
                let since = now.saturating_duration_since(at).as_secs_f64();
                (after_pass - since).max(since / 20.0)
            }
        };
        let ratio = if estimate > 0.0 {
            (pass * (1.0 + after_ratio) / estimate).clamp(0.05, 20.0)
        } else {
            self.ratio
        };
        current_left + rest * ratio
    }

    /// [`RunClock::eta`] where this process has not seen the tier's successor pass (a run
    /// resumed after it): the attractor's own pace once it has one, then the finish and the
    /// tiers after it by the estimate; before that, the estimate. (A resumed Kigogo 9-seed
    /// run said 20 minutes left, from the estimate alone, with a fifth of its attractor's
    /// positions decided in 21 minutes.)
    fn eta_unseen_pass(&self, now: Instant, estimate: f64, rest: f64) -> f64 {
        match self.attractor_left(now) {
            Some(left) => {
                // The tier's pass, by its share of the estimate for the tier.
                let pass = estimate * self.ratio / (1.0 + self.after_pass_ratio());
                left + FINISH_SHARE * pass + rest * self.ratio
            }
            None => self.eta_by_estimate(now, estimate, rest),
        }
    }

    /// [`RunClock::eta`] from the estimates of the tier in progress and of the tiers after it
    /// ([`RunClock::estimates`]), rescaled by the latest tier.
    fn eta_by_estimate(&self, now: Instant, current: f64, rest: f64) -> f64 {
        let in_tier = now.saturating_duration_since(self.tier_start).as_secs_f64();
        let current_estimate = current * self.ratio;
        let over = if current_estimate > 0.0 {
            (in_tier / current_estimate).max(1.0)
        } else {
            1.0
        };
        let current_left = (current_estimate - in_tier).max(in_tier.max(current_estimate) / 20.0);
        current_left + rest * self.ratio * over
    }

    /// The whole-run line: `whole run: 586.3 M / 4.41 G positions (13%), 16.0 M/s, elapsed
    /// 2m 05s, eta 12m 30s`, for `done` of `total` positions in finished tiers; the positions
    /// the attractor of the tier in progress has decided count too (a large tier's attractor
    /// can take most of a run).
    pub fn line(&self, done: u64, total: u64, now: Instant) -> String {
        let elapsed = now.saturating_duration_since(self.start);
        let (in_tier, in_tier_here) = self.in_tier_done();
        let done = (done + in_tier).min(total);
        let rate = (self.finished + in_tier_here) as f64 / elapsed.as_secs_f64().max(1e-9);
        format!(
            "whole run: {} / {} positions ({}%), {}, elapsed {}, eta {}",
            human_count(done),
            human_count(total),
            (100 * done).checked_div(total).unwrap_or(100),
            bawo_games::units::human_rate(rate),
            human_duration(elapsed),
            human_duration(self.eta(now)),
        )
    }
}

#[cfg(test)]
mod tests;
