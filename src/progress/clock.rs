//! The whole-run line's clock: positions and time of the tiers left, and an ETA from the
//! up-front estimate, refined by how long finished tiers really took, then by the pace of the
//! tier in progress's successor pass and attractor (out of core, slower by the cells its
//! attractor changes on disk at every level).

use std::time::{Duration, Instant};

use bawo_games::units::{human_count, human_duration};

/// What the whole-run line knows: the estimate made before the run, spread over the tiers
/// still to solve by their positions, and how the last tier that took long enough to say
/// compared with its share (the tiers grow, so the latest finished one is the best guide to
/// the next).
#[derive(Debug, Clone)]
pub struct RunClock {
    start: Instant,
    /// Positions of each tier still to solve, the one in progress first.
    tiers_left: std::collections::VecDeque<TierLeft>,
    /// Estimated seconds per position.
    per_position: f64,
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
    /// A run of tiers of `tiers` positions, estimated to take `estimate`.
    pub fn new(tiers: &[u64], estimate: Duration) -> RunClock {
        RunClock::with_held(tiers, &[], estimate)
    }

    /// [`RunClock::new`], where the attractor of each tier holds `held` of its cells in
    /// memory (a tier not named holds them all).
    pub fn with_held(tiers: &[u64], held: &[f64], estimate: Duration) -> RunClock {
        let now = Instant::now();
        let positions: u64 = tiers.iter().sum();
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
                })
                .collect(),
            per_position: estimate.as_secs_f64() / positions.max(1) as f64,
            ratio: 1.0,
            finished: 0,
            tier_start: now,
            pass: None,
            pass_share: PASS_SHARE,
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

    /// How much longer than in memory a tier whose attractor holds `held` of its cells
    /// takes: its phases after the pass by [`out_of_core_factor`], its pass as it is.
    fn tier_factor(&self, held: f64) -> f64 {
        self.pass_share + (1.0 - self.pass_share) * out_of_core_factor(held, self.levels)
    }

    /// The estimate of the tier in progress, and of the tiers after it, each scaled for
    /// the share of its cells held ([`RunClock::tier_factor`]) but not by the latest ratio.
    fn estimates(&self) -> (f64, f64) {
        let mut tiers = self
            .tiers_left
            .iter()
            .map(|t| self.per_position * t.positions as f64 * self.tier_factor(t.held));
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
                }
            }
        }
    }

    /// The time the successor pass in progress needs for the positions it has left, at the
    /// pace measured since its first report.
    fn pass_left(&self, now: Instant) -> f64 {
        let Some(w) = self.pass else { return 0.0 };
        let Some((first_at, first)) = w.first else {
            return 0.0;
        };
        let progress = w.fraction - first;
        let elapsed = now.saturating_duration_since(first_at).as_secs_f64();
        if progress <= 0.0 {
            return 0.0;
        }
        (1.0 - w.fraction) * elapsed / progress
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
                let progress = w.fraction - first;
                let elapsed = now.saturating_duration_since(first_at).as_secs_f64();
                let setup = first_at.saturating_duration_since(w.start).as_secs_f64();
                // A whole pass: its setup, then every position at the pace since.
                (progress >= PASS_TRUSTED_AFTER && elapsed >= 1.0)
                    .then(|| (setup + elapsed / progress, None))
            }
        }
    }

    /// A tier of `positions` finished after `took`.
    pub fn tier_finished(&mut self, positions: u64, took: Duration) {
        let held = self.tiers_left.pop_front().map_or(1.0, |t| t.held);
        self.finished += positions;
        let expected = self.per_position * positions as f64 * self.tier_factor(held);
        if took >= CALIBRATES_AFTER && expected > 0.0 {
            self.ratio = (took.as_secs_f64() / expected).clamp(0.05, 20.0);
        }
        let levels = (self.tier_levels > 0).then_some(self.tier_levels);
        // A whole pass's share of the whole tier's time (a resumed one says nothing), as it
        // would be with every cell held.
        if let Some(w) = self.pass.take() {
            if let (Some(pass), true) = (w.took, w.from == 0.0 && took >= CALIBRATES_AFTER) {
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
        let Some(current) = self.tiers_left.front().map(|t| t.positions) else {
            return Duration::ZERO;
        };
        let (current_estimate, rest) = self.estimates();
        let Some((pass, ended)) = self.pass_time(now) else {
            return Duration::from_secs_f64(self.eta_unseen_pass(
                now,
                current,
                current_estimate,
                rest,
            ));
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
    fn eta_unseen_pass(&self, now: Instant, current: u64, estimate: f64, rest: f64) -> f64 {
        match self.attractor_left(now) {
            Some(left) => {
                let pass = self.per_position * current as f64 * self.ratio * self.pass_share;
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
mod tests {
    use super::*;

    #[test]
    fn the_whole_run_eta_follows_the_estimate_then_the_latest_tier() {
        // Three tiers, 100 s estimated for 1,000 positions: 10, 30 and 60 s by their shares.
        let mut c = RunClock::new(&[100, 300, 600], Duration::from_secs(100));
        let t = c.tier_start;
        assert_eq!(c.eta(t), Duration::from_secs(100));
        assert_eq!(c.eta(t + Duration::from_secs(4)), Duration::from_secs(96));
        // The first tier took twice its share: the rest takes twice its estimate too.
        c.tier_finished(100, Duration::from_secs(20));
        let t = c.tier_start;
        assert_eq!(c.eta(t).as_secs(), 180);
        assert_eq!(c.eta(t + Duration::from_secs(50)).as_secs(), 130);
        // The tier in progress runs over its 60 s: it is taken as nearly done, and the tier
        // after it as slower by as much.
        let late = c.eta(t + Duration::from_secs(120)).as_secs_f64();
        assert!((late - (6.0 + 120.0 * 2.0)).abs() < 1e-6, "{late}");
        // The second tier took its share exactly: the ratio is 1 again; a quick tier (under
        // a second) leaves the ratio as it was.
        c.tier_finished(300, Duration::from_secs(30));
        assert_eq!(c.eta(c.tier_start).as_secs(), 60);
        c.tier_finished(600, Duration::from_millis(10));
        assert_eq!(c.eta(c.tier_start), Duration::ZERO);
        let line = c.line(1000, 1000, c.start + Duration::from_secs(125));
        assert_eq!(
            line,
            "whole run: 1.0 k / 1.0 k positions (100%), 8/s, elapsed 2m 05s, eta 0s"
        );
    }

    #[test]
    fn the_eta_follows_the_successor_pass_once_it_has_run_a_while() {
        // One tier estimated at 100 s.
        let mut c = RunClock::new(&[1000], Duration::from_secs(100));
        let t = c.tier_start;
        let at = |s: f64| t + Duration::from_secs_f64(s);
        c.phase_started("successors", 1000, 0, t);
        // The pass reports first after 2 s of setup (its copies of the lower tiers): too
        // early to trust a pace, so the estimate.
        c.pass_progress(10, 1000, at(2.0));
        assert!((c.eta(at(2.5)).as_secs_f64() - 97.5).abs() < 1e-6);
        // 10% more in 10 s: a whole pass takes 2 + 100 s; 89 s of it are left, then the
        // rest of the tier by the pass's share (one half before any tier measured it). A
        // tenth of the pass has run since its first report: that, blended with the estimate
        // in proportion to how far it is towards `PASS_BLENDED_UNTIL` of what was left then.
        c.pass_progress(110, 1000, at(12.0));
        let whole = 102.0;
        let after = whole * (1.0 / PASS_SHARE - 1.0);
        let trust = 0.1 / (0.99 * PASS_BLENDED_UNTIL);
        let blended = trust * (89.0 + after) + (1.0 - trust) * (100.0 - 12.0);
        assert!((c.eta(at(12.0)).as_secs_f64() - blended).abs() < 1e-6);
        // `PASS_BLENDED_UNTIL` of the pass at the same pace: the pace alone.
        let run = (PASS_BLENDED_UNTIL * 1000.0) as u64;
        let secs = PASS_BLENDED_UNTIL * 100.0;
        c.pass_progress(10 + run, 1000, at(2.0 + secs));
        let left = 99.0 - secs;
        assert!((c.eta(at(2.0 + secs)).as_secs_f64() - (left + after)).abs() < 1e-6);
        // The pass ends at 102 s; the next phase counts down what is left of the tier.
        c.pass_progress(1000, 1000, at(102.0));
        c.phase_started("predecessors", 10, 0, at(102.0));
        assert!((c.eta(at(130.0)).as_secs_f64() - (after - 28.0)).abs() < 1e-6);
        // Past it, the tier is taken as nearly done.
        let late = c.eta(at(300.0)).as_secs_f64();
        assert!((late - 198.0 / 20.0).abs() < 1e-6, "{late}");
        // The tier took 255 s: its pass was 40% of it, the share the next tier's ETA takes.
        c.tier_finished(1000, Duration::from_secs(255));
        assert!((c.pass_share - 0.4).abs() < 1e-9);
    }

    #[test]
    fn the_pace_of_a_pass_sets_the_eta_of_the_tiers_after_it() {
        // Two tiers of 100 and 900 positions, 100 s estimated: 10 s and 90 s.
        let mut c = RunClock::new(&[100, 900], Duration::from_secs(100));
        let t = c.tier_start;
        let at = |s: f64| t + Duration::from_secs_f64(s);
        // A resumed pass (half done) reporting first after 1 s, then going at 5% a second
        // (more than half of what it had left, `PASS_BLENDED_UNTIL`, so its pace alone is
        // taken): a whole pass is 1 + 20 s, so the tier takes 42 s at a share of one half,
        // 4.2 times its estimate, and so will the next.
        c.phase_started("successors", 100, 50, t);
        c.pass_progress(55, 100, at(1.0));
        c.pass_progress(80, 100, at(6.0));
        let eta = c.eta(at(6.0)).as_secs_f64();
        let whole = 21.0;
        let expected =
            0.20 * 20.0 + whole * (1.0 / PASS_SHARE - 1.0) + 90.0 * whole / PASS_SHARE / 10.0;
        assert!((eta - expected).abs() < 1e-6, "{eta} {expected}");
        // A resumed pass does not set the share.
        c.tier_finished(100, Duration::from_secs(40));
        assert_eq!(c.pass_share, PASS_SHARE);
    }

    #[test]
    fn a_tier_out_of_core_is_given_longer_after_its_pass_and_its_attractor_its_own_pace() {
        // Two tiers of 200 and 2,000 positions (100 and 1,000 stored), 110 s estimated; the
        // second's attractor holds 40% of its cells.
        let mut c = RunClock::with_held(&[200, 2000], &[1.0, 0.4], Duration::from_secs(110));
        let t = c.tier_start;
        let at = |s: f64| t + Duration::from_secs_f64(s);
        // The first tier: a pass of 10 s, 30 levels, 25 s in all; in memory, so its share
        // is taken as it is.
        c.phase_started("successors", 100, 0, t);
        c.pass_progress(1, 100, at(0.1));
        c.pass_progress(100, 100, at(10.0));
        c.phase_started("attractor", 0, 0, at(10.0));
        c.level_done(29, 100, at(24.0));
        c.tier_finished(200, Duration::from_secs(25));
        assert!((c.pass_share - 0.4).abs() < 1e-9);
        assert_eq!(c.levels, Some(30));
        // Before its pass has said anything, the second tier's estimate (100 s at the
        // first tier's ratio of 2.5) is scaled for the phases after its pass.
        let t = c.tier_start;
        let at = |s: f64| t + Duration::from_secs_f64(s);
        let factor = 1.0 + 0.6 * 30.0 / LEVELS_PER_DOUBLING;
        let first = c.eta(t).as_secs_f64();
        let expected = 100.0 * 2.5 * (0.4 + 0.6 * factor);
        assert!((first - expected).abs() < 1e-6, "{first} {expected}");
        // The second tier's pass takes 100 s: the rest of the tier in memory would take
        // 150 s, out of core `factor` times that.
        c.phase_started("successors", 1000, 0, t);
        c.pass_progress(10, 1000, at(1.0));
        c.pass_progress(1000, 1000, at(100.0));
        c.phase_started("predecessors", 10, 0, at(100.0));
        let pass = 100.0;
        let after = pass * 1.5 * factor;
        assert!((c.eta(at(100.0)).as_secs_f64() - after).abs() < 1e-6);
        // In its attractor, once a tenth of the positions left after its first level are
        // decided, its own pace from there decides: 200 more of the 950 in 16 s leaves 60 s,
        // then the finish.
        c.phase_started("attractor", 0, 0, at(120.0));
        c.level_done(0, 50, at(124.0));
        let before = c.eta(at(130.0)).as_secs_f64();
        assert!((before - (after - 30.0)).abs() < 1e-6, "{before}");
        c.level_done(1, 250, at(140.0));
        let eta = c.eta(at(140.0)).as_secs_f64();
        assert!((eta - (60.0 + FINISH_SHARE * pass)).abs() < 1e-6, "{eta}");
        // Its share, measured out of core over its own 60 levels, is kept as it would be in
        // memory.
        c.level_done(59, 1000, at(200.0));
        let factor = 1.0 + 0.6 * 60.0 / LEVELS_PER_DOUBLING;
        c.tier_finished(2000, Duration::from_secs_f64(pass + 1.5 * factor * pass));
        assert!((c.pass_share - 0.4).abs() < 1e-6, "{}", c.pass_share);
        assert_eq!(c.levels, Some(60));
        assert_eq!(c.eta(c.tier_start), Duration::ZERO);
    }

    #[test]
    fn a_tier_out_of_core_after_the_one_in_progress_is_given_longer_already() {
        // Regression: the tiers after the one in progress were estimated as in memory, so
        // the line said a quarter too little until the out-of-core tier began (Kigogo 7
        // under `--mem 512M`, its 7-seed tier 61% on disk, while its 6-seed tier finished).
        // Two tiers of 200 and 2,000 positions, 110 s estimated: 10 s and 100 s in memory;
        // the second holds 40% of its cells.
        let c = RunClock::with_held(&[200, 2000], &[1.0, 0.4], Duration::from_secs(110));
        let second = PASS_SHARE
            + (1.0 - PASS_SHARE) * (1.0 + 0.6 * DEFAULT_LEVELS as f64 / LEVELS_PER_DOUBLING);
        assert!(second > 1.0);
        let eta = c.eta(c.tier_start).as_secs_f64();
        assert!((eta - (10.0 + 100.0 * second)).abs() < 1e-6, "{eta}");
        // The same run in memory: the estimate as it is.
        let c = RunClock::new(&[200, 2000], Duration::from_secs(110));
        assert!((c.eta(c.tier_start).as_secs_f64() - 110.0).abs() < 1e-6);
    }

    #[test]
    fn a_run_resumed_in_its_attractor_takes_the_attractor_pace() {
        // Two tiers of 2,000 and 4,000 positions (1,000 and 2,000 stored), 60 s estimated;
        // resumed in the first tier's attractor, its pass never seen by this process.
        let mut c = RunClock::new(&[2000, 4000], Duration::from_secs(60));
        let t = c.tier_start;
        let at = |s: f64| t + Duration::from_secs_f64(s);
        c.phase_started("attractor", 0, 0, t);
        // Until a tenth of what its first level here left is decided, the estimate (20 s for
        // the tier, 40 for the next).
        c.level_done(3, 50, at(20.0));
        let early = c.eta(at(5.0)).as_secs_f64();
        let (current, rest) = c.estimates();
        assert!((early - c.eta_by_estimate(at(5.0), current, rest)).abs() < 1e-9);
        // 200 more of the 950 in 80 s: 300 s left, then the finish (a tenth of the estimated
        // pass, half of the tier's 20 s) and the next tier's 40 s.
        c.level_done(9, 250, at(100.0));
        let eta = c.eta(at(100.0)).as_secs_f64();
        let expected = 300.0 + FINISH_SHARE * 20.0 * PASS_SHARE + 40.0;
        assert!((eta - expected).abs() < 1e-6, "{eta} {expected}");
        assert!(eta > c.eta_by_estimate(at(100.0), current, rest));
    }

    #[test]
    fn a_resumed_attractor_is_timed_on_what_it_had_left() {
        // Regression: a run resumed with most of its tier decided counted decided positions
        // from the resume, so its pace was taken as that of the whole tier (the line's ETA
        // several times too long) and the whole-run line did not move through the tier.
        let mut c = RunClock::new(&[2000, 4000], Duration::from_secs(60));
        let t = c.tier_start;
        let at = |s: f64| t + Duration::from_secs_f64(s);
        // 800 of the tier's 1,000 stored positions were decided before the resume.
        c.phase_started("attractor", 0, 800, t);
        // Until a tenth of the 190 left after its first level here is decided, the estimate.
        c.level_done(60, 810, at(5.0));
        let early = c.eta(at(5.0)).as_secs_f64();
        let (current, rest) = c.estimates();
        assert!((early - c.eta_by_estimate(at(5.0), current, rest)).abs() < 1e-9);
        // 90 of the 190 in 45 s: 50 s left, then the finish and the next tier's 40 s.
        c.level_done(70, 900, at(50.0));
        let eta = c.eta(at(50.0)).as_secs_f64();
        let expected = 50.0 + FINISH_SHARE * 20.0 * PASS_SHARE + 40.0;
        assert!((eta - expected).abs() < 1e-6, "{eta} {expected}");
        // The line counts the tier's decided positions (both sides to move): 1,800 of
        // 6,000; its rate only those decided here, 200 in 50 s.
        let line = c.line(0, 6000, at(50.0));
        assert!(
            line.contains("1.8 k / 6.0 k positions (30%), 4/s"),
            "{line}"
        );
        // Once the tier is finished, its positions count once.
        c.tier_finished(2000, Duration::from_secs(60));
        let line = c.line(2000, 6000, at(60.0));
        assert!(line.contains("2.0 k / 6.0 k positions (33%)"), "{line}");
    }
}
