"""Fixtures: the `bawo` binary, and small databases of each game solved with it.

The binary is $BAWO_BIN, else the repository's target/release/bawo, built with
`cargo build --release` when missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Sequence

import pytest

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "data" / "bawo-n2-s6"

# The smallest instances of each game: every position of each is queried through the CLI.
SOLVES: Dict[str, List[str]] = {
    "bawo": ["--game", "bawo", "--n", "2", "--seeds", "4", "--lap-cap", "64"],
    "kigogo": ["--game", "kigogo", "--seeds", "2"],
    "bao": ["--game", "bao", "--seeds", "2"],
}


def _find_bin() -> Path:
    env = os.environ.get("BAWO_BIN")
    if env:
        p = Path(env)
        if not p.is_file():
            raise RuntimeError(f"BAWO_BIN={env} is not a file")
        return p
    p = REPO / "target" / "release" / "bawo"
    if not p.is_file():
        subprocess.run(["cargo", "build", "--release", "--bin", "bawo"], cwd=REPO, check=True)
    return p


class Cli:
    """Runs the `bawo` binary."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run([str(self.path), *args], capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError(f"bawo {' '.join(args)} failed ({r.returncode}): {r.stderr}")
        return r

    def json(self, *args: str) -> Any:
        return json.loads(self.run(*args).stdout)

    def query(self, db: Path, board: str, to_move: str) -> Any:
        return self.json("query", "--db", str(db), "--board", board, "--to-move", to_move, "--json")

    def queries(self, db: Path, positions: Sequence[tuple]) -> List[Any]:
        """`query --json` of each (board text, side) in `positions`, a few processes at once."""
        with ThreadPoolExecutor(max_workers=4) as pool:
            return list(pool.map(lambda p: self.query(db, p[0], p[1]), positions))

    def error(self, *args: str) -> str:
        """The one-line error of a command that must fail, without the "bawo: " prefix."""
        r = self.run(*args, check=False)
        assert r.returncode != 0, f"bawo {' '.join(args)} succeeded"
        line = r.stderr.strip().splitlines()[-1]
        assert line.startswith("bawo: "), line
        return line[len("bawo: ") :]


@pytest.fixture(scope="session")
def cli() -> Cli:
    return Cli(_find_bin())


@pytest.fixture(scope="session")
def dbs(cli: Cli, tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    """game name -> directory of a small database of that game, plus "committed"."""
    root = tmp_path_factory.mktemp("dbs")
    out = {}
    for game, args in SOLVES.items():
        d = root / game
        cli.run("solve", *args, "--out", str(d), "--quiet")
        out[game] = d
    out["committed"] = COMMITTED
    return out


@pytest.fixture
def copy_db(tmp_path: Path):
    """Copies a database directory into a fresh temporary one (to damage it)."""

    def copy(src: Path) -> Path:
        dst = tmp_path / "copy"
        shutil.copytree(src, dst)
        return dst

    return copy
