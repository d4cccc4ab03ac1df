//! Generalized Bawo, the paper's model R1–R6 (`RULES.md` §1).
//!
//! Pits `0..4n`: A-back `0..n`, A-front `n..2n`, B-front `2n..3n`, B-back `3n..4n`. Each
//! player sows round a fixed 2n-pit cycle over their own rows (A: `p -> p+1 mod 2n`, B the
//! same shifted by `2n`). A move lifts an own pit holding at least two seeds and sows; at the
//! end of each lap a landing on the mover's front row captures the facing pit into the
//! reserve (or, with `kichwa=relay`, into hand when the landing pit is the kichwa), and a
//! landing in a pit that held seeds relays. After `L` single drops the move stops and seeds
//! still in hand are discarded. If any start captures, only capturing starts are legal.
//!
//! Reserves never influence play, so a position is the board and the side to move; the board
//! total never grows, so tier `k` (the positions with `k` seeds on the board) depends only on
//! tiers `0..=k`. Within a tier the index is the board's rank among the `C(k + 4n - 1, 4n - 1)`
//! boards of `k` seeds, with A to move; a position with B to move is the one with A to move on
//! the board whose players' rows are exchanged ([`Game::mirror`]), and is found at its index.

use std::ops::Range;

use super::cycle::Brent;
use super::input::short;
use super::sided::{HalfOrder, Mirror, SidedIndex, SidedPosition};
use super::{
    rule_pairs, Game, InputError, LabelledMove, MoveOutcome, ParamReader, PositionSpec, Side,
    Successor, Tier,
};
use crate::rank::TooLarge;

/// Largest supported half-width.
pub const MAX_N: u32 = 8;
/// Board capacity: `4 * MAX_N` pits.
pub const MAX_PITS: usize = 4 * MAX_N as usize;
pub use super::sided::MAX_SEEDS;
/// The parameters Bawo reads (and its descriptor records): half-width and lap cap.
pub const PARAM_KEYS: &[&str] = &["n", "lap-cap"];
/// Half-width when `n` is not given and no board says otherwise.
pub const DEFAULT_N: u32 = 3;
/// Lap cap when `lap-cap` is not given.
pub const DEFAULT_LAP_CAP: u64 = 64;
/// Seed budget of `solve` without `--seeds`: the README's first command, solved in seconds.
pub const DEFAULT_SEEDS: u32 = 12;

/// `kichwa` rule option (R3, which the paper leaves open).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kichwa {
    /// No kichwa rule (default).
    Off,
    /// A capture at the end of a lap landing in the kichwa takes the captured seeds in hand and
    /// sows them on from the kichwa; the kichwa's own seeds stay (no relay at that lap end).
    Relay,
}

/// `capture` rule option (R2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureRule {
    /// Capture whenever a lap ends on the mover's front row facing seeds (default; the paper's
    /// appendix, 3a).
    Any,
    /// Capture only when the landing pit held seeds before the drop (the paper's main text).
    Occupied,
}

/// The rule options of Generalized Bawo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BawoRules {
    /// How the kichwa (end pit) rule plays.
    pub kichwa: Kichwa,
    /// Which captures are allowed.
    pub capture: CaptureRule,
}

impl Default for BawoRules {
    fn default() -> Self {
        BawoRules {
            kichwa: Kichwa::Off,
            capture: CaptureRule::Any,
        }
    }
}

impl BawoRules {
    /// Parses `kichwa=off|relay,capture=any|occupied`; omitted options take their defaults.
    pub fn parse(text: &str) -> Result<Self, InputError> {
        let mut rules = BawoRules::default();
        for (k, v) in rule_pairs(text)? {
            match (k, v) {
                ("kichwa", "off") => rules.kichwa = Kichwa::Off,
                ("kichwa", "relay") => rules.kichwa = Kichwa::Relay,
                ("capture", "any") => rules.capture = CaptureRule::Any,
                ("capture", "occupied") => rules.capture = CaptureRule::Occupied,
                ("kichwa", _) | ("capture", _) => {
                    return Err(InputError::new(format!(
                        "rule option {k}={}: kichwa takes off|relay, capture takes any|occupied",
                        short(v)
                    )))
                }
                _ => {
                    return Err(InputError::new(format!(
                        "unknown rule option '{}' for bawo (known: kichwa=off|relay, capture=any|occupied)",
                        short(k)
                    )))
                }
            }
        }
        Ok(rules)
    }

    /// Canonical text, as in descriptors: `kichwa=off capture=any`.
    pub fn canonical(&self) -> String {
        let k = match self.kichwa {
            Kichwa::Off => "off",
            Kichwa::Relay => "relay",
        };
        let c = match self.capture {
            CaptureRule::Any => "any",
            CaptureRule::Occupied => "occupied",
        };
        format!("kichwa={k} capture={c}")
    }
}

/// A Bawo position: the pit counts (only the first `4n` are used) and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BawoPosition {
    /// Seeds per pit (only the first `pits` are used).
    pub board: [u8; MAX_PITS],
    /// The side to move.
    pub side: Side,
}

impl SidedPosition for BawoPosition {
    fn empty() -> Self {
        BawoPosition {
            board: [0; MAX_PITS],
            side: Side::A,
        }
    }

    fn parts(&mut self, pits: usize) -> (&mut [u8], &mut Side) {
        (&mut self.board[..pits], &mut self.side)
    }
}

/// What one sowing did besides moving seeds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sowing {
    /// Capture events (R2 or R3); R4 keys on this.
    pub captures: u32,
    /// Seeds put in the mover's reserve.
    pub captured: u32,
    /// Seeds discarded by the lap cap (R6).
    pub discarded: u32,
}

/// The geometry of one player's cycle, indexed by cycle position `0..2n`.
#[derive(Clone, Debug)]
struct Cycle {
    /// Pit at each cycle position.
    pit: [u8; 2 * MAX_N as usize],
    /// Whether the cycle position is on this player's front row.
    front: [bool; 2 * MAX_N as usize],
    /// The opponent pit facing each front position.
    facing: [u8; 2 * MAX_N as usize],
    /// Cycle position of this player's kichwa (first front pit in cycle order).
    kichwa: usize,
}

/// Laps of sowing after which a move starts looking for a repeated lap start, so that moves
/// that would cycle until an enormous lap cap are fast-forwarded exactly.
const CYCLE_WATCH_AFTER: u64 = 4096;

/// Generalized Bawo with half-width `n`, lap cap `L` and rule options.
#[derive(Clone, Debug)]
pub struct Bawo {
    n: usize,
    lap_cap: u64,
    rules: BawoRules,
    index: SidedIndex,
    cycles: [Cycle; 2],
}

impl Bawo {
    /// The order of the pits inside each half of a tier's index ([`SidedIndex`]): A's
    /// front row most significant, then A's back row; B's front row above B's back row; each
    /// row from its last pit down. Of the orders measured on the largest tier this compresses
    /// best (README, "Database format").
    fn half_order(n: usize) -> HalfOrder {
        let n = n as u8;
        HalfOrder {
            mover: (0..n).rev().chain((n..2 * n).rev()).collect(),
            opponent: (2 * n..4 * n).rev().collect(),
        }
    }

    /// Bawo with `n` pits per row, `lap_cap` laps per move at most, under `rules`.
    pub fn new(n: u32, lap_cap: u64, rules: BawoRules) -> Result<Self, InputError> {
        if n == 0 || n > MAX_N {
            return Err(InputError::new(format!(
                "--n must be between 1 and {MAX_N}, not {n}"
            )));
        }
        if lap_cap == 0 {
            return Err(InputError::new("--lap-cap must be at least 1"));
        }
        let n = n as usize;
        let cycle_of = |side: Side| {
            let mut c = Cycle {
                pit: [0; 2 * MAX_N as usize],
                front: [false; 2 * MAX_N as usize],
                facing: [0; 2 * MAX_N as usize],
                kichwa: 0,
            };
            for i in 0..2 * n {
                let pit = match side {
                    Side::A => i,
                    Side::B => 2 * n + i,
                };
                c.pit[i] = pit as u8;
                let is_front = match side {
                    Side::A => (n..2 * n).contains(&pit),
                    Side::B => (2 * n..3 * n).contains(&pit),
                };
                c.front[i] = is_front;
                if is_front {
                    c.facing[i] = facing_pit(n, pit) as u8;
                }
            }
            c.kichwa = match side {
                Side::A => n,
                Side::B => 0,
            };
            c
        };
        Ok(Bawo {
            n,
            lap_cap,
            rules,
            index: SidedIndex::new(Mirror::rows_exchanged(4 * n), Self::half_order(n)),
            cycles: [cycle_of(Side::A), cycle_of(Side::B)],
        })
    }

    /// Reads `n` (default [`DEFAULT_N`], or the board's pit count / 4 when a board is known),
    /// `lap-cap` (default [`DEFAULT_LAP_CAP`]) and the rule options.
    pub fn from_params(p: &mut ParamReader) -> Result<Self, InputError> {
        let n = match p.number::<u32>("n")? {
            Some(n) => n,
            None => p.board().map_or(Ok(DEFAULT_N), infer_n)?,
        };
        let lap_cap = p.number::<u64>("lap-cap")?.unwrap_or(DEFAULT_LAP_CAP);
        Bawo::new(n, lap_cap, BawoRules::parse(p.rules())?)
    }

    /// Pits per row.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Pits on the board (four rows).
    pub fn pits(&self) -> usize {
        4 * self.n
    }

    /// Laps a move may sow before it counts as never ending.
    pub fn lap_cap(&self) -> u64 {
        self.lap_cap
    }

    /// The rules this game plays by.
    pub fn rules(&self) -> BawoRules {
        self.rules
    }

    /// The position with `counts` on the board (`4n` of them) and `side` to move.
    pub fn make_position(&self, counts: &[u8], side: Side) -> BawoPosition {
        assert_eq!(counts.len(), self.pits());
        let mut board = [0u8; MAX_PITS];
        board[..counts.len()].copy_from_slice(counts);
        BawoPosition { board, side }
    }

    /// Executes one move from cycle position `start` in place (R1, R2, R3, R6).
    fn sow(&self, board: &mut [u8; MAX_PITS], side: Side, start: usize) -> Sowing {
        let cyc = &self.cycles[side.index()];
        let m = 2 * self.n;
        let mut pos = start;
        let mut hand = board[cyc.pit[pos] as usize] as u64;
        board[cyc.pit[pos] as usize] = 0;
        let mut sown: u64 = 0;
        let mut out = Sowing::default();
        // Brent's watch over lap-start states `(board, position, hand)`; it jumps once.
        let mut watch = Brent::default();
        let mut jumped = false;
        loop {
            // One lap: `hand` seeds, one per pit, from the pit after `pos`.
            let room = self.lap_cap - sown;
            if hand >= room {
                drop_run(board, cyc, m, pos, room);
                out.discarded = (hand - room) as u32;
                return out;
            }
            drop_run(board, cyc, m, pos, hand);
            sown += hand;
            pos = (pos + (hand % m as u64) as usize) % m;
            let landing = cyc.pit[pos] as usize;
            let held_before = board[landing] > 1;
            if cyc.front[pos] && (self.rules.capture == CaptureRule::Any || held_before) {
                let facing = cyc.facing[pos] as usize;
                let taken = board[facing];
                if taken > 0 {
                    board[facing] = 0;
                    out.captures += 1;
                    if self.rules.kichwa == Kichwa::Relay && pos == cyc.kichwa {
                        hand = taken as u64;
                        continue;
                    }
                    out.captured += taken as u32;
                }
            }
            if !held_before {
                return out;
            }
            hand = board[landing] as u64;
            board[landing] = 0;
            if sown >= CYCLE_WATCH_AFTER && !jumped {
                if let Some(period) = watch.observe(&(*board, pos, hand), sown) {
                    jumped = true;
                    // The lap-start state repeats every `period` drops: jump as many whole
                    // periods as fit before the cap, then finish by simulation.
                    sown += (self.lap_cap - 1 - sown) / period * period;
                }
            }
        }
    }

    /// Plays every start of `pos` and keeps the legal ones (R4, R5): `(start pit, board, sowing)`.
    fn legal_results(&self, pos: &BawoPosition, out: &mut [(u8, [u8; MAX_PITS], Sowing)]) -> usize {
        let cyc = &self.cycles[pos.side.index()];
        let mut len = 0;
        let mut any_capture = false;
        for cpos in 0..2 * self.n {
            let pit = cyc.pit[cpos];
            if pos.board[pit as usize] < 2 {
                continue;
            }
            let mut board = pos.board;
            let sowing = self.sow(&mut board, pos.side, cpos);
            any_capture |= sowing.captures > 0;
            out[len] = (pit, board, sowing);
            len += 1;
        }
        if any_capture {
            let mut kept = 0;
            for i in 0..len {
                if out[i].2.captures > 0 {
                    out[kept] = out[i];
                    kept += 1;
                }
            }
            len = kept;
        }
        len
    }

    fn index_of(&self, board: &[u8; MAX_PITS], side: Side) -> (Tier, u64) {
        self.index.index_of(&board[..self.pits()], side)
    }
}

/// The half-width of a typed board of `4n` pit counts (an empty board keeps the default, and
/// parsing it reports what is wrong).
fn infer_n(board: &str) -> Result<u32, InputError> {
    if board.trim().is_empty() {
        return Ok(DEFAULT_N);
    }
    super::input::check_separators(board, "--board")?;
    let pits = board.split([',', '/']).count();
    let n = pits / 4;
    if !pits.is_multiple_of(4) || n == 0 || n > MAX_N as usize {
        return Err(InputError::new(format!(
            "--board has {pits} pit counts; a Bawo board has 4n of them (n = 1..={MAX_N}), \
             or give --n"
        )));
    }
    Ok(n as u32)
}

/// The pit facing front pit `pit`: `n + j` faces `3n - 1 - j` and back.
pub fn facing_pit(n: usize, pit: usize) -> usize {
    if (n..2 * n).contains(&pit) {
        3 * n - 1 - (pit - n)
    } else {
        debug_assert!((2 * n..3 * n).contains(&pit));
        n + (3 * n - 1 - pit)
    }
}

/// Drops `count` seeds one per pit round the cycle, starting after cycle position `pos`.
#[inline]
fn drop_run(board: &mut [u8; MAX_PITS], cyc: &Cycle, m: usize, pos: usize, mut count: u64) {
    if count >= m as u64 {
        let full = (count / m as u64) as u8;
        for &pit in &cyc.pit[..m] {
            board[pit as usize] += full;
        }
        count %= m as u64;
    }
    let mut p = pos;
    for _ in 0..count {
        p += 1;
        if p == m {
            p = 0;
        }
        board[cyc.pit[p] as usize] += 1;
    }
}

impl Game for Bawo {
    type Position = BawoPosition;

    fn name(&self) -> &'static str {
        "bawo"
    }

    fn descriptor(&self) -> String {
        format!(
            "bawo n={} lap-cap={} {}",
            self.n,
            self.lap_cap,
            self.rules.canonical()
        )
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

    /// Without the kichwa relay a capture sends its seeds to a reserve, off the board, and a
    /// truncated move discards seeds: a move that stays in its tier only sowed the mover's
    /// own cycle. (The kichwa relay sows captured seeds on and keeps the total.)
    fn kept_half(&self, tier: Tier) -> Option<super::kept::KeptHalf> {
        (self.rules.kichwa == Kichwa::Off)
            .then(|| self.index.kept_half(tier))
            .flatten()
    }

    fn kept_half_shape(&self, tier: Tier) -> Option<super::kept::KeptShape> {
        (self.rules.kichwa == Kichwa::Off)
            .then(|| self.index.kept_half_shape(tier))
            .flatten()
    }

    fn position(&self, tier: Tier, index: u64) -> BawoPosition {
        self.index.position(tier, index)
    }

    fn locate(&self, pos: &BawoPosition) -> Result<(Tier, u64), crate::error::Error> {
        self.index.locate(&pos.board[..self.pits()], pos.side)
    }

    /// A's rows and B's rows trade places, each in its own pit order (`RULES.md` §1: the
    /// exchange maps A's cycle onto B's, facing pits onto facing pits and kichwa onto kichwa).
    fn mirror(&self, pos: &BawoPosition) -> BawoPosition {
        let pits = self.pits();
        let mut board = [0u8; MAX_PITS];
        self.index
            .mirror()
            .apply(&pos.board[..pits], &mut board[..pits]);
        BawoPosition {
            board,
            side: pos.side.other(),
        }
    }

    fn visit<F: FnMut(u64, &BawoPosition)>(&self, tier: Tier, range: Range<u64>, f: F) {
        self.index.visit_positions(tier, range, f);
    }

    fn successors(&self, pos: &BawoPosition, out: &mut Vec<Successor>) {
        let mut results = [(0u8, [0u8; MAX_PITS], Sowing::default()); 2 * MAX_N as usize];
        let len = self.legal_results(pos, &mut results);
        let next = pos.side.other();
        for (_, board, _) in &results[..len] {
            let (tier, index) = self.index_of(board, next);
            out.push(Successor::Position { tier, index });
        }
    }

    fn moves(&self, pos: &BawoPosition) -> Vec<LabelledMove<BawoPosition>> {
        let mut results = [(0u8, [0u8; MAX_PITS], Sowing::default()); 2 * MAX_N as usize];
        let len = self.legal_results(pos, &mut results);
        results[..len]
            .iter()
            .map(|(pit, board, sowing)| LabelledMove {
                label: pit.to_string(),
                outcome: MoveOutcome::Position(BawoPosition {
                    board: *board,
                    side: pos.side.other(),
                }),
                captured: sowing.captured,
                discarded: sowing.discarded,
            })
            .collect()
    }

    fn side_to_move(&self, pos: &BawoPosition) -> Side {
        pos.side
    }

    fn board_counts(&self, pos: &BawoPosition) -> Vec<u32> {
        pos.board[..self.pits()].iter().map(|&c| c as u32).collect()
    }

    fn parse_position(&self, spec: &PositionSpec) -> Result<BawoPosition, InputError> {
        let counts = self.index.parse_board(spec)?;
        Ok(self.make_position(&counts, spec.to_move))
    }

    fn render(&self, pos: &BawoPosition) -> String {
        // Seen from A's side: B's back row on top, A's back row at the bottom; columns line
        // up facing pits, and both cycles run clockwise in this picture.
        let n = self.n;
        let b = &pos.board;
        let row = |pits: Vec<usize>| {
            pits.iter()
                .map(|&p| format!("{:>3}", b[p]))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let labels = |pits: Vec<usize>| {
            pits.iter()
                .map(|&p| format!("{:>3}", format!("{p}")))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let b_back: Vec<usize> = (3 * n..4 * n).collect();
        let b_front: Vec<usize> = (2 * n..3 * n).rev().collect();
        let a_front: Vec<usize> = (n..2 * n).collect();
        let a_back: Vec<usize> = (0..n).rev().collect();
        format!(
            "B back   {}   pits {}\nB front  {}   pits {}\n{}\nA front  {}   pits {}\nA back   {}   pits {}\n{} to move",
            row(b_back.clone()),
            labels(b_back),
            row(b_front.clone()),
            labels(b_front),
            "-".repeat(9 + 4 * n),
            row(a_front.clone()),
            labels(a_front),
            row(a_back.clone()),
            labels(a_back),
            pos.side.letter()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(n: u32, l: u64) -> Bawo {
        Bawo::new(n, l, BawoRules::default()).unwrap()
    }

    #[test]
    fn experiment_4_singletons_have_no_move() {
        let g = game(2, 16);
        for side in [Side::A, Side::B] {
            let p = g.make_position(&[1; 8], side);
            assert!(g.moves(&p).is_empty());
        }
    }

    #[test]
    fn facing_is_an_involution() {
        for n in 1..=8 {
            for j in 0..n {
                let a = n + j;
                assert_eq!(facing_pit(n, facing_pit(n, a)), a);
                assert_eq!(facing_pit(n, a), 3 * n - 1 - j);
            }
        }
    }

    #[test]
    fn rules_parse_and_refuse() {
        assert_eq!(BawoRules::parse("").unwrap(), BawoRules::default());
        let r = BawoRules::parse("kichwa=relay,capture=occupied").unwrap();
        assert_eq!(r.kichwa, Kichwa::Relay);
        assert_eq!(r.capture, CaptureRule::Occupied);
        assert!(BawoRules::parse("kichwa=on").is_err());
        assert!(BawoRules::parse("direction=free").is_err());
        assert!(BawoRules::parse("kichwa").is_err());
    }
}
