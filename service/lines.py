"""A line of narration in plain terms: text pieces with marks, formatted by each interface.

The words a game tells (what happened, what to do now) are shared by Discord and the
console, but they look different in each: Discord shows emphasis in bold and a slash
command as code (`` `/rr place` ``), a terminal shows neither and names the console command
instead (`'place CARD SQUARE'`). So the service writes a `Line` — pieces of text, each with
its mark — and the interface formats it (`cogs/text.py`, `console/text.py`); nobody turns
formatted text back into words.

Templates (catalogue entries) mark pieces with tags a translator can move around:
`<b>…</b>` (emphasis), `<cmd>…</cmd>` (a command verb: `<cmd>place</cmd>`) and
`<code>…</code>` (an answer in the game's notation, `act 2B to 3B`: code in Discord, quoted
in a terminal). The template
is split into pieces *before* its placeholders are filled, so a player named `<b>x</b>` or
`**x**` stays literal text.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, NamedTuple

PLAIN = ""
STRONG = "b"  # emphasis: a round's number, a card being played
COMMAND = "cmd"  # a command verb the player types (`/rr place` in Discord, `place …` here)
ANSWER = "code"  # an answer in the game's notation (`pick advance`; 'pick advance' in a terminal)

_TAG = re.compile(r"<(b|cmd|code)>(.*?)</\1>", re.S)


class Piece(NamedTuple):
    text: str
    mark: str = PLAIN


class Line(tuple[Piece, ...]):
    """One line of narration; `str()` gives its words without any marks (for tests, logs
    and search), the interfaces format it themselves."""

    __slots__ = ()

    def __str__(self) -> str:
        return "".join(p.text for p in self)

    def __add__(self, other: object) -> Line:
        if isinstance(other, str):
            other = Line((Piece(other),)) if other else Line()
        if not isinstance(other, tuple):
            return NotImplemented
        return Line(tuple.__add__(self, other))

    def __radd__(self, other: object) -> Line:
        if isinstance(other, str):
            return Line((Piece(other),)) + self if other else self
        return NotImplemented

    def __contains__(self, item: object) -> bool:
        """`"2B" in line` asks about its words, as a player reads them."""
        return str(item) in str(self) if isinstance(item, str) else tuple.__contains__(self, item)


@lru_cache(maxsize=4096)
def _split(template: str) -> tuple[tuple[str, str, bool], ...]:
    """A template's pieces (text, mark, has placeholders), split once per template."""
    pieces: list[tuple[str, str]] = []
    at = 0
    for m in _TAG.finditer(template):
        if m.start() > at:
            pieces.append((template[at:m.start()], PLAIN))
        pieces.append((m.group(2), m.group(1)))
        at = m.end()
    if at < len(template):
        pieces.append((template[at:], PLAIN))
    return tuple((text, mark, "{" in text or "}" in text) for text, mark in pieces if text)


def parse(template: str, **params: Any) -> Line:
    """The pieces of `template` with its placeholders filled (`str.format`, per piece)."""
    return Line([Piece(text.format(**params) if fields else text, mark)
                 for text, mark, fields in _split(template)])


def text(words: str) -> Line:
    """A line of literal words (nothing in them is a mark)."""
    return Line((Piece(words),)) if words else Line()


def join(lines: list[Line], sep: str) -> Line:
    """Lines joined into one with `sep` between them (marks kept)."""
    out = Line()
    for k, line in enumerate(lines):
        out = out + (sep if k else "") + line
    return out
