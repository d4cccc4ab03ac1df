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

/// `586.3 M` style counts (positions); below a thousand the number itself.
pub fn human_count(n: u64) -> String {
    const UNITS: [&str; 5] = ["", " k", " M", " G", " T"];
    match scale(n as f64, UNITS.len() - 1) {
        (_, 0) => n.to_string(),
        (v, u) => format!("{v:.1}{}", UNITS[u]),
    }
}

/// `5,408,312`: a count with thousands separators, as tables print them.
pub fn separated(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `45s`, `2m 05s`, `1h 02m` style durations, to the second (hours and minutes beyond).
pub fn human_duration(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m {s:02}s"),
        (h, m, _) => format!("{h}h {m:02}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_durations_are_short() {
        assert_eq!(human_count(999), "999");
        assert_eq!(human_count(586_300_000), "586.3 M");
        assert_eq!(human_count(4_407_922_860), "4.4 G");
        let secs = std::time::Duration::from_secs;
        assert_eq!(human_duration(secs(45)), "45s");
        assert_eq!(human_duration(secs(125)), "2m 05s");
        assert_eq!(human_duration(secs(3720)), "1h 02m");
    }
}
