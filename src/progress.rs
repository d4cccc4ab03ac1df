//! Progress bars on standard error for long solves.
//!
//! Two lines: the bar of the current tier's phase, and below it one line for the whole run
//! (positions of finished tiers of all, rate, elapsed, and an ETA for the whole run from the
//! up-front estimate, refined by how long finished tiers really took, then by the pace of the
//! tier in progress's successor pass and attractor). Bars stay hidden for
//! the first second, so quick runs print nothing but their result, and indicatif draws only
//! when standard error is a terminal. A log line per finished tier goes to standard error
//! unless the reporter is quiet.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use bawo_games::units::separated;
use bawo_solve::counts::TierCounts;
use bawo_solve::run::{RunProgress, RunStart};
use bawo_solve::tier::TierProgress;

mod clock;

use clock::RunClock;

/// How long a run goes before bars appear.
const SHOW_AFTER: Duration = Duration::from_secs(1);

pub struct Reporter {
    quiet: bool,
    start: Instant,
    /// Both lines, drawn together once the run is a second old.
    lines: MultiProgress,
    bar: Mutex<Option<ProgressBar>>,
    run_bar: Mutex<Option<ProgressBar>>,
    clock: Arc<Mutex<RunClock>>,
    tier: Mutex<(u32, u64)>,
}

impl Reporter {
    pub fn new(quiet: bool) -> Reporter {
        Reporter {
            quiet,
            start: Instant::now(),
            lines: MultiProgress::with_draw_target(ProgressDrawTarget::hidden()),
            bar: Mutex::new(None),
            run_bar: Mutex::new(None),
            clock: Arc::new(Mutex::new(RunClock::new(&[], Duration::ZERO))),
            tier: Mutex::new((0, 0)),
        }
    }

    /// Starts drawing once the run is a second old.
    fn show_if_due(&self) {
        if self.lines.is_hidden() && self.start.elapsed() >= SHOW_AFTER {
            self.lines
                .set_draw_target(ProgressDrawTarget::stderr_with_hz(10));
        }
    }

    fn with_bar(&self, f: impl FnOnce(&ProgressBar)) {
        if self.quiet {
            return;
        }
        let guard = self.bar.lock().expect("progress lock");
        if let Some(bar) = guard.as_ref() {
            self.show_if_due();
            f(bar);
        }
    }

    fn replace_bar(&self, bar: ProgressBar) {
        if self.quiet {
            return;
        }
        let mut guard = self.bar.lock().expect("progress lock");
        if let Some(old) = guard.take() {
            old.finish_and_clear();
            self.lines.remove(&old);
        }
        // Above the whole-run line.
        *guard = Some(self.lines.insert(0, bar));
        self.show_if_due();
    }

    /// A bar for `len` units of work with a message, hidden until the run is a second old.
    pub fn start_bar(&self, len: u64, message: String) {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(
                "{msg:28} [{bar:30}] {human_pos}/{human_len} {rate} eta {eta}",
            )
            .expect("valid template")
            .with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&human_rate(s.per_sec()));
                },
            )
            .progress_chars("=> "),
        );
        bar.set_message(message);
        self.replace_bar(bar);
    }

    /// A spinner for work of unknown length.
    pub fn start_spinner(&self, message: String) {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("valid template"));
        bar.set_message(message);
        self.replace_bar(bar);
    }

    /// The whole-run line, `done` of `total` positions finished, ETA from `clock`.
    fn start_run_line(&self, total: u64, done: u64) {
        if self.quiet {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        let clock = Arc::clone(&self.clock);
        bar.set_style(
            ProgressStyle::with_template("{line}")
                .expect("valid template")
                .with_key(
                    "line",
                    move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let c = clock.lock().expect("progress lock");
                        let total = s.len().unwrap_or(0);
                        let _ = w.write_str(&c.line(s.pos(), total, Instant::now()));
                    },
                ),
        );
        bar.set_position(done);
        let bar = self.lines.add(bar);
        // The elapsed time and ETA move even while a phase reports nothing.
        bar.enable_steady_tick(Duration::from_secs(1));
        if let Some(old) = self.run_bar.lock().expect("progress lock").replace(bar) {
            old.finish_and_clear();
            self.lines.remove(&old);
        }
    }

    pub fn inc(&self, n: u64) {
        self.with_bar(|b| b.inc(n));
    }

    pub fn message(&self, m: String) {
        self.with_bar(|b| {
            b.set_message(m);
            b.tick();
        });
    }

    /// Clears the bar of the phase that ended; the whole-run line stays.
    fn finish_phase(&self) {
        if let Some(bar) = self.bar.lock().expect("progress lock").take() {
            bar.finish_and_clear();
            self.lines.remove(&bar);
        }
    }

    /// Clears both lines at the end of a run.
    pub fn finish(&self) {
        self.finish_phase();
        if let Some(bar) = self.run_bar.lock().expect("progress lock").take() {
            bar.finish_and_clear();
            self.lines.remove(&bar);
        }
    }

    /// A line on standard error (cleared of any bar), unless quiet.
    pub fn log(&self, line: &str) {
        if self.quiet {
            return;
        }
        self.lines.suspend(|| note(format_args!("{line}")));
    }
}

impl TierProgress for Reporter {
    fn phase(&self, name: &str, total: u64, done: u64) {
        let (tier, _) = *self.tier.lock().expect("progress lock");
        self.clock
            .lock()
            .expect("progress lock")
            .phase_started(name, total, done, Instant::now());
        if total == 0 {
            self.start_spinner(format!("tier {tier}: {name}"));
        } else {
            self.start_bar(total, format!("tier {tier}: {name}"));
            self.inc(done);
        }
    }

    fn advance(&self, units: u64) {
        self.inc(units);
        if let Some(bar) = self.bar.lock().expect("progress lock").as_ref() {
            self.clock.lock().expect("progress lock").pass_progress(
                bar.position(),
                bar.length().unwrap_or(0),
                Instant::now(),
            );
        }
    }

    fn level_done(&self, level: u32, decided: u64) {
        self.clock
            .lock()
            .expect("progress lock")
            .level_done(level, decided, Instant::now());
        let (tier, _) = *self.tier.lock().expect("progress lock");
        self.message(format!(
            "tier {tier}: attractor level {level}, {decided} positions decided"
        ));
    }
}

impl RunProgress for Reporter {
    /// Printed even with --quiet: it tells of work discarded or redone.
    fn notice(&self, line: &str) {
        self.lines.suspend(|| {
            let _ = writeln!(std::io::stderr(), "bawo: {line}");
        });
    }

    fn run_started(&self, start: &RunStart) {
        *self.clock.lock().expect("progress lock") =
            RunClock::with_estimates(&start.to_solve, &start.held, &start.estimates);
        self.start_run_line(start.total, start.done);
    }

    fn tier_started(&self, tier: u32, _seeds: u32, states: u64) {
        *self.tier.lock().expect("progress lock") = (tier, states);
    }

    fn tier_finished(&self, c: &TierCounts, elapsed: Duration, bytes: u64) {
        self.finish_phase();
        // Positions of both sides, as the run's total counts them.
        let states = c.states;
        self.clock
            .lock()
            .expect("progress lock")
            .tier_finished(states, elapsed);
        if let Some(bar) = self.run_bar.lock().expect("progress lock").as_ref() {
            bar.inc(states);
        }
        self.log(&format!(
            "tier {:>3}: {:>14} positions  win {:>14}  loss {:>14}  draw {:>14}  max depth {:>5}  {:>8.2}s  {} written",
            c.seeds,
            separated(c.states),
            separated(c.win),
            separated(c.loss),
            separated(c.draw),
            c.max_depth,
            elapsed.as_secs_f64(),
            human_bytes(bytes)
        ));
    }
}

pub use bawo_games::units::{human_bytes, human_rate};

/// Writes one line to standard error, ignoring a failed write: a log line (or a warning)
/// that cannot be shown, because standard error is closed or full, is never worth stopping a
/// solve for, and `eprintln!` would panic.
pub fn note(line: std::fmt::Arguments) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_short() {
        assert_eq!(human_rate(2_348_672.121), "2.35 M/s");
        assert_eq!(human_rate(12_500.0), "12.50 k/s");
        assert_eq!(human_rate(999.4), "999/s");
        assert_eq!(human_rate(3.2e9), "3.20 G/s");
    }
}
