//! Which sown moves are legal, and what each one leads to.
//!
//! Shared by both stages: a move that would end with the mover's own front row empty is
//! illegal (a capture that ends the game always leaves seeds in the capturing pit, so it never
//! falls under this), and a never-ending move is either no move at all or a move that loses at
//! once, as the `never-ending` rule option says.

use super::notation::{HouseChoice, MoveName};
use super::sow::{Ending, Finished, Sown};
use super::NeverEnding;

/// Where a legal move leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Played(Finished),
    /// A never-ending move under `never-ending=loss`.
    MoverLoses,
}

/// Hands the legal results of one sown move to `emit` (two when the house offered stop or
/// safari); returns how many it handed over.
#[inline]
pub fn emit_sown<F: FnMut(MoveName, Outcome)>(
    name: MoveName,
    sown: Sown,
    never_ending: NeverEnding,
    emit: &mut F,
) -> u32 {
    let mut n = 0;
    let house = match sown.stop {
        Some(stop) => {
            if leaves_front_row(&stop) {
                emit(name.with_house(HouseChoice::Stop), Outcome::Played(stop));
                n += 1;
            }
            HouseChoice::Safari
        }
        None => HouseChoice::None,
    };
    match sown.end {
        Ending::Finished(end) => {
            if leaves_front_row(&end) {
                emit(name.with_house(house), Outcome::Played(end));
                n += 1;
            }
        }
        Ending::NeverEnding => {
            if never_ending == NeverEnding::Loss {
                emit(name.with_house(house), Outcome::MoverLoses);
                n += 1;
            }
        }
    }
    n
}

/// The move leaves the mover's front row occupied.
#[inline]
fn leaves_front_row(f: &Finished) -> bool {
    !f.field.front_empty()
}
