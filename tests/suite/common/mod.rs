//! What the test binaries share: the harness that runs the binary ([`cli`]), the comparison
//! of the solver with a brute-force oracle ([`compare`]), and the oracles themselves: plain
//! maps, a second straightforward implementation of the rules (one seed at a time, no tables,
//! no shortcuts), and a fixed-point loop over rounds. Nothing in the oracles calls the solver
//! or the library's move code.
//!
//! Each test binary uses a different part, hence `allow(dead_code)`.

#![allow(dead_code)]

pub mod bao_oracle;
pub mod bawo_oracle;
pub mod cli;
pub mod compare;
pub mod kigogo_oracle;
pub mod run_dir;

use std::collections::HashMap;
use std::hash::Hash;

/// A solved value as the oracle computes it: 'W', 'L' or 'D', with depth for W and L.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OValue {
    Win(u32),
    Loss(u32),
    Draw,
}

/// One move's outcome in an explicit game graph.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OSucc<P> {
    To(P),
    /// The mover loses at once.
    MoverLoses,
}

/// Solves an explicit graph by rounds: in round r a position becomes WIN(r) if some successor
/// is LOSS(r-1), or LOSS(r) if every successor is a WIN and the deepest is r-1 (round 0: no
/// successors, or only immediate losses count as WIN(0) successors). Undecided at the end:
/// DRAW.
pub fn solve_by_rounds<P: Clone + Eq + Hash>(
    positions: &[P],
    succ: impl Fn(&P) -> Vec<OSucc<P>>,
) -> HashMap<P, OValue> {
    let index: HashMap<P, usize> = positions
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, p)| (p, i))
        .collect();
    // Successor values: Some(index) or None for "mover loses" (a WIN(0) for the opponent).
    let succs: Vec<Vec<Option<usize>>> = positions
        .iter()
        .map(|p| {
            succ(p)
                .into_iter()
                .map(|s| match s {
                    OSucc::To(q) => Some(*index.get(&q).expect("successor outside the set")),
                    OSucc::MoverLoses => None,
                })
                .collect()
        })
        .collect();
    let mut val: Vec<Option<OValue>> = vec![None; positions.len()];
    let succ_value = |val: &Vec<Option<OValue>>, s: &Option<usize>| match s {
        Some(i) => val[*i],
        None => Some(OValue::Win(0)),
    };
    let mut round = 0u32;
    loop {
        let mut decided = Vec::new();
        for i in 0..positions.len() {
            if val[i].is_some() {
                continue;
            }
            let ss = &succs[i];
            if round == 0 {
                if ss.is_empty() {
                    decided.push((i, OValue::Loss(0)));
                }
                continue;
            }
            if ss
                .iter()
                .any(|s| succ_value(&val, s) == Some(OValue::Loss(round - 1)))
            {
                decided.push((i, OValue::Win(round)));
                continue;
            }
            let mut all_win = !ss.is_empty();
            let mut deepest = 0;
            for s in ss {
                match succ_value(&val, s) {
                    Some(OValue::Win(d)) => deepest = deepest.max(d),
                    _ => all_win = false,
                }
            }
            if all_win && deepest == round - 1 {
                decided.push((i, OValue::Loss(round)));
            }
        }
        if decided.is_empty() && round > 0 {
            break;
        }
        for (i, v) in decided {
            val[i] = Some(v);
        }
        round += 1;
    }
    positions
        .iter()
        .cloned()
        .zip(val.into_iter().map(|v| v.unwrap_or(OValue::Draw)))
        .collect()
}

/// Every way to put at most `max` seeds into `pits` pits.
pub fn boards_up_to(pits: usize, max: u32) -> Vec<Vec<u32>> {
    fn go(pits: usize, left: u32, cur: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if cur.len() == pits {
            out.push(cur.clone());
            return;
        }
        for c in 0..=left {
            cur.push(c);
            go(pits, left - c, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(pits, max, &mut Vec::new(), &mut out);
    out
}
