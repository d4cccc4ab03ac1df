//! The checksum a JSON file carries of itself (the manifest, the ledger), checked on the text
//! as written.
//!
//! Such a file is written pretty-printed with its last top-level field `"checksum"`, whose
//! value is the checksum of the compact form of the same object with that value empty. It is
//! checked on the text read, not on the text this version would write from what it parsed:
//! a later version that adds a field (with a default) must still read what an earlier version
//! wrote, which re-serializing would change.

use super::checksum::Checksum;

/// The key of the checksum field, last in the compact text, with its opening quote.
const TAIL_KEY: &str = "\"checksum\":\"";

/// `text` (a JSON object whose last field is `"checksum": ""`) with that field's value set to
/// the checksum of its compact form, and that checksum; `None` when its last field is not an
/// empty checksum.
pub fn seal(text: &str) -> Option<(String, Checksum)> {
    let compact = compact(text);
    if !compact.ends_with("\"checksum\":\"\"}") {
        return None;
    }
    let sum = Checksum::of(compact.as_bytes());
    // Nothing but whitespace and the closing brace follows the empty value.
    let at = text.rfind("\"\"")?;
    Some((format!("{}\"{sum}\"{}", &text[..at], &text[at + 2..]), sum))
}

/// Whether `text`, a file as read, carries the checksum of its own content: its compact form
/// (whitespace outside strings removed) ends with the checksum field, and the checksum of
/// that form with the field's value emptied is the value written.
pub fn text_matches(text: &str) -> bool {
    let compact = compact(text);
    let Some(body) = compact.strip_suffix("\"}") else {
        return false;
    };
    let Some(at) = body.rfind(TAIL_KEY) else {
        return false;
    };
    let Ok(sum) = body[at + TAIL_KEY.len()..].parse::<Checksum>() else {
        return false;
    };
    let mut emptied = String::with_capacity(compact.len());
    emptied.push_str(&body[..at + TAIL_KEY.len()]);
    emptied.push_str("\"}");
    Checksum::of(emptied.as_bytes()) == sum
}

/// `text` without the whitespace outside strings: serde_json's compact form of the value its
/// pretty form prints.
fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if !matches!(c, ' ' | '\n' | '\r' | '\t') {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[derive(Serialize, Clone)]
    struct Doc {
        name: String,
        nested: Vec<Inner>,
        checksum: String,
    }

    #[derive(Serialize, Clone)]
    struct Inner {
        n: u64,
        checksum: String,
    }

    fn written(doc: &Doc) -> String {
        seal(&(serde_json::to_string_pretty(doc).unwrap() + "\n"))
            .unwrap()
            .0
    }

    fn doc() -> Doc {
        Doc {
            name: "a \"quoted\" name with spaces,\n a \\ and a tab\t".into(),
            nested: vec![Inner {
                n: 7,
                checksum: "0123456789abcdef".into(),
            }],
            checksum: String::new(),
        }
    }

    #[test]
    fn a_written_file_matches_and_any_change_of_content_does_not() {
        let text = written(&doc());
        assert!(text_matches(&text));
        // Whitespace outside strings is layout, not content.
        assert!(text_matches(&text.replace("\n", "\r\n")));
        for (from, to) in [
            ("\"n\": 7", "\"n\": 8"),
            ("spaces", "space "),
            ("0123456789abcdef", "0123456789abcdee"),
        ] {
            assert!(text.contains(from));
            assert!(!text_matches(&text.replacen(from, to, 1)), "{from} -> {to}");
        }
        // The checksum itself damaged, cut off, or missing.
        let at = text.rfind("\"checksum\"").unwrap();
        let mut damaged = text.clone();
        damaged.replace_range(at + 13..at + 14, "g");
        assert!(!text_matches(&damaged));
        assert!(!text_matches(&text[..text.len() - 4]));
        assert!(!text_matches(&text[..at]));
        assert!(!text_matches(""));
        // Only a text whose last field is an empty checksum is sealed.
        assert_eq!(seal(&text), None);
        assert_eq!(seal("{\"checksum\": \"\", \"name\": \"\"}"), None);
        assert_eq!(seal(""), None);
    }
}
