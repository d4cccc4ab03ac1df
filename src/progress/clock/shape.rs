//! How a successor pass's time is spread over its positions. A pass's pace falls as it goes,
//! about the same way from tier to tier of a run (Bawo `n = 4` 20 seeds: its 16- to 19-seed
//! tiers' passes each did half of their positions in 0.40 to 0.41 of their time, a tenth in
//! 0.06 to 0.09), so the last whole pass's shape says how much of the next one's time its
//! positions done so far took; a pace taken as even said a third too little for the whole
//! run as each large tier's pass began.

/// Fractions of a pass at which its time is recorded: every 32nd of its positions.
const MARKS: usize = 32;

/// The time a pass in progress took to reach each mark, from its first report.
#[derive(Debug, Clone, Copy)]
pub(super) struct PassProfile {
    /// Seconds since the first report when the pass reached `k / MARKS` of its positions
    /// (interpolated between reports); NaN until then.
    at: [f64; MARKS + 1],
    /// The latest report: the fraction done and its seconds since the first.
    last: (f64, f64),
}

impl PassProfile {
    /// A profile whose first report saw `fraction` done: where that is within the first
    /// mark, the pass is taken to have begun with it (a pass resumed further on, or first
    /// heard of further on, has no shape to give).
    pub(super) fn new(fraction: f64) -> PassProfile {
        let mut at = [f64::NAN; MARKS + 1];
        if fraction < 1.0 / MARKS as f64 {
            at[0] = 0.0;
        }
        PassProfile {
            at,
            last: (fraction, 0.0),
        }
    }

    /// The pass reported `fraction` done `seconds` after its first report.
    pub(super) fn record(&mut self, fraction: f64, seconds: f64) {
        let (from, from_secs) = self.last;
        let fraction = fraction.clamp(0.0, 1.0);
        for (k, at) in self.at.iter_mut().enumerate() {
            let mark = k as f64 / MARKS as f64;
            // Only the marks passed since the latest report: those before the first are
            // not known.
            if at.is_nan() && mark > from && mark <= fraction {
                *at = from_secs + (seconds - from_secs) * (mark - from) / (fraction - from);
            }
        }
        if fraction >= from {
            self.last = (fraction, seconds);
        }
    }

    /// The shape of the whole pass, ended `seconds` after its first report; `None` where it
    /// was not seen whole (a resumed pass) or took no time.
    pub(super) fn shape(mut self, seconds: f64) -> Option<PassShape> {
        self.record(1.0, seconds);
        let total = self.at[MARKS];
        if self.at.iter().any(|t| t.is_nan()) || total.is_nan() || total <= 0.0 {
            return None;
        }
        let mut share = [0.0; MARKS + 1];
        let mut before = 0.0f64;
        for (s, &t) in share.iter_mut().zip(&self.at) {
            before = before.max(t / total).min(1.0);
            *s = before;
        }
        Some(PassShape { share })
    }
}

/// The share of a whole pass's time spent before each mark of its positions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PassShape {
    share: [f64; MARKS + 1],
}

impl PassShape {
    /// An even pace: a share of the positions takes the same share of the time.
    pub(super) fn even() -> PassShape {
        let mut share = [0.0; MARKS + 1];
        for (k, s) in share.iter_mut().enumerate() {
            *s = k as f64 / MARKS as f64;
        }
        PassShape { share }
    }

    /// The share of the pass's time spent before `fraction` of its positions were done.
    pub(super) fn time_share(&self, fraction: f64) -> f64 {
        let at = fraction.clamp(0.0, 1.0) * MARKS as f64;
        let k = (at.floor() as usize).min(MARKS - 1);
        let within = at - k as f64;
        self.share[k] + (self.share[k + 1] - self.share[k]) * within
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_even_pass_takes_its_share_of_time_for_its_share_of_positions() {
        let even = PassShape::even();
        for f in [0.0, 0.01, 0.25, 0.5, 0.77, 1.0] {
            assert!((even.time_share(f) - f).abs() < 1e-12, "{f}");
        }
        // Reported unevenly but at an even pace, a pass has the even shape.
        let mut p = PassProfile::new(0.0);
        for (f, t) in [(0.013, 0.13), (0.3, 3.0), (0.31, 3.1), (0.9, 9.0)] {
            p.record(f, t);
        }
        let shape = p.shape(10.0).expect("whole");
        for f in [0.1, 0.5, 0.95] {
            assert!((shape.time_share(f) - f).abs() < 1e-9, "{f}");
        }
    }

    #[test]
    fn a_pass_slowing_down_has_its_first_half_in_less_than_half_its_time() {
        // Its first half in 4 s, its second in 6 s.
        let mut p = PassProfile::new(0.0);
        p.record(0.25, 2.0);
        p.record(0.5, 4.0);
        p.record(0.75, 7.0);
        let shape = p.shape(10.0).expect("whole");
        assert!((shape.time_share(0.5) - 0.4).abs() < 1e-9);
        assert!((shape.time_share(0.25) - 0.2).abs() < 1e-9);
        assert!((shape.time_share(0.875) - 0.85).abs() < 1e-9);
        assert_eq!(shape.time_share(1.0), 1.0);
    }

    #[test]
    fn a_pass_not_seen_from_its_start_has_no_shape() {
        // Resumed at 40%: the marks before it were never reached here.
        let mut p = PassProfile::new(0.4);
        p.record(0.7, 3.0);
        assert!(p.shape(6.0).is_none());
        // Nor one that took no time.
        assert!(PassProfile::new(0.0).shape(0.0).is_none());
    }
}
