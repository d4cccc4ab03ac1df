//! `export`: one tier as CSV, on standard output or atomically into a file.

use std::path::PathBuf;

use clap::Args;

use bawo_db::{self, coverage::unfinished_note, Database};
use bawo_games::error::{Error, Result};

use super::args::usage;

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Database directory.
    #[arg(long)]
    pub db: PathBuf,
    /// Tier to export (for Bawo: the seeds on the board).
    #[arg(long)]
    pub tier: u32,
    /// Output format: csv.
    #[arg(long, default_value = "csv")]
    pub format: String,
    /// Write to FILE (atomically) instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub fn run(a: ExportArgs) -> Result<()> {
    bawo_db::export::ExportFormat::parse(&a.format)?;
    let db = Database::open(&a.db)?;
    if db.manifest().record(a.tier).is_none() {
        if let Some(note) =
            unfinished_note(&db).filter(|_| db.finishing().planned.contains(&a.tier))
        {
            return Err(usage(format!(
                "--tier {}: {note}; tier {} is not",
                a.tier, a.tier
            )));
        }
        return Err(usage(format!(
            "--tier {}: the database at {} holds tiers {}",
            a.tier,
            a.db.display(),
            db.manifest()
                .tiers
                .iter()
                .map(|r| r.tier.to_string())
                .collect::<Vec<_>>()
                .join(",")
        )));
    }
    super::open::warn_if_unfinished(&db);
    match &a.out {
        Some(path) => {
            let mut rows = 0;
            let mut failure = None;
            bawo_store::write_atomic(path, |w| {
                let mut w = w;
                match bawo_db::export::export_csv(&db, a.tier, &mut w) {
                    Ok(n) => {
                        rows = n;
                        Ok(())
                    }
                    // A failed write is reported by `write_atomic`, naming the file the
                    // user gave rather than the temporary file written first.
                    Err(Error::Io { source, .. }) => Err(source),
                    Err(e) => {
                        let msg = e.to_string();
                        failure = Some(e);
                        Err(std::io::Error::other(msg))
                    }
                }
            })
            .map_err(|e| failure.take().unwrap_or(e))?;
            errln!("{rows} rows written to {}", path.display());
            Ok(())
        }
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            match bawo_db::export::export_csv(&db, a.tier, &mut out) {
                Err(Error::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::BrokenPipe =>
                {
                    Ok(())
                }
                r => r.map(|_| ()),
            }
        }
    }
}
