//! The memory budget (`--mem`) and how a tier is cut into ranges that fit it.
//!
//! Everything a tier needs per position lives in range-sized windows: working cells (4 bytes),
//! predecessor offsets (4 bytes) and lists (4 bytes per edge), edges while predecessors are
//! built (8 bytes per edge), and a second copy of the cells while a checkpointed range is
//! copied before its first change. The planner estimates edges per position from a sample,
//! sizes the window so the busiest phase fits the budget after the reserve for lower tiers'
//! maps, the level messages and a fixed overhead, and rounds it down to a power of two.

use crate::game::InputError;

/// Bytes kept back for buffers, thread stacks, the allocator and the binary itself.
pub const FIXED_OVERHEAD: u64 = 96 << 20;

/// Smallest range worth planning for.
pub const MIN_RANGE_BITS: u32 = 10;
/// Largest range: messages carry a range-local index in 30 bits.
pub const MAX_RANGE_BITS: u32 = 30;

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

/// The default budget: half of physical memory (4 GiB when it cannot be read).
pub fn default_budget() -> u64 {
    physical_memory().map_or(4 << 30, |m| m / 2)
}

/// How one tier is cut into ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub range_bits: u32,
    pub ranges: u64,
    /// Bytes of level messages kept in memory before they spill to disk.
    pub message_budget: u64,
}

/// Chooses the largest power-of-two range whose windows fit `budget` after `lower_reserve`
/// bytes for lower tiers' maps, given about `edges_per_position` in-tier edges per position.
pub fn plan(
    states: u64,
    edges_per_position: f64,
    budget: u64,
    lower_reserve: u64,
) -> Result<Plan, String> {
    let e = edges_per_position.max(0.25);
    // Predecessor building holds 8 bytes per edge of the range plus 4 bytes per edge and
    // per position of the result; the attractor holds cells (twice while copying), offsets
    // and predecessor lists. Take the larger.
    let per_position = (4.0 + 12.0 * e).max(12.0 + 4.0 * e);
    let message_budget = (budget / 8).max(1 << 20);
    let usable = budget
        .saturating_sub(FIXED_OVERHEAD)
        .saturating_sub(lower_reserve)
        .saturating_sub(message_budget);
    let fit = (usable as f64 / per_position) as u64;
    let need = states.max(1).next_power_of_two();
    let mut bits = 63 - fit.max(1).leading_zeros();
    bits = bits.min(need.trailing_zeros()).min(MAX_RANGE_BITS);
    if (1u64 << bits) < states && bits < MIN_RANGE_BITS {
        let least = ((FIXED_OVERHEAD + lower_reserve + message_budget) as f64
            + per_position * (1u64 << MIN_RANGE_BITS) as f64) as u64
            / (1 << 20)
            + 1;
        let why = if usable == 0 {
            format!(
                "leaves no room beside the solver's buffers (about {} MiB)",
                FIXED_OVERHEAD >> 20
            )
        } else {
            format!("is too small for a tier of {states} positions")
        };
        return Err(format!(
            "the memory budget ({} MiB) {why}; give --mem at least {least} MiB",
            budget >> 20
        ));
    }
    let bits = bits.max(MIN_RANGE_BITS.min(need.trailing_zeros()));
    Ok(Plan {
        range_bits: bits,
        ranges: states.div_ceil(1u64 << bits).max(1),
        message_budget,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn plans_fit_the_budget() {
        let p = plan(155_117_520, 1.5, 1 << 30, 256 << 20).unwrap();
        assert!(p.ranges > 1);
        let per = (4.0f64 + 12.0 * 1.5).max(12.0 + 4.0 * 1.5);
        assert!(((1u64 << p.range_bits) as f64) * per <= (1u64 << 30) as f64);
        // A small tier in a large budget is one range.
        let p = plan(1000, 1.5, 1 << 30, 0).unwrap();
        assert_eq!(p.ranges, 1);
        assert!(plan(1 << 30, 1.5, 64 << 20, 0).is_err());
    }
}
