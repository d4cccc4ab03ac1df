//! Flags several commands share, and the helpers they use to act on them.

use clap::Args;

use bawo_games::error::{Error, InputError, Result};
pub use bawo_games::game::input::short;
use bawo_games::game::{AnyGame, Game, GameParams, MoveOutcome, PositionSpec, Side};

/// The game and its parameters. The command line interprets none of them: they are handed
/// to the game as `key=value` pairs (see [`GameParams`]).
#[derive(Args, Debug, Clone)]
pub struct GameArgs {
    /// Game: bawo, kigogo or bao [default: bawo].
    #[arg(long)]
    pub game: Option<String>,
    /// Bawo half-width n (4n pits), 1..=8 [default: 3, or a --board's pit count / 4].
    #[arg(long)]
    pub n: Option<String>,
    /// Bawo lap cap L: single drops per move before the rest of the hand is discarded
    /// [default: 64].
    #[arg(long = "lap-cap")]
    pub lap_cap: Option<String>,
    /// A game parameter as KEY=VALUE (repeatable); --n and --lap-cap are short for
    /// --param n=... and --param lap-cap=....
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub param: Vec<String>,
    /// Rule options, comma-separated, e.g. kichwa=relay,capture=occupied (bawo) or
    /// never-ending=loss (kigogo, bao).
    #[arg(long)]
    pub rules: Option<String>,
}

impl GameArgs {
    /// Whether `--game` was given (not defaulted).
    pub fn game_given(&self) -> bool {
        self.game.is_some()
    }

    /// The parameters as given; `board` is the board text a position command will parse.
    pub fn params(&self, board: Option<&str>) -> Result<GameParams> {
        let mut p = GameParams::named(self.game.as_deref().unwrap_or("bawo"));
        for (key, value) in [("n", &self.n), ("lap-cap", &self.lap_cap)] {
            if let Some(v) = value {
                p.add_pair(&format!("{key}={v}"))?;
            }
        }
        for pair in &self.param {
            p.add_pair(pair)?;
        }
        p.rules = self.rules.clone();
        p.board = board.map(str::to_string);
        Ok(p)
    }

    /// The game these flags select, its size inferred from `board` where the game can.
    pub fn build(&self, board: Option<&str>) -> Result<AnyGame> {
        Ok(AnyGame::from_params(&self.params(board)?)?)
    }
}

/// A position: a typed board or the game's opening, then moves played from it.
#[derive(Args, Debug, Clone)]
pub struct PositionArgs {
    /// Pit counts in the game's pit order, comma-separated ('/' may separate rows).
    #[arg(long, required_unless_present = "start")]
    pub board: Option<String>,
    /// Side to move: A or B (South is A in Kigogo and Bao).
    #[arg(long = "to-move", default_value = "A")]
    pub to_move: String,
    /// Use the game's opening position instead of --board.
    #[arg(long, conflicts_with_all = ["board", "hands", "houses", "to_move"])]
    pub start: bool,
    /// Seeds in hand, A's then B's: a,b (Bao only; default: empty hands).
    #[arg(long)]
    pub hands: Option<String>,
    /// Players whose house still stands: A, B, A,B or none (Bao only; default: none).
    #[arg(long)]
    pub houses: Option<String>,
    /// Play these moves first, in the game's notation, comma-separated (e.g. "a6<, a7>").
    #[arg(long)]
    pub after: Option<String>,
}

impl PositionArgs {
    /// The position these flags describe in game `g`.
    pub fn position<G: Game>(&self, g: &G) -> Result<G::Position> {
        let mut pos = if self.start {
            g.start_position().ok_or_else(|| {
                usage(format!(
                    "{} has no standard opening position; give --board",
                    g.name()
                ))
            })?
        } else {
            let spec = PositionSpec {
                board: self.board.clone().unwrap_or_default(),
                to_move: Side::parse(&self.to_move)?,
                hands: self.hands.clone(),
                houses: self.houses.clone(),
            };
            g.parse_position(&spec)?
        };
        for text in self.after.iter().flat_map(|a| a.split(',')) {
            let m = g.find_move(&pos, text)?;
            pos = match m.outcome {
                MoveOutcome::Position(q) => q,
                MoveOutcome::MoverLoses => {
                    return Err(usage(format!(
                        "--after: {} loses at once for the mover; no position follows",
                        m.label
                    )))
                }
            };
        }
        Ok(pos)
    }
}

/// A usage error (exit code 2) with message `msg`.
pub fn usage(msg: impl Into<String>) -> Error {
    Error::Input(InputError::new(msg))
}

/// Most worker threads per core `--threads` accepts.
const MAX_THREADS_PER_CORE: usize = 4;

/// Worker threads `--threads` asks for, or one per core.
pub fn threads_of(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs `f` on a pool of `threads` workers (all cores when `None`).
pub fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    if threads == Some(0) {
        return Err(usage("--threads must be at least 1"));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if let Some(t) = threads.filter(|&t| t > MAX_THREADS_PER_CORE * cores) {
        return Err(usage(format!(
            "--threads {t} is more than {MAX_THREADS_PER_CORE} per core ({cores} cores here); \
             more threads only slow the work down"
        )));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::Internal(format!("cannot start worker threads: {e}")))?;
    Ok(pool.install(f))
}

/// Prints `value` as one line of JSON on standard output (a closed pipe ends quietly).
pub fn print_json<T: serde::Serialize>(value: &T) {
    match serde_json::to_string(value) {
        Ok(line) => outln!("{line}"),
        Err(e) => errln!("bawo: internal error: cannot encode JSON: {e}"),
    }
}
