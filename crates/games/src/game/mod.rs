//! Rule sets behind one trait.
//!
//! | type            | role                                                                 |
//! |-----------------|----------------------------------------------------------------------|
//! | [`Game`]        | what the solver needs: tiers, rank/unrank, successors, labelled moves |
//! | [`Successor`]   | where a legal move leads, as a dense `(tier, index)` or a lost game   |
//! | [`LabelledMove`]| a legal move as a user sees it, for `moves`, `query` and `play`       |
//! | [`AnyGame`]     | one of the implemented games, chosen at run time by name or descriptor|
//!
//! The solver never knows which game it runs: it asks the game for the tiers covering a seed
//! budget, visits every position of a tier in index order, and ranks successors through the
//! game. Tiers must be ordered so that a position's successors lie in its own tier or in
//! tiers solved before it.
//!
//! **Side-to-move symmetry.** Every game here plays the same for both players: a position with
//! B to move is its [`Game::mirror`] (the board seen from the other side of the table, A to
//! move) under other names. So a tier stores the positions with A to move only, and
//! [`Game::locate`] answers a position with B to move with the index of its mirror: the solver
//! computes and stores half the positions, and every probe, move list and count still covers
//! both sides ([`POSITIONS_PER_ENTRY`]).

pub mod bao;
pub mod bawo;
pub mod cycle;
pub mod input;
pub mod kept;
pub mod kigogo;
mod listing;
pub mod moved;
pub mod options;
pub mod params;
pub mod sided;

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::Range;

pub use input::{InputError, PositionSpec};
pub use params::{GameParams, ParamReader};

use crate::rank::TooLarge;

/// Identifier of a tier within a game (for the games here, a seed total).
pub type Tier = u32;

/// Positions each stored entry stands for: one with A to move and its mirror with B to move
/// (see the module's documentation). Counts shown to users are counts of positions, so counts
/// of stored entries are multiplied by this.
pub const POSITIONS_PER_ENTRY: u64 = 2;

/// The player to move. `A` moves first; South is `A` in Kigogo and Bao.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The side that moves first.
    A,
    /// The side that moves second.
    B,
}

impl Side {
    /// The opponent of this side.
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }

    /// 0 for A, 1 for B.
    pub fn index(self) -> usize {
        self as usize
    }

    /// `"A"` or `"B"`.
    pub fn letter(self) -> &'static str {
        match self {
            Side::A => "A",
            Side::B => "B",
        }
    }

    /// Parses `A` or `B` (either case).
    pub fn parse(s: &str) -> Result<Side, InputError> {
        match s.trim() {
            "A" | "a" => Ok(Side::A),
            "B" | "b" => Ok(Side::B),
            other => Err(InputError::new(format!(
                "side to move must be A or B, not '{}'",
                input::short(other)
            ))),
        }
    }
}

/// Where a legal move leads, as the solver sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Successor {
    /// A position with the opponent to move, at `index` within `tier`.
    Position {
        /// The tier of the position.
        tier: Tier,
        /// The position's index within its tier.
        index: u64,
    },
    /// Playing the move loses at once for the mover (e.g. `never-ending=loss`).
    MoverLoses,
}

/// What a labelled move leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveOutcome<P> {
    /// The position reached, with the opponent to move.
    Position(P),
    /// The move loses at once for the mover.
    MoverLoses,
}

/// A legal move as shown to a user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelledMove<P> {
    /// The move in the game's notation (for Bawo, the start pit).
    pub label: String,
    /// Where the move leads.
    pub outcome: MoveOutcome<P>,
    /// Seeds taken off the board into the mover's reserve (or out of play).
    pub captured: u32,
    /// Seeds discarded by a truncation rule.
    pub discarded: u32,
}

/// A rule set the solver can work on.
pub trait Game: Send + Sync + Sized {
    /// A position of the game, with its side to move.
    type Position: Clone + Eq + Hash + Debug + Send + Sync;

    /// The name used by `--game`.
    fn name(&self) -> &'static str;

    /// Every parameter and rule option in one canonical line, e.g.
    /// `bawo n=3 lap-cap=64 kichwa=off capture=any`. Two games with the same descriptor have
    /// the same tables; databases record it and refuse to mix.
    fn descriptor(&self) -> String;

    /// The seed budget `solve` uses when none is given: an instance solved in seconds.
    fn default_seeds(&self) -> u32;

    /// The tiers that hold every position within a seed budget, in solving order.
    fn tiers_up_to(&self, seeds: u32) -> Result<Vec<Tier>, InputError>;

    /// Entries stored for `tier`: its positions with A to move, each standing also for its
    /// mirror with B to move. The solver's index space.
    fn tier_size(&self, tier: Tier) -> Result<u64, TooLarge>;

    /// Positions of `tier` with either side to move: [`POSITIONS_PER_ENTRY`] per entry.
    fn tier_positions(&self, tier: Tier) -> Result<u64, TooLarge>;

    /// Seeds on the board in every position of `tier`.
    fn tier_seeds(&self, tier: Tier) -> u32;

    /// The stored position with dense index `index` in `tier` (A to move).
    fn position(&self, tier: Tier, index: u64) -> Self::Position;

    /// Tier and dense index of `pos`; for a position with B to move, those of its
    /// [`Game::mirror`]. Fails for positions no tier holds (e.g. a Bao position with seeds in
    /// hand) or whose tier does not fit the index type.
    fn locate(&self, pos: &Self::Position) -> Result<(Tier, u64), crate::error::Error>;

    /// The same position seen from the other side of the table: the players' pits (and, where
    /// a game has them, hands and houses) trade places and the other side is to move. The
    /// mover has the same moves under the mirrored names, so the value and depth for the side
    /// to move are the same. Mirroring twice gives the position back.
    fn mirror(&self, pos: &Self::Position) -> Self::Position;

    /// Calls `f` for every index of `range` within `tier` with its stored position (A to move),
    /// in index order. Games override this to step from one position to the next instead of
    /// unranking each.
    fn visit<F: FnMut(u64, &Self::Position)>(&self, tier: Tier, range: Range<u64>, mut f: F) {
        for i in range {
            f(i, &self.position(tier, i));
        }
    }

    /// Where every move that stays in its tier leaves the opponent's half of the board as it
    /// was (it captures nothing and sows only the mover's pits), how the solver may name such
    /// a move's source by the rest of it alone ([`kept::KeptHalf`]); `None` (the default) for
    /// games whose moves in a tier can change both halves. The solver checks every edge
    /// against it and fails rather than store one it does not fit.
    fn kept_half(&self, _tier: Tier) -> Option<kept::KeptHalf> {
        None
    }

    /// The key width and memory of [`Game::kept_half`] for `tier`, without building it.
    fn kept_half_shape(&self, _tier: Tier) -> Option<kept::KeptShape> {
        None
    }

    /// Whether every legal move of `tier`'s positions leads to a position of `tier` itself
    /// (none leaves it, none loses at once). The solver then keeps the tier's working cells in
    /// two bytes, since nothing from below bounds or decides them; the default, `false`, is
    /// always safe, and the solver fails rather than store a cell a closed tier cannot have.
    fn closed_tier(&self, _tier: Tier) -> bool {
        false
    }

    /// Appends the successors of `pos`, one per legal move (duplicates allowed), to `out`.
    /// `pos` lies in a tier the game can index (one [`Game::position`] gives, or that
    /// [`Game::locate`] accepts): the solver's hot path does not check that its successors'
    /// indices fit. [`Game::moves`] takes any position.
    fn successors(&self, pos: &Self::Position, out: &mut Vec<Successor>);

    /// The legal moves of `pos` with labels and resulting positions.
    fn moves(&self, pos: &Self::Position) -> Vec<LabelledMove<Self::Position>>;

    /// The legal move of `pos` that `text` names in the game's notation (what `moves`
    /// prints). Games whose notation has several spellings override this to read them all.
    fn find_move(
        &self,
        pos: &Self::Position,
        text: &str,
    ) -> Result<LabelledMove<Self::Position>, InputError> {
        find_labelled(self.moves(pos), text.trim())
    }

    /// The side to move in `pos`.
    fn side_to_move(&self, pos: &Self::Position) -> Side;

    /// The pit counts in the game's documented pit order.
    fn board_counts(&self, pos: &Self::Position) -> Vec<u32>;

    /// Builds a position from command-line text.
    fn parse_position(&self, spec: &PositionSpec) -> Result<Self::Position, InputError>;

    /// A multi-line drawing of the board for people.
    fn render(&self, pos: &Self::Position) -> String;

    /// Game-specific fields of a position beyond board and side to move (Bao: hands, houses),
    /// added to the JSON objects that describe positions.
    fn position_fields(&self, _pos: &Self::Position) -> serde_json::Map<String, serde_json::Value> {
        serde_json::Map::new()
    }

    /// The game's opening position, if it has a standard one (`--start`).
    fn start_position(&self) -> Option<Self::Position> {
        None
    }
}

/// One of the implemented games.
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// Generalized Bawo.
    Bawo(bawo::Bawo),
    /// Bao Kigogo.
    Kigogo(kigogo::Kigogo),
    /// Bao la Kiswahili.
    Bao(bao::Bao),
}

/// Runs `$body` with `$g` bound to the concrete game inside an [`AnyGame`].
#[macro_export]
macro_rules! with_game {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::game::AnyGame::Bawo($g) => $body,
            $crate::game::AnyGame::Kigogo($g) => $body,
            $crate::game::AnyGame::Bao($g) => $body,
        }
    };
}

impl AnyGame {
    /// The names `--game` knows.
    pub const NAMES: [&'static str; 3] = ["bawo", "kigogo", "bao"];

    /// Builds a game from parameters as typed: the game parses, validates and defaults its
    /// own parameters and rule options; parameters it does not know are refused.
    pub fn from_params(p: &GameParams) -> Result<AnyGame, InputError> {
        let keys = AnyGame::param_keys(&p.game)?;
        if let Some((k, _)) = p.params.iter().find(|(k, _)| !keys.contains(&k.as_str())) {
            return Err(params::not_a_parameter(&p.game, k));
        }
        let mut r = p.reader();
        let game = match p.game.as_str() {
            "bawo" => AnyGame::Bawo(bawo::Bawo::from_params(&mut r)?),
            "kigogo" => AnyGame::Kigogo(kigogo::Kigogo::from_params(&mut r)?),
            "bao" => AnyGame::Bao(bao::Bao::from_params(&mut r)?),
            other => return Err(unknown_game(other)),
        };
        r.finish()?;
        Ok(game)
    }

    /// The parameter keys game `name` reads (its descriptor's words that are not rules).
    pub fn param_keys(name: &str) -> Result<&'static [&'static str], InputError> {
        match name {
            "bawo" => Ok(bawo::PARAM_KEYS),
            "kigogo" | "bao" => Ok(&[]),
            other => Err(unknown_game(other)),
        }
    }

    /// Rebuilds a game from its [`Game::descriptor`] line.
    pub fn from_descriptor(line: &str) -> Result<AnyGame, InputError> {
        let g = AnyGame::from_params(&GameParams::from_descriptor(line)?)?;
        let back = with_game!(&g, g => g.descriptor());
        if back != line {
            return Err(InputError::new(format!(
                "descriptor '{}' is not canonical (expected '{back}')",
                input::short(line)
            )));
        }
        Ok(g)
    }

    /// The game's descriptor, as the manifest records it.
    pub fn descriptor(&self) -> String {
        with_game!(self, g => g.descriptor())
    }

    /// The game's short name.
    pub fn name(&self) -> &'static str {
        with_game!(self, g => g.name())
    }

    /// Seeds solved when none are asked for.
    pub fn default_seeds(&self) -> u32 {
        with_game!(self, g => g.default_seeds())
    }
}

fn unknown_game(name: &str) -> InputError {
    InputError::new(format!(
        "unknown game '{}' (known: {})",
        input::short(name),
        AnyGame::NAMES.join(", ")
    ))
}

/// The move labelled `label` among `moves`, or an error naming the legal moves.
pub fn find_labelled<P>(
    moves: Vec<LabelledMove<P>>,
    label: &str,
) -> Result<LabelledMove<P>, InputError> {
    let legal: Vec<String> = moves.iter().map(|m| m.label.clone()).collect();
    moves
        .into_iter()
        .find(|m| m.label.eq_ignore_ascii_case(label))
        .ok_or_else(|| {
            // Echoed shortened: the text may be anything a user or a file typed.
            let label = input::short(label);
            InputError::new(if legal.is_empty() {
                format!("'{label}' is not a legal move: there is no legal move here")
            } else {
                format!(
                    "'{label}' is not a legal move here (legal: {})",
                    legal.join(", ")
                )
            })
        })
}

/// Splits `key=value,key=value` rule text, refusing words without `=` and keys given twice
/// (`kichwa=relay,kichwa=off` is a contradiction, not "the last one wins").
pub fn rule_pairs(text: &str) -> Result<Vec<(&str, &str)>, InputError> {
    let pairs = text
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| {
                    InputError::new(format!(
                        "rule option '{}' is not key=value",
                        input::short(w)
                    ))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (i, (k, _)) in pairs.iter().enumerate() {
        if pairs[..i].iter().any(|(seen, _)| seen == k) {
            return Err(InputError::new(format!(
                "rule option {} is given twice",
                input::short(k)
            )));
        }
    }
    Ok(pairs)
}
