//! `reach`: the positions reachable from one start, solved as one graph.

use clap::Args;

use bawo_games::error::Result;
use bawo_games::game::Game;
use bawo_games::with_game;
use bawo_solve::reach::reach;

use super::args::{print_json, GameArgs, PositionArgs};

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

pub fn run(a: ReachArgs) -> Result<()> {
    let game = a.game.build(a.position.board.as_deref())?;
    with_game!(&game, g => {
        let start = a.position.position(g)?;
        let r = reach(g, start, a.max_states)?;
        if a.json {
            print_json(&r.summary);
        } else {
            let s = &r.summary;
            outln!("{}", g.descriptor());
            outln!("reachable positions: {}", s.states);
            outln!("from A's point of view: win {}  loss {}  draw {}", s.win, s.loss, s.draw);
            match s.initial_depth {
                Some(d) => outln!("start: {} for A in {d} plies", s.initial),
                None => outln!("start: {} for A", s.initial),
            }
        }
        Ok(())
    })
}
