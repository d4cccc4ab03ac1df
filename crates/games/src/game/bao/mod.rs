//! Bao la Kiswahili (Zanzibar Bao), `RULES.md` §3: both stages, the house, and the mtaji
//! endgame tiers.
//!
//! | module       | job                                                                  |
//! |--------------|----------------------------------------------------------------------|
//! | [`geometry`] | pit numbers, the mover's 16-pit circuit, kichwa, kimbi, house         |
//! | `sow`        | the laps of one move: capture, kichwa entry, house, relay, never-ending |
//! | `mtaji`      | legal moves with empty hands: capture moves, else takasa              |
//! | `namua`      | legal moves with seeds in hand: placement capture, else takasa or tax |
//! | `legal`      | what a finished sowing leads to and whether it may be played          |
//! | [`notation`] | move names (`a6<`, `b2>`, `a5> safari`) printed and read              |
//! | `text`       | positions as typed (`--hands`, `--houses`) and as drawn for people    |
//!
//! A position is the 32 pit counts, the side to move, the seeds in each hand and whether each
//! house still stands (has never been emptied). A house only matters while its owner still
//! has seeds in hand: the mtaji stage has no house rule, so a player's house status is
//! cleared when their hand runs out, which keeps equal game states equal positions.
//!
//! **Tiers.** Databases cover the mtaji stage (both hands empty, so no house): seeds are only
//! moved, never removed, so tier `S` is every board with `S` seeds, indexed by the board's rank
//! among the `C(S + 31, 31)` boards with South (A) to move (North to move: the board turned
//! half round, [`Game::mirror`]), and every move stays inside it (one cyclic tier).
//! Takasia is not implemented.

pub mod geometry;
mod legal;
mod mtaji;
mod namua;
pub mod notation;
mod sow;
mod text;

use std::ops::Range;

use serde_json::{json, Map, Value as Json};

use self::geometry::{house_pit, CIRCUIT, FRONT, GEOMETRY, HOUSE, PITS};
use self::legal::Outcome;
use self::notation::MoveName;
use self::sow::Field;
use super::input::parse_counts;
use super::sided::{HalfOrder, Mirror, SidedIndex, SidedPosition};
use super::{
    find_labelled, Game, InputError, LabelledMove, MoveOutcome, ParamReader, PositionSpec, Side,
    Successor, Tier,
};
use crate::rank::TooLarge;

/// Seeds in a game of Bao; no position may hold more (board and hands together).
pub const MAX_SEEDS: u32 = 64;
/// Seed budget of `solve` without `--seeds` (one tier of 753,984 positions).
pub const DEFAULT_SEEDS: u32 = 5;
/// Seeds in each hand at the start.
pub const START_HAND: u8 = 22;

pub use super::options::NeverEnding;

/// The rule options of Bao la Kiswahili.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BaoRules {
    pub(crate) never_ending: NeverEnding,
}

impl BaoRules {
    /// Parses `never-ending=illegal|loss`; omitted options take their defaults.
    pub fn parse(text: &str) -> Result<Self, InputError> {
        Ok(BaoRules {
            never_ending: NeverEnding::parse_rules(text, "bao")?,
        })
    }

    /// Canonical text, as in descriptors: `never-ending=illegal`.
    pub fn canonical(&self) -> String {
        self.never_ending.canonical().to_string()
    }
}

/// A Bao position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BaoPosition {
    /// Pit counts in `RULES.md` order (pit `8 * row + column`).
    pub board: [u8; PITS],
    /// The side to move.
    pub side: Side,
    /// Seeds in hand, A's then B's.
    pub hands: [u8; 2],
    /// Each player's house still stands (never emptied) while that player has seeds in hand.
    pub houses: [bool; 2],
}

impl BaoPosition {
    /// A mtaji position: empty hands, no house.
    pub fn mtaji(board: [u8; PITS], side: Side) -> Self {
        BaoPosition {
            board,
            side,
            hands: [0, 0],
            houses: [false, false],
        }
    }

    /// Seeds on the board and in both hands.
    pub fn seeds(&self) -> u32 {
        self.board.iter().map(|&c| c as u32).sum::<u32>()
            + self.hands[0] as u32
            + self.hands[1] as u32
    }

    /// The mover plays namua rules (has seeds in hand).
    pub fn namua(&self) -> bool {
        self.hands[self.side.index()] > 0
    }

    /// Whether `side`'s house functions now: standing and holding six or more.
    pub fn house_functional(&self, side: Side) -> bool {
        self.houses[side.index()] && self.board[house_pit(side)] >= sow::HOUSE_MIN
    }
}

impl SidedPosition for BaoPosition {
    fn empty() -> Self {
        BaoPosition::mtaji([0; PITS], Side::A)
    }

    fn parts(&mut self, pits: usize) -> (&mut [u8], &mut Side) {
        (&mut self.board[..pits], &mut self.side)
    }
}

/// Bao la Kiswahili with its rule options.
#[derive(Clone, Debug)]
pub struct Bao {
    rules: BaoRules,
    index: SidedIndex,
}

impl Bao {
    /// The game under `rules`.
    pub fn new(rules: BaoRules) -> Self {
        Bao {
            rules,
            index: SidedIndex::new(Mirror::half_turn(PITS), HalfOrder::south_moves(PITS)),
        }
    }

    /// Bao takes no parameters, only rule options.
    pub fn from_params(p: &mut ParamReader) -> Result<Self, InputError> {
        Ok(Bao::new(BaoRules::parse(p.rules())?))
    }

    /// The rules this game plays by.
    pub fn rules(&self) -> BaoRules {
        self.rules
    }

    /// A checked position: 32 counts, at most 64 seeds in all, and a standing house only for
    /// a player with seeds in hand whose house pit is occupied.
    pub fn make_position(
        &self,
        board: &[u8],
        side: Side,
        hands: [u8; 2],
        houses: [bool; 2],
    ) -> Result<BaoPosition, InputError> {
        if board.len() != PITS {
            return Err(InputError::new(format!(
                "a Bao board has {PITS} pits, not {}",
                board.len()
            )));
        }
        let mut b = [0u8; PITS];
        b.copy_from_slice(board);
        let pos = BaoPosition {
            board: b,
            side,
            hands,
            houses,
        };
        if pos.seeds() > MAX_SEEDS {
            return Err(InputError::new(format!(
                "the position holds {} seeds on the board and in hand; Bao has {MAX_SEEDS}",
                pos.seeds()
            )));
        }
        for s in [Side::A, Side::B] {
            if !houses[s.index()] {
                continue;
            }
            if hands[s.index()] == 0 {
                return Err(InputError::new(format!(
                    "--houses: {s}'s hand is empty; a house only functions in the namua stage \
                     (seeds in hand), in the mtaji stage it is an ordinary pit",
                    s = s.letter()
                )));
            }
            if b[house_pit(s)] == 0 {
                return Err(InputError::new(format!(
                    "--houses: {s}'s house (pit {p}) is empty, and an emptied house no longer \
                     stands",
                    s = s.letter(),
                    p = house_pit(s)
                )));
            }
        }
        Ok(pos)
    }

    /// The position seen from the mover.
    #[inline]
    fn field(&self, pos: &BaoPosition) -> Field {
        let s = pos.side.index();
        let mut f = Field {
            own: [0; CIRCUIT],
            opp: [0; FRONT],
            own_house: pos.houses[s],
            opp_house: pos.houses[1 - s],
        };
        for (i, &p) in GEOMETRY.own[s].iter().enumerate() {
            f.own[i] = pos.board[p as usize];
        }
        for (i, &p) in GEOMETRY.facing[s].iter().enumerate() {
            f.opp[i] = pos.board[p as usize];
        }
        f
    }

    /// The position after a move of `pos` that ended with `f`.
    #[inline]
    fn after(&self, pos: &BaoPosition, f: &Field) -> BaoPosition {
        let s = pos.side.index();
        let mut next = *pos;
        for (i, &p) in GEOMETRY.own[s].iter().enumerate() {
            next.board[p as usize] = f.own[i];
        }
        for (i, &p) in GEOMETRY.facing[s].iter().enumerate() {
            next.board[p as usize] = f.opp[i];
        }
        if pos.namua() {
            next.hands[s] -= 1;
        }
        // A house only matters while its owner has seeds in hand.
        next.houses[s] = f.own_house && next.hands[s] > 0;
        next.houses[1 - s] = f.opp_house && next.hands[1 - s] > 0;
        next.side = pos.side.other();
        next
    }

    /// Hands every legal move of `pos` to `emit`, by stage.
    #[inline]
    fn generate<F: FnMut(MoveName, Outcome)>(&self, pos: &BaoPosition, mut emit: F) {
        let f = self.field(pos);
        if pos.namua() {
            namua::moves(&f, self.rules.never_ending, &mut emit);
        } else {
            mtaji::moves(&f, self.rules.never_ending, &mut emit);
        }
    }

    /// Tier and index of a mtaji position.
    #[inline]
    fn index_of(&self, pos: &BaoPosition) -> (Tier, u64) {
        self.index.index_of(&pos.board, pos.side)
    }

    /// The standard opening: each front row `0 0 0 0 6 2 2 0` from its owner's left, back rows
    /// empty, 22 seeds in each hand, both houses standing, South (A) to move.
    pub fn opening() -> BaoPosition {
        let mut board = [0u8; PITS];
        for s in [Side::A, Side::B] {
            let own = &GEOMETRY.own[s.index()];
            board[own[HOUSE] as usize] = 6;
            board[own[HOUSE + 1] as usize] = 2;
            board[own[HOUSE + 2] as usize] = 2;
        }
        BaoPosition {
            board,
            side: Side::A,
            hands: [START_HAND, START_HAND],
            houses: [true, true],
        }
    }
}

impl Game for Bao {
    type Position = BaoPosition;

    fn name(&self) -> &'static str {
        "bao"
    }

    fn descriptor(&self) -> String {
        format!("bao {}", self.rules.canonical())
    }

    fn default_seeds(&self) -> u32 {
        DEFAULT_SEEDS
    }

    /// One tier: every mtaji position with exactly `seeds` seeds (seeds are conserved).
    fn tiers_up_to(&self, seeds: u32) -> Result<Vec<Tier>, InputError> {
        if seeds > MAX_SEEDS {
            return Err(InputError::new(format!(
                "--seeds must be at most {MAX_SEEDS} for bao, not {seeds}"
            )));
        }
        Ok(vec![seeds])
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

    /// Seeds are conserved and a capture stays on the board: every move stays in the one
    /// tier, unless a never-ending sowing loses at once.
    fn closed_tier(&self, _tier: Tier) -> bool {
        self.rules.never_ending != NeverEnding::Loss
    }

    fn position(&self, tier: Tier, index: u64) -> BaoPosition {
        self.index.position(tier, index)
    }

    fn locate(&self, pos: &BaoPosition) -> Result<(Tier, u64), crate::error::Error> {
        if pos.hands != [0, 0] {
            return Err(InputError::new(format!(
                "this position has seeds in hand ({},{}): the bao databases hold mtaji positions \
                 only (empty hands, no house)",
                pos.hands[0], pos.hands[1]
            ))
            .into());
        }
        if pos.houses != [false, false] {
            return Err(InputError::new(
                "this position has a standing house: the bao databases hold mtaji positions only \
                 (empty hands, no house)",
            )
            .into());
        }
        let seeds: u32 = pos.board.iter().map(|&c| c as u32).sum();
        if seeds > MAX_SEEDS {
            return Err(InputError::new(format!(
                "the board holds {seeds} seeds; Bao has {MAX_SEEDS}"
            ))
            .into());
        }
        self.index.locate(&pos.board, pos.side)
    }

    /// The board turned half round (row `r` column `c` to row `3 - r` column `7 - c`), hands
    /// and houses exchanged: `RULES.md` gives both players the same rules from their own side
    /// (North's left is column 7, its house row 1 column 3), so South's pits map onto North's
    /// with the same names.
    fn mirror(&self, pos: &BaoPosition) -> BaoPosition {
        let mut board = [0u8; PITS];
        self.index.mirror().apply(&pos.board, &mut board);
        BaoPosition {
            board,
            side: pos.side.other(),
            hands: [pos.hands[1], pos.hands[0]],
            houses: [pos.houses[1], pos.houses[0]],
        }
    }

    fn visit<F: FnMut(u64, &BaoPosition)>(&self, tier: Tier, range: Range<u64>, f: F) {
        self.index.visit_positions(tier, range, f);
    }

    /// Successors of a tier position (mtaji: empty hands, so every successor is one too).
    fn successors(&self, pos: &BaoPosition, out: &mut Vec<Successor>) {
        debug_assert_eq!(pos.hands, [0, 0], "only mtaji positions are in tiers");
        self.generate(pos, |_, outcome| match outcome {
            Outcome::MoverLoses => out.push(Successor::MoverLoses),
            Outcome::Played(end) => {
                let (tier, index) = self.index_of(&self.after(pos, &end.field));
                out.push(Successor::Position { tier, index });
            }
        });
    }

    fn moves(&self, pos: &BaoPosition) -> Vec<LabelledMove<BaoPosition>> {
        let mut list = Vec::new();
        self.generate(pos, |name, outcome| {
            let (outcome, captured) = match outcome {
                Outcome::MoverLoses => (MoveOutcome::MoverLoses, 0),
                Outcome::Played(end) => (
                    MoveOutcome::Position(self.after(pos, &end.field)),
                    end.captured,
                ),
            };
            list.push(LabelledMove {
                label: name.to_string(),
                outcome,
                captured,
                discarded: 0,
            });
        });
        list
    }

    fn find_move(
        &self,
        pos: &BaoPosition,
        text: &str,
    ) -> Result<LabelledMove<BaoPosition>, InputError> {
        let name = notation::parse(text)?;
        find_labelled(self.moves(pos), &name.to_string())
    }

    fn side_to_move(&self, pos: &BaoPosition) -> Side {
        pos.side
    }

    fn board_counts(&self, pos: &BaoPosition) -> Vec<u32> {
        pos.board.iter().map(|&c| c as u32).collect()
    }

    fn parse_position(&self, spec: &PositionSpec) -> Result<BaoPosition, InputError> {
        let board = parse_counts(&spec.board, PITS, "--board")?;
        let hands = match &spec.hands {
            Some(h) => text::parse_hands(h)?,
            None => [0, 0],
        };
        let houses = match &spec.houses {
            Some(h) => text::parse_houses(h)?,
            None => [false, false],
        };
        self.make_position(&board, spec.to_move, hands, houses)
    }

    fn render(&self, pos: &BaoPosition) -> String {
        text::render(pos)
    }

    fn position_fields(&self, pos: &BaoPosition) -> Map<String, Json> {
        let house = |s: Side| {
            if pos.house_functional(s) {
                "functional"
            } else if pos.houses[s.index()] {
                "dormant"
            } else {
                "none"
            }
        };
        let mut m = Map::new();
        m.insert("hands".into(), json!(pos.hands));
        m.insert("houses".into(), json!([house(Side::A), house(Side::B)]));
        let stage = if pos.hands == [0, 0] {
            "mtaji"
        } else {
            "namua"
        };
        m.insert("stage".into(), json!(stage));
        m
    }

    fn start_position(&self) -> Option<BaoPosition> {
        Some(Bao::opening())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::AnyGame;

    #[test]
    fn rules_parse_refuse_and_round_trip_through_descriptors() {
        assert_eq!(BaoRules::parse("").unwrap(), BaoRules::default());
        let loss = BaoRules::parse("never-ending=loss").unwrap();
        assert_eq!(loss.never_ending, NeverEnding::Loss);
        assert!(BaoRules::parse("never-ending=draw").is_err());
        assert!(BaoRules::parse("kichwa=relay").is_err());
        for rules in [BaoRules::default(), loss] {
            let d = Bao::new(rules).descriptor();
            let g = AnyGame::from_descriptor(&d).unwrap();
            assert_eq!(g.descriptor(), d);
            assert_eq!(g.name(), "bao");
        }
        assert_eq!(
            Bao::new(BaoRules::default()).descriptor(),
            "bao never-ending=illegal"
        );
    }

    #[test]
    fn one_tier_per_seed_total_with_the_advertised_size() {
        let g = Bao::new(BaoRules::default());
        assert_eq!(g.tiers_up_to(8).unwrap(), vec![8]);
        // C(39, 31) = 61,523,748 stored, twice that with either side to move.
        assert_eq!(g.tier_size(8).unwrap(), 61_523_748);
        assert_eq!(g.tier_positions(8).unwrap(), 123_047_496);
        assert!(g.tiers_up_to(65).is_err());
    }

    #[test]
    fn visit_position_and_locate_agree() {
        let g = Bao::new(BaoRules::default());
        let size = g.tier_size(3).unwrap();
        let mut n = 0;
        g.visit(3, 0..size, |i, p| {
            assert_eq!(*p, g.position(3, i));
            assert_eq!(p.side, Side::A);
            assert_eq!(g.locate(p).unwrap(), (3, i));
            // North to move is found at the index of its mirror.
            let north = g.mirror(p);
            assert_eq!(north.side, Side::B);
            assert_eq!(g.locate(&north).unwrap(), (3, i));
            assert_eq!(g.mirror(&north), *p);
            n += 1;
        });
        assert_eq!(n, size);
    }

    #[test]
    fn a_closed_tier_has_only_moves_that_stay_in_it() {
        for loss in [false, true] {
            let rules = if loss { "never-ending=loss" } else { "" };
            let g = Bao::new(BaoRules::parse(rules).unwrap());
            let mut out = Vec::new();
            for seeds in 2..=4 {
                // A move that loses at once needs more seeds (a never-ending sowing, tested
                // in the suite's rules): with it, no tier is closed.
                assert_eq!(g.closed_tier(seeds), !loss);
                let size = g.tier_size(seeds).unwrap();
                g.visit(seeds, 0..size, |_, p| {
                    out.clear();
                    g.successors(p, &mut out);
                    for s in &out {
                        assert!(
                            matches!(s, Successor::Position { tier, .. } if *tier == seeds),
                            "{s:?} leaves tier {seeds}"
                        );
                    }
                });
            }
        }
    }

    #[test]
    fn namua_positions_are_in_no_tier() {
        let g = Bao::new(BaoRules::default());
        assert!(g.locate(&Bao::opening()).is_err());
        let mut p = Bao::opening();
        p.hands = [0, 0];
        p.houses = [false, false];
        assert_eq!(g.locate(&p).unwrap().0, 20);
    }

    #[test]
    fn impossible_positions_are_refused() {
        let g = Bao::new(BaoRules::default());
        let mut board = [0u8; PITS];
        assert!(g
            .make_position(&board[..31], Side::A, [0, 0], [false; 2])
            .is_err());
        board[20] = 6;
        // A standing house needs seeds in its owner's hand and an occupied pit.
        assert!(g
            .make_position(&board, Side::A, [0, 3], [true, false])
            .is_err());
        assert!(g
            .make_position(&board, Side::A, [3, 3], [false, true])
            .is_err());
        assert!(g
            .make_position(&board, Side::A, [3, 3], [true, false])
            .is_ok());
        // 64 seeds at most.
        assert!(g
            .make_position(&board, Side::A, [30, 29], [false; 2])
            .is_err());
        assert!(g
            .make_position(&board, Side::A, [30, 28], [false; 2])
            .is_ok());
    }
}
