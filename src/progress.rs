//! Progress bars on standard error for long solves.
//!
//! Bars stay hidden for the first second, so quick runs print nothing but their result, and
//! indicatif draws only when standard error is a terminal. A log line per finished tier goes
//! to standard error unless the reporter is quiet.

use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::solve::counts::TierCounts;
use crate::solve::run::RunProgress;
use crate::solve::tier::TierProgress;

/// How long a run goes before bars appear.
const SHOW_AFTER: Duration = Duration::from_secs(1);

pub struct Reporter {
    quiet: bool,
    start: Instant,
    bar: Mutex<Option<ProgressBar>>,
    tier: Mutex<(u32, u64)>,
}

impl Reporter {
    pub fn new(quiet: bool) -> Reporter {
        Reporter {
            quiet,
            start: Instant::now(),
            bar: Mutex::new(None),
            tier: Mutex::new((0, 0)),
        }
    }

    fn with_bar(&self, f: impl FnOnce(&ProgressBar)) {
        if self.quiet {
            return;
        }
        let guard = self.bar.lock().expect("progress lock");
        if let Some(bar) = guard.as_ref() {
            if bar.is_hidden() && self.start.elapsed() >= SHOW_AFTER {
                bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(10));
            }
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
        }
        *guard = Some(bar);
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

    pub fn inc(&self, n: u64) {
        self.with_bar(|b| b.inc(n));
    }

    pub fn message(&self, m: String) {
        self.with_bar(|b| {
            b.set_message(m);
            b.tick();
        });
    }

    pub fn finish(&self) {
        if let Some(bar) = self.bar.lock().expect("progress lock").take() {
            bar.finish_and_clear();
        }
    }

    /// A line on standard error (cleared of any bar), unless quiet.
    pub fn log(&self, line: &str) {
        if self.quiet {
            return;
        }
        let guard = self.bar.lock().expect("progress lock");
        match guard.as_ref() {
            Some(bar) if !bar.is_hidden() => bar.suspend(|| note(format_args!("{line}"))),
            _ => note(format_args!("{line}")),
        }
    }
}

impl TierProgress for Reporter {
    fn phase(&self, name: &str, total: u64, done: u64) {
        let (tier, _) = *self.tier.lock().expect("progress lock");
        if total == 0 {
            self.start_spinner(format!("tier {tier}: {name}"));
        } else {
            self.start_bar(total, format!("tier {tier}: {name}"));
            self.inc(done);
        }
    }

    fn advance(&self, units: u64) {
        self.inc(units);
    }

    fn level_done(&self, level: u32, decided: u64) {
        let (tier, _) = *self.tier.lock().expect("progress lock");
        self.message(format!(
            "tier {tier}: attractor level {level}, {decided} positions decided"
        ));
    }
}

impl RunProgress for Reporter {
    /// Printed even with --quiet: it tells of work discarded or redone.
    fn notice(&self, line: &str) {
        let print = || {
            let _ = writeln!(std::io::stderr(), "bawo: {line}");
        };
        match self.bar.lock().expect("progress lock").as_ref() {
            Some(bar) if !bar.is_hidden() => bar.suspend(print),
            _ => print(),
        }
    }

    fn tier_started(&self, tier: u32, _seeds: u32, states: u64) {
        *self.tier.lock().expect("progress lock") = (tier, states);
    }

    fn tier_finished(&self, c: &TierCounts, elapsed: Duration, bytes: u64) {
        self.finish();
        self.log(&format!(
            "tier {:>3}: {:>12} positions  win {:>12}  loss {:>12}  draw {:>12}  max depth {:>5}  {:>8.2}s  {} written",
            c.seeds,
            c.states,
            c.win,
            c.loss,
            c.draw,
            c.max_depth,
            elapsed.as_secs_f64(),
            human_bytes(bytes)
        ));
    }
}

pub use crate::units::{human_bytes, human_rate};

/// Writes one line to standard error, ignoring a failed write: a log line (or a warning)
/// that cannot be shown, because standard error is closed or full, is never worth stopping a
/// solve for, and `eprintln!` would panic.
pub fn note(line: std::fmt::Arguments) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::human_rate;

    #[test]
    fn rates_are_short() {
        assert_eq!(human_rate(2_348_672.121), "2.35 M/s");
        assert_eq!(human_rate(12_500.0), "12.50 k/s");
        assert_eq!(human_rate(999.4), "999/s");
        assert_eq!(human_rate(3.2e9), "3.20 G/s");
    }
}
