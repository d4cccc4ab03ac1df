//! The fuzz targets' committed corpora (`tests/fuzz-corpus/<target>/`: a minimized corpus and
//! every input that once crashed, named `crash-*`), run through the same functions the fuzz
//! targets call (`fuzz/src/lib.rs`, included here as a module). Nothing may panic, and an
//! input that once crashed must now be refused with an error. The committed database, which
//! the corpora were seeded with, must be accepted.

#[path = "../../fuzz/src/lib.rs"]
mod harness;

use std::path::{Path, PathBuf};

use harness::Verdict;

/// Every file of target `target`'s corpus, by name.
fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-corpus")
        .join(target);
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} holds no corpus", dir.display());
    files
}

/// Runs every corpus file of `target` through `body`, then names every file that panicked or,
/// being a former crash, was accepted.
fn run(target: &str, body: fn(&[u8]) -> Verdict) {
    let mut failed = Vec::new();
    let files = corpus(target);
    for (name, data) in &files {
        match std::panic::catch_unwind(|| body(data)) {
            Err(_) => failed.push(format!("{name}: panicked")),
            Ok(Ok(())) if name.starts_with("crash-") => {
                failed.push(format!("{name}: accepted, but it is damaged"))
            }
            Ok(_) => {}
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} {target} corpus files failed:\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
}

#[test]
fn fuzz_corpus_parse_position() {
    run("parse_position", harness::parse_position);
}

#[test]
fn fuzz_corpus_manifest() {
    run("manifest", harness::manifest);
}

#[test]
fn fuzz_corpus_bdb_header() {
    run("bdb_header", harness::bdb_header);
}

#[test]
fn fuzz_corpus_bdb_block() {
    run("bdb_block", harness::bdb_block);
}

/// The committed database's files and a few positions, as the fuzz targets read them: the
/// harness accepts what is valid, so the corpora test more than refusals.
#[test]
fn fuzz_targets_accept_valid_input() {
    let db = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/bawo-n2-s6");
    let manifest = std::fs::read(db.join("manifest.json")).unwrap();
    assert_eq!(harness::manifest(&manifest), Ok(()));
    for tier in 0..=6 {
        let file = std::fs::read(db.join(format!("tier-{tier:04}.bdb"))).unwrap();
        assert_eq!(harness::bdb_header(&file), Ok(()), "tier {tier}");
        assert_eq!(harness::bdb_block(&file), Ok(()), "tier {tier}");
    }
    for text in [
        "bawo\n\n0,0,2,2,0,0,0,2\nA",
        "bawo n=2 lap-cap=16\n\n0,0,2,2,2,2,0,0\nA\n\n\n2,4",
        "bawo n=3\nkichwa=relay,capture=occupied\n2,1,3,0,2,1,1,2,0,1,2,1\nB",
        "kigogo\nnever-ending=loss\n0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,2,0/\
         0,0,0,0,0,0,0,0,0,0,1,0/0,0,0,0,0,0,0,0,0,0,0,3\nA",
        "bao\n\n0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0\nA\n22,22\nA,B\na6<,a5>",
    ] {
        assert_eq!(harness::parse_position(text.as_bytes()), Ok(()), "{text:?}");
    }
}
