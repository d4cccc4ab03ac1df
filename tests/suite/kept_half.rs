//! Keys for in-tier sources (`Game::kept_half`): every in-tier move of Bawo (without the
//! kichwa relay) and Kigogo keeps its source's opponent half, so a source is named by its
//! target and the rank of its mover half. Checked on whole small tiers and on random
//! positions of large ones, against the successors the games generate; and the games whose
//! moves in a tier change both halves offer no keys. With lists of moved halves
//! (`MovedHalves`), every in-tier move's source is in its target's list and its place there
//! gives it back.

use bawo_games::game::bao::{Bao, BaoRules};
use bawo_games::game::bawo::{Bawo, BawoRules};
use std::sync::Arc;

use bawo_games::game::kept::KeptHalf;
use bawo_games::game::kigogo::{Kigogo, KigogoRules};
use bawo_games::game::moved::MovedHalves;
use bawo_games::game::{Game, Successor, Tier};
use proptest::prelude::*;

/// Checks every in-tier successor of the source at `index`: it lies in the group the key
/// names, and its frame gives the source back. Returns the number of edges checked.
fn check_source<G: Game>(game: &G, kept: &KeptHalf, tier: Tier, index: u64) -> u64 {
    let pos = game.position(tier, index);
    let mut succ = Vec::new();
    game.successors(&pos, &mut succ);
    let sk = kept.source(index);
    assert!(sk.key < kept.key_limit(), "key {} of {index}", sk.key);
    let mut edges = 0;
    for s in succ {
        if let Successor::Position {
            tier: t,
            index: target,
        } = s
        {
            if t != tier {
                continue;
            }
            assert!(
                (sk.group..sk.group + sk.group_len).contains(&target),
                "tier {tier}: target {target} of source {index} outside its group {sk:?}"
            );
            let (base, stride) = kept.frame(target);
            assert_eq!(
                base + sk.key * stride,
                index,
                "tier {tier}: {index} -> {target}"
            );
            if kept.moves().is_some() {
                let place = kept.moved_key(&sk, target).unwrap_or_else(|| {
                    panic!("tier {tier}: {index} -> {target} not in the target's list")
                });
                let (base, stride, list) = kept.moved_frame(target);
                assert!(place < list.len() as u64);
                assert_eq!(base + list[place as usize] as u64 * stride, index);
            }
            edges += 1;
        }
    }
    edges
}

/// [`check_source`] on `count` sources of tier `tier` drawn by the xorshift state `x`, at
/// least one of them with an in-tier edge.
fn check_random_sources<G: Game>(game: &G, kept: &KeptHalf, tier: Tier, count: u32, x: &mut u64) {
    let size = game.tier_size(tier).unwrap();
    let mut edges = 0;
    for _ in 0..count {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        edges += check_source(game, kept, tier, *x % size);
    }
    assert!(edges > 0, "tier {tier}");
}

/// The keys of tier `tier`, as places in its lists of moved halves if `moved`.
fn keys_of<G: Game>(game: &G, tier: Tier, moved: bool) -> KeptHalf {
    let kept = game.kept_half(tier).expect("the game offers keys");
    if moved {
        let moves = MovedHalves::build(game, game.tier_seeds(tier)).expect("lists of moves");
        kept.with_moves(Arc::new(moves))
    } else {
        kept
    }
}

/// Every source of every tier up to `seeds`, with keys that are ranks and with keys that are
/// places in lists of moved halves.
fn check_tiers<G: Game>(game: &G, seeds: u32) -> u64 {
    let mut edges = 0;
    for (tier, moved) in game
        .tiers_up_to(seeds)
        .unwrap()
        .into_iter()
        .flat_map(|t| [(t, false), (t, true)])
    {
        let kept = keys_of(game, tier, moved);
        for i in 0..game.tier_size(tier).unwrap() {
            edges += check_source(game, &kept, tier, i);
        }
    }
    edges
}

#[test]
fn bawo_sources_are_named_by_their_targets_and_keys_in_whole_tiers() {
    for (n, seeds) in [(1, 8), (2, 7), (3, 5)] {
        let g = Bawo::new(n, 64, BawoRules::default()).unwrap();
        assert!(
            check_tiers(&g, seeds) > 0,
            "n = {n}: no in-tier edge checked"
        );
    }
    // A short lap cap truncates moves (seeds discarded), which leaves the tier.
    let g = Bawo::new(2, 3, BawoRules::default()).unwrap();
    assert!(check_tiers(&g, 6) > 0);
}

#[test]
fn kigogo_sources_are_named_by_their_targets_and_keys_in_whole_tiers() {
    let g = Kigogo::new(KigogoRules::default());
    assert!(check_tiers(&g, 3) > 0);
    let loss = Kigogo::new(KigogoRules::parse("never-ending=loss").unwrap());
    assert!(check_tiers(&loss, 3) > 0);
}

#[test]
fn frames_invert_keys_over_every_index_of_a_tier() {
    // Independently of the moves: for every source and every target of its group, the
    // target's frame and the source's key give the source back (Kigogo's halves are read in
    // opposite orders, Bawo's in the same).
    let bawo = Bawo::new(2, 64, BawoRules::default()).unwrap();
    let kigogo = Kigogo::new(KigogoRules::default());
    for (kept, size) in [
        (bawo.kept_half(6).unwrap(), bawo.tier_size(6).unwrap()),
        (kigogo.kept_half(3).unwrap(), kigogo.tier_size(3).unwrap()),
    ] {
        let mut named = vec![0u32; size as usize];
        for s in 0..size {
            let sk = kept.source(s);
            assert!(sk.group + sk.group_len <= size);
            for t in sk.group..sk.group + sk.group_len {
                let (base, stride) = kept.frame(t);
                assert_eq!(base + sk.key * stride, s);
                named[t as usize] += 1;
            }
        }
        // Every target is some source's, as many times as its frame has keys below the limit.
        assert!(named
            .iter()
            .all(|&c| c > 0 && (c as u64) <= kept.key_limit()));
    }
}

#[test]
fn games_whose_moves_change_both_halves_in_a_tier_offer_no_keys() {
    let relay = Bawo::new(3, 64, BawoRules::parse("kichwa=relay").unwrap()).unwrap();
    assert!(relay.kept_half(4).is_none());
    assert!(relay.kept_half_shape(4).is_none());
    let bao = Bao::new(BaoRules::parse("").unwrap());
    assert!(bao
        .kept_half(bao.tiers_up_to(bao.default_seeds()).unwrap()[0])
        .is_none());
    // Kigogo's table is one `u32` per composition of a half up to the tier's seeds; Bawo's
    // halves agree and need none.
    let k = Kigogo::new(KigogoRules::default());
    let (shape, built) = (k.kept_half_shape(3).unwrap(), k.kept_half(3).unwrap());
    assert_eq!(shape.table_bytes, built.table_bytes());
    assert_eq!(shape.key_limit, built.key_limit());
    assert!(shape.table_bytes > 0);
    let b = Bawo::new(4, 64, BawoRules::default()).unwrap();
    assert_eq!(b.kept_half_shape(10).unwrap().table_bytes, 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_bawo_sources_of_large_tiers_are_named_by_keys(
        n in 2u32..=5, seeds in 4u32..=20, frac in 0.0f64..1.0
    ) {
        let g = Bawo::new(n, 64, BawoRules::default()).unwrap();
        let size = g.tier_size(seeds).unwrap();
        let i = ((size as f64 * frac) as u64).min(size - 1);
        check_source(&g, &g.kept_half(seeds).unwrap(), seeds, i);
    }

}

#[test]
fn random_bawo_sources_of_large_tiers_are_named_by_places_in_moved_lists() {
    // One list of moved halves per tier (the 18-seed one covers 1.6 million halves of 8
    // pits), many sources each.
    let g = Bawo::new(4, 64, BawoRules::default()).unwrap();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for seeds in [10u32, 14, 18] {
        check_random_sources(&g, &keys_of(&g, seeds, true), seeds, 3000, &mut x);
    }
}

#[test]
fn the_census_of_moved_halves_counts_what_is_built() {
    // What the memory plan reserves and the key width it chooses come from the census; the
    // solve builds the lists: the two must agree, for every tier up to the one counted.
    let bawo = Bawo::new(3, 64, BawoRules::default()).unwrap();
    let kigogo = Kigogo::new(KigogoRules::default());
    let short_cap = Bawo::new(2, 3, BawoRules::default()).unwrap();
    fn agree<G: Game>(g: &G, top: u32) {
        let census = MovedHalves::census(g, top).unwrap();
        for seeds in 0..=top {
            let built = MovedHalves::build(g, seeds).unwrap();
            assert_eq!(census.widest(seeds), built.widest(), "{seeds} seeds");
            assert_eq!(census.bytes(seeds), built.bytes(), "{seeds} seeds");
        }
        assert!(census.widest(top) > 0, "some half has a move");
    }
    agree(&bawo, 8);
    agree(&kigogo, 5);
    agree(&short_cap, 6);
    // Bao's captures change both halves: no lists.
    let bao = Bao::new(BaoRules::parse("").unwrap());
    assert!(MovedHalves::census(&bao, bao.default_seeds()).is_none());
}

#[test]
fn random_kigogo_sources_of_large_tiers_are_named_by_keys() {
    // One table per tier (the 9-seed one has 38.6 million ranks), many sources each.
    let g = Kigogo::new(KigogoRules::default());
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for seeds in 4u32..=9 {
        // Lists of moved halves up to 7 seeds (2.6 million halves), ranks above.
        check_random_sources(&g, &keys_of(&g, seeds, seeds <= 7), seeds, 2000, &mut x);
    }
}
