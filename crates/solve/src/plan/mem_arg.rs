//! The `--mem` argument: a size as people write it, checked against the machine's physical
//! memory, and the budget a run gets without one. Every command that takes `--mem` reads it
//! through [`parse_budget`].

use bawo_games::game::InputError;

/// Parses `1G`, `512M`, `1.5GiB`, `64k`, or a plain byte count.
pub fn parse_size(text: &str) -> Result<u64, InputError> {
    let t = text.trim();
    let bad = || {
        InputError::new(format!(
            "--mem '{text}' is not a size (examples: 1G, 512M, 1.5GiB, 1073741824)"
        ))
    };
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| bad())?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(bad()),
    };
    let bytes = value * mult as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// Physical memory in bytes (Linux `/proc/meminfo`), if it can be read.
pub fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Set (to anything) to allow a `--mem` above physical memory: for tests of plans larger
/// than the machine that runs them.
pub const ALLOW_ABOVE_PHYSICAL_ENV: &str = "BAWO_ALLOW_MEM_ABOVE_PHYSICAL";

/// Refuses a budget above `physical` bytes of memory: a plan for memory the machine lacks
/// would swap or be killed hours into a solve, rather than be refused at the start.
pub fn check_within_physical(budget: u64, physical: Option<u64>) -> Result<(), InputError> {
    match physical {
        Some(p) if budget > p => Err(InputError::new(format!(
            "--mem {} is more than this machine's physical memory ({}); give at most {} \
             (or set {ALLOW_ABOVE_PHYSICAL_ENV}=1 to plan for it anyway)",
            bawo_games::units::human_bytes(budget),
            bawo_games::units::human_bytes(p),
            bawo_games::units::human_bytes(p),
        ))),
        _ => Ok(()),
    }
}

/// The default budget: half of physical memory (4 GiB when it cannot be read).
pub fn default_budget() -> u64 {
    physical_memory().map_or(4 << 30, |m| m / 2)
}

/// A `--mem` value as a budget in bytes: parsed ([`parse_size`]) and, unless
/// [`ALLOW_ABOVE_PHYSICAL_ENV`] is set, refused above physical memory.
pub fn parse_budget(text: &str) -> Result<u64, InputError> {
    within_machine(parse_size(text)?)
}

/// A budget of `bytes`, refused where it is above this machine's physical memory (unless
/// [`ALLOW_ABOVE_PHYSICAL_ENV`] is set): a given one ([`parse_budget`]) or one a run
/// recorded.
pub fn within_machine(bytes: u64) -> Result<u64, InputError> {
    if std::env::var_os(ALLOW_ABOVE_PHYSICAL_ENV).is_none() {
        check_within_physical(bytes, physical_memory())?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_above_physical_memory_is_refused() {
        let gb = 1u64 << 30;
        let e = check_within_physical(1 << 40, Some(24 * gb)).unwrap_err();
        assert!(e.0.contains("physical memory (25.8 GB)"), "{e}");
        assert!(check_within_physical(24 * gb, Some(24 * gb)).is_ok());
        assert!(check_within_physical(1 << 40, None).is_ok());
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        assert_eq!(parse_size("512M").unwrap(), 512 << 20);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("64k").unwrap(), 64 << 10);
        assert_eq!(parse_size("1000").unwrap(), 1000);
        for bad in ["", "G", "1X", "-1G", "0"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
