//! CPU-time clocks: what a phase cost in work, beside the wall time it took, so a report can
//! say how many cores a phase kept busy (a serial phase shows about one).

use std::time::{Duration, Instant};

/// CPU time of `clock` (`CLOCK_PROCESS_CPUTIME_ID`: every thread of this process;
/// `CLOCK_THREAD_CPUTIME_ID`: the calling thread), zero if it cannot be read.
pub fn cpu_time(clock: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec it is given.
    let ok = unsafe { libc::clock_gettime(clock, &mut ts) } == 0;
    if ok {
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    } else {
        Duration::ZERO
    }
}

/// CPU time of every thread of this process so far.
pub fn process_cpu() -> Duration {
    cpu_time(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// Wall and process CPU time since it was started.
#[derive(Debug, Clone, Copy)]
pub struct Stopwatch {
    wall: Instant,
    cpu: Duration,
}

/// What a [`Stopwatch`] measured.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    /// Wall-clock time elapsed.
    pub wall: Duration,
    /// CPU time of all the process's threads (other work of the process running at the same
    /// time, such as a tier compressed beside, counts too).
    pub cpu: Duration,
}

impl Spent {
    /// Cores kept busy on average (CPU time over wall time); 0 for no wall time.
    pub fn cores(&self) -> f64 {
        let w = self.wall.as_secs_f64();
        if w > 0.0 {
            self.cpu.as_secs_f64() / w
        } else {
            0.0
        }
    }
}

impl std::ops::AddAssign for Spent {
    fn add_assign(&mut self, o: Spent) {
        self.wall += o.wall;
        self.cpu += o.cpu;
    }
}

impl Stopwatch {
    /// Starts measuring now.
    pub fn start() -> Stopwatch {
        Stopwatch {
            wall: Instant::now(),
            cpu: process_cpu(),
        }
    }

    /// Wall-clock and CPU time since [`Stopwatch::start`].
    pub fn spent(&self) -> Spent {
        Spent {
            wall: self.wall.elapsed(),
            cpu: process_cpu().saturating_sub(self.cpu),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_thread_spends_cpu_and_cores_divide_it_by_wall_time() {
        let w = Stopwatch::start();
        let mut x = 0u64;
        while w.spent().wall < Duration::from_millis(30) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let s = w.spent();
        assert!(s.cpu > Duration::from_millis(5), "{s:?}");
        assert!(s.cores() > 0.1 && s.cores() < 64.0, "{s:?}");
        assert_eq!(Spent::default().cores(), 0.0);
    }
}
