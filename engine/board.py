"""Board geometry (R2): 6 columns × 3 lanes, column 1 at the castle, column 6 magic circles.

A square is an index `(column-1)*3 + lane` (lane A=0, B=1, C=2), so ascending index order is
exactly the Invasion scan order 1A, 1B, 1C, 2A, … (R9).
"""

from __future__ import annotations

import unicodedata
from collections import deque
from collections.abc import Sequence

from .cards import Offset
from .types import Piece

LANES = "ABC"
COLUMNS = 6
SIZE = COLUMNS * 3
NAMES = [f"{c}{lane}" for c in range(1, COLUMNS + 1) for lane in LANES]
_INDEX = {n: i for i, n in enumerate(NAMES)}


def index(name: str) -> int | None:
    """Square index of a name like `2B` (any case, any width: `２ｂ` from a Japanese IME), or
    None when it is not a square."""
    i = _INDEX.get(name.strip().upper())
    if i is None and not name.isascii():
        i = _INDEX.get(unicodedata.normalize("NFKC", name).strip().upper())
    return i


def square(name: str) -> int:
    """Index of a canonical square name the engine wrote itself (`sq(i)`), e.g. a roll's
    target: a KeyError rather than None if it is not one (a hand-written puzzle's roll may
    spell it loosely: `index` still reads that)."""
    i = _INDEX.get(name)
    if i is None:
        i = index(name)
        if i is None:
            raise KeyError(name)
    return i


def col(i: int) -> int:
    return i // 3 + 1


def lane(i: int) -> int:
    return i % 3


def at(c: int, ln: int) -> int | None:
    """Index of column c, lane ln, or None off the board."""
    if 1 <= c <= COLUMNS and 0 <= ln <= 2:
        return (c - 1) * 3 + ln
    return None


def on(c: int, ln: int) -> int:
    """Index of column c, lane ln when the caller knows it is on the board (a column between
    two squares' columns, or one counted within 1..COLUMNS): `at` without the None case."""
    return (c - 1) * 3 + ln


def is_magic_circle(i: int) -> bool:
    return col(i) == COLUMNS


def is_home(i: int) -> bool:
    """Columns 1–2: where units are placed and recruited (R2, R7.1)."""
    return col(i) <= 2


def unit_offset(i: int, off: Offset) -> int | None:
    """A unit faces the monsters: forward is toward column 6 (R2, p.11: never rotated)."""
    return at(col(i) + off[0], lane(i) + off[1])


def monster_offset(i: int, off: Offset) -> int | None:
    """A monster faces the castle: forward is toward column 1."""
    return at(col(i) - off[0], lane(i) + off[1])


_NEIGHBOURS = [
    [j for j in (at(col(i) + dc, lane(i) + dl) for dc, dl in ((1, 0), (-1, 0), (0, 1), (0, -1)))
     if j is not None]
    for i in range(SIZE)
]


def unit_moves(board: Sequence[Piece | None], start: int, mov: int) -> dict[int, list[int]]:
    """Squares a unit on `start` can end on with up to `mov` steps, each with a shortest path.

    R8.1: orthogonal steps; never onto a monster or a magic circle; may pass through a unit
    only mid-move, never end on one. The path excludes the start square.
    """
    best: dict[int, list[int]] = {start: []}
    frontier = deque([start])
    while frontier:
        sq = frontier.popleft()
        path = best[sq]
        if len(path) >= mov:
            continue
        for nb in _NEIGHBOURS[sq]:
            if nb in best or is_magic_circle(nb):
                continue
            piece = board[nb]
            if piece is not None and "owner" not in piece:  # a monster blocks
                continue
            best[nb] = path + [nb]
            frontier.append(nb)
    return {sq: p for sq, p in best.items() if sq != start and board[sq] is None}
