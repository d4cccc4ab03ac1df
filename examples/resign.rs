//! Writes a fresh checksum into a hand-edited `manifest.json`, for `scripts/adversarial.sh`:
//! the manifest's checksum is an unkeyed hash that detects damage, not forgery, and the script
//! checks that what a forged manifest says is still refused.
//!
//!     cargo build --release --example resign
//!     target/release/examples/resign RUN_DIR
//!
//! The manifest is read with its keys in the order written and re-signed as the binary that
//! wrote it checks: the xxh3-64 of its compact JSON with the `checksum` field empty.

use bawo_db::manifest::Ordered;
use bawo_store::Checksum;

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: resign RUN_DIR");
        std::process::exit(2);
    };
    let path = std::path::Path::new(&dir).join("manifest.json");
    let fail = |what: String| -> ! {
        eprintln!("resign: {}: {what}", path.display());
        std::process::exit(1)
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(e.to_string()));
    let Ok(Ordered::Object(mut fields)) = serde_json::from_str::<Ordered>(&text) else {
        fail("not a JSON object".into())
    };
    let set = |fields: &mut Vec<(String, Ordered)>, value: String| match fields
        .iter_mut()
        .find(|(k, _)| k == "checksum")
    {
        Some((_, v)) => *v = Ordered::String(value),
        None => fields.push(("checksum".into(), Ordered::String(value))),
    };
    set(&mut fields, String::new());
    let compact = serde_json::to_string(&Ordered::Object(fields.clone())).expect("serializes");
    set(&mut fields, Checksum::of(compact.as_bytes()).to_string());
    let pretty = serde_json::to_string_pretty(&Ordered::Object(fields)).expect("serializes");
    std::fs::write(&path, pretty + "\n").unwrap_or_else(|e| fail(e.to_string()));
}
