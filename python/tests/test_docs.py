"""docs/python.md runs as written: each ```python cell in order, in one namespace, printing
what the ```text block after it shows.

`python python/tests/test_docs.py` runs the cells in the repository's root instead, which
rewrites docs/python-depths.png.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "python.md"


def cells() -> List[Tuple[str, Optional[str]]]:
    """(python source, expected output or None) in document order."""
    blocks = re.findall(r"^```(\w+)\n(.*?)^```$", DOC.read_text(), flags=re.S | re.M)
    out: List[Tuple[str, Optional[str]]] = []
    for kind, body in blocks:
        if kind == "python":
            out.append((body, None))
        elif kind == "text" and out and out[-1][1] is None:
            out[-1] = (out[-1][0], body)
    return out


def run_cells(where: Path) -> List[Tuple[str, Optional[str], str]]:
    os.environ.setdefault("MPLBACKEND", "Agg")
    ns: dict = {"__name__": "__docs__"}
    done = []
    old = Path.cwd()
    os.chdir(where)
    try:
        for src, want in cells():
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(compile(src, str(DOC), "exec"), ns)
            done.append((src, want, buf.getvalue()))
    finally:
        os.chdir(old)
    return done


def test_the_python_page_runs_as_written(tmp_path):
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    (tmp_path / "data").symlink_to(REPO / "data")
    (tmp_path / "docs").mkdir()
    done = run_cells(tmp_path)
    assert len(done) >= 8
    for src, want, got in done:
        if want is not None:
            assert got.rstrip() == want.rstrip(), src
    assert (tmp_path / "docs" / "python-depths.png").stat().st_size > 1000


if __name__ == "__main__":
    for src, want, got in run_cells(REPO):
        if want is not None and got.rstrip() != want.rstrip():
            sys.exit(f"cell\n{src}\nprinted\n{got}\nnot\n{want}")
    print("docs/python.md: every cell prints what it shows; docs/python-depths.png written")
