//! Subcommands: flag definitions (which also feed `--help`) and what each one prints.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use rayon::prelude::*;

use bawo::db::{self, Database};
use bawo::error::{Error, Result};
use bawo::game::{AnyGame, Game, GameParams, MoveOutcome, PositionSpec, Side};
use bawo::progress::{human_bytes, Reporter};
use bawo::solve::reach::reach;
use bawo::solve::run::{solve, SolveConfig, Summary};
use bawo::solve::TierOptions;
use bawo::with_game;

#[derive(Parser, Debug)]
#[command(
    name = "bawo",
    version,
    about = "Parallel retrograde analysis of four-row mancala games",
    long_about = "Solves Generalized Bawo (and related four-row mancala games) completely: \
                  WIN, LOSS or DRAW with depth for every position within a seed budget."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Solve every position with at most --seeds seeds on the board, tier by tier.
    Solve(SolveArgs),
    /// Solve only the positions reachable from one start position.
    Reach(ReachArgs),
    /// Value and depth of one position in a database, with every legal move.
    Query(QueryArgs),
    /// The legal moves of a position and where each leads.
    Moves(MovesArgs),
    /// Benchmark: generate every position's successors once, nothing else.
    #[command(hide = true)]
    BenchPass(BenchPassArgs),
}

#[derive(Args, Debug, Clone)]
pub struct GameArgs {
    /// Game: bawo or bao.
    #[arg(long, default_value = "bawo")]
    pub game: String,
    /// Bawo half-width n (4n pits), 1..=8.
    #[arg(long)]
    pub n: Option<u32>,
    /// Bawo lap cap L: single drops per move before the rest of the hand is discarded.
    #[arg(long = "lap-cap")]
    pub lap_cap: Option<u64>,
    /// Rule options, comma-separated, e.g. kichwa=relay,capture=occupied.
    #[arg(long)]
    pub rules: Option<String>,
}

impl GameArgs {
    fn params(&self) -> GameParams {
        GameParams {
            game: self.game.clone(),
            n: self.n,
            lap_cap: self.lap_cap,
            rules: self.rules.clone(),
        }
    }

    fn build(&self) -> Result<AnyGame> {
        Ok(AnyGame::from_params(&self.params())?)
    }
}

#[derive(Args, Debug, Clone)]
pub struct PositionArgs {
    /// Pit counts in the game's pit order, comma-separated ('/' may separate rows).
    #[arg(long, required_unless_present = "start")]
    pub board: Option<String>,
    /// Side to move: A or B (South is A in Kigogo and Bao).
    #[arg(long = "to-move", default_value = "A")]
    pub to_move: String,
    /// Use the game's opening position instead of --board.
    #[arg(long, conflicts_with_all = ["board", "hands", "houses"])]
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
    fn position<G: Game>(&self, g: &G) -> Result<G::Position> {
        let mut pos = if self.start {
            g.start_position().ok_or_else(|| {
                Error::Input(bawo::game::InputError::new(format!(
                    "{} has no standard opening position; give --board",
                    g.name()
                )))
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
                    return Err(Error::Input(bawo::game::InputError::new(format!(
                        "--after: {} loses at once for the mover; no position follows",
                        m.label
                    ))))
                }
            };
        }
        Ok(pos)
    }
}

#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Solve every position with at most this many seeds on the board [default: 12 for bawo;
    /// bao: exactly this many, default 5].
    #[arg(long)]
    pub seeds: Option<u32>,
    /// Run directory for the tables [default: bawo-db/<game>-<parameters>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Worker threads [default: one per core].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// No progress bars or log lines.
    #[arg(long, short)]
    pub quiet: bool,
    /// Solve again even if --out already holds this finished solve.
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct ReachArgs {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub position: PositionArgs,
    /// Refuse to explore more positions than this.
    #[arg(long = "max-states", default_value_t = 50_000_000)]
    pub max_states: usize,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct QueryArgs {
    /// Database directory (the --out of a solve).
    #[arg(long)]
    pub db: PathBuf,
    #[command(flatten)]
    pub position: PositionArgs,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct MovesArgs {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub position: PositionArgs,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct BenchPassArgs {
    #[command(flatten)]
    pub game: GameArgs,
    #[arg(long)]
    pub seeds: u32,
    #[arg(long)]
    pub threads: Option<usize>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Solve(a) => cmd_solve(a),
        Command::Reach(a) => cmd_reach(a),
        Command::Query(a) => cmd_query(a),
        Command::Moves(a) => cmd_moves(a),
        Command::BenchPass(a) => cmd_bench_pass(a),
    }
}

/// Runs `f` on a pool of `threads` workers (all cores when `None`).
fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    if threads == Some(0) {
        return Err(Error::Input(bawo::game::InputError::new(
            "--threads must be at least 1",
        )));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::Internal(format!("cannot start worker threads: {e}")))?;
    Ok(pool.install(f))
}

fn print_json<T: serde::Serialize>(value: &T) {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value).expect("stdout");
    writeln!(out).expect("stdout");
}

/// The default run directory: `bawo-db/<descriptor as a file name>-s<seeds>`.
fn default_out(descriptor: &str, seeds: u32) -> PathBuf {
    let slug: String = descriptor
        .split_whitespace()
        .map(|w| w.replace('=', ""))
        .collect::<Vec<_>>()
        .join("-");
    PathBuf::from("bawo-db").join(format!("{slug}-s{seeds}"))
}

fn cmd_solve(a: SolveArgs) -> Result<()> {
    let mut params = a.game.params();
    if params.game == "bawo" {
        // The defaults of the README's first command: a small instance solved in seconds.
        params.n.get_or_insert(3);
        params.lap_cap.get_or_insert(64);
    }
    let game = AnyGame::from_params(&params)?;
    let seeds = a.seeds.unwrap_or(if params.game == "bao" { 5 } else { 12 });
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| default_out(&game.descriptor(), seeds));
    let cfg = SolveConfig {
        seeds,
        out: out.clone(),
        tier: TierOptions::default(),
        force: a.force,
    };
    let reporter = Reporter::new(a.quiet);
    let report = with_threads(
        a.threads,
        || with_game!(&game, g => solve(g, &cfg, &reporter)),
    )??;
    reporter.finish();
    if a.json {
        print_json(&report.summary);
        return Ok(());
    }
    if report.already_done {
        eprintln!(
            "{} already holds this solve (use --force to solve again)",
            out.display()
        );
    }
    print_summary(&game.descriptor(), &report.summary);
    if !report.already_done {
        println!(
            "solved in {:.2}s ({:.2} M positions/s), {} written to {}",
            report.wall.as_secs_f64(),
            report.summary.states as f64 / report.wall.as_secs_f64() / 1e6,
            human_bytes(report.bytes_written),
            out.display()
        );
    }
    Ok(())
}

fn print_summary(descriptor: &str, s: &Summary) {
    println!("{descriptor}");
    println!(
        "{:>6} {:>14} {:>14} {:>14} {:>14} {:>9}",
        "seeds", "positions", "win", "loss", "draw", "max depth"
    );
    for t in &s.tiers {
        println!(
            "{:>6} {:>14} {:>14} {:>14} {:>14} {:>9}",
            t.seeds, t.states, t.win, t.loss, t.draw, t.max_depth
        );
    }
    println!(
        "{:>6} {:>14} {:>14} {:>14} {:>14} {:>9}",
        "all", s.states, s.win, s.loss, s.draw, s.max_depth
    );
}

fn cmd_reach(a: ReachArgs) -> Result<()> {
    let game = a.game.build()?;
    with_game!(&game, g => {
        let start = a.position.position(g)?;
        let r = reach(g, start, a.max_states)?;
        if a.json {
            print_json(&r.summary);
        } else {
            let s = &r.summary;
            println!("{}", g.descriptor());
            println!("reachable positions: {}", s.states);
            println!("from A's point of view: win {}  loss {}  draw {}", s.win, s.loss, s.draw);
            match s.initial_depth {
                Some(d) => println!("start: {} for A in {d} plies", s.initial),
                None => println!("start: {} for A", s.initial),
            }
        }
        Ok(())
    })
}

fn cmd_query(a: QueryArgs) -> Result<()> {
    let db = Database::open(&a.db)?;
    with_game!(db.game(), g => {
        let pos = a.position.position(g)?;
        let seeds: u32 = g.board_counts(&pos).iter().sum();
        let (tier, _) = g.locate(&pos)?;
        if db.manifest().record(tier).is_none() {
            let held: Vec<String> = db.manifest().tiers.iter().map(|r| r.tier.to_string()).collect();
            return Err(Error::Input(bawo::game::InputError::new(format!(
                "the board holds {seeds} seeds; the database at {} holds tiers of {} seeds",
                a.db.display(),
                held.join(",")
            ))));
        }
        let ans = db::query(&db, g, &pos)?;
        if a.json {
            print_json(&ans);
        } else {
            println!("{}", g.render(&pos));
            match ans.depth {
                Some(d) => println!("{} for the side to move in {d} plies", ans.value),
                None => println!("{} for the side to move", ans.value),
            }
            if ans.moves.is_empty() {
                println!("no legal move");
            }
            for m in &ans.moves {
                match m.depth {
                    Some(d) => println!("  move {:>6}: {} in {d}", m.label, m.value),
                    None => println!("  move {:>6}: {}", m.label, m.value),
                }
            }
        }
        Ok(())
    })
}

#[derive(serde::Serialize)]
struct MoveJson {
    #[serde(rename = "move")]
    label: String,
    board: Vec<u32>,
    to_move: &'static str,
    captured: u32,
    discarded: u32,
    /// Set when playing the move loses at once (no board follows).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    mover_loses: bool,
    /// Game-specific fields of the resulting position (Bao: hands, houses).
    #[serde(flatten)]
    extra: serde_json::Map<String, serde_json::Value>,
}

#[derive(serde::Serialize)]
struct MovesJson {
    moves: Vec<MoveJson>,
}

fn cmd_moves(a: MovesArgs) -> Result<()> {
    let game = a.game.build()?;
    with_game!(&game, g => {
        let pos = a.position.position(g)?;
        let moves = g.moves(&pos);
        let list: Vec<MoveJson> = moves
            .iter()
            .map(|m| match &m.outcome {
                MoveOutcome::Position(q) => MoveJson {
                    label: m.label.clone(),
                    board: g.board_counts(q),
                    to_move: g.side_to_move(q).letter(),
                    captured: m.captured,
                    discarded: m.discarded,
                    mover_loses: false,
                    extra: g.position_fields(q),
                },
                MoveOutcome::MoverLoses => MoveJson {
                    label: m.label.clone(),
                    board: g.board_counts(&pos),
                    to_move: g.side_to_move(&pos).other().letter(),
                    captured: m.captured,
                    discarded: m.discarded,
                    mover_loses: true,
                    extra: serde_json::Map::new(),
                },
            })
            .collect();
        if a.json {
            print_json(&MovesJson { moves: list });
        } else {
            println!("{}", g.render(&pos));
            if list.is_empty() {
                println!("no legal move: {} loses", g.side_to_move(&pos).letter());
            }
            for m in &list {
                let board: Vec<String> = m.board.iter().map(u32::to_string).collect();
                print!("  move {:>6} -> {}  {} to move", m.label, board.join(","), m.to_move);
                if m.captured > 0 {
                    print!("  captured {}", m.captured);
                }
                if m.discarded > 0 {
                    print!("  discarded {}", m.discarded);
                }
                if m.mover_loses {
                    print!("  (loses at once)");
                }
                println!();
            }
        }
        Ok(())
    })
}

#[derive(serde::Serialize)]
struct BenchPassJson {
    states: u64,
    successors: u64,
    seconds: f64,
    states_per_second: f64,
}

fn cmd_bench_pass(a: BenchPassArgs) -> Result<()> {
    let game = a.game.build()?;
    let (states, successors, secs) =
        with_threads(a.threads, || with_game!(&game, g => bare_pass(g, a.seeds)))??;
    let rate = states as f64 / secs;
    if a.json {
        print_json(&BenchPassJson {
            states,
            successors,
            seconds: secs,
            states_per_second: rate,
        });
    } else {
        println!(
            "bare successor pass: {states} positions, {successors} successors in {secs:.2}s ({:.2} M positions/s)",
            rate / 1e6
        );
    }
    Ok(())
}

/// Visits every position of every tier once and generates its successors (ranked), with no
/// lookups or bookkeeping: the floor under any solve's cost.
fn bare_pass<G: Game>(g: &G, seeds: u32) -> Result<(u64, u64, f64)> {
    let tiers = g.tiers_up_to(seeds)?;
    let start = Instant::now();
    let mut states = 0u64;
    let mut successors = 0u64;
    for t in tiers {
        let size = g.tier_size(t)?;
        let chunk = bawo::solve::tier::PASS_CHUNK as u64;
        let n = size.div_ceil(chunk);
        successors += (0..n)
            .into_par_iter()
            .map_init(Vec::new, |succ, c| {
                let mut count = 0u64;
                let lo = c * chunk;
                g.visit(t, lo..(lo + chunk).min(size), |_, pos| {
                    succ.clear();
                    g.successors(pos, succ);
                    count += succ.len() as u64;
                });
                count
            })
            .sum::<u64>();
        states += size;
    }
    Ok((states, successors, start.elapsed().as_secs_f64()))
}
