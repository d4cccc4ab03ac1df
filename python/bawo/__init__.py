"""Read bawo's endgame databases of four-row mancala games from Python.

A database is a directory written by ``bawo solve``: ``manifest.json`` and one compressed
``tier-KKKK.bdb`` file per tier (seeds on the board). Values are for the side to move; the
depth is plies to the end under best play (the winner hurries, the loser delays; draws have
none).

>>> import bawo
>>> with bawo.open("data/bawo-n2-s6") as db:
...     db.probe("0,0,2,2,0,0,0,2")
Probe(value='WIN', depth=3)

Positions are written as ``bawo query`` takes them: a board as text (``"0,0,2,2,0,0,0,2"``,
``/`` may separate rows) or as a sequence of pit counts, the side to move ``"A"`` or
``"B"``, and for Bao the hands (``"a,b"`` or two counts) and the standing houses (``"A"``,
``"B"``, ``"A,B"``, ``"none"`` or a sequence of sides).

Bulk calls (:meth:`Database.probe_many`, :meth:`Database.tier`) give values as small integer
codes, ordered from the mover's point of view:

====== ==== =====================
code   name meaning for the mover
====== ==== =====================
``0``  LOSS :data:`LOSS`
``1``  DRAW :data:`DRAW`
``2``  WIN  :data:`WIN`
====== ==== =====================

and depths as integers, ``-1`` for a draw. ``VALUE_NAMES[code]`` is the name ``bawo query
--json`` writes.

Errors: :class:`ValueError` for a malformed position (the command line's message),
:class:`NotCovered` for a well-formed position or a tier the database does not hold,
:class:`DatabaseError` for missing, damaged or mismatched files (and a closed database).
All of bawo's own errors derive from :class:`BawoError`.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _native
from ._native import DRAW, LOSS, WIN, BawoError, DatabaseError, NotCovered

if TYPE_CHECKING:  # pragma: no cover
    import pandas  # type: ignore[import-untyped,unused-ignore]

__all__ = [
    "open",
    "verify",
    "Database",
    "TierScan",
    "TierChunk",
    "Probe",
    "Query",
    "Move",
    "BawoError",
    "NotCovered",
    "DatabaseError",
    "LOSS",
    "DRAW",
    "WIN",
    "VALUE_NAMES",
    "SIDE_NAMES",
]

__version__ = "0.1.0"

#: Value names by code: ``VALUE_NAMES[LOSS] == "LOSS"``.
VALUE_NAMES = ("LOSS", "DRAW", "WIN")
#: Sides by code, as the ``to_move`` arrays hold them: 0 is A, 1 is B.
SIDE_NAMES = ("A", "B")

Board = Union[str, Sequence[int]]
PathLike = Union[str, "os.PathLike[str]"]


class Probe(NamedTuple):
    """A position's value for the side to move and its depth in plies (``None`` for a draw)."""

    value: str
    depth: Optional[int]


class Move(NamedTuple):
    """A legal move: its label in the game's notation, its value and depth for the mover."""

    label: str
    value: str
    depth: Optional[int]


class Query(NamedTuple):
    """A position's value and depth, and every legal move's, best first."""

    value: str
    depth: Optional[int]
    moves: List[Move]

    def to_dict(self) -> Dict[str, Any]:
        """The object ``bawo query --json`` prints."""
        return {
            "value": self.value,
            "depth": self.depth,
            "moves": [{"move": m.label, "value": m.value, "depth": m.depth} for m in self.moves],
        }


class TierChunk:
    """Consecutive rows of a tier, as numpy arrays of equal length (``rows`` of them).

    ``index`` (uint64) is the stored position's index in the tier, shared by its mirror;
    ``boards`` (uint8, rows x pits) the pit counts in the game's pit order; ``to_move``
    (uint8) 0 for A, 1 for B; ``value`` (int8) :data:`LOSS`, :data:`DRAW` or :data:`WIN`;
    ``depth`` (int16) plies, -1 for a draw. Iterating gives the five arrays in that order
    (``index, boards, to_move, value, depth = chunk``).
    """

    __slots__ = ("index", "boards", "to_move", "value", "depth")

    def __init__(
        self, index: np.ndarray, boards: np.ndarray, to_move: np.ndarray, value: np.ndarray, depth: np.ndarray
    ) -> None:
        self.index = index
        self.boards = boards
        self.to_move = to_move
        self.value = value
        self.depth = depth

    @property
    def rows(self) -> int:
        return len(self.index)

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.index, self.boards, self.to_move, self.value, self.depth))

    def __repr__(self) -> str:
        return f"<bawo.TierChunk of {self.rows} rows>"


def _side_code(to_move: Any) -> Any:
    """0/1 for a side given as a letter; a uint8 array for one side per row."""
    if isinstance(to_move, str):
        s = to_move.strip()
        if s in ("A", "a"):
            return 0
        if s in ("B", "b"):
            return 1
        raise ValueError(f"side to move must be A or B, not '{s}'")
    if isinstance(to_move, (int, np.integer)):
        if to_move in (0, 1):
            return int(to_move)
        raise ValueError(f"side to move must be 0 (A) or 1 (B), not {to_move}")
    sides = np.asarray(to_move)
    if sides.dtype.kind in "US":
        letters = np.char.upper(np.char.strip(sides.astype(str)))
        bad = ~np.isin(letters, ["A", "B"])
        if bad.any():
            raise ValueError(f"side to move must be A or B, not '{sides[bad][0]}'")
        return np.ascontiguousarray(letters == "B", dtype=np.uint8)
    if sides.dtype.kind not in "biu":
        raise ValueError(f"to_move must be 'A', 'B' or an array of 0 (A) and 1 (B), not {sides.dtype}")
    if sides.size and (sides.min() < 0 or sides.max() > 1):
        raise ValueError("to_move must hold 0 (A) and 1 (B) only")
    return np.ascontiguousarray(sides, dtype=np.uint8)


def _boards_array(boards: Any) -> np.ndarray:
    arr = np.asarray(boards)
    if arr.ndim != 2:
        raise ValueError(f"boards must be a 2-D array, one position a row (got {arr.ndim} dimensions)")
    if arr.dtype == np.uint8:
        return np.ascontiguousarray(arr)
    if arr.dtype.kind not in "biu":
        raise ValueError(f"boards must hold integer pit counts, not {arr.dtype}")
    if arr.size:
        lo, hi = arr.min(), arr.max()
        if lo < 0:
            row = int(np.argwhere(arr < 0)[0][0])
            raise ValueError(f"row {row}: --board: negative seed count '{lo}'")
        if hi > 255:
            row = int(np.argwhere(arr > 255)[0][0])
            raise ValueError(f"row {row}: --board: a pit holds at most 255 seeds, not {hi}")
    return np.ascontiguousarray(arr, dtype=np.uint8)


class TierScan:
    """One tier's rows, read in chunks of bounded size: iterate for :class:`TierChunk`\\ s.

    Each iteration starts a new read on a thread of its own, a chunk or two ahead of the
    loop, so memory stays bounded whatever the tier's size. With ``sides="both"`` (the
    default) each stored position (A to move) is followed by its mirror with B to move: the
    rows of ``bawo export``, covering the tier exactly once. With ``sides="A"`` only the
    stored positions come.
    """

    def __init__(self, db: "Database", tier: int, chunk_size: int, sides: str) -> None:
        if sides not in ("both", "A"):
            raise ValueError(f"sides must be 'both' or 'A', not {sides!r}")
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be at least 1, not {chunk_size}")
        self._db = db
        self.tier = int(tier)
        self.chunk_size = int(chunk_size)
        self.sides = sides
        # A tier the database does not hold is refused now, not at the first chunk.
        stored = db._native.tier_entries(self.tier)
        self._rows = stored * (2 if sides == "both" else 1)

    def _start(self) -> Any:
        return self._db._native.scan(self.tier, self.chunk_size, self.sides == "both")

    def __len__(self) -> int:
        """Rows the tier gives."""
        return self._rows

    def __iter__(self) -> Iterator[TierChunk]:
        for index, boards, to_move, value, depth in self._start():
            yield TierChunk(index, boards, to_move, value, depth)

    def arrays(self) -> TierChunk:
        """The whole tier as one :class:`TierChunk` (memory: 12 bytes a row plus one a pit)."""
        parts = list(self)
        if not parts:
            pits = self._db.pits
            return TierChunk(
                np.empty(0, np.uint64),
                np.empty((0, pits), np.uint8),
                np.empty(0, np.uint8),
                np.empty(0, np.int8),
                np.empty(0, np.int16),
            )
        return TierChunk(*(np.concatenate(cols) for cols in zip(*parts)))

    def to_pandas(self) -> "pandas.DataFrame":
        """The tier as a DataFrame with the columns of ``bawo export``: ``index``, ``p0`` ...,
        ``to_move`` ("A"/"B"), ``value`` ("LOSS"/"DRAW"/"WIN", categorical) and ``depth``
        (nullable Int16, missing for draws). Needs pandas."""
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("TierScan.to_pandas needs pandas: pip install pandas") from e
        t = self.arrays()
        cols: Dict[str, Any] = {"index": t.index}
        for p in range(t.boards.shape[1]):
            cols[f"p{p}"] = t.boards[:, p]
        cols["to_move"] = pd.Categorical.from_codes(t.to_move.astype(np.int8), categories=list(SIDE_NAMES))
        cols["value"] = pd.Categorical.from_codes(t.value, categories=list(VALUE_NAMES), ordered=True)
        cols["depth"] = pd.arrays.IntegerArray(t.depth, t.depth < 0)
        return pd.DataFrame(cols)

    def __repr__(self) -> str:
        return f"<bawo.TierScan tier {self.tier} of {self._db.path}: {len(self)} rows>"


class Database:
    """An opened database (see :func:`open`). Use it as a context manager, or call
    :meth:`close`, to release its file maps."""

    def __init__(self, path: PathLike, *, warn_unfinished: bool = True) -> None:
        self._native = _native.Db(os.fspath(path))
        self.path: str = self._native.path
        params, rules = self._native.params_and_rules()
        #: The game's name: "bawo", "kigogo" or "bao".
        self.game: str = self._native.name
        #: The manifest's game line, every parameter and rule option.
        self.descriptor: str = self._native.descriptor
        #: The game's parameters (Bawo: n, lap-cap) as ints where they are numbers.
        self.params: Dict[str, Any] = {k: _number(v) for k, v in params}
        #: The rule options, e.g. ``{"kichwa": "off", "capture": "any"}`` for Bawo.
        self.rules: Dict[str, str] = dict(rules)
        #: Pits on the board (the width of the ``boards`` arrays).
        self.pits: int = self._native.pits
        #: The seed budget of the run.
        self.seeds: int = self._native.seeds
        #: Every tier of the run's budget is finished (False for a run stopped part-way).
        self.complete: bool = self._native.complete
        note = self._native.unfinished_note
        if note and warn_unfinished:
            warnings.warn(f"{note}; only positions of finished tiers have values", RuntimeWarning, stacklevel=3)

    # -- what the database holds ------------------------------------------------------------

    @property
    def tiers(self) -> List[Dict[str, int]]:
        """Per tier held, the counts of ``bawo stats --json``'s ``tiers`` (positions of either
        side to move): tier, seeds, states, win, loss, draw, max_depth (without the depth
        histograms, which need every file read: see :meth:`stats`)."""
        return self._native.tiers()

    @property
    def closed(self) -> bool:
        return self._native.closed

    # -- single positions -------------------------------------------------------------------

    def probe(self, board: Board, to_move: str = "A", hands: Any = None, houses: Any = None) -> Probe:
        """Value and depth of one position, for the side to move."""
        return Probe(*self._native.probe(board, to_move, hands, houses))

    def query(self, board: Board, to_move: str = "A", hands: Any = None, houses: Any = None) -> Query:
        """Value and depth of one position, and every legal move's, best first: ``bawo query``."""
        value, depth, moves = self._native.query(board, to_move, hands, houses)
        return Query(value, depth, [Move(*m) for m in moves])

    def moves(self, board: Board, to_move: str = "A", hands: Any = None, houses: Any = None) -> List[Move]:
        """Every legal move of one position with its value and depth for the mover, best first."""
        return self.query(board, to_move, hands, houses).moves

    # -- many positions ---------------------------------------------------------------------

    def probe_many(self, boards: Any, to_move: Any = "A") -> "tuple[np.ndarray, np.ndarray]":
        """Values and depths of many positions: ``boards`` is a 2-D array of pit counts, one
        position a row; ``to_move`` is "A", "B", or one side a row (0/1 or "A"/"B").

        Returns ``(values, depths)``: int8 codes (:data:`LOSS` 0, :data:`DRAW` 1, :data:`WIN`
        2) and int16 plies (-1 for a draw). Runs in parallel with the GIL released. A row
        that is malformed or not held fails the call (ValueError or NotCovered), naming the
        first such row."""
        return self._native.probe_many(_boards_array(boards), _side_code(to_move))

    def tier(self, k: int, chunk_size: int = 1 << 20, sides: str = "both") -> TierScan:
        """Tier ``k`` (for Bawo and Kigogo: every position with ``k`` seeds on the board) as an
        iterable of :class:`TierChunk`\\ s of at most ``chunk_size`` rows."""
        return TierScan(self, k, chunk_size, sides)

    # -- the whole database -----------------------------------------------------------------

    def stats(self) -> Dict[str, Any]:
        """``bawo stats --json``: counts and depth histograms per tier (reads every file)."""
        report: Dict[str, Any] = json.loads(self._native.stats_json())
        return report

    def verify(self, sample: Optional[int] = None, seed: int = 1, partial: bool = False) -> Dict[str, Any]:
        """``bawo verify --json``: see :func:`verify`."""
        report: Dict[str, Any] = json.loads(self._native.verify_json(sample, seed, partial))
        return report

    def release(self) -> None:
        """Drops the mapped pages of the tier files read so far (read back when needed)."""
        self._native.release()

    def close(self) -> None:
        """Releases the file maps; later calls raise :class:`DatabaseError`."""
        self._native.close()

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed " if self.closed else ""
        return f"<bawo.Database {state}{self.descriptor!r} at {self.path!r}>"


def _number(v: str) -> Any:
    try:
        return int(v)
    except ValueError:
        return v


def open(path: PathLike, *, warn_unfinished: bool = True) -> Database:  # noqa: A001 - the API's name
    """Opens the database in directory ``path`` (the ``--out`` of ``bawo solve``).

    Raises :class:`DatabaseError` when it holds no database or one this version cannot read.
    A run stopped part-way opens with a RuntimeWarning (``warn_unfinished=False`` silences
    it): only its finished tiers have values."""
    return Database(path, warn_unfinished=warn_unfinished)


def verify(path: PathLike, sample: Optional[int] = None, seed: int = 1, partial: bool = False) -> Dict[str, Any]:
    """``bawo verify --db PATH --json [--sample K --seed S] [--partial]``: every checksum,
    then every stored value (or ``sample`` random ones) recomputed from its successors.

    Returns the command's JSON object as a dict: ``files``, ``blocks``, ``checked``,
    ``mismatches``, ``bad_positions``, ``bad_blocks``. A damaged or wrong database is a report
    saying so (``bad_blocks`` or ``mismatches``), not an exception; the database is sound
    when both are empty/zero. A run stopped part-way raises :class:`DatabaseError` unless
    ``partial``."""
    report: Dict[str, Any] = json.loads(_native.verify_json(os.fspath(path), sample, seed, partial))
    return report
