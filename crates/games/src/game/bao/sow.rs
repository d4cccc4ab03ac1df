//! Multi-lap sowing of one Bao move, shared by both stages.
//!
//! A move is a sequence of laps round the mover's circuit (see [`super::geometry`]). What
//! happens at the end of a lap is the whole game (`RULES.md` §3):
//!
//! 1. **Capture** (capture moves only): the landing pit is a front pit that held seeds before
//!    the last drop and the facing opponent pit is occupied. Its seeds are taken; if that
//!    empties the opponent's front row the game ends at once and the taken seeds stay in the
//!    capturing pit. Otherwise they are sown from a kichwa toward the centre, the first into
//!    the kichwa itself: a capture in a kimbi uses that end's kichwa, any other keeps the
//!    move's direction (clockwise enters at the left kichwa, anti-clockwise at the right).
//! 2. **House** (namua only, while the mover's house functions): a takasa lap ending there
//!    ends the move; a capture lap ending there offers stop or safari (lift it and go on,
//!    which ends the house for good).
//! 3. **Relay**: a landing pit that held seeds before the drop is lifted and sown on in the
//!    same direction; an empty one ends the move.
//!
//! The seed total is conserved, so a move either ends or revisits a lap-start state; Brent's
//! cycle finding over the whole lap-start state detects that exactly in O(1) memory (the move
//! is deterministic once started, so a repeated state means it never ends).

use crate::game::cycle::Brent;

use super::geometry::{
    Dir, CIRCUIT, FACING_OPPONENT_HOUSE, FRONT, HOUSE, LEFT_KICHWA, RIGHT_KICHWA,
};

/// Seeds a functioning house must hold.
pub const HOUSE_MIN: u8 = 6;

/// The part of a position a move can change, seen from the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    /// The mover's pits in circuit order.
    pub own: [u8; CIRCUIT],
    /// The opponent's front pits: `opp[i]` faces the mover's front pit `i`.
    pub opp: [u8; FRONT],
    /// The mover's house still stands (never emptied) and the mover is in the namua stage.
    pub own_house: bool,
    /// The same for the opponent's house.
    pub opp_house: bool,
}

impl Field {
    /// The mover's house functions: standing and holding at least six seeds.
    #[inline]
    pub fn house_functional(&self) -> bool {
        self.own_house && self.own[HOUSE] >= HOUSE_MIN
    }

    #[inline]
    pub fn front_empty(&self) -> bool {
        self.own[..FRONT].iter().all(|&c| c == 0)
    }

    #[inline]
    pub fn opp_front_empty(&self) -> bool {
        self.opp.iter().all(|&c| c == 0)
    }

    /// Takes the opponent's front pit facing front pit `i`; returns the seeds taken.
    #[inline]
    pub fn take_facing(&mut self, i: usize) -> u32 {
        let take = self.opp[i] as u32;
        self.opp[i] = 0;
        if i == FACING_OPPONENT_HOUSE {
            // A captured house has been emptied: it never functions again.
            self.opp_house = false;
        }
        take
    }

    /// Lifts every seed of circuit pit `i`.
    #[inline]
    pub fn lift(&mut self, i: usize) -> u32 {
        let hand = self.own[i] as u32;
        self.own[i] = 0;
        if i == HOUSE {
            self.own_house = false;
        }
        hand
    }
}

/// Whether laps may capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A capture move: every lap end that meets the capture condition captures.
    Capture,
    /// A takasa: nothing is captured in the whole move.
    Takasa,
}

/// A move that came to an end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finished {
    pub field: Field,
    /// Seeds taken from the opponent during the move (all sown back or kept in the capturing
    /// pit, so the seed total does not change).
    pub captured: u32,
    /// The move emptied the opponent's front row: the game is over.
    pub game_over: bool,
}

/// How the sowing went on after its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Finished(Finished),
    /// A lap-start state repeated: the move would never end.
    NeverEnding,
}

/// The result of [`play_on`]: one ending, or two when a capture lap reached the functional
/// house and the mover may stop there or go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sown {
    /// The move stopped in the house (set only when the house offered the choice).
    pub stop: Option<Finished>,
    /// The move played on to its end (after a safari when `stop` is set).
    pub end: Ending,
}

/// Laps after which a move starts checking for a repeated lap start: ordinary moves never pay
/// for the check, and cycle finding is exact wherever it starts.
const WATCH_AFTER: u32 = 16;

/// Sows `hand` seeds from the pit after circuit index `cur` in direction `dir`, then follows
/// the lap-end rules until the move ends. `captured` counts seeds already taken before (a
/// namua capture placement).
pub fn play_on(
    mut f: Field,
    mut cur: usize,
    mut hand: u32,
    mut dir: Dir,
    mode: Mode,
    mut captured: u32,
) -> Sown {
    let mut stop = None;
    let mut watch = Brent::default();
    let mut laps = 0u32;
    loop {
        let land = sow_lap(&mut f.own, cur, hand, dir);
        let held_before = f.own[land] > 1;
        if mode == Mode::Capture && land < FRONT && held_before && f.opp[land] > 0 {
            let take = f.take_facing(land);
            captured += take;
            if f.opp_front_empty() {
                f.own[land] += take as u8;
                let end = Finished {
                    field: f,
                    captured,
                    game_over: true,
                };
                return Sown {
                    stop,
                    end: Ending::Finished(end),
                };
            }
            (cur, dir) = kichwa_entry(land, dir);
            hand = take;
        } else if !held_before {
            let end = Finished {
                field: f,
                captured,
                game_over: false,
            };
            return Sown {
                stop,
                end: Ending::Finished(end),
            };
        } else {
            if land == HOUSE && f.house_functional() {
                let here = Finished {
                    field: f,
                    captured,
                    game_over: false,
                };
                match mode {
                    // A takasa lap that ends in the functional house ends the move.
                    Mode::Takasa => {
                        return Sown {
                            stop,
                            end: Ending::Finished(here),
                        }
                    }
                    // A capture lap may stop here, or go on (safari: the lift below empties
                    // the house, so this happens at most once per move).
                    Mode::Capture => stop = Some(here),
                }
            }
            hand = f.lift(land);
            cur = land;
        }
        laps += 1;
        if laps > WATCH_AFTER
            && watch
                .observe(&lap_start_key(&f, cur, hand, dir), laps.into())
                .is_some()
        {
            return Sown {
                stop,
                end: Ending::NeverEnding,
            };
        }
    }
}

/// Where captured seeds enter: the circuit index just before the kichwa (so the first seed
/// falls into the kichwa) and the direction toward the centre from it.
#[inline]
pub fn kichwa_entry(capture_at: usize, dir: Dir) -> (usize, Dir) {
    let from_left = match capture_at {
        0 | 1 => true,
        6 | 7 => false,
        _ => dir == Dir::Clockwise,
    };
    entry_from(from_left)
}

/// The start of a sowing from the left (clockwise) or right (anti-clockwise) kichwa.
#[inline]
pub fn entry_from(left: bool) -> (usize, Dir) {
    if left {
        (Dir::Anticlockwise.step(LEFT_KICHWA), Dir::Clockwise)
    } else {
        (Dir::Clockwise.step(RIGHT_KICHWA), Dir::Anticlockwise)
    }
}

/// Drops `hand` seeds one per pit after `cur` in `dir`; returns the landing index.
#[inline]
fn sow_lap(own: &mut [u8; CIRCUIT], cur: usize, hand: u32, dir: Dir) -> usize {
    let rounds = hand / CIRCUIT as u32;
    if rounds > 0 {
        for c in own.iter_mut() {
            *c += rounds as u8;
        }
    }
    let mut p = cur;
    for _ in 0..hand % CIRCUIT as u32 {
        p = dir.step(p);
        own[p] += 1;
    }
    // A whole number of rounds ends where it started: the last seed falls into `cur`.
    p
}

/// A lap-start state as one comparable key: the mover's pits, the opponent's front row, where
/// the hand is, its seeds, the direction and both house flags.
#[inline]
fn lap_start_key(f: &Field, cur: usize, hand: u32, dir: Dir) -> [u8; 28] {
    let mut key = [0u8; 28];
    key[..CIRCUIT].copy_from_slice(&f.own);
    key[CIRCUIT..CIRCUIT + FRONT].copy_from_slice(&f.opp);
    key[24] = cur as u8;
    // Seed totals are at most 64, so a hand fits a byte.
    key[25] = hand as u8;
    key[26] = dir as u8;
    key[27] = f.own_house as u8 | (f.opp_house as u8) << 1;
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(own: [u8; 16], opp: [u8; 8]) -> Field {
        Field {
            own,
            opp,
            own_house: false,
            opp_house: false,
        }
    }

    #[test]
    fn whole_rounds_land_where_they_start() {
        let mut own = [0u8; 16];
        assert_eq!(sow_lap(&mut own, 3, 16, Dir::Clockwise), 3);
        assert!(own.iter().all(|&c| c == 1));
        assert_eq!(sow_lap(&mut own, 3, 18, Dir::Anticlockwise), 1);
        assert_eq!(own[2], 3);
        assert_eq!(own[1], 3);
        assert_eq!(own[0], 2);
    }

    #[test]
    fn entries_are_the_pits_before_the_kichwa() {
        assert_eq!(entry_from(true), (15, Dir::Clockwise));
        assert_eq!(entry_from(false), (8, Dir::Anticlockwise));
        assert_eq!(kichwa_entry(1, Dir::Anticlockwise), (15, Dir::Clockwise));
        assert_eq!(kichwa_entry(6, Dir::Clockwise), (8, Dir::Anticlockwise));
        assert_eq!(kichwa_entry(3, Dir::Anticlockwise), (8, Dir::Anticlockwise));
        assert_eq!(kichwa_entry(5, Dir::Clockwise), (15, Dir::Clockwise));
    }

    #[test]
    fn a_takasa_ends_in_an_empty_pit() {
        // Two seeds lifted from a1 clockwise: a2, a3; a3 was empty.
        let mut f = field([0; 16], [1; 8]);
        f.own[0] = 0;
        let s = play_on(f, 0, 2, Dir::Clockwise, Mode::Takasa, 0);
        let Ending::Finished(end) = s.end else {
            panic!("ends")
        };
        assert_eq!(&end.field.own[..4], &[0, 1, 1, 0]);
        assert_eq!(end.captured, 0);
        assert!(s.stop.is_none());
    }
}
