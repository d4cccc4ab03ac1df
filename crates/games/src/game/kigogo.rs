//! Bao Kigogo, the 4 x 12 game of the Gogo (`RULES.md` §2).
//!
//! | item            | meaning                                                                |
//! |-----------------|------------------------------------------------------------------------|
//! | pit `12*r + c`  | row `r` (0 North back, 1 North front, 2 South front, 3 South back), column `c` |
//! | [`Side::A`]     | South, rows 2–3, moves first in the opening                            |
//! | [`Side::B`]     | North, rows 0–1                                                        |
//! | move label      | the start pit as `r<row>c<col>`, e.g. `r3c0`                          |
//!
//! Each player sows counter-clockwise round a 24-pit cycle over their own two rows (South: row
//! 3 columns 0→11, then row 2 columns 11→0; North: row 1 columns 0→11, then row 0 columns
//! 11→0). A move lifts an own pit holding at least two seeds and relays: a lap whose last seed
//! falls into an occupied pit lifts that pit and sows on; the move ends when a last seed falls
//! into an empty pit. Only when the mover has no pit with two or more seeds may a single seed
//! step to the next pit of the cycle, and only into an empty pit. A move ending in an empty pit
//! of the mover's front row removes the opponent's front pit of that column from play, and the
//! opponent's back pit of that column too, both only if occupied.
//!
//! Decisions where the sources are silent (also in the README):
//! - A singleton step is a move whose only seed falls into an empty pit, so when it lands on
//!   the mover's front row it captures like any other move: `RULES.md` and the source text
//!   both attach the capture to "the move" (or "the final stone of a move"), not to sowing.
//! - The singleton rule looks at pit contents, not at which sowings are legal: a mover whose
//!   only starts of two or more seeds never end has, under `never-ending=illegal`, no legal
//!   move at all (and loses) rather than gaining singleton steps.
//! - The start pit is not skipped when a lap goes all the way round (nothing says so).
//!
//! Within a move no seed leaves the mover's 24 pits, so a move is a deterministic walk through
//! finitely many lap-start states `(pits, position, hand)`: it never ends exactly when such a
//! state repeats. Brent's cycle finding detects that with one saved state; it only starts
//! after [`WATCH_AFTER`] laps, so ordinary moves pay nothing for it.
//!
//! A position is the board and the side to move; seeds only leave the board, so tier `k` holds
//! the positions with `k` seeds on the board and the index within it is the board's rank among
//! the `C(k + 47, 47)` boards of `k` seeds with South (A) to move; a position with North to
//! move is stored as the board turned half round with South to move ([`Game::mirror`]).

use std::ops::Range;

use super::cycle::Brent;
use super::sided::{HalfOrder, Mirror, SidedIndex, SidedPosition};
use super::{
    Game, InputError, LabelledMove, MoveOutcome, ParamReader, PositionSpec, Side, Successor, Tier,
};
use crate::rank::TooLarge;

/// Pits on the board.
pub const PITS: usize = 48;
/// Columns per row.
pub const COLS: usize = 12;
/// Pits in one player's sowing cycle (two rows).
pub const CYCLE: usize = 24;
pub use super::sided::MAX_SEEDS;
/// Laps of one move before the never-ending watch starts (any value keeps detection exact).
pub const WATCH_AFTER: u32 = 48;

/// Seed budget of `solve` without `--seeds`: 48 pits make tiers grow fast, and 5 seeds is
/// already 5.8 million positions.
pub const DEFAULT_SEEDS: u32 = 5;

/// Marks a cycle position on the back row in [`Cycle::front_col`].
const BACK: u8 = u8::MAX;

pub use super::options::NeverEnding;

/// The rule options of Bao Kigogo.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KigogoRules {
    pub(crate) never_ending: NeverEnding,
}

impl KigogoRules {
    /// Parses `never-ending=illegal|loss`; omitted options take their defaults.
    pub fn parse(text: &str) -> Result<Self, InputError> {
        Ok(KigogoRules {
            never_ending: NeverEnding::parse_rules(text, "kigogo")?,
        })
    }

    /// Canonical text, as in descriptors: `never-ending=illegal`.
    pub fn canonical(&self) -> String {
        self.never_ending.canonical().to_string()
    }
}

/// A Kigogo position: 48 pit counts in row-major order and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KigogoPosition {
    /// Seeds per pit.
    pub board: [u8; PITS],
    /// The side to move.
    pub side: Side,
}

impl SidedPosition for KigogoPosition {
    fn empty() -> Self {
        KigogoPosition {
            board: [0; PITS],
            side: Side::A,
        }
    }

    fn parts(&mut self, pits: usize) -> (&mut [u8], &mut Side) {
        (&mut self.board[..pits], &mut self.side)
    }
}

/// The move label of pit `pit`: `r<row>c<col>`.
pub fn pit_label(pit: usize) -> String {
    format!("r{}c{}", pit / COLS, pit % COLS)
}

/// How one start ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Play {
    /// The move ends; the resulting board and the seeds removed from play.
    Ends {
        /// Seeds per pit after the move.
        board: [u8; PITS],
        /// Seeds removed from play.
        captured: u32,
    },
    /// The relay sowing never ends.
    NeverEnding,
}

/// One player's sowing cycle, indexed by cycle position `0..24`.
#[derive(Clone, Debug)]
struct Cycle {
    /// Pit at each cycle position.
    pit: [u8; CYCLE],
    /// Column of each front-row cycle position, [`BACK`] on the back row.
    front_col: [u8; CYCLE],
    /// The opponent's (front, back) pits of each column, the ones a capture there takes.
    victims: [(u8, u8); COLS],
}

impl Cycle {
    fn of(side: Side) -> Cycle {
        let mut c = Cycle {
            pit: [0; CYCLE],
            front_col: [BACK; CYCLE],
            victims: [(0, 0); COLS],
        };
        // (first row, second row): the cycle runs the first row left to right, the second
        // right to left. South's first row is its back row, North's its front row.
        let (first, second, front_row) = match side {
            Side::A => (3, 2, 2),
            Side::B => (1, 0, 1),
        };
        for col in 0..COLS {
            c.pit[col] = (COLS * first + col) as u8;
            c.pit[COLS + col] = (COLS * second + (COLS - 1 - col)) as u8;
        }
        for i in 0..CYCLE {
            let pit = c.pit[i] as usize;
            if pit / COLS == front_row {
                c.front_col[i] = (pit % COLS) as u8;
            }
        }
        let (opp_front, opp_back) = match side {
            Side::A => (1, 0),
            Side::B => (2, 3),
        };
        for col in 0..COLS {
            c.victims[col] = (
                (COLS * opp_front + col) as u8,
                (COLS * opp_back + col) as u8,
            );
        }
        c
    }
}

/// Bao Kigogo with its rule options.
#[derive(Clone, Debug)]
pub struct Kigogo {
    rules: KigogoRules,
    index: SidedIndex,
    cycles: [Cycle; 2],
}

impl Kigogo {
    /// The game under `rules`.
    pub fn new(rules: KigogoRules) -> Self {
        Kigogo {
            rules,
            index: SidedIndex::new(Mirror::half_turn(PITS), HalfOrder::south_moves(PITS)),
            cycles: [Cycle::of(Side::A), Cycle::of(Side::B)],
        }
    }

    /// Kigogo takes no parameters, only rule options.
    pub fn from_params(p: &mut ParamReader) -> Result<Self, InputError> {
        Ok(Kigogo::new(KigogoRules::parse(p.rules())?))
    }

    /// The rules this game plays by.
    pub fn rules(&self) -> KigogoRules {
        self.rules
    }

    /// The position with `counts` (48, row-major) on the board and `side` to move. Panics
    /// unless there are exactly 48 counts. Sowing keeps pits in bytes, so the rules are only
    /// defined for boards of at most [`MAX_SEEDS`] seeds (`parse_position` refuses more).
    pub fn make_position(&self, counts: &[u8], side: Side) -> KigogoPosition {
        let mut board = [0u8; PITS];
        board.copy_from_slice(counts);
        KigogoPosition { board, side }
    }

    /// The pits of `side`'s sowing cycle, in cycle order.
    pub fn cycle_pits(&self, side: Side) -> [u8; CYCLE] {
        self.cycles[side.index()].pit
    }

    /// Calls `f(start pit, play)` for every start the rules allow before the never-ending
    /// option is applied: every own pit with two or more seeds, or, when there is none, every
    /// singleton whose next cycle pit is empty. Starts come in cycle order.
    pub fn for_each_start(&self, pos: &KigogoPosition, mut f: impl FnMut(usize, Play)) {
        let cyc = &self.cycles[pos.side.index()];
        let mut ring = [0u8; CYCLE];
        for (r, &p) in ring.iter_mut().zip(&cyc.pit) {
            *r = pos.board[p as usize];
        }
        if ring.iter().any(|&c| c >= 2) {
            for start in 0..CYCLE {
                if ring[start] < 2 {
                    continue;
                }
                let mut r = ring;
                let play = match relay(&mut r, start) {
                    Some(landing) => self.finish(pos, cyc, &r, landing),
                    None => Play::NeverEnding,
                };
                f(cyc.pit[start] as usize, play);
            }
        } else {
            for start in 0..CYCLE {
                let next = (start + 1) % CYCLE;
                if ring[start] != 1 || ring[next] != 0 {
                    continue;
                }
                let mut r = ring;
                r[start] = 0;
                r[next] = 1;
                f(cyc.pit[start] as usize, self.finish(pos, cyc, &r, next));
            }
        }
    }

    /// Writes the mover's pits back and applies the capture of a move ending at cycle position
    /// `landing` (which the last seed entered empty).
    fn finish(
        &self,
        pos: &KigogoPosition,
        cyc: &Cycle,
        ring: &[u8; CYCLE],
        landing: usize,
    ) -> Play {
        let mut board = pos.board;
        for (&p, &c) in cyc.pit.iter().zip(ring) {
            board[p as usize] = c;
        }
        let mut captured = 0u32;
        let col = cyc.front_col[landing];
        if col != BACK {
            let (front, back) = cyc.victims[col as usize];
            if board[front as usize] > 0 {
                captured += board[front as usize] as u32;
                board[front as usize] = 0;
                captured += board[back as usize] as u32;
                board[back as usize] = 0;
            }
        }
        Play::Ends { board, captured }
    }

    /// What the solver sees of one start: the ranked position it leads to, an immediate loss
    /// (`never-ending=loss`), or nothing (`never-ending=illegal`).
    fn successor(&self, play: Play, next: Side) -> Option<Successor> {
        match play {
            Play::Ends { board, .. } => {
                let (tier, index) = self.index.index_of(&board, next);
                Some(Successor::Position { tier, index })
            }
            Play::NeverEnding => match self.rules.never_ending {
                NeverEnding::Illegal => None,
                NeverEnding::Loss => Some(Successor::MoverLoses),
            },
        }
    }
}

/// Relay-sows the seeds of cycle position `start` round `ring` in place. Returns the cycle
/// position where the move ends (its last seed fell into an empty pit), or `None` when the
/// sowing never ends.
#[inline]
fn relay(ring: &mut [u8; CYCLE], start: usize) -> Option<usize> {
    let mut pos = start;
    let mut hand = ring[pos] as usize;
    ring[pos] = 0;
    let mut laps = 0u32;
    let mut watch = Brent::<([u8; CYCLE], usize, usize)>::default();
    loop {
        // One lap: `hand` seeds, one per pit, from the pit after `pos`. Whole turns of the
        // cycle drop the same number into every pit (the start pit included).
        if hand >= CYCLE {
            let full = (hand / CYCLE) as u8;
            for c in ring.iter_mut() {
                *c += full;
            }
        }
        let rest = hand % CYCLE;
        for k in 1..=rest {
            let p = pos + k;
            ring[if p >= CYCLE { p - CYCLE } else { p }] += 1;
        }
        pos = (pos + rest) % CYCLE;
        // The last seed fell into `pos`; it was empty before iff it now holds one.
        if ring[pos] == 1 {
            return Some(pos);
        }
        hand = ring[pos] as usize;
        ring[pos] = 0;
        laps += 1;
        if laps >= WATCH_AFTER && watch.observe(&(*ring, pos, hand), laps.into()).is_some() {
            return None;
        }
    }
}

impl Game for Kigogo {
    type Position = KigogoPosition;

    fn name(&self) -> &'static str {
        "kigogo"
    }

    fn descriptor(&self) -> String {
        format!("kigogo {}", self.rules.canonical())
    }

    fn default_seeds(&self) -> u32 {
        DEFAULT_SEEDS
    }

    fn tiers_up_to(&self, seeds: u32) -> Result<Vec<Tier>, InputError> {
        self.index.tiers_up_to(seeds)
    }

    fn tier_size(&self, tier: Tier) -> Result<u64, TooLarge> {
        self.index.tier_size(tier)
    }

    fn tier_positions(&self, tier: Tier) -> Result<u64, TooLarge> {
        self.index.tier_positions(tier)
    }

    fn tier_seeds(&self, tier: Tier) -> u32 {
        tier
    }

    /// Captured seeds leave the board: a move that stays in its tier only sowed the mover's
    /// own cycle.
    fn kept_half(&self, tier: Tier) -> Option<super::kept::KeptHalf> {
        self.index.kept_half(tier)
    }

    fn kept_half_shape(&self, tier: Tier) -> Option<super::kept::KeptShape> {
        self.index.kept_half_shape(tier)
    }

    fn position(&self, tier: Tier, index: u64) -> KigogoPosition {
        self.index.position(tier, index)
    }

    fn locate(&self, pos: &KigogoPosition) -> Result<(Tier, u64), crate::error::Error> {
        self.index.locate(&pos.board, pos.side)
    }

    /// The board turned half round (pit `p` to `47 - p`): South's rows become North's with
    /// the same sowing order, captures and names (`RULES.md` §2).
    fn mirror(&self, pos: &KigogoPosition) -> KigogoPosition {
        let mut board = [0u8; PITS];
        self.index.mirror().apply(&pos.board, &mut board);
        KigogoPosition {
            board,
            side: pos.side.other(),
        }
    }

    fn visit<F: FnMut(u64, &KigogoPosition)>(&self, tier: Tier, range: Range<u64>, f: F) {
        self.index.visit_positions(tier, range, f);
    }

    fn successors(&self, pos: &KigogoPosition, out: &mut Vec<Successor>) {
        let next = pos.side.other();
        self.for_each_start(pos, |_, play| {
            if let Some(s) = self.successor(play, next) {
                out.push(s);
            }
        });
    }

    fn moves(&self, pos: &KigogoPosition) -> Vec<LabelledMove<KigogoPosition>> {
        let mut moves = Vec::new();
        self.for_each_start(pos, |pit, play| {
            let (outcome, captured) = match play {
                Play::Ends { board, captured } => (
                    MoveOutcome::Position(KigogoPosition {
                        board,
                        side: pos.side.other(),
                    }),
                    captured,
                ),
                Play::NeverEnding => match self.rules.never_ending {
                    NeverEnding::Illegal => return,
                    NeverEnding::Loss => (MoveOutcome::MoverLoses, 0),
                },
            };
            moves.push(LabelledMove {
                label: pit_label(pit),
                outcome,
                captured,
                discarded: 0,
            });
        });
        // Row-major order reads like the board.
        moves.sort_by_key(|m| label_pit(&m.label));
        moves
    }

    fn side_to_move(&self, pos: &KigogoPosition) -> Side {
        pos.side
    }

    fn board_counts(&self, pos: &KigogoPosition) -> Vec<u32> {
        pos.board.iter().map(|&c| c as u32).collect()
    }

    fn parse_position(&self, spec: &PositionSpec) -> Result<KigogoPosition, InputError> {
        let counts = self.index.parse_board(spec)?;
        Ok(self.make_position(&counts, spec.to_move))
    }

    fn render(&self, pos: &KigogoPosition) -> String {
        // North on top, columns 0..11 left to right as South sees them. Both cycles run
        // counter-clockwise in this picture.
        let row = |r: usize| {
            (0..COLS)
                .map(|c| format!("{:>4}", pos.board[COLS * r + c]))
                .collect::<Vec<_>>()
                .join("")
        };
        let header: String = (0..COLS)
            .map(|c| format!("{:>4}", format!("c{c}")))
            .collect();
        let who = match pos.side {
            Side::A => "A (South)",
            Side::B => "B (North)",
        };
        format!(
            "              {header}\nr0 North back {}\nr1 North front{}\n              {}\nr2 South front{}\nr3 South back {}\n{who} to move",
            row(0),
            row(1),
            "-".repeat(4 * COLS),
            row(2),
            row(3),
        )
    }

    fn start_position(&self) -> Option<KigogoPosition> {
        let mut board = [2u8; PITS];
        board[COLS + 11] = 0;
        board[2 * COLS] = 0;
        Some(KigogoPosition {
            board,
            side: Side::A,
        })
    }
}

/// The pit a label `r<row>c<col>` names (for ordering; labels are always well formed here).
fn label_pit(label: &str) -> usize {
    let (r, c) = label[1..].split_once('c').expect("label r<row>c<col>");
    r.parse::<usize>().expect("row") * COLS + c.parse::<usize>().expect("col")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_follow_the_rules_text() {
        let g = Kigogo::new(KigogoRules::default());
        let south: Vec<String> = g
            .cycle_pits(Side::A)
            .iter()
            .map(|&p| pit_label(p as usize))
            .collect();
        assert_eq!(south[0], "r3c0");
        assert_eq!(south[11], "r3c11");
        assert_eq!(south[12], "r2c11");
        assert_eq!(south[23], "r2c0");
        let north: Vec<String> = g
            .cycle_pits(Side::B)
            .iter()
            .map(|&p| pit_label(p as usize))
            .collect();
        assert_eq!(north[0], "r1c0");
        assert_eq!(north[11], "r1c11");
        assert_eq!(north[12], "r0c11");
        assert_eq!(north[23], "r0c0");
    }

    #[test]
    fn rules_parse_and_refuse() {
        assert_eq!(KigogoRules::parse("").unwrap(), KigogoRules::default());
        assert_eq!(
            KigogoRules::parse("never-ending=loss")
                .unwrap()
                .never_ending,
            NeverEnding::Loss
        );
        assert!(KigogoRules::parse("never-ending=draw").is_err());
        assert!(KigogoRules::parse("kichwa=relay").is_err());
        assert!(KigogoRules::parse("never-ending").is_err());
    }

    #[test]
    fn labels_round_trip() {
        for p in 0..PITS {
            assert_eq!(label_pit(&pit_label(p)), p);
        }
    }

    #[test]
    fn never_ending_starts_map_to_the_rule_option() {
        let illegal = Kigogo::new(KigogoRules::default());
        let loss = Kigogo::new(KigogoRules::parse("never-ending=loss").unwrap());
        assert_eq!(illegal.successor(Play::NeverEnding, Side::B), None);
        assert_eq!(
            loss.successor(Play::NeverEnding, Side::A),
            Some(Successor::MoverLoses)
        );
        let mut board = [0u8; PITS];
        board[5] = 1;
        let ends = Play::Ends { board, captured: 0 };
        for g in [&illegal, &loss] {
            assert_eq!(
                g.successor(ends, Side::B),
                Some(Successor::Position {
                    tier: 1,
                    index: g
                        .locate(&KigogoPosition {
                            board,
                            side: Side::B
                        })
                        .unwrap()
                        .1
                })
            );
        }
    }

    #[test]
    fn the_hand_worked_pattern_never_ends() {
        // See tests/kigogo_rules.rs: each lap shifts this state by 5 pits round the cycle.
        let mut ring = [
            5, 3, 2, 1, 0, 4, 3, 2, 1, 0, 4, 3, 2, 1, 0, 4, 3, 2, 1, 0, 4, 3, 2, 1,
        ];
        assert_eq!(relay(&mut ring, 0), None);
    }

    /// Every composition of at most `max` seeds into the 24 pits of a cycle.
    fn rings(max: u32, f: &mut impl FnMut(&[u8; CYCLE])) {
        fn go(i: usize, left: u32, ring: &mut [u8; CYCLE], f: &mut impl FnMut(&[u8; CYCLE])) {
            if i == CYCLE {
                f(ring);
                return;
            }
            for c in 0..=left {
                ring[i] = c as u8;
                go(i + 1, left - c, ring, f);
            }
            ring[i] = 0;
        }
        go(0, max, &mut [0; CYCLE], f);
    }

    #[test]
    fn no_move_with_at_most_6_seeds_on_the_movers_side_is_never_ending() {
        // Sowing never leaves the mover's 24 pits, so this covers every start of every
        // position with at most 6 seeds: both never-ending options give the same tables there.
        let mut starts = 0u64;
        rings(6, &mut |ring| {
            for s in 0..CYCLE {
                if ring[s] >= 2 {
                    starts += 1;
                    assert!(relay(&mut ring.clone(), s).is_some(), "{ring:?} from {s}");
                }
            }
        });
        assert!(starts > 100_000);
    }
}
