//! Bao Kigogo written again from RULES.md §2, deliberately unlike the engine: pits stay in
//! row-major board order, cycles are explicit lists of pits built from the text, seeds are
//! dropped one at a time, and a never-ending move is found by remembering every lap-start
//! state of the move in a `HashSet`.

use std::collections::HashSet;

use super::{boards_up_to, OSucc};

/// A position: 48 pit counts (row-major, pit `12*row + col`) and the side to move
/// (0 = South = A, 1 = North = B).
pub type KPos = (Vec<u32>, u8);

/// How a start ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KResult {
    /// The resulting board and the seeds removed from play.
    Ends(Vec<u32>, u32),
    NeverEnding,
}

/// A start the rules allow (before the never-ending option), labelled `r<row>c<col>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KMove {
    pub label: String,
    pub start: usize,
    pub result: KResult,
}

#[derive(Clone, Copy, Debug)]
pub struct KOracle {
    /// `never-ending=loss` (otherwise `illegal`).
    pub never_ending_loses: bool,
}

fn pit(row: usize, col: usize) -> usize {
    12 * row + col
}

/// "South: row 3 columns 0→11, then row 2 columns 11→0. North: row 1 columns 0→11, then row 0
/// columns 11→0."
pub fn cycle(side: u8) -> Vec<usize> {
    let (first, second) = if side == 0 { (3, 2) } else { (1, 0) };
    let mut c: Vec<usize> = (0..12).map(|col| pit(first, col)).collect();
    c.extend((0..12).rev().map(|col| pit(second, col)));
    c
}

fn front_row(side: u8) -> usize {
    if side == 0 {
        2
    } else {
        1
    }
}

fn owns(side: u8, p: usize) -> bool {
    let row = p / 12;
    if side == 0 {
        row == 2 || row == 3
    } else {
        row == 0 || row == 1
    }
}

pub fn label(p: usize) -> String {
    format!("r{}c{}", p / 12, p % 12)
}

impl KOracle {
    pub fn new(never_ending_loses: bool) -> Self {
        KOracle { never_ending_loses }
    }

    fn next(&self, side: u8, p: usize) -> usize {
        let c = cycle(side);
        let i = c.iter().position(|&q| q == p).expect("own pit");
        c[(i + 1) % c.len()]
    }

    /// The end of a move whose last seed fell into empty pit `p`: capture the opponent's front
    /// pit of that column if `p` is on the mover's front row and that pit is occupied, and the
    /// opponent's back pit of the column too if it is occupied.
    fn end_move(&self, mut b: Vec<u32>, side: u8, p: usize) -> KResult {
        let mut captured = 0;
        if p / 12 == front_row(side) {
            let col = p % 12;
            let (opp_front, opp_back) = if side == 0 { (1, 0) } else { (2, 3) };
            let f = pit(opp_front, col);
            if b[f] > 0 {
                captured += b[f];
                b[f] = 0;
                let k = pit(opp_back, col);
                if b[k] > 0 {
                    captured += b[k];
                    b[k] = 0;
                }
            }
        }
        KResult::Ends(b, captured)
    }

    /// Lifts `start` and relay-sows one seed at a time.
    pub fn sow(&self, board: &[u32], side: u8, start: usize) -> KResult {
        let mut b = board.to_vec();
        let mut hand = b[start];
        b[start] = 0;
        let mut p = start;
        let mut seen: HashSet<(Vec<u32>, usize, u32)> = HashSet::new();
        loop {
            if !seen.insert((b.clone(), p, hand)) {
                return KResult::NeverEnding;
            }
            while hand > 0 {
                p = self.next(side, p);
                b[p] += 1;
                hand -= 1;
            }
            if b[p] == 1 {
                return self.end_move(b, side, p);
            }
            hand = b[p];
            b[p] = 0;
        }
    }

    /// Every start the rules allow before the never-ending option, in pit order.
    pub fn starts(&self, board: &[u32], side: u8) -> Vec<KMove> {
        let own: Vec<usize> = (0..48).filter(|&p| owns(side, p)).collect();
        let any_big = own.iter().any(|&p| board[p] >= 2);
        let mut out = Vec::new();
        for &p in &own {
            if any_big && board[p] >= 2 {
                out.push(KMove {
                    label: label(p),
                    start: p,
                    result: self.sow(board, side, p),
                });
            } else if !any_big && board[p] == 1 {
                let q = self.next(side, p);
                if board[q] == 0 {
                    let mut b = board.to_vec();
                    b[p] = 0;
                    b[q] = 1;
                    out.push(KMove {
                        label: label(p),
                        start: p,
                        result: self.end_move(b, side, q),
                    });
                }
            }
        }
        out
    }

    /// The legal moves under the never-ending option: never-ending starts are dropped
    /// (`illegal`) or kept as immediate losses (`loss`).
    pub fn legal(&self, board: &[u32], side: u8) -> Vec<KMove> {
        self.starts(board, side)
            .into_iter()
            .filter(|m| self.never_ending_loses || m.result != KResult::NeverEnding)
            .collect()
    }

    pub fn successors(&self, pos: &KPos) -> Vec<OSucc<KPos>> {
        self.legal(&pos.0, pos.1)
            .into_iter()
            .map(|m| match m.result {
                KResult::Ends(b, _) => OSucc::To((b, 1 - pos.1)),
                KResult::NeverEnding => OSucc::MoverLoses,
            })
            .collect()
    }

    pub fn positions(&self, max_seeds: u32) -> Vec<KPos> {
        boards_up_to(48, max_seeds)
            .into_iter()
            .flat_map(|b| [(b.clone(), 0), (b, 1)])
            .collect()
    }
}
