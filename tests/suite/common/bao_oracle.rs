//! Bao la Kiswahili's mtaji stage written again from `RULES.md` §3, as plainly as possible and
//! deliberately unlike the engine: the board stays in pit order, the circuits are lists of
//! pit numbers built row by row from the text, seeds are dropped one at a time, and a
//! never-ending move is found by remembering every lap-start state in a `HashSet`.

use std::collections::HashSet;

use super::OSucc;

/// A mtaji position: 32 pit counts (pit `8 * row + column`) and the side to move (0 = South
/// = A, 1 = North = B).
pub type OPos = (Vec<u32>, u8);

/// The oracle's rule options.
#[derive(Clone, Copy, Debug)]
pub struct BaoOracle {
    /// `never-ending=loss` (otherwise `illegal`).
    pub never_ending_loses: bool,
}

/// How one start played out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Played {
    /// The move ended with this board, having taken `captured` seeds from the opponent.
    Ended {
        board: Vec<u32>,
        captured: u32,
    },
    NeverEnding,
}

/// One playable start: its name, whether its first lap captured, and how it played out.
#[derive(Clone, Debug)]
pub struct Start {
    pub label: String,
    pub capture_move: bool,
    pub played: Played,
}

fn front_row(side: u8) -> usize {
    if side == 0 {
        2
    } else {
        1
    }
}

fn back_row(side: u8) -> usize {
    if side == 0 {
        3
    } else {
        0
    }
}

/// Board columns from the player's own left to right: South sits at column 0's end of the
/// board's bottom, North faces South, so North's left is column 7.
fn columns_left_to_right(side: u8) -> Vec<usize> {
    if side == 0 {
        (0..8).collect()
    } else {
        (0..8).rev().collect()
    }
}

/// The player's 16 pits clockwise (seen from above), from the left kichwa: the front row
/// from the player's left to right, then the back row from right to left.
pub fn circuit(side: u8) -> Vec<usize> {
    let cols = columns_left_to_right(side);
    let mut c: Vec<usize> = cols.iter().map(|&col| 8 * front_row(side) + col).collect();
    c.extend(cols.iter().rev().map(|&col| 8 * back_row(side) + col));
    c
}

/// The opponent's front pit in the same column.
fn facing(p: usize) -> usize {
    let (row, col) = (p / 8, p % 8);
    let other = if row == 1 { 2 } else { 1 };
    8 * other + col
}

fn front_pits(side: u8) -> Vec<usize> {
    (0..8).map(|col| 8 * front_row(side) + col).collect()
}

fn front_is_empty(board: &[u32], side: u8) -> bool {
    front_pits(side).iter().all(|&p| board[p] == 0)
}

/// `a1`..`a8` (front) or `b1`..`b8` (back), counted from the owner's left.
pub fn pit_label(side: u8, p: usize) -> String {
    let (row, col) = (p / 8, p % 8);
    let from_left = columns_left_to_right(side)
        .iter()
        .position(|&c| c == col)
        .unwrap()
        + 1;
    if row == front_row(side) {
        format!("a{from_left}")
    } else {
        format!("b{from_left}")
    }
}

impl BaoOracle {
    /// Plays the start from pit `start` in direction `step` (+1 clockwise, -1 anti-clockwise).
    pub fn play(&self, board: &[u32], side: u8, start: usize, step: i32) -> Start {
        let circ = circuit(side);
        let at = |p: usize| circ.iter().position(|&q| q == p).unwrap() as i32;
        let me_front = front_pits(side);
        let opp_front = front_pits(1 - side);
        let mut b = board.to_vec();
        let mut dir = step;
        let mut i = at(start);
        let mut hand = b[start];
        b[start] = 0;
        let may_capture_first = board[start] < 16;
        let mut first = true;
        let mut capture_move = false;
        let mut captured = 0;
        let mut seen: HashSet<(Vec<u32>, i32, u32, i32)> = HashSet::new();
        let label = format!(
            "{}{}",
            pit_label(side, start),
            if step == 1 { ">" } else { "<" }
        );
        loop {
            while hand > 0 {
                i = (i + dir).rem_euclid(16);
                b[circ[i as usize]] += 1;
                hand -= 1;
            }
            let p = circ[i as usize];
            let held_before = b[p] >= 2;
            let captures_now = if first {
                may_capture_first
            } else {
                capture_move
            };
            if captures_now && me_front.contains(&p) && held_before && b[facing(p)] > 0 {
                if first {
                    capture_move = true;
                }
                let taken = b[facing(p)];
                b[facing(p)] = 0;
                captured += taken;
                if opp_front.iter().all(|&q| b[q] == 0) {
                    b[p] += taken;
                    return Start {
                        label,
                        capture_move,
                        played: Played::Ended { board: b, captured },
                    };
                }
                // Which kichwa: the kimbi's own end, else the one the direction comes from.
                let from_left_col = at(p); // 0..7 on the front row
                let left = match from_left_col {
                    0 | 1 => true,
                    6 | 7 => false,
                    _ => dir == 1,
                };
                let kichwa = if left { 0 } else { 7 };
                dir = if left { 1 } else { -1 };
                // Stand just before the kichwa so the first seed falls into it.
                i = (kichwa - dir).rem_euclid(16);
                hand = taken;
            } else if held_before {
                hand = b[p];
                b[p] = 0;
            } else {
                return Start {
                    label,
                    capture_move,
                    played: Played::Ended { board: b, captured },
                };
            }
            first = false;
            if !seen.insert((b.clone(), i, hand, dir)) {
                return Start {
                    label,
                    capture_move,
                    played: Played::NeverEnding,
                };
            }
        }
    }

    /// Every legal move: its label and where it leads.
    pub fn legal(&self, board: &[u32], side: u8) -> Vec<(String, OSucc<OPos>)> {
        if front_is_empty(board, side) {
            return vec![];
        }
        let circ = circuit(side);
        let mut starts = Vec::new();
        for &p in &circ {
            if board[p] >= 2 {
                for step in [1, -1] {
                    starts.push((p, step, self.play(board, side, p, step)));
                }
            }
        }
        let playable = |s: &Start| match &s.played {
            Played::NeverEnding => self.never_ending_loses,
            Played::Ended { board: after, .. } => !front_is_empty(after, side),
        };
        let captures: Vec<&Start> = starts
            .iter()
            .map(|(_, _, s)| s)
            .filter(|s| s.capture_move && playable(s))
            .collect();
        let chosen: Vec<&Start> = if !captures.is_empty() {
            captures
        } else {
            let fronts = front_pits(side);
            let big_front = fronts.iter().any(|&p| board[p] >= 2);
            let occupied: Vec<usize> = fronts.iter().copied().filter(|&p| board[p] > 0).collect();
            starts
                .iter()
                .filter(|(p, step, s)| {
                    let on_front = fronts.contains(p);
                    let row_ok = if big_front { on_front } else { !on_front };
                    // A lone kichwa goes toward the centre: the left one clockwise (+1), the
                    // right one anti-clockwise.
                    let kichwa_ok = if occupied.len() == 1 && occupied[0] == *p {
                        if *p == circ[0] {
                            *step == 1
                        } else if *p == circ[7] {
                            *step == -1
                        } else {
                            true
                        }
                    } else {
                        true
                    };
                    !s.capture_move && row_ok && kichwa_ok && playable(s)
                })
                .map(|(_, _, s)| s)
                .collect()
        };
        chosen
            .into_iter()
            .map(|s| {
                let succ = match &s.played {
                    Played::NeverEnding => OSucc::MoverLoses,
                    Played::Ended { board: after, .. } => OSucc::To((after.clone(), 1 - side)),
                };
                (s.label.clone(), succ)
            })
            .collect()
    }

    pub fn successors(&self, pos: &OPos) -> Vec<OSucc<OPos>> {
        self.legal(&pos.0, pos.1)
            .into_iter()
            .map(|(_, s)| s)
            .collect()
    }

    /// Every mtaji position with exactly `seeds` seeds, both sides to move.
    pub fn positions(&self, seeds: u32) -> Vec<OPos> {
        super::boards_up_to(32, seeds)
            .into_iter()
            .filter(|b| b.iter().sum::<u32>() == seeds)
            .flat_map(|b| [(b.clone(), 0), (b, 1)])
            .collect()
    }
}

/// A position of either stage: board, side to move, hands (A's, B's) and standing houses.
pub type NPos = (Vec<u32>, u8, [u32; 2], [bool; 2]);

/// The house: the fifth front pit from its owner's left.
pub fn house_pit(side: u8) -> usize {
    8 * front_row(side) + columns_left_to_right(side)[4]
}

/// A namua lap start: board, circuit position, hand, direction, standing houses.
type NamuaLapStart = (Vec<u32>, i32, u32, i32, [bool; 2]);

/// One way a namua sowing ended: the house choice made on the way (if any) and the result.
type NamuaEnd = (&'static str, Option<(Vec<u32>, [bool; 2])>);

impl BaoOracle {
    /// Sows on in the namua stage from circuit position `i`: a capture move (`capture`) or a
    /// takasa, with the house rules. Returns every ending (two when the house offered stop or
    /// safari); `None` for a never-ending one.
    #[allow(clippy::too_many_arguments)]
    fn namua_sow(
        &self,
        side: u8,
        mut b: Vec<u32>,
        mut houses: [bool; 2],
        mut i: i32,
        mut hand: u32,
        mut dir: i32,
        capture: bool,
    ) -> Vec<NamuaEnd> {
        let circ = circuit(side);
        let me_front = front_pits(side);
        let opp_front = front_pits(1 - side);
        let my_house = house_pit(side);
        let mut choice = "";
        let mut out = Vec::new();
        let mut seen: HashSet<NamuaLapStart> = HashSet::new();
        loop {
            while hand > 0 {
                i = (i + dir).rem_euclid(16);
                b[circ[i as usize]] += 1;
                hand -= 1;
            }
            let p = circ[i as usize];
            let held_before = b[p] >= 2;
            if capture && me_front.contains(&p) && held_before && b[facing(p)] > 0 {
                let taken = b[facing(p)];
                b[facing(p)] = 0;
                if facing(p) == house_pit(1 - side) {
                    houses[1 - side as usize] = false;
                }
                if opp_front.iter().all(|&q| b[q] == 0) {
                    b[p] += taken;
                    out.push((choice, Some((b, houses))));
                    return out;
                }
                let col = i; // 0..7 on the front row, from the mover's left
                let left = match col {
                    0 | 1 => true,
                    6 | 7 => false,
                    _ => dir == 1,
                };
                dir = if left { 1 } else { -1 };
                i = (if left { 0i32 } else { 7 } - dir).rem_euclid(16);
                hand = taken;
            } else if !held_before {
                out.push((choice, Some((b, houses))));
                return out;
            } else {
                if p == my_house && houses[side as usize] && b[p] >= 6 {
                    if !capture {
                        out.push((choice, Some((b, houses))));
                        return out;
                    }
                    out.push(("stop", Some((b.clone(), houses))));
                    choice = "safari";
                }
                hand = b[p];
                b[p] = 0;
                if p == my_house {
                    houses[side as usize] = false;
                }
            }
            if !seen.insert((b.clone(), i, hand, dir, houses)) {
                out.push((choice, None));
                return out;
            }
        }
    }

    /// Every legal move of a position of either stage (mtaji positions go to [`Self::legal`]).
    pub fn legal_any(&self, pos: &NPos) -> Vec<(String, OSucc<NPos>)> {
        let (board, side, hands, houses) = pos;
        let side = *side;
        if hands[side as usize] == 0 {
            return self
                .legal(board, side)
                .into_iter()
                .map(|(l, s)| {
                    let s = match s {
                        OSucc::To((b, to)) => {
                            let mut h = *houses;
                            for x in 0..2 {
                                h[x] &= hands[x] > 0;
                            }
                            // A capture may have emptied the opponent's house.
                            let oh = house_pit(1 - side);
                            if b[oh] == 0 && board[oh] > 0 {
                                h[1 - side as usize] = false;
                            }
                            OSucc::To((b, to, *hands, h))
                        }
                        OSucc::MoverLoses => OSucc::MoverLoses,
                    };
                    (l, s)
                })
                .collect();
        }
        self.namua_legal(board, side, *hands, *houses)
    }

    fn namua_legal(
        &self,
        board: &[u32],
        side: u8,
        hands: [u32; 2],
        houses: [bool; 2],
    ) -> Vec<(String, OSucc<NPos>)> {
        if front_is_empty(board, side) {
            return vec![];
        }
        let circ = circuit(side);
        let fronts = front_pits(side);
        let arrow = |d: i32| if d == 1 { ">" } else { "<" };
        let finish = |label: String, end: NamuaEnd| -> Option<(String, OSucc<NPos>)> {
            let label = if end.0.is_empty() {
                label
            } else {
                format!("{label} {}", end.0)
            };
            match end.1 {
                None => self
                    .never_ending_loses
                    .then_some((label, OSucc::MoverLoses)),
                Some((b, mut h)) => {
                    if front_is_empty(&b, side) {
                        return None;
                    }
                    let mut hs = hands;
                    hs[side as usize] -= 1;
                    for x in 0..2 {
                        h[x] &= hs[x] > 0;
                    }
                    Some((label, OSucc::To((b, 1 - side, hs, h))))
                }
            }
        };
        // Captures: the seed goes into an occupied front pit facing an occupied pit.
        let mut captures = Vec::new();
        for (col, &p) in circ[..8].iter().enumerate() {
            if board[p] == 0 || board[facing(p)] == 0 {
                continue;
            }
            let mut b = board.to_vec();
            let mut h = houses;
            b[p] += 1;
            let taken = b[facing(p)];
            b[facing(p)] = 0;
            if facing(p) == house_pit(1 - side) {
                h[1 - side as usize] = false;
            }
            if front_is_empty(&b, 1 - side) {
                b[p] += taken;
                captures.extend(finish(pit_label(side, p), ("", Some((b, h)))));
                continue;
            }
            let kichwas: Vec<bool> = match col {
                0 | 1 => vec![true],
                6 | 7 => vec![false],
                _ => vec![true, false],
            };
            for left in kichwas {
                let dir = if left { 1 } else { -1 };
                let before_kichwa = (if left { 0i32 } else { 7 } - dir).rem_euclid(16);
                for end in self.namua_sow(side, b.clone(), h, before_kichwa, taken, dir, true) {
                    captures.extend(finish(format!("{}{}", pit_label(side, p), arrow(dir)), end));
                }
            }
        }
        if !captures.is_empty() {
            return captures;
        }
        // Takasa.
        let my_house = house_pit(side);
        let functional = houses[side as usize] && board[my_house] >= 6;
        let mut usable: Vec<usize> = fronts
            .iter()
            .copied()
            .filter(|&p| board[p] > 0 && !(p == my_house && functional))
            .collect();
        if usable.iter().any(|&p| board[p] >= 2) {
            usable.retain(|&p| board[p] >= 2);
        }
        let occupied: Vec<usize> = fronts.iter().copied().filter(|&p| board[p] > 0).collect();
        let mut out = Vec::new();
        let start_at = |p: usize| circ.iter().position(|&q| q == p).unwrap() as i32;
        if usable.is_empty() && functional && board[facing(my_house)] == 0 {
            // The tax: the seed goes into the house, two are lifted.
            for dir in [1, -1] {
                let mut b = board.to_vec();
                b[my_house] = b[my_house] + 1 - 2;
                for end in self.namua_sow(side, b, houses, start_at(my_house), 2, dir, false) {
                    out.extend(finish(
                        format!("{}{}", pit_label(side, my_house), arrow(dir)),
                        end,
                    ));
                }
            }
        }
        for &p in &usable {
            if board[facing(p)] > 0 {
                continue; // placing here would capture
            }
            for dir in [1, -1] {
                if occupied == [p] && ((p == circ[0] && dir == -1) || (p == circ[7] && dir == 1)) {
                    continue; // a lone kichwa is sown toward the centre
                }
                let mut b = board.to_vec();
                let mut h = houses;
                let hand = b[p] + 1;
                b[p] = 0;
                if p == my_house {
                    h[side as usize] = false;
                }
                for end in self.namua_sow(side, b, h, start_at(p), hand, dir, false) {
                    out.extend(finish(format!("{}{}", pit_label(side, p), arrow(dir)), end));
                }
            }
        }
        out
    }
}
