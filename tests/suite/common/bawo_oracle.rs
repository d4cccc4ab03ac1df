//! Generalized Bawo written again from RULES.md §1, one micro-sow at a time.

use super::{boards_up_to, OSucc};

#[derive(Clone, Copy, Debug)]
pub struct Oracle {
    pub n: usize,
    pub lap_cap: u64,
    pub kichwa_relay: bool,
    pub capture_occupied: bool,
}

/// A position: pit counts and the side to move (0 = A, 1 = B).
pub type OPos = (Vec<u32>, u8);

/// One legal move: start pit, resulting board, capture events, seeds to reserve, discarded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OMove {
    pub start: usize,
    pub board: Vec<u32>,
    pub events: u32,
    pub reserve: u32,
    pub discarded: u32,
}

impl Oracle {
    pub fn new(n: usize, lap_cap: u64, kichwa_relay: bool, capture_occupied: bool) -> Self {
        Oracle {
            n,
            lap_cap,
            kichwa_relay,
            capture_occupied,
        }
    }

    fn next(&self, side: u8, p: usize) -> usize {
        let m = 2 * self.n;
        if side == 0 {
            (p + 1) % m
        } else {
            m + ((p - m + 1) % m)
        }
    }

    fn owns(&self, side: u8, p: usize) -> bool {
        if side == 0 {
            p < 2 * self.n
        } else {
            p >= 2 * self.n
        }
    }

    fn on_front(&self, side: u8, p: usize) -> bool {
        let n = self.n;
        if side == 0 {
            (n..2 * n).contains(&p)
        } else {
            (2 * n..3 * n).contains(&p)
        }
    }

    fn facing(&self, p: usize) -> usize {
        let n = self.n;
        if (n..2 * n).contains(&p) {
            3 * n - 1 - (p - n)
        } else {
            n + (3 * n - 1 - p)
        }
    }

    fn kichwa(&self, side: u8) -> usize {
        if side == 0 {
            self.n
        } else {
            2 * self.n
        }
    }

    /// Plays a start without legality checks.
    pub fn play(&self, board: &[u32], side: u8, start: usize) -> OMove {
        let mut b = board.to_vec();
        let mut hand = b[start];
        b[start] = 0;
        let mut p = start;
        let mut c: u64 = 0;
        let mut mv = OMove {
            start,
            board: vec![],
            events: 0,
            reserve: 0,
            discarded: 0,
        };
        loop {
            p = self.next(side, p);
            b[p] += 1;
            hand -= 1;
            c += 1;
            if c == self.lap_cap {
                mv.discarded = hand;
                break;
            }
            if hand > 0 {
                continue;
            }
            let held_before = b[p] >= 2;
            let f = self.on_front(side, p).then(|| self.facing(p));
            if let Some(f) = f {
                if (!self.capture_occupied || held_before) && b[f] > 0 {
                    let x = b[f];
                    b[f] = 0;
                    mv.events += 1;
                    if self.kichwa_relay && p == self.kichwa(side) {
                        hand = x;
                        continue;
                    }
                    mv.reserve += x;
                }
            }
            if held_before {
                hand = b[p];
                b[p] = 0;
                continue;
            }
            break;
        }
        mv.board = b;
        mv
    }

    /// The legal moves: starts with two or more seeds, capturing ones only if any captures.
    pub fn legal(&self, board: &[u32], side: u8) -> Vec<OMove> {
        let all: Vec<OMove> = (0..4 * self.n)
            .filter(|&p| self.owns(side, p) && board[p] >= 2)
            .map(|p| self.play(board, side, p))
            .collect();
        if all.iter().any(|m| m.events > 0) {
            all.into_iter().filter(|m| m.events > 0).collect()
        } else {
            all
        }
    }

    pub fn successors(&self, pos: &OPos) -> Vec<OSucc<OPos>> {
        self.legal(&pos.0, pos.1)
            .into_iter()
            .map(|m| OSucc::To((m.board, 1 - pos.1)))
            .collect()
    }

    pub fn positions(&self, max_seeds: u32) -> Vec<OPos> {
        boards_up_to(4 * self.n, max_seeds)
            .into_iter()
            .flat_map(|b| [(b.clone(), 0), (b, 1)])
            .collect()
    }
}
