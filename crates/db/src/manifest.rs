//! A database directory's manifest as the database layer reads it: the game descriptor, the
//! seed budget, every finished tier's counts and files. The solver's checkpoint of a tier in
//! progress is kept as written ([`Unfinished`]): readers only need to know there is one.

use std::fmt;
use std::path::PathBuf;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::counts::TierCounts;
pub use bawo_store::manifest::{FileRecord, FILE, FORMAT};

/// The manifest of a database: finished tiers with their counts and files.
pub type Manifest = bawo_store::manifest::Manifest<TierCounts, Unfinished>;

/// One finished tier of a [`Manifest`].
pub type TierRecord = bawo_store::manifest::TierRecord<TierCounts>;

/// The solver's checkpoint of the tier in progress, kept as written: a database reader never
/// looks inside it, and nothing in it names a file the reader opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Unfinished(Ordered);

impl bawo_store::manifest::Checkpoint for Unfinished {
    fn work_dir_mut(&mut self) -> Option<&mut PathBuf> {
        None
    }
}

/// A JSON value that keeps its objects' keys in the order they were read. The manifest's
/// checksum is over its serialization, and the solver writes a checkpoint's fields in the
/// order of its own types; `serde_json::Value` sorts keys, so a checkpoint read through it
/// would serialize differently and every run stopped inside a tier would read as damaged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ordered {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json holds it (so it is written back the same).
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Ordered>),
    /// An object, its keys in the order read.
    Object(Vec<(String, Ordered)>),
}

impl Serialize for Ordered {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Ordered::Null => s.serialize_unit(),
            Ordered::Bool(b) => s.serialize_bool(*b),
            Ordered::Number(n) => n.serialize(s),
            Ordered::String(t) => s.serialize_str(t),
            Ordered::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(i)?;
                }
                seq.end()
            }
            Ordered::Object(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ordered, D::Error> {
        d.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = Ordered;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Ordered, E> {
        Ok(Ordered::Null)
    }

    fn visit_none<E>(self) -> Result<Ordered, E> {
        Ok(Ordered::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Ordered, D::Error> {
        Ordered::deserialize(d)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Ordered, E> {
        Ok(Ordered::Bool(b))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Ordered, E> {
        Ok(Ordered::Number(n.into()))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Ordered, E> {
        Ok(Ordered::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Ordered, E> {
        serde_json::Number::from_f64(x)
            .map(Ordered::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }

    fn visit_str<E>(self, t: &str) -> Result<Ordered, E> {
        Ok(Ordered::String(t.to_string()))
    }

    fn visit_string<E>(self, t: String) -> Result<Ordered, E> {
        Ok(Ordered::String(t))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
        let mut items = Vec::new();
        while let Some(i) = seq.next_element()? {
            items.push(i);
        }
        Ok(Ordered::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry()? {
            entries.push((k, v));
        }
        Ok(Ordered::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_is_written_back_as_it_was_read() {
        let text = r#"{"tier":9,"states":5,"zeta":{"b":1,"a":[2,-3,0.25,null,true]},"alpha":"w"}"#;
        let u: Unfinished = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&u).unwrap(), text);
    }
}
