//! Move generation in the mtaji stage (the mover's hand is empty).
//!
//! A start is an own pit with two or more seeds and a direction. It is a capture move when its
//! first lap captures, which needs fewer than 16 seeds (16 or more go all the way round and
//! never capture on the first lap). If any legal capture move exists only capture moves may be
//! played; otherwise the mover plays a takasa, capturing nothing: from a front pit with two or
//! more, or from the back row only when every front pit holds at most one, and a kichwa that
//! is the only occupied front pit is sown toward the centre (sowing it outward would empty
//! the front row at once). A start whose first lap captures is a capture move even when it is
//! illegal (never-ending, or ending with the mover's front row empty), so it is never offered
//! as a takasa instead.

use super::geometry::{Dir, CIRCUIT, FRONT, LEFT_KICHWA, RIGHT_KICHWA};
use super::legal::{emit_sown, Outcome};
use super::notation::MoveName;
use super::sow::{play_on, Field, Mode};
use super::NeverEnding;

/// Starts holding this many seeds or more never capture on their first lap.
pub const NO_FIRST_CAPTURE: u8 = 16;

const DIRS: [Dir; 2] = [Dir::Clockwise, Dir::Anticlockwise];

/// Hands every legal mtaji move of `f` to `emit`.
pub fn moves<F: FnMut(MoveName, Outcome)>(f: &Field, never_ending: NeverEnding, emit: &mut F) {
    if f.front_empty() {
        return;
    }
    let mut captures = 0;
    for start in 0..CIRCUIT {
        let seeds = f.own[start];
        if !(2..NO_FIRST_CAPTURE).contains(&seeds) {
            continue;
        }
        for dir in DIRS {
            if first_lap_captures(f, start, seeds, dir) {
                let mut g = *f;
                let hand = g.lift(start);
                let sown = play_on(g, start, hand, dir, Mode::Capture, 0);
                captures += emit_sown(MoveName::new(start, dir), sown, never_ending, emit);
            }
        }
    }
    if captures > 0 {
        return;
    }
    for (start, dir) in takasa_starts(f) {
        let seeds = f.own[start];
        if seeds < NO_FIRST_CAPTURE && first_lap_captures(f, start, seeds, dir) {
            // A capture move (here an illegal one) is never played as a takasa.
            continue;
        }
        let mut g = *f;
        let hand = g.lift(start);
        let sown = play_on(g, start, hand, dir, Mode::Takasa, 0);
        emit_sown(MoveName::new(start, dir), sown, never_ending, emit);
    }
}

/// The first lap of `seeds` (< 16) seeds from `start` ends in an occupied front pit facing an
/// occupied opponent pit. `start` itself is never the landing pit, so its count before the
/// lift does not matter.
#[inline]
fn first_lap_captures(f: &Field, start: usize, seeds: u8, dir: Dir) -> bool {
    let land = dir.advance(start, seeds as usize);
    land < FRONT && f.own[land] > 0 && f.opp[land] > 0
}

/// The takasa starts `RULES.md` allows (before the never-ending and front-row checks).
pub fn takasa_starts(f: &Field) -> impl Iterator<Item = (usize, Dir)> + '_ {
    let front_has_big = f.own[..FRONT].iter().any(|&c| c >= 2);
    let rows = if front_has_big {
        0..FRONT
    } else {
        FRONT..CIRCUIT
    };
    let occupied_front = f.own[..FRONT].iter().filter(|&&c| c > 0).count();
    rows.filter(move |&i| f.own[i] >= 2).flat_map(move |i| {
        DIRS.into_iter()
            .filter(move |&d| toward_centre_if_lone_kichwa(i, d, occupied_front))
            .map(move |d| (i, d))
    })
}

/// False for a kichwa that is the only occupied front pit sown away from the centre.
#[inline]
pub fn toward_centre_if_lone_kichwa(pit: usize, dir: Dir, occupied_front: usize) -> bool {
    if occupied_front != 1 {
        return true;
    }
    match pit {
        LEFT_KICHWA => dir == Dir::Clockwise,
        RIGHT_KICHWA => dir == Dir::Anticlockwise,
        _ => true,
    }
}
