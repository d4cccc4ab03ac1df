//! Properties of Bao move generation on random positions of both stages: seeds are conserved,
//! only the mover's pits start, captures are mandatory, every name reads back to its move, and
//! the engine's mtaji moves equal the independent oracle's (names and resulting positions).

use crate::common;

use proptest::prelude::*;

use bawo_games::game::bao::{Bao, BaoPosition, BaoRules};
use bawo_games::game::{Game, MoveOutcome, Side};
use common::bao_oracle::{circuit, pit_label, BaoOracle, NPos, OPos, Played};
use common::OSucc;

const HOUSE_PIT: [usize; 2] = [20, 11];

fn game(loss: bool) -> Bao {
    Bao::new(BaoRules::parse(if loss { "never-ending=loss" } else { "" }).unwrap())
}

/// A pit count: mostly empty or small, sometimes large (up to 20, so 16-seed starts occur).
fn pit() -> impl Strategy<Value = u8> {
    prop_oneof![5 => Just(0u8), 4 => Just(1u8), 3 => 2u8..=4, 1 => 5u8..=20]
}

fn board(max_total: u32) -> impl Strategy<Value = [u8; 32]> {
    prop::array::uniform32(pit()).prop_filter("too many seeds", move |b| {
        b.iter().map(|&c| c as u32).sum::<u32>() <= max_total
    })
}

fn side() -> impl Strategy<Value = Side> {
    prop_oneof![Just(Side::A), Just(Side::B)]
}

fn mtaji() -> impl Strategy<Value = BaoPosition> {
    (board(64), side()).prop_map(|(b, s)| BaoPosition::mtaji(b, s))
}

/// Never-ending moves are rare (about one position in 5000 of `mtaji()` has one); they live
/// near circuits of alternating singletons with a few extra seeds (the 11-seed example in
/// `bao_rules.rs`). This builds such circuits for either side, with a sprinkling of opponent
/// front seeds.
fn patterned_mtaji() -> impl Strategy<Value = BaoPosition> {
    (
        side(),
        any::<bool>(),
        prop::collection::vec(0usize..16, 1..=6),
        prop::array::uniform8(prop_oneof![4 => Just(0u8), 1 => Just(1u8)]),
    )
        .prop_map(|(side, odd, extra, opp_front)| patterned(side, odd, &extra, opp_front))
}

fn patterned(side: Side, odd: bool, extra: &[usize], opp_front: [u8; 8]) -> BaoPosition {
    let circ = circuit(side.index() as u8);
    let mut b = [0u8; 32];
    for (i, &p) in circ.iter().enumerate() {
        b[p] = (i % 2 == odd as usize) as u8;
    }
    for &i in extra {
        b[circ[i]] += 1;
    }
    for (p, c) in front(side.other()).zip(opp_front) {
        b[p] = c;
    }
    BaoPosition::mtaji(b, side)
}

/// Namua positions: seeds in the mover's hand (the opponent's may be empty), houses standing
/// only where the rules allow it. Half of them are made calm (no capture possible), some with
/// the house as the only occupied front pit, so that takasa placements and the tax occur.
fn namua() -> impl Strategy<Value = BaoPosition> {
    (
        (board(50), side(), 1u8..=8, 0u8..=6),
        (
            any::<[bool; 2]>(),
            5u8..=12,
            any::<bool>(),
            prop_oneof![3 => Just(false), 1 => Just(true)],
        ),
    )
        .prop_map(
            |(
                (mut b, side, mover_hand, other_hand),
                (want_house, house_seeds, calm, lone_house),
            )| {
                let mut hands = [0u8; 2];
                hands[side.index()] = mover_hand;
                hands[side.other().index()] = other_hand;
                let own_front = circuit(side.index() as u8)[..8].to_vec();
                if lone_house {
                    for &p in &own_front {
                        b[p] = 0;
                    }
                }
                let mut houses = [false; 2];
                for s in 0..2 {
                    if want_house[s] && hands[s] > 0 {
                        houses[s] = true;
                        b[HOUSE_PIT[s]] = house_seeds;
                    }
                }
                if calm || lone_house {
                    // Nothing faces an occupied own front pit: no capture.
                    for &p in &own_front {
                        if b[p] > 0 {
                            b[(p % 8) + if p >= 16 { 8 } else { 16 }] = 0;
                        }
                    }
                }
                BaoPosition {
                    board: b,
                    side,
                    hands,
                    houses,
                }
            },
        )
}

/// The board pit a move name starts from (`a3`, `b7`, from the mover's left).
fn start_pit(side: Side, label: &str) -> usize {
    let name: String = label.chars().take(2).collect();
    (0..32)
        .find(|&p| owns(side, p) && pit_label(side.index() as u8, p) == name)
        .unwrap_or_else(|| panic!("no pit named {name}"))
}

fn owns(side: Side, p: usize) -> bool {
    match side {
        Side::A => p >= 16,
        Side::B => p < 16,
    }
}

fn front(side: Side) -> std::ops::Range<usize> {
    match side {
        Side::A => 16..24,
        Side::B => 8..16,
    }
}

fn check_general(g: &Bao, p: &BaoPosition) -> Result<(), TestCaseError> {
    let moves = g.moves(p);
    let me = p.side;
    let namua = p.hands[me.index()] > 0;
    let mut names: Vec<&str> = moves.iter().map(|m| m.label.as_str()).collect();
    names.sort();
    names.dedup();
    prop_assert_eq!(names.len(), moves.len(), "move names are unique");
    let any_capture = moves.iter().any(|m| m.captured > 0);
    for m in &moves {
        // Captures are mandatory: with one capture move, every move captures.
        prop_assert!(
            !any_capture || m.captured > 0,
            "{} captures nothing",
            m.label
        );
        // Only the mover's pits start: an own pit with 2+ seeds (mtaji) or an occupied own
        // front pit (namua).
        let pit = start_pit(me, &m.label);
        prop_assert!(owns(me, pit));
        if namua {
            prop_assert!(front(me).contains(&pit) && p.board[pit] >= 1);
        } else {
            prop_assert!(p.board[pit] >= 2);
        }
        // Every name reads back to its own move.
        let found = g.find_move(p, &m.label).unwrap();
        prop_assert_eq!(&found.outcome, &m.outcome);
        let MoveOutcome::Position(q) = m.outcome else {
            continue;
        };
        // Seeds are conserved; a namua move takes exactly one seed from the mover's hand.
        prop_assert_eq!(q.seeds(), p.seeds());
        let mut hands = p.hands;
        if namua {
            hands[me.index()] -= 1;
        }
        prop_assert_eq!(q.hands, hands);
        prop_assert_eq!(q.side, me.other());
        // The opponent's pits never gain; their back row never changes; the mover keeps a
        // front row.
        for pit in (0..32).filter(|&x| !owns(me, x)) {
            prop_assert!(q.board[pit] <= p.board[pit]);
            if !front(me.other()).contains(&pit) {
                prop_assert_eq!(q.board[pit], p.board[pit]);
            }
        }
        prop_assert!(front(me).any(|x| q.board[x] > 0));
        // Houses never come back, and only stand while their owner has seeds in hand.
        for s in 0..2 {
            prop_assert!(!q.houses[s] || (p.houses[s] && q.hands[s] > 0));
        }
    }
    Ok(())
}

fn oracle_moves(o: &BaoOracle, p: &BaoPosition) -> Vec<(String, OSucc<OPos>)> {
    let board: Vec<u32> = p.board.iter().map(|&c| c as u32).collect();
    let mut v = o.legal(&board, p.side.index() as u8);
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn engine_moves(g: &Bao, p: &BaoPosition) -> Vec<(String, OSucc<OPos>)> {
    let mut v: Vec<(String, OSucc<OPos>)> = g
        .moves(p)
        .into_iter()
        .map(|m| {
            let s = match m.outcome {
                MoveOutcome::MoverLoses => OSucc::MoverLoses,
                MoveOutcome::Position(q) => OSucc::To((
                    q.board.iter().map(|&c| c as u32).collect(),
                    q.side.index() as u8,
                )),
            };
            (m.label, s)
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn oracle_any(o: &BaoOracle, p: &BaoPosition) -> Vec<(String, OSucc<NPos>)> {
    let pos: NPos = (
        p.board.iter().map(|&c| c as u32).collect(),
        p.side.index() as u8,
        [p.hands[0] as u32, p.hands[1] as u32],
        p.houses,
    );
    let mut v = o.legal_any(&pos);
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn engine_any(g: &Bao, p: &BaoPosition) -> Vec<(String, OSucc<NPos>)> {
    let mut v: Vec<(String, OSucc<NPos>)> = g
        .moves(p)
        .into_iter()
        .map(|m| {
            let s = match m.outcome {
                MoveOutcome::MoverLoses => OSucc::MoverLoses,
                MoveOutcome::Position(q) => OSucc::To((
                    q.board.iter().map(|&c| c as u32).collect(),
                    q.side.index() as u8,
                    [q.hands[0] as u32, q.hands[1] as u32],
                    q.houses,
                )),
            };
            (m.label, s)
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// The position seen from the other side of the table: the board turned half round (row `r`
/// column `c` to row `3 - r` column `7 - c`), the other side to move, hands and houses swapped.
/// `RULES.md` gives both players the same rules from their own side (North's left is column 7,
/// its house row 1 column 3), so this maps South's pits onto North's with the same names.
fn turned(p: &BaoPosition) -> BaoPosition {
    let mut board = [0u8; 32];
    for r in 0..4 {
        for c in 0..8 {
            board[8 * (3 - r) + (7 - c)] = p.board[8 * r + c];
        }
    }
    BaoPosition {
        board,
        side: p.side.other(),
        hands: [p.hands[1], p.hands[0]],
        houses: [p.houses[1], p.houses[0]],
    }
}

/// Every move of `p` (name, seeds captured, where it leads) with the results turned round.
fn moves_turned(g: &Bao, p: &BaoPosition) -> Vec<(String, u32, MoveOutcome<BaoPosition>)> {
    let mut v: Vec<_> = g
        .moves(p)
        .into_iter()
        .map(|m| {
            let to = match m.outcome {
                MoveOutcome::Position(q) => MoveOutcome::Position(turned(&q)),
                other => other,
            };
            (m.label, m.captured, to)
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn moves_plain(g: &Bao, p: &BaoPosition) -> Vec<(String, u32, MoveOutcome<BaoPosition>)> {
    let mut v: Vec<_> = g
        .moves(p)
        .into_iter()
        .map(|m| (m.label, m.captured, m.outcome))
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// North plays exactly South's game seen from the other side: the same move names, the same
/// captures, and results that are each other turned round. This checks North's geometry
/// (circuit, kichwa, kimbi, house, facing pits) against South's without the oracle, which
/// shares the engine author's reading of the board.
fn check_turned(g: &Bao, p: &BaoPosition) -> Result<(), TestCaseError> {
    let q = turned(p);
    prop_assert_eq!(turned(&q), *p);
    // The engine's mirror, which the databases store one side to move by, is this turn.
    prop_assert_eq!(g.mirror(p), q);
    prop_assert_eq!(moves_turned(g, p), moves_plain(g, &q));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn engine_equals_oracle_on_random_namua_positions(p in namua(), loss in any::<bool>()) {
        let o = BaoOracle { never_ending_loses: loss };
        prop_assert_eq!(engine_any(&game(loss), &p), oracle_any(&o, &p));
    }

    #[test]
    fn mtaji_moves_keep_the_invariants(p in mtaji(), loss in any::<bool>()) {
        check_general(&game(loss), &p)?;
    }

    #[test]
    fn namua_moves_keep_the_invariants(p in namua(), loss in any::<bool>()) {
        check_general(&game(loss), &p)?;
    }

    #[test]
    fn engine_equals_oracle_on_random_mtaji_positions(p in mtaji(), loss in any::<bool>()) {
        let o = BaoOracle { never_ending_loses: loss };
        prop_assert_eq!(engine_moves(&game(loss), &p), oracle_moves(&o, &p));
    }

    #[test]
    fn north_plays_south_turned_round_in_mtaji(p in mtaji(), loss in any::<bool>()) {
        check_turned(&game(loss), &p)?;
    }

    #[test]
    fn north_plays_south_turned_round_in_namua(p in namua(), loss in any::<bool>()) {
        check_turned(&game(loss), &p)?;
    }

    #[test]
    fn north_plays_south_turned_round_near_never_ending_patterns(
        p in patterned_mtaji(),
        loss in any::<bool>(),
    ) {
        check_turned(&game(loss), &p)?;
    }

    #[test]
    fn engine_equals_oracle_near_never_ending_patterns(p in patterned_mtaji(), loss in any::<bool>()) {
        let o = BaoOracle { never_ending_loses: loss };
        prop_assert_eq!(engine_moves(&game(loss), &p), oracle_moves(&o, &p));
    }
}

/// The random positions above reach captures, game-ending captures and starts of 16 or more
/// (otherwise the comparison would prove little): count them over a fixed sample.
#[test]
fn the_random_positions_reach_the_rare_cases() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let g = game(true);
    let mut runner = TestRunner::deterministic();
    let (mut captures, mut game_over, mut sixteen) = (0, 0, 0);
    for _ in 0..1000 {
        let p = mtaji().new_tree(&mut runner).unwrap().current();
        if p.board.iter().any(|&c| c >= 16) {
            sixteen += 1;
        }
        for m in g.moves(&p) {
            if let MoveOutcome::Position(q) = m.outcome {
                if m.captured > 0 {
                    captures += 1;
                    if front(q.side).all(|x| q.board[x] == 0) {
                        game_over += 1;
                    }
                }
            }
        }
    }
    assert!(captures > 100, "too few captures: {captures}");
    assert!(game_over > 0, "no game-ending capture");
    assert!(sixteen > 0, "no start of 16 or more");

    // Namua: safari and stop, takasa and capture placements, placements that end the game.
    let (mut safari, mut placed_takasa, mut placed_capture, mut no_arrow) = (0, 0, 0, 0);
    let mut tax = 0;
    for _ in 0..1000 {
        let p = namua().new_tree(&mut runner).unwrap().current();
        for m in g.moves(&p) {
            if m.label.ends_with("safari") {
                safari += 1;
            }
            if m.captured > 0 {
                placed_capture += 1;
            } else {
                placed_takasa += 1;
            }
            if m.label.len() == 2 {
                no_arrow += 1;
            }
            let own_front = circuit(p.side.index() as u8)[..8].to_vec();
            let house = HOUSE_PIT[p.side.index()];
            if p.house_functional(p.side)
                && own_front.iter().all(|&x| x == house || p.board[x] == 0)
            {
                tax += 1;
            }
        }
    }
    eprintln!(
        "safari {safari}, takasa {placed_takasa}, capture {placed_capture}, game over \
         {no_arrow}, tax {tax}"
    );
    assert!(safari > 0 && placed_takasa > 100 && placed_capture > 100);
    assert!(no_arrow > 0 && tax > 0);
}

/// A fixed sweep of the patterned family for both sides: engine and oracle agree on every
/// move, and the sweep does meet never-ending moves (both rule options).
#[test]
fn engine_equals_oracle_on_a_sweep_with_never_ending_moves() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n) as usize
    };
    let mut never = 0;
    for i in 0..4000 {
        let side = if i % 2 == 0 { Side::A } else { Side::B };
        let extra: Vec<usize> = (0..[3, 5][i / 2 % 2]).map(|_| rnd(16)).collect();
        let mut opp = [0u8; 8];
        for c in opp.iter_mut() {
            *c = (rnd(5) == 0) as u8;
        }
        let p = patterned(side, rnd(2) == 1, &extra, opp);
        for loss in [false, true] {
            let o = BaoOracle {
                never_ending_loses: loss,
            };
            let got = engine_moves(&game(loss), &p);
            assert_eq!(
                got,
                oracle_moves(&o, &p),
                "board={:?} side={side:?}",
                p.board
            );
            never += got.iter().filter(|m| m.1 == OSucc::MoverLoses).count();
        }
    }
    assert!(never >= 20, "only {never} never-ending moves met");
}

/// `RULES.md` makes a move illegal if it would end with the mover's own front row empty, and
/// also says a lone kichwa is sown toward the centre. The first rule can only ever bite the
/// second's case: after the last lift of a front pit no seed may fall on the front row, so
/// that lift is a kichwa sown outward; unless it is the start, the lap that landed there ran
/// the same way and dropped a seed into the kichwa's front neighbour (relay laps hold 2 or
/// more; a one-seed lap is a capture entering that kichwa toward the centre; 16 or more
/// seeds fill every pit), which is never lifted again. So the start is that kichwa, and it
/// was the only occupied front pit. This sweep checks the argument on small circuits of
/// both sides (the oracle's sowing, played whether or not the start is legal).
#[test]
fn only_a_lone_kichwa_sown_outward_can_end_with_an_empty_front_row() {
    let o = BaoOracle {
        never_ending_loses: false,
    };
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rnd = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n) as usize
    };
    let mut emptied = 0;
    for i in 0..40_000 {
        let side = (i % 2) as u8;
        let circ = circuit(side);
        let mut b = vec![0u32; 32];
        // Up to 14 seeds on the mover's circuit, often a lone kichwa, some opponent front
        // seeds.
        for _ in 0..1 + rnd(14) {
            b[circ[rnd(16)]] += 1;
        }
        if rnd(3) == 0 {
            for &p in &circ[..8] {
                b[p] = 0;
            }
            b[circ[[0, 7][rnd(2)]]] = 2 + rnd(9) as u32;
        }
        let opp = circuit(1 - side);
        for &p in &opp[..8] {
            b[p] = (rnd(4) == 0) as u32;
        }
        let front_before: Vec<usize> = (0..8).filter(|&j| b[circ[j]] > 0).collect();
        if front_before.is_empty() {
            continue; // lost already: no move at all
        }
        for (k, &p) in circ.iter().enumerate() {
            if b[p] < 2 {
                continue;
            }
            for step in [1, -1] {
                let s = o.play(&b, side, p, step);
                let Played::Ended { board, .. } = &s.played else {
                    continue;
                };
                if (0..8).any(|j| board[circ[j]] > 0) {
                    continue;
                }
                emptied += 1;
                let outward = (k == 0 && step == -1) || (k == 7 && step == 1);
                assert!(
                    outward && front_before == [k],
                    "{} emptied the front row of {b:?} (side {side})",
                    s.label
                );
            }
        }
    }
    assert!(emptied > 1000, "the sweep met only {emptied} such starts");
}
