"""Each error class for its cause, worded as the command line words it; damage never crashes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import bawo


@pytest.mark.parametrize(
    "board,to_move",
    [
        ("1,2", "A"),
        ("x,0,0,0,0,0,0,0", "A"),
        ("0,-1,0,0,0,0,0,0", "A"),
        ("0,,0,0,0,0,0,0", "A"),
        ("0;0;0;0;0;0;0;0", "A"),
        ("0,0,0,0,0,0,0,256", "A"),
        ("", "A"),
        ("0,0/0,0/0,0,0/0", "A"),
        ("0,0,2,2,0,0,0,2", "C"),
    ],
)
def test_malformed_positions_raise_value_error_with_the_cli_message(cli, dbs, board, to_move):
    path = dbs["committed"]
    want = cli.error("query", "--db", str(path), "--board", board, "--to-move", to_move)
    with bawo.open(path) as db:
        for call in (db.probe, db.query, db.moves):
            with pytest.raises(ValueError) as e:
                call(board, to_move)
            assert str(e.value) == want
            assert not isinstance(e.value, bawo.BawoError)


def test_sequences_are_refused_as_their_text_is(cli, dbs):
    path = dbs["committed"]
    with bawo.open(path) as db:
        for counts in ([1, 2], [0, -1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 300]):
            text = ",".join(map(str, counts))
            with pytest.raises(ValueError) as e:
                db.probe(counts)
            assert str(e.value) == cli.error("query", "--db", str(path), "--board", text)
        with pytest.raises(ValueError, match="apply to --game bao only"):
            db.probe("0,0,2,2,0,0,0,2", hands="0,0")
        with pytest.raises(TypeError):
            db.probe(12)


def test_positions_not_held_raise_not_covered_with_the_cli_message(cli, dbs):
    for game, board in (("committed", "7,0,0,0,0,0,0,0"), ("bao", "0,0,0,0,0,0,0,3," + ",".join(["0"] * 24))):
        path = dbs[game]
        want = cli.error("query", "--db", str(path), "--board", board)
        with bawo.open(path) as db:
            for call in (db.probe, db.query):
                with pytest.raises(bawo.NotCovered) as e:
                    call(board)
                assert str(e.value) == want
                assert isinstance(e.value, bawo.BawoError)


def test_tiers_not_held_raise_not_covered(dbs):
    with bawo.open(dbs["committed"]) as db:
        with pytest.raises(bawo.NotCovered, match="tier 7 is not in the database"):
            db.tier(7)


def test_probe_many_refuses_bad_rows(dbs):
    with bawo.open(dbs["committed"]) as db:
        ok = np.array([[0, 0, 2, 2, 0, 0, 0, 2]] * 3)
        with pytest.raises(ValueError, match="8"):
            db.probe_many(np.zeros((2, 5), np.uint8))
        with pytest.raises(ValueError, match="2-D"):
            db.probe_many(np.zeros(8, np.uint8))
        with pytest.raises(ValueError, match="integer"):
            db.probe_many(ok.astype(float))
        bad = ok.copy()
        bad[1, 0] = -1
        with pytest.raises(ValueError, match="row 1: --board: negative seed count"):
            db.probe_many(bad)
        bad[1, 0] = 256
        with pytest.raises(ValueError, match="row 1: --board: a pit holds at most 255"):
            db.probe_many(bad)
        far = ok.copy()
        far[2, 0] = 5
        with pytest.raises(bawo.NotCovered, match=r"^row 2: the board holds 11 seeds"):
            db.probe_many(far)
        with pytest.raises(ValueError, match="side to move"):
            db.probe_many(ok, "C")
        with pytest.raises(ValueError, match="0 \\(A\\) and 1 \\(B\\)"):
            db.probe_many(ok, np.array([0, 2, 1]))
        with pytest.raises(ValueError, match="3 boards"):
            db.probe_many(ok, np.array([0, 1], np.uint8))


def test_missing_and_foreign_directories_raise_database_error(tmp_path, dbs):
    with pytest.raises(bawo.DatabaseError, match="is not a directory"):
        bawo.open(tmp_path / "nothing")
    with pytest.raises(bawo.DatabaseError, match="holds no database"):
        bawo.open(tmp_path)
    with pytest.raises(bawo.DatabaseError):
        bawo.verify(tmp_path / "nothing")


def test_a_manifest_for_another_game_raises_database_error(copy_db, dbs):
    d = copy_db(dbs["committed"])
    m = d / "manifest.json"
    m.write_text(m.read_text().replace('"bawo n=2 ', '"chess n=2 '))
    with pytest.raises(bawo.DatabaseError):
        bawo.open(d)
    m.write_text("{ not json")
    with pytest.raises(bawo.DatabaseError):
        bawo.open(d)


def test_a_missing_tier_file_raises_database_error(copy_db, dbs):
    d = copy_db(dbs["committed"])
    (d / "tier-0004.bdb").unlink()
    with bawo.open(d) as db:
        db.probe("0,0,2,0,0,0,0,1")  # a 3-seed board still answers
        with pytest.raises(bawo.DatabaseError, match="missing"):
            db.probe("0,0,2,2,0,0,0,0")
        with pytest.raises(bawo.DatabaseError, match="missing"):
            db.tier(4)
        with pytest.raises(bawo.DatabaseError):
            db.stats()


def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif how == "flip":
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(data)
    else:
        path.write_bytes(b"")


@pytest.mark.parametrize("how", ["truncate", "flip", "empty"])
def test_damaged_files_raise_database_error(cli, copy_db, dbs, how):
    d = copy_db(dbs["committed"])
    _damage(d / "tier-0006.bdb", how)
    with bawo.open(d) as db:
        board = "0,0,2,2,0,0,0,2"
        with pytest.raises(bawo.DatabaseError) as e:
            db.probe(board)
        assert str(e.value) == cli.error("query", "--db", str(d), "--board", board)
        with pytest.raises(bawo.DatabaseError):
            db.query(board)
        with pytest.raises(bawo.DatabaseError):
            db.probe_many(np.array([[0, 0, 2, 2, 0, 0, 0, 2]]))
        with pytest.raises(bawo.DatabaseError):
            list(db.tier(6))
        with pytest.raises(bawo.DatabaseError):
            db.stats()
        # Other tiers still answer.
        assert db.probe("0,0,2,0,0,0,0,0").value in ("WIN", "LOSS", "DRAW")
    # verify reports the damage as the CLI does (which exits 1), without raising.
    report = bawo.verify(d)
    r = cli.run("verify", "--db", str(d), "--json", check=False)
    assert r.returncode == 1
    assert report == json.loads(r.stdout)
    assert report["bad_blocks"]


def test_damage_never_crashes_the_interpreter(copy_db, dbs):
    """Every call on damaged files in a child interpreter: it must end normally."""
    d = copy_db(dbs["committed"])
    for k, how in ((4, "flip"), (5, "truncate"), (6, "empty")):
        _damage(d / f"tier-{k:04d}.bdb", how)
    script = textwrap.dedent(
        f"""
        import numpy as np, bawo
        db = bawo.open({str(d)!r})
        raised = 0
        calls = [
            lambda: db.probe("0,0,2,2,0,0,0,2"),
            lambda: db.query("0,0,2,2,0,0,0,0"),
            lambda: db.query("0,0,1,2,0,0,0,2"),
            lambda: db.probe_many(np.array([[0, 0, 2, 2, 0, 0, 0, 2]] * 1000)),
            lambda: list(db.tier(4)),
            lambda: list(db.tier(5)),
            lambda: db.stats(),
            lambda: db.verify(),
        ]
        for call in calls:
            try:
                call()
            except bawo.BawoError:
                raised += 1
        print("raised", raised)
        """
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "raised 7", (r.stdout, r.stderr)
    assert "panicked" not in r.stderr


def test_a_closed_database_raises_database_error(dbs):
    with bawo.open(dbs["committed"]) as db:
        assert not db.closed
        assert db.probe("0,0,2,2,0,0,0,2").value == "WIN"
    assert db.closed
    with pytest.raises(bawo.DatabaseError, match="closed"):
        db.probe("0,0,2,2,0,0,0,2")
    with pytest.raises(bawo.DatabaseError, match="closed"):
        db.tier(3)
    db.close()  # twice is fine


def test_a_scan_outlives_close_and_can_stop_early(dbs):
    db = bawo.open(dbs["committed"])
    it = iter(db.tier(6, chunk_size=10))
    first = next(it)
    db.close()
    rest = list(it)
    assert len(first.index) + sum(len(c.index) for c in rest) == 2 * 1716
    # A scan abandoned part-way stops its thread; the database goes on answering.
    db = bawo.open(dbs["committed"])
    for _ in range(20):
        it = iter(db.tier(6, chunk_size=10))
        next(it)
        del it
    assert db.probe("0,0,2,2,0,0,0,2").value == "WIN"
