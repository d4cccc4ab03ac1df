//! Brent's cycle finding, for sowings that may never end.
//!
//! A relay sowing is a deterministic walk through lap-start states (the pits it can reach,
//! where the hand is, how many seeds it holds): once a state repeats, the walk repeats
//! forever. Each game feeds its lap-start states to one [`Brent`] watch, which keeps a single
//! saved state, replaced at power-of-two steps, and compares each new state with it. A walk
//! that enters a cycle is caught as soon as the saved state lies on the cycle and the power
//! exceeds the period, so detection is exact wherever the watch starts; games start it only
//! after many laps, so ordinary moves never pay for it.

/// One move's cycle watch over states of type `S`.
#[derive(Debug)]
pub struct Brent<S> {
    /// The saved state and the time (laps or drops) it was seen at.
    saved: Option<(S, u64)>,
    power: u64,
    steps: u64,
}

impl<S> Default for Brent<S> {
    fn default() -> Self {
        Brent {
            saved: None,
            power: 0,
            steps: 0,
        }
    }
}

impl<S: PartialEq + Clone> Brent<S> {
    /// Records lap-start state `state` seen at time `time` (any measure that grows along the
    /// walk). Returns the period, in that measure, when `state` equals the saved one.
    #[inline]
    pub fn observe(&mut self, state: &S, time: u64) -> Option<u64> {
        if let Some((s, t)) = &self.saved {
            if s == state {
                return Some(time - t);
            }
        }
        self.steps += 1;
        if self.saved.is_none() || self.steps >= self.power {
            self.saved = Some((state.clone(), time));
            self.power = (self.power * 2).max(1);
            self.steps = 0;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_period_of_an_eventually_periodic_walk() {
        // 0, 1, 2, then 3, 4, 5, 6, 7 repeating: period 5.
        let step = |x: u32| if x < 7 { x + 1 } else { 3 };
        let mut watch = Brent::default();
        let mut x = 0;
        let mut found = None;
        for t in 0..100 {
            if let Some(p) = watch.observe(&x, t) {
                found = Some(p);
                break;
            }
            x = step(x);
        }
        assert_eq!(found, Some(5));
    }

    #[test]
    fn a_walk_without_repeats_is_never_flagged() {
        let mut watch = Brent::default();
        assert!((0..1000u32).all(|x| watch.observe(&x, x as u64).is_none()));
    }
}
