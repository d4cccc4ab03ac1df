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
    /// Check a database: every checksum, and every stored value recomputed from successors.
    Verify(VerifyArgs),
    /// WIN/LOSS/DRAW counts and depth histograms per tier, optionally as a plot.
    Stats(StatsArgs),
    /// Play against perfect play in the terminal (moves read line by line from stdin).
    Play(PlayArgs),
    /// Write one tier as CSV: index, pit counts, side to move, value, depth.
    Export(ExportArgs),
    /// Explore databases in a web browser (read-only JSON API and page) until Ctrl-C.
    Serve(ServeArgs),
    /// Re-encode a database's compressed tier files from its raw tables (size experiments).
    #[command(hide = true)]
    Pack(PackArgs),
    /// Benchmark: generate every position's successors once, nothing else.
    #[command(hide = true)]
    BenchPass(BenchPassArgs),
}

#[derive(Args, Debug, Clone)]
pub struct GameArgs {
    /// Game: bawo, kigogo or bao.
    #[arg(long, default_value = "bawo")]
    pub game: String,
    /// Set when --game was typed (not defaulted); filled in by `run`.
    #[arg(skip)]
    pub game_typed: bool,
    /// Bawo half-width n (4n pits), 1..=8.
    #[arg(long)]
    pub n: Option<u32>,
    /// Bawo lap cap L: single drops per move before the rest of the hand is discarded.
    #[arg(long = "lap-cap")]
    pub lap_cap: Option<u64>,
    /// Rule options, comma-separated, e.g. kichwa=relay,capture=occupied (bawo) or
    /// never-ending=loss (kigogo).
    #[arg(long)]
    pub rules: Option<String>,
}

impl GameArgs {
    fn game_given(&self) -> bool {
        self.game_typed
    }

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
    /// Solve every position with at most this many seeds on the board [default: 12 for bawo,
    /// 5 for kigogo; bao: exactly this many seeds, default 5].
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
    /// Discard whatever --out holds (finished or not) and solve again.
    #[arg(long, conflicts_with = "resume")]
    pub force: bool,
    /// Continue the unfinished run in --out; game, rules and parameters come from its
    /// manifest (flags given must agree). Also extends a finished solve to more --seeds.
    #[arg(long)]
    pub resume: bool,
    /// Memory budget, e.g. 1G or 512M: tiers larger than it are solved out of core
    /// [default: half of physical memory].
    #[arg(long)]
    pub mem: Option<String>,
    /// Directory for the work files of the tier in progress [default: OUT/work].
    #[arg(long)]
    pub tmp: Option<PathBuf>,
    /// Least seconds between checkpoints inside a tier (0: at every block, range and level).
    #[arg(long = "checkpoint-secs", default_value_t = 60)]
    pub checkpoint_secs: u64,
    /// Positions per range as a power of two, overriding the plan from --mem (testing aid).
    #[arg(long = "range-bits", hide = true)]
    pub range_bits: Option<u32>,
    /// Print each tier's phase timings on standard error at the end.
    #[arg(long)]
    pub timings: bool,
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
pub struct VerifyArgs {
    /// Database directory.
    #[arg(long)]
    pub db: PathBuf,
    /// Recompute only this many random positions (checksums are still all checked).
    #[arg(long)]
    pub sample: Option<u64>,
    /// Seed of --sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long)]
    pub threads: Option<usize>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Database directory.
    #[arg(long)]
    pub db: PathBuf,
    /// Print one JSON object (the keys of `solve --json` plus depth histograms).
    #[arg(long)]
    pub json: bool,
    /// Draw value shares per tier and the depth histogram into FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

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
}

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

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Database directory to serve (repeat for several); requests name it by its last
    /// path component.
    #[arg(long, required = true)]
    pub db: Vec<PathBuf>,
    /// Address to listen on. Anything but a loopback address lets other machines read the
    /// databases.
    #[arg(long, default_value = bawo::serve::DEFAULT_ADDR)]
    pub addr: String,
}

#[derive(Args, Debug)]
pub struct PackArgs {
    /// Run directory holding raw tables (`tier-KKKK.tbl`).
    #[arg(long)]
    pub db: PathBuf,
    /// Positions per block.
    #[arg(long, default_value_t = bawo::db::format::EncodeOptions::default().block_positions)]
    pub block: u32,
    /// zstd level.
    #[arg(long, default_value_t = bawo::db::format::EncodeOptions::default().level)]
    pub level: i32,
    #[arg(long)]
    pub threads: Option<usize>,
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
    let mut cli = cli;
    if let Command::Solve(a) = &mut cli.command {
        a.game.game_typed = std::env::args().any(|w| w == "--game" || w.starts_with("--game="));
    }
    match cli.command {
        Command::Solve(a) => cmd_solve(a),
        Command::Reach(a) => cmd_reach(a),
        Command::Query(a) => cmd_query(a),
        Command::Moves(a) => cmd_moves(a),
        Command::Verify(a) => cmd_verify(a),
        Command::Stats(a) => cmd_stats(a),
        Command::Play(a) => cmd_play(a),
        Command::Export(a) => cmd_export(a),
        Command::Serve(a) => bawo::serve::serve(bawo::serve::ServeConfig {
            addr: bawo::serve::ServeConfig::parse_addr(&a.addr)?,
            dbs: a.db,
        }),
        Command::Pack(a) => cmd_pack(a),
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
    let usage = |m: String| Error::Input(bawo::game::InputError::new(m));
    let given = a.game.params();
    let (game, seeds, out) = if a.resume {
        // The run directory says what is being solved; flags given must agree with it.
        let out = a
            .out
            .clone()
            .ok_or_else(|| usage("--resume needs --out DIR (the run to continue)".into()))?;
        let m = bawo::store::manifest::Manifest::load(&out)?.ok_or_else(|| {
            Error::Missing(format!("nothing to resume: {} holds no run", out.display()))
        })?;
        let mut p = GameParams::from_descriptor(&m.game)?;
        if given.game != p.game && a.game.game_given() {
            return Err(Error::Mismatch(format!(
                "{} holds a run of {}, not {}",
                out.display(),
                p.game,
                given.game
            )));
        }
        p.n = given.n.or(p.n);
        p.lap_cap = given.lap_cap.or(p.lap_cap);
        if given.rules.is_some() {
            let stored = AnyGame::from_params(&p)?;
            p.rules = given.rules.clone();
            let asked = AnyGame::from_params(&p)?;
            if asked.descriptor() != stored.descriptor() {
                return Err(Error::Mismatch(format!(
                    "{} holds a run of '{}', not '{}'",
                    out.display(),
                    stored.descriptor(),
                    asked.descriptor()
                )));
            }
        }
        let game = AnyGame::from_params(&p)?;
        if game.descriptor() != m.game {
            return Err(Error::Mismatch(format!(
                "{} holds a run of '{}', not '{}'",
                out.display(),
                m.game,
                game.descriptor()
            )));
        }
        (game, a.seeds.unwrap_or(m.seeds), out)
    } else {
        let mut params = given;
        if params.game == "bawo" {
            // The defaults of the README's first command: a small instance solved in seconds.
            params.n.get_or_insert(3);
            params.lap_cap.get_or_insert(64);
        }
        let game = AnyGame::from_params(&params)?;
        let seeds = a.seeds.unwrap_or_else(|| default_seeds(&game));
        let out = a
            .out
            .clone()
            .unwrap_or_else(|| default_out(&game.descriptor(), seeds));
        (game, seeds, out)
    };
    let budget = match &a.mem {
        Some(m) => bawo::solve::budget::parse_size(m)?,
        None => bawo::solve::budget::default_budget(),
    };
    if let Some(b) = a.range_bits {
        if !(1..=bawo::solve::budget::MAX_RANGE_BITS).contains(&b) {
            return Err(usage(format!(
                "--range-bits must be between 1 and {}",
                bawo::solve::budget::MAX_RANGE_BITS
            )));
        }
    }
    let cfg = SolveConfig {
        seeds,
        out: out.clone(),
        tmp: a.tmp.clone(),
        budget,
        range_bits: a.range_bits,
        checkpoint_every: std::time::Duration::from_secs(a.checkpoint_secs),
        resume: a.resume,
        force: a.force,
    };
    let reporter = Reporter::new(a.quiet);
    let report = with_threads(
        a.threads,
        || with_game!(&game, g => solve(g, &cfg, &reporter)),
    )??;
    reporter.finish();
    if a.timings {
        for (tier, t) in &report.timings {
            eprintln!(
                "tier {tier:>3}: successors {:.3}s  predecessors {:.3}s  attractor {:.3}s ({} levels)  finish {:.3}s  edges {}  ranges {}",
                t.successors.as_secs_f64(),
                t.predecessors.as_secs_f64(),
                t.attractor.as_secs_f64(),
                t.levels,
                t.finish.as_secs_f64(),
                t.in_tier_edges,
                t.ranges
            );
        }
    }
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
        println!(
            "compressed database files: {:.2}s ({:.1}% of the solve)",
            report.compress.as_secs_f64(),
            100.0 * report.compress.as_secs_f64() / report.wall.as_secs_f64().max(1e-9)
        );
    }
    Ok(())
}

/// The seed budget `solve` uses without `--seeds`: an instance solved in seconds.
fn default_seeds(game: &AnyGame) -> u32 {
    match game {
        // Kigogo's 48 pits make tiers grow fast: 5 seeds is 5.8 million positions.
        AnyGame::Kigogo(_) => 5,
        _ => 12,
    }
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

/// Refuses (as a usage error) a position the database holds no table for, saying what it
/// does hold; errors that are not about coverage (e.g. a Bao position with seeds in hand) pass.
fn ensure_covered<G: Game>(
    db: &Database,
    g: &G,
    pos: &G::Position,
    dir: &std::path::Path,
) -> Result<()> {
    // A board far beyond the database may not even have an index: that is a board the
    // database does not cover, not an overflow to report.
    let tier = match g.locate(pos) {
        Ok((t, _)) => Some(t),
        Err(Error::TooLarge(_)) | Err(Error::TierTooLarge { .. }) => None,
        Err(e) => return Err(e),
    };
    if tier.is_some_and(|t| db.manifest().record(t).is_some()) {
        return Ok(());
    }
    let seeds: u32 = g.board_counts(pos).iter().sum();
    let held: Vec<u32> = db.manifest().tiers.iter().map(|r| r.counts.seeds).collect();
    let covers = if held.len() == 1 && held[0] > 0 {
        format!("holds only positions with exactly {} seeds", held[0])
    } else {
        format!("covers at most {}", db.manifest().seeds)
    };
    Err(Error::Input(bawo::game::InputError::new(format!(
        "the board holds {seeds} seeds; the database at {} {covers}",
        dir.display()
    ))))
}

fn cmd_query(a: QueryArgs) -> Result<()> {
    let db = Database::open(&a.db)?;
    with_game!(db.game(), g => {
        let pos = a.position.position(g)?;
        ensure_covered(&db, g, &pos, &a.db)?;
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
        let chunk = bawo::solve::pass::PASS_CHUNK as u64;
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

fn cmd_verify(a: VerifyArgs) -> Result<()> {
    let db = Database::open(&a.db)?;
    let opts = db::verify::VerifyOptions {
        sample: a.sample,
        seed: a.seed,
    };
    let start = Instant::now();
    let report = with_threads(a.threads, || db::verify::verify(&db, &opts))??;
    if a.json {
        print_json(&report);
    } else {
        println!("{}", db.manifest().game);
        println!(
            "{} files, {} blocks: {}",
            report.files,
            report.blocks,
            if report.bad_blocks.is_empty() {
                "every checksum matches"
            } else {
                "DAMAGED"
            }
        );
        for b in &report.bad_blocks {
            println!("  damaged: {b}");
        }
        if report.bad_blocks.is_empty() {
            println!(
                "{} positions recomputed from their successors in {:.2}s: {} disagree",
                report.checked,
                start.elapsed().as_secs_f64(),
                report.mismatches
            );
        }
        for b in &report.bad_positions {
            let board: Vec<String> = b.board.iter().map(u32::to_string).collect();
            println!(
                "  bad: --board {} --to-move {} (tier {}, index {}): stored {}, successors say {}",
                board.join(","),
                b.to_move,
                b.tier,
                b.index,
                b.stored,
                b.expected
            );
        }
    }
    if report.ok() {
        Ok(())
    } else if !report.bad_blocks.is_empty() {
        Err(Error::corrupt(
            &a.db,
            format!(
                "verify failed: {} damaged files or blocks",
                report.bad_blocks.len()
            ),
        ))
    } else {
        Err(Error::corrupt(
            &a.db,
            format!(
                "verify failed: {} positions disagree with their successors",
                report.mismatches
            ),
        ))
    }
}

fn cmd_stats(a: StatsArgs) -> Result<()> {
    if let Some(p) = &a.plot {
        db::plot::PlotKind::of(p)?;
    }
    let db = Database::open(&a.db)?;
    let s = db::stats::stats(&db)?;
    if let Some(p) = &a.plot {
        db::plot::plot(&s, p)?;
    }
    if a.json {
        print_json(&s);
        return Ok(());
    }
    println!("{}", s.game);
    println!(
        "{:>6} {:>14} {:>14} {:>14} {:>14} {:>9}  positions at depth 0, 1, 2, ...",
        "seeds", "positions", "win", "loss", "draw", "max depth"
    );
    for t in &s.tiers {
        let depths: Vec<String> = (0..t.win_depths.len().max(t.loss_depths.len()))
            .map(|d| {
                let w = t.win_depths.get(d).copied().unwrap_or(0);
                let l = t.loss_depths.get(d).copied().unwrap_or(0);
                match (w, l) {
                    (0, 0) => "-".to_string(),
                    (w, 0) => format!("{w}"),
                    (0, l) => format!("{l}"),
                    (w, l) => format!("{w}w+{l}l"),
                }
            })
            .collect();
        println!(
            "{:>6} {:>14} {:>14} {:>14} {:>14} {:>9}  {}",
            t.seeds,
            t.states,
            t.win,
            t.loss,
            t.draw,
            t.max_depth,
            depths.join(" ")
        );
    }
    println!(
        "{:>6} {:>14} {:>14} {:>14} {:>14} {:>9}",
        "all", s.states, s.win, s.loss, s.draw, s.max_depth
    );
    println!(
        "{} in tier files, {:.3} bits per position",
        human_bytes(s.file_bytes),
        s.file_bytes as f64 * 8.0 / s.states.max(1) as f64
    );
    if let Some(p) = &a.plot {
        println!("plot written to {}", p.display());
    }
    Ok(())
}

fn cmd_play(a: PlayArgs) -> Result<()> {
    let db = Database::open(&a.db)?;
    with_game!(db.game(), g => {
        let start = if a.board.is_some() || a.start {
            PositionArgs {
                board: a.board.clone(),
                to_move: a.to_move.clone(),
                start: a.start,
                hands: None,
                houses: None,
                after: None,
            }
            .position(g)?
        } else {
            let seed = a.seed.unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(0)
            });
            let p = db::play::default_position(&db, g, seed)?;
            let board: Vec<String> = g.board_counts(&p).iter().map(u32::to_string).collect();
            println!(
                "start: --board {} --to-move {} (random position of the largest tier, --seed {seed})",
                board.join(","),
                g.side_to_move(&p).letter()
            );
            p
        };
        ensure_covered(&db, g, &start, &a.db)?;
        let human = match &a.human {
            Some(s) => Side::parse(s)?,
            None => g.side_to_move(&start),
        };
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut out = std::io::stdout().lock();
        let (end, plies) = db::play::play(&db, g, start, human, a.hints, &mut input, &mut out)?;
        match end {
            db::play::PlayEnd::Finished { loser } => println!(
                "game over after {plies} plies: {} wins{}",
                loser.other().letter(),
                if loser == human { " (the engine)" } else { " (you)" }
            ),
            db::play::PlayEnd::Quit => println!("quit after {plies} plies"),
        }
        Ok(())
    })
}

fn cmd_export(a: ExportArgs) -> Result<()> {
    db::export::ExportFormat::parse(&a.format)?;
    let db = Database::open(&a.db)?;
    if db.manifest().record(a.tier).is_none() {
        return Err(Error::Input(bawo::game::InputError::new(format!(
            "--tier {}: the database at {} holds tiers {}",
            a.tier,
            a.db.display(),
            db.manifest()
                .tiers
                .iter()
                .map(|r| r.tier.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ))));
    }
    match &a.out {
        Some(path) => {
            let mut rows = 0;
            let mut failure = None;
            bawo::store::write_atomic(path, |w| {
                let mut w = w;
                match db::export::export_csv(&db, a.tier, &mut w) {
                    Ok(n) => {
                        rows = n;
                        Ok(())
                    }
                    Err(e) => {
                        let msg = e.to_string();
                        failure = Some(e);
                        Err(std::io::Error::other(msg))
                    }
                }
            })
            .map_err(|e| failure.take().unwrap_or(e))?;
            eprintln!("{rows} rows written to {}", path.display());
            Ok(())
        }
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            match db::export::export_csv(&db, a.tier, &mut out) {
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

fn cmd_pack(a: PackArgs) -> Result<()> {
    let m = bawo::store::manifest::Manifest::load(&a.db)?
        .ok_or_else(|| Error::Missing(format!("{} holds no manifest", a.db.display())))?;
    let opts = db::format::EncodeOptions {
        block_positions: a.block,
        level: a.level,
    };
    if opts.block_positions == 0 {
        return Err(Error::Input(bawo::game::InputError::new(
            "--block must be positive",
        )));
    }
    let mut m2 = m.clone();
    let (mut states, mut bytes, mut secs) = (0u64, 0u64, 0f64);
    for r in m2.tiers.iter_mut() {
        let (_, data) = bawo::store::table::open_table(
            &a.db.join(&r.file),
            r.tier,
            r.counts.states,
            m.fingerprint_value(),
            true,
        )?;
        let t = Instant::now();
        let rec = with_threads(a.threads, || {
            db::format::write_tier(&a.db, r.tier, m.fingerprint_value(), data.entries(), &opts)
        })??;
        secs += t.elapsed().as_secs_f64();
        states += r.counts.states;
        bytes += rec.bytes;
        r.bdb = Some(rec);
    }
    m2.save(&a.db)?;
    println!(
        "block {} level {}: {} positions, {} bytes, {:.3} bits/position, {:.2}s encoding",
        a.block,
        a.level,
        states,
        bytes,
        bytes as f64 * 8.0 / states.max(1) as f64,
        secs
    );
    Ok(())
}
