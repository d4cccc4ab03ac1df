//! `play`: a game against perfect play in the terminal.

use std::path::PathBuf;

use clap::Args;

use bawo_db::{self, coverage::ensure_covered, Database};
use bawo_games::error::Result;
use bawo_games::game::{Game, Side};
use bawo_games::with_game;

use super::args::{short, usage, PositionArgs};

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Database directory.
    #[arg(long)]
    pub db: PathBuf,
    /// Pit counts of the start position [default: the game's opening if the database holds
    /// it, else a random position of the largest tier, see --seed].
    #[arg(long)]
    pub board: Option<String>,
    /// Side to move in --board: A or B.
    #[arg(long = "to-move", default_value = "A", requires = "board")]
    pub to_move: String,
    /// Start from the game's opening position.
    #[arg(long, conflicts_with = "board")]
    pub start: bool,
    /// Seed of the random start position [default: the clock].
    #[arg(long)]
    pub seed: Option<u64>,
    /// The side you play [default: the side to move at the start].
    #[arg(long = "as", value_name = "SIDE")]
    pub human: Option<String>,
    /// Show every legal move's value on your turns.
    #[arg(long)]
    pub hints: bool,
    /// Play these moves from --board or --start before the game begins, comma-separated.
    #[arg(long)]
    pub after: Option<String>,
}

pub fn run(a: PlayArgs) -> Result<()> {
    let db = Database::open(&a.db)?;
    with_game!(db.game(), g => {
        let start = if a.board.is_some() || a.start {
            PositionArgs {
                board: a.board.clone(),
                to_move: a.to_move.clone(),
                start: a.start,
                hands: None,
                houses: None,
                after: a.after.clone(),
            }
            .position(g)?
        } else if a.after.is_some() {
            return Err(usage(
                "--after needs the position it starts from: give --board or --start",
            ));
        } else {
            let seed = a.seed.unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(0)
            });
            let p = bawo_db::play::default_position(&db, g, seed)?;
            let board: Vec<String> = g.board_counts(&p).iter().map(u32::to_string).collect();
            outln!(
                "start: --board {} --to-move {} (random position of the largest tier, --seed {seed})",
                board.join(","),
                g.side_to_move(&p).letter()
            );
            p
        };
        ensure_covered(&db, g, &start, &a.db)?;
        super::open::warn_if_unfinished(&db);
        let human = match &a.human {
            Some(s) => Side::parse(s)
                .map_err(|_| usage(format!("--as must be A or B, not '{}'", short(s))))?,
            None => g.side_to_move(&start),
        };
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut out = std::io::stdout().lock();
        let (end, plies) = bawo_db::play::play(&db, g, start, human, a.hints, &mut input, &mut out)?;
        match end {
            bawo_db::play::PlayEnd::Finished { loser } => outln!(
                "game over after {plies} plies: {} wins{}",
                loser.other().letter(),
                if loser == human { " (the engine)" } else { " (you)" }
            ),
            bawo_db::play::PlayEnd::Quit => outln!("quit after {plies} plies"),
        }
        Ok(())
    })
}
