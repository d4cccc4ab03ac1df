//! Sizes and rates for people: `1.5 MB`, `2.35 M/s`. At the bottom layer so that the solver's
//! messages (e.g. the memory plan's) and the progress bars print numbers the same way.

/// `v` divided by 1000 until it is below 1000 (at most `steps` times), with the number of
/// divisions: the index of the unit to print.
fn scale(v: f64, steps: usize) -> (f64, usize) {
    let mut v = v;
    let mut u = 0;
    while v >= 1000.0 && u < steps {
        v /= 1000.0;
        u += 1;
    }
    (v, u)
}

/// `1.5 MB` style sizes.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    match scale(b as f64, UNITS.len() - 1) {
        (_, 0) => format!("{b} B"),
        (v, u) => format!("{v:.1} {}", UNITS[u]),
    }
}

/// `2.35 M/s` style rates (indicatif's `{per_sec}` prints `2,348,672.121/s`).
pub fn human_rate(per_sec: f64) -> String {
    const UNITS: [&str; 4] = ["", " k", " M", " G"];
    match scale(per_sec.max(0.0), UNITS.len() - 1) {
        (v, 0) => format!("{v:.0}/s"),
        (v, u) => format!("{v:.2}{}/s", UNITS[u]),
    }
}
