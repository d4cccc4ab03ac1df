"""Values against the command line: `query --json`, `stats --json`, `verify --json`, `export`."""

from __future__ import annotations

import io

import numpy as np
import pytest

import bawo

GAMES = ["bawo", "kigogo", "bao"]


def all_rows(db: bawo.Database):
    """(board text, side letter, value code, depth) of every position, both sides, via scans."""
    rows = []
    for t in db.tiers:
        for c in db.tier(t["tier"]):
            for b, s, v, d in zip(c.boards, c.to_move, c.value, c.depth):
                rows.append((",".join(map(str, b)), bawo.SIDE_NAMES[s], int(v), int(d)))
    return rows


@pytest.mark.parametrize("game", GAMES)
def test_every_position_answers_as_query_json(cli, dbs, game):
    path = dbs[game]
    with bawo.open(path) as db:
        assert db.game == game
        rows = all_rows(db)
        assert len(rows) == sum(t["states"] for t in db.tiers)
        expected = cli.queries(path, [(b, s) for b, s, _, _ in rows])
        for (board, side, code, depth), want in zip(rows, expected):
            q = db.query(board, side)
            assert q.to_dict() == want, (board, side)
            assert db.probe(board, side) == (want["value"], want["depth"])
            assert db.moves(board, side) == q.moves
            # The scan's codes say the same.
            assert bawo.VALUE_NAMES[code] == want["value"]
            assert (None if depth < 0 else depth) == want["depth"]
            # A sequence of counts is the same position as its text.
            counts = [int(x) for x in board.split(",")]
            assert db.probe(counts, side) == db.probe(board, side)


def test_committed_database_answers_as_query_json(cli, dbs):
    path = dbs["committed"]
    with bawo.open(path) as db:
        assert db.descriptor == "bawo n=2 lap-cap=64 kichwa=off capture=any"
        assert db.params == {"n": 2, "lap-cap": 64}
        assert db.rules == {"kichwa": "off", "capture": "any"}
        assert db.complete and db.pits == 8 and db.seeds == 6
        assert db.probe("0,0,2,2,0,0,0,2") == bawo.Probe("WIN", 3)
        rows = all_rows(db)[::7]
        expected = cli.queries(path, [(b, s) for b, s, _, _ in rows])
        for (board, side, _, _), want in zip(rows, expected):
            assert db.query(board, side).to_dict() == want


def test_bao_hands_and_houses_read_as_the_cli_reads_them(cli, dbs):
    path = dbs["bao"]
    board = "0,0,0,0,0,0,0,0/0,0,1,0,0,0,0,0/1,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0"
    with bawo.open(path) as db:
        plain = db.probe(board, "A")
        assert plain == tuple(cli.query(path, board, "A")[k] for k in ("value", "depth"))
        for hands in ("0,0", (0, 0), [0, 0]):
            for houses in ("none", (), []):
                assert db.probe(board, "A", hands=hands, houses=houses) == plain
        # Seeds in hand: well-formed positions that no Bao table holds.
        cases = [({"hands": (1, 1)}, ["--hands", "1,1"]), ({"hands": "0,3"}, ["--hands", "0,3"])]
        for kw, flags in cases:
            with pytest.raises(bawo.NotCovered) as e:
                db.probe(board, "A", **kw)
            assert str(e.value) == cli.error("query", "--db", str(path), "--board", board, *flags)
        # A house standing with an empty hand is no position at all (the CLI's word).
        with pytest.raises(ValueError) as e:
            db.probe(board, "A", houses="A")
        assert str(e.value) == cli.error("query", "--db", str(path), "--board", board, "--houses", "A")


@pytest.mark.parametrize("game", GAMES + ["committed"])
def test_probe_many_equals_probe_one_by_one(dbs, game):
    with bawo.open(dbs[game]) as db:
        for t in db.tiers:
            for c in db.tier(t["tier"], chunk_size=1000):
                values, depths = db.probe_many(c.boards, c.to_move)
                assert values.dtype == np.int8 and depths.dtype == np.int16
                np.testing.assert_array_equal(values, c.value)
                np.testing.assert_array_equal(depths, c.depth)
                for b, s, v, d in list(zip(c.boards, c.to_move, values, depths))[::5]:
                    p = db.probe(list(b), bawo.SIDE_NAMES[s])
                    assert p.value == bawo.VALUE_NAMES[v]
                    assert p.depth == (None if d < 0 else d)
                # One side for every row: the A rows alone, as "A", 0 or letters.
                a = c.to_move == 0
                for side in ("A", 0, np.array(["A"] * int(a.sum()))):
                    v2, d2 = db.probe_many(c.boards[a].astype(np.int64), side)
                    np.testing.assert_array_equal(v2, c.value[a])
                    np.testing.assert_array_equal(d2, c.depth[a])


def test_probe_many_of_nothing(dbs):
    with bawo.open(dbs["committed"]) as db:
        v, d = db.probe_many(np.zeros((0, 8), np.uint8))
        assert v.shape == (0,) and d.shape == (0,)


@pytest.mark.parametrize("game", GAMES + ["committed"])
def test_tier_chunks_cover_each_tier_exactly_once(dbs, game):
    with bawo.open(dbs[game]) as db:
        for t in db.tiers:
            k = t["tier"]
            stored = t["states"] // 2
            for size in (1, 7, 1 << 20):
                chunks = list(db.tier(k, chunk_size=size))
                assert all(len(c.index) <= max(size, 2) for c in chunks)
                whole = db.tier(k, chunk_size=size).arrays()
                n = len(whole.index)
                assert n == t["states"] == len(db.tier(k))
                assert whole.boards.shape == (n, db.pits)
                assert (whole.boards.sum(axis=1) == t["seeds"]).all()
                # Each stored index twice, A then its mirror with B to move; every board once.
                np.testing.assert_array_equal(whole.index, np.repeat(np.arange(stored), 2))
                np.testing.assert_array_equal(whole.to_move, np.tile([0, 1], stored))
                keys = {(bytes(b), s) for b, s in zip(whole.boards, whole.to_move)}
                assert len(keys) == n
                # Counts as the manifest (and stats) give them.
                assert int((whole.value == bawo.WIN).sum()) == t["win"]
                assert int((whole.value == bawo.LOSS).sum()) == t["loss"]
                assert int((whole.value == bawo.DRAW).sum()) == t["draw"]
                assert max(int(whole.depth.max()), 0) == t["max_depth"]
                assert ((whole.depth < 0) == (whole.value == bawo.DRAW)).all()
            a = db.tier(k, sides="A").arrays()
            np.testing.assert_array_equal(a.index, np.arange(stored))
            assert (a.to_move == 0).all()


@pytest.mark.parametrize("game", GAMES + ["committed"])
def test_tiers_as_pandas_equal_bawo_export(cli, dbs, game):
    pd = pytest.importorskip("pandas")
    with bawo.open(dbs[game]) as db:
        for t in db.tiers:
            k = t["tier"]
            df = db.tier(k, chunk_size=100).to_pandas()
            csv = pd.read_csv(io.StringIO(cli.run("export", "--db", str(dbs[game]), "--tier", str(k)).stdout))
            cols = ["index"] + [f"p{p}" for p in range(db.pits)] + ["to_move", "value"]
            assert len(df) == len(csv) == t["states"]
            for c in cols:
                np.testing.assert_array_equal(df[c].astype(object).to_numpy(), csv[c].astype(object).to_numpy(), c)
            np.testing.assert_array_equal(df["depth"].isna().to_numpy(), csv["depth"].isna().to_numpy())
            assert (df["depth"].fillna(-1).astype(int).to_numpy() == csv["depth"].fillna(-1).astype(int).to_numpy()).all()


@pytest.mark.parametrize("game", GAMES + ["committed"])
def test_stats_and_tiers_equal_stats_json(cli, dbs, game):
    want = cli.json("stats", "--db", str(dbs[game]), "--json")
    with bawo.open(dbs[game]) as db:
        assert db.stats() == want
        keys = ("tier", "seeds", "states", "win", "loss", "draw", "max_depth")
        assert db.tiers == [{k: t[k] for k in keys} for t in want["tiers"]]
        assert db.complete == want["complete"]


@pytest.mark.parametrize("game", GAMES + ["committed"])
def test_verify_equals_verify_json(cli, dbs, game):
    path = str(dbs[game])
    assert bawo.verify(path) == cli.json("verify", "--db", path, "--json")
    assert bawo.verify(path, sample=50, seed=3) == cli.json(
        "verify", "--db", path, "--json", "--sample", "50", "--seed", "3"
    )
    with bawo.open(path) as db:
        assert db.verify() == bawo.verify(path)
