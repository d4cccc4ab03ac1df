//! Saying on standard error that a database is a run stopped part-way: an unfinished run must
//! never pass for a finished database. Commands call it once their input is accepted, so that
//! a refusal stays one line.

use std::io::Write;

use bawo_db::{coverage::unfinished_note, Database};

/// For an unfinished run, prints which of its tiers are finished.
pub fn warn_if_unfinished(db: &Database) {
    if let Some(note) = unfinished_note(db) {
        // A failed write to stderr must not stop the command.
        let _ = writeln!(
            std::io::stderr(),
            "bawo: warning: {note}; only positions of finished tiers have values"
        );
    }
}
