//! The checksum every file of a run carries: xxh3-64, written in manifests as 16 hex digits.
//!
//! One type instead of hex strings, so checksums are compared as numbers and a malformed one
//! in a manifest is refused when the manifest is read.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An xxh3-64 digest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Checksum(pub u64);

impl Checksum {
    /// The checksum of `bytes`.
    pub fn of(bytes: &[u8]) -> Checksum {
        Checksum(xxhash_rust::xxh3::xxh3_64(bytes))
    }
}

/// A checksum computed piece by piece.
#[derive(Default)]
pub struct Hasher(xxhash_rust::xxh3::Xxh3);

impl Hasher {
    /// A hasher over no bytes yet.
    pub fn new() -> Hasher {
        Hasher::default()
    }

    /// Adds `bytes` to the checksum.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The checksum of the bytes added so far.
    pub fn finish(&self) -> Checksum {
        Checksum(self.0.digest())
    }
}

impl fmt::Display for Checksum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// The refusal of `s` as a checksum, echoing it shortened to one line.
fn not_hex(s: &str) -> String {
    format!(
        "checksum '{}' is not 16 hex digits",
        bawo_games::game::input::short(s)
    )
}

impl FromStr for Checksum {
    type Err = String;

    fn from_str(s: &str) -> Result<Checksum, String> {
        if s.len() != 16 {
            return Err(not_hex(s));
        }
        u64::from_str_radix(s, 16)
            .map(Checksum)
            .map_err(|_| not_hex(s))
    }
}

impl Serialize for Checksum {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Checksum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Checksum, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::Checksum;

    #[test]
    fn checksums_round_trip_as_hex() {
        let c = Checksum::of(b"bawo");
        let text = serde_json::to_string(&c).unwrap();
        assert_eq!(text, format!("\"{:016x}\"", c.0));
        assert_eq!(serde_json::from_str::<Checksum>(&text).unwrap(), c);
        for bad in ["\"\"", "\"12\"", "\"zzzzzzzzzzzzzzzz\"", "7"] {
            assert!(serde_json::from_str::<Checksum>(bad).is_err(), "{bad}");
        }
    }
}
