//! Property tests: the ranker is a bijection, and Generalized Bawo moves keep their invariants
//! and agree with the independent oracle's moves.

use crate::common;

use bawo_games::game::bawo::{Bawo, BawoRules, MAX_PITS};
use bawo_games::game::{Game, MoveOutcome, Side};
use bawo_games::rank::{compositions, Ranker};
use common::bawo_oracle::Oracle;
use proptest::prelude::*;

/// A random weak composition of `seeds` into `pits` parts.
fn composition(pits: usize, seeds: u32) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(0u32..1000, pits).prop_map(move |w| {
        // Spread `seeds` by cumulative weights: deterministic, covers all shapes.
        let total: u32 = w.iter().sum::<u32>().max(1);
        let mut out: Vec<u8> = w.iter().map(|&x| (x * seeds / total) as u8).collect();
        let placed: u32 = out.iter().map(|&c| c as u32).sum();
        let i = (w[0] as usize) % pits;
        out[i] += (seeds - placed) as u8;
        out
    })
}

fn pits_and_board() -> impl Strategy<Value = (usize, u32, Vec<u8>)> {
    (1usize..=32, 0u32..=36).prop_flat_map(|(pits, seeds)| {
        // Keep totals whose tier fits u64 (32 pits overflow beyond 36 seeds).
        let seeds = if compositions(seeds, pits).unwrap() > u64::MAX as u128 {
            20
        } else {
            seeds
        };
        composition(pits, seeds).prop_map(move |b| (pits, seeds, b))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn rank_then_unrank_is_identity((pits, seeds, board) in pits_and_board()) {
        let r = Ranker::new(pits, 255);
        let idx = r.rank(&board);
        prop_assert!(idx < r.count(seeds).unwrap());
        let mut back = vec![0u8; pits];
        r.unrank(seeds, idx, &mut back);
        prop_assert_eq!(back, board);
    }

    #[test]
    fn unrank_then_rank_is_identity(pits in 1usize..=32, seeds in 0u32..=30, frac in 0.0f64..1.0) {
        let r = Ranker::new(pits, 255);
        let count = r.count(seeds).unwrap();
        let idx = ((count as f64 * frac) as u64).min(count - 1);
        let mut board = vec![0u8; pits];
        r.unrank(seeds, idx, &mut board);
        prop_assert_eq!(board.iter().map(|&c| c as u32).sum::<u32>(), seeds);
        prop_assert_eq!(r.rank(&board), idx);
        // The successor in rank order has the next index.
        if idx + 1 < count {
            let mut next = board.clone();
            prop_assert!(r.next(&mut next));
            prop_assert_eq!(r.rank(&next), idx + 1);
        }
    }
}

fn bawo_position() -> impl Strategy<Value = (u32, u64, String, Vec<u8>, Side)> {
    let rules = prop_oneof![
        Just(String::new()),
        Just("kichwa=relay".to_string()),
        Just("capture=occupied".to_string()),
        Just("kichwa=relay,capture=occupied".to_string()),
    ];
    (1u32..=8, 1u64..=80, rules, 0u32..=40, any::<bool>()).prop_flat_map(
        |(n, lap_cap, rules, seeds, b)| {
            composition(4 * n as usize, seeds).prop_map(move |board| {
                (
                    n,
                    lap_cap,
                    rules.clone(),
                    board,
                    if b { Side::A } else { Side::B },
                )
            })
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn moves_keep_their_invariants_and_match_the_oracle((n, lap_cap, rules, board, side) in bawo_position()) {
        let game = Bawo::new(n, lap_cap, BawoRules::parse(&rules).unwrap()).unwrap();
        let pos = game.make_position(&board, side);
        let moves = game.moves(&pos);
        let before: u32 = board.iter().map(|&c| c as u32).sum();
        let own = match side {
            Side::A => 0..2 * n as usize,
            Side::B => 2 * n as usize..4 * n as usize,
        };
        for m in &moves {
            let start: usize = m.label.parse().unwrap();
            // Only the mover's pits, and never a singleton or empty one (R5).
            prop_assert!(own.contains(&start));
            prop_assert!(board[start] >= 2);
            let MoveOutcome::Position(q) = &m.outcome else { panic!("bawo moves always lead to a position") };
            prop_assert_eq!(q.side, side.other());
            // Seeds are conserved: board + reserve + discarded.
            let after: u32 = q.board[..4 * n as usize].iter().map(|&c| c as u32).sum();
            prop_assert_eq!(after + m.captured + m.discarded, before);
            prop_assert!(q.board[4 * n as usize..MAX_PITS].iter().all(|&c| c == 0));
        }
        // The independent oracle finds the same legal moves with the same results, and
        // mandatory capture holds: if any start captures, every legal move captures.
        let oracle = Oracle::new(n as usize, lap_cap, rules.contains("relay"), rules.contains("occupied"));
        let ob: Vec<u32> = board.iter().map(|&c| c as u32).collect();
        let legal = oracle.legal(&ob, side.index() as u8);
        prop_assert_eq!(legal.len(), moves.len());
        let every_start: Vec<_> = own.clone().filter(|&p| board[p] >= 2).map(|p| oracle.play(&ob, side.index() as u8, p)).collect();
        let any_capture = every_start.iter().any(|m| m.events > 0);
        for (o, m) in legal.iter().zip(&moves) {
            prop_assert_eq!(o.start.to_string(), m.label.clone());
            let MoveOutcome::Position(q) = &m.outcome else { unreachable!() };
            let mine: Vec<u32> = q.board[..4 * n as usize].iter().map(|&c| c as u32).collect();
            prop_assert_eq!(&o.board, &mine);
            prop_assert_eq!(o.reserve, m.captured);
            prop_assert_eq!(o.discarded, m.discarded);
            if any_capture {
                prop_assert!(o.events > 0, "a non-capturing start is legal although a capture exists");
            }
        }
    }
}

/// The board symmetry that swaps the players (RULES.md §1): A's back pit `p` and B's back pit
/// `3n + p` trade places, and so do A's front pit `n + j` and B's front pit `2n + j`. It maps
/// A's cycle (back row, then front row) onto B's (`3n..4n`, then `2n..3n`), keeps facing pits
/// facing (`n + j` faces `3n - 1 - j`; their images `2n + j` and `n + (n - 1 - j)` face each
/// other too) and A's kichwa `n` onto B's kichwa `2n`. So B's moves on a board are A's moves on
/// the swapped board, swapped back.
fn swap_sides(n: usize, p: usize) -> usize {
    if p < n {
        3 * n + p
    } else if p < 2 * n {
        p + n
    } else if p < 3 * n {
        p - n
    } else {
        p - 3 * n
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn b_plays_like_a_on_the_swapped_board((n, lap_cap, rules, board, side) in bawo_position()) {
        let game = Bawo::new(n, lap_cap, BawoRules::parse(&rules).unwrap()).unwrap();
        let pits = 4 * n as usize;
        let swap = |b: &[u8]| -> Vec<u8> {
            let mut out = vec![0u8; pits];
            for (p, &c) in b[..pits].iter().enumerate() {
                out[swap_sides(n as usize, p)] = c;
            }
            out
        };
        let flat = |b: &[u8], s: Side| -> Vec<(usize, Vec<u8>, u32, u32)> {
            let mut v: Vec<_> = game
                .moves(&game.make_position(b, s))
                .into_iter()
                .map(|m| {
                    let MoveOutcome::Position(q) = m.outcome else { unreachable!() };
                    (m.label.parse::<usize>().unwrap(), q.board[..pits].to_vec(), m.captured, m.discarded)
                })
                .collect();
            v.sort();
            v
        };
        // The engine's mirror, which the databases store one side to move by, is this swap.
        let m = game.mirror(&game.make_position(&board, side));
        prop_assert_eq!(m, game.make_position(&swap(&board), side.other()));
        let direct = flat(&board, side);
        let mut mirrored: Vec<_> = flat(&swap(&board), side.other())
            .into_iter()
            .map(|(start, after, captured, discarded)| {
                (swap_sides(n as usize, start), swap(&after), captured, discarded)
            })
            .collect();
        mirrored.sort();
        prop_assert_eq!(direct, mirrored);
    }
}
