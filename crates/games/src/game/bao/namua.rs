//! Move generation in the namua stage (the mover has seeds in hand).
//!
//! Every move first places one hand seed on the mover's front row.
//!
//! - **Capture** (mandatory when possible): the seed goes into an occupied front pit whose
//!   facing pit is occupied; that pit is captured and its seeds are sown from a kichwa toward
//!   the centre — the kimbi's own end for a kimbi capture, either end (the mover's choice)
//!   for a central one — and the move goes on as a capture move.
//! - **Takasa**: the seed goes into an occupied front pit, never the functional house while
//!   another pit qualifies, and only into a singleton when every occupied front pit other
//!   than the functional house is a singleton; that pit is then sown in either direction (a
//!   kichwa that is the only occupied front pit only toward the centre). When the functional
//!   house is the only occupied front pit the seed goes there and only two seeds are lifted
//!   from it and sown (the tax).
//!
//! A placement that captures is a capture move even when it is illegal (never-ending, or
//! ending with the mover's front row empty), so it is never offered as a takasa instead.
//!
//! The house choices at lap ends (stop or safari after a capture lap, stop after a takasa lap)
//! are made in [`super::sow`].

use super::geometry::{Dir, FRONT, HOUSE};
use super::legal::{emit_sown, Outcome};
use super::mtaji::toward_centre_if_lone_kichwa;
use super::notation::{HouseChoice, MoveName};
use super::sow::{entry_from, play_on, Ending, Field, Finished, Mode, Sown};
use super::NeverEnding;

/// Seeds lifted from the house when it is taxed.
pub const TAX: u8 = 2;

const DIRS: [Dir; 2] = [Dir::Clockwise, Dir::Anticlockwise];

/// Hands every legal namua move of `f` to `emit` (the caller takes the seed from the hand).
pub fn moves<F: FnMut(MoveName, Outcome)>(f: &Field, never_ending: NeverEnding, emit: &mut F) {
    if f.front_empty() {
        return;
    }
    let mut captures = 0;
    for pit in 0..FRONT {
        if f.own[pit] == 0 || f.opp[pit] == 0 {
            continue;
        }
        let mut g = *f;
        g.own[pit] += 1;
        let take = g.take_facing(pit);
        if g.opp_front_empty() {
            // The game ends before any sowing: the seeds stay in the capturing pit.
            g.own[pit] += take as u8;
            let name = MoveName {
                pit: pit as u8,
                dir: None,
                house: HouseChoice::None,
            };
            let end = Finished {
                field: g,
                captured: take,
                game_over: true,
            };
            let sown = Sown {
                stop: None,
                end: Ending::Finished(end),
            };
            captures += emit_sown(name, sown, never_ending, emit);
            continue;
        }
        let entries: &[bool] = match pit {
            0 | 1 => &[true],
            6 | 7 => &[false],
            _ => &[true, false],
        };
        for &from_left in entries {
            let (cur, dir) = entry_from(from_left);
            let sown = play_on(g, cur, take, dir, Mode::Capture, take);
            captures += emit_sown(MoveName::new(pit, dir), sown, never_ending, emit);
        }
    }
    if captures > 0 {
        return;
    }
    let functional = f.house_functional();
    let usable = |i: usize| f.own[i] > 0 && !(i == HOUSE && functional);
    let any_big = (0..FRONT).any(|i| usable(i) && f.own[i] >= 2);
    let occupied_front = f.own[..FRONT].iter().filter(|&&c| c > 0).count();
    let mut other_pit_qualifies = false;
    for pit in 0..FRONT {
        if !usable(pit) || (any_big && f.own[pit] < 2) {
            continue;
        }
        other_pit_qualifies = true;
        if f.opp[pit] > 0 {
            // Placing here captures: a capture move (here an illegal one), never a takasa.
            continue;
        }
        for dir in DIRS {
            if !toward_centre_if_lone_kichwa(pit, dir, occupied_front) {
                continue;
            }
            let mut g = *f;
            g.own[pit] += 1;
            let hand = g.lift(pit);
            let sown = play_on(g, pit, hand, dir, Mode::Takasa, 0);
            emit_sown(MoveName::new(pit, dir), sown, never_ending, emit);
        }
    }
    if !other_pit_qualifies && functional && f.opp[HOUSE] == 0 {
        // The functional house is the only occupied front pit: the tax.
        for dir in DIRS {
            let mut g = *f;
            g.own[HOUSE] = g.own[HOUSE] + 1 - TAX;
            let sown = play_on(g, HOUSE, TAX as u32, dir, Mode::Takasa, 0);
            emit_sown(MoveName::new(HOUSE, dir), sown, never_ending, emit);
        }
    }
}
