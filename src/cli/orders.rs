//! Orders of a tier's entries for the hidden `measure --order` (issue 12): how much the order
//! in which a tier lists its positions changes the compressed size. What was measured with it
//! chose the index order of run-directory format 5 (`game::sided`, README "Database format").

use bawo::error::Result;
use bawo::game::Game;
use bawo::rank::Ranker;

use super::args::usage;
use super::composition::CompositionOrder;

/// The tier indices of tier `tier` (`n` entries) listed in order `order`, or `None` for the
/// tier's own order:
/// - `tier`: as stored;
/// - `composition`: the composition rank of the whole board (the order of format 4);
/// - `split:MOVER/OPPONENT`: the mover's seeds, then each half's composition rank, the
///   mover's first; each half's pits listed from most significant to least, pits as the
///   game's `--board` numbers them, the mover's half first (for Bawo `0..2n`);
/// - `lex:DIGITS`: lexicographic by digits from most significant, each `s` (the seeds on
///   the first half of the board) or a pit's count `J` or a sum of pits' `J+K+...`, with `-`
///   first for descending.
pub fn storage_order<G: Game>(g: &G, tier: u32, n: usize, order: &str) -> Result<Option<Vec<u32>>> {
    if order == "tier" {
        return Ok(None);
    }
    if order == "composition" {
        let co = CompositionOrder::new(g, tier, n);
        return Ok(Some(co.index.iter().map(|&i| i as u32).collect()));
    }
    let mut keys: Vec<(u128, u32)> = Vec::with_capacity(n);
    if let Some(spec) = order.strip_prefix("split:") {
        let halves: Vec<Vec<usize>> = spec
            .split('/')
            .map(|h| {
                h.split(',')
                    .map(|d| d.parse().map_err(|_| usage("bad pit in --order split:")))
                    .collect()
            })
            .collect::<Result<_>>()?;
        if halves.len() != 2 || halves[0].len() != halves[1].len() {
            return Err(usage(
                "--order split: takes two pit lists of one length, MOVER/OPPONENT",
            ));
        }
        let r = Ranker::new(halves[0].len(), g.tier_seeds(tier));
        g.visit(tier, 0..n as u64, |i, pos| {
            let pits = g.board_counts(pos);
            // The ranker's last pit is its most significant.
            let half =
                |h: &[usize]| -> Vec<u8> { h.iter().rev().map(|&p| pits[p] as u8).collect() };
            let (m, o) = (half(&halves[0]), half(&halves[1]));
            let sa: u128 = m.iter().map(|&c| c as u128).sum();
            keys.push((
                sa << 120 | (r.rank(&m) as u128) << 60 | r.rank(&o) as u128,
                i as u32,
            ));
        });
    } else if let Some(spec) = order.strip_prefix("lex:") {
        // Each digit: `s`, or pits joined by `+` (their seeds summed), `-` first for descending.
        let digits: Vec<(Option<Vec<usize>>, bool)> = spec
            .split(',')
            .map(|d| match d {
                "s" => Ok((None, false)),
                _ => {
                    let (neg, d) = d.strip_prefix('-').map_or((false, d), |d| (true, d));
                    d.split('+')
                        .map(|p| p.parse::<usize>())
                        .collect::<std::result::Result<Vec<_>, _>>()
                        .map(|ps| (Some(ps), neg))
                        .map_err(|_| usage("bad digit in --order lex:"))
                }
            })
            .collect::<Result<_>>()?;
        g.visit(tier, 0..n as u64, |i, pos| {
            let pits = g.board_counts(pos);
            let sa: u32 = pits[..pits.len() / 2].iter().sum();
            let key = digits.iter().fold(0u128, |k, (d, neg)| {
                let v = d
                    .as_ref()
                    .map_or(sa, |ps| ps.iter().map(|&p| pits[p]).sum())
                    as u128;
                k << 6 | if *neg { 63 - v } else { v }
            });
            keys.push((key, i as u32));
        });
    } else {
        return Err(usage(
            "--order takes tier, composition, split:... or lex:...",
        ));
    }
    keys.sort_unstable();
    Ok(Some(keys.into_iter().map(|(_, i)| i).collect()))
}
