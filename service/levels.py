"""The solo levels a player picks from: the rulebook's three (R13.2) and one above them.

R13.2 has Easy, Normal and Hard: 0, 3 or 6 cards off the unit deck, each step one round less
to clear the board. One more step of that kind (9 cards) left the project's strongest player
nothing to win (0 of 60, docs/balance.md), so the top level keeps Hard's deadline and fills
the opening summon instead, as the daily's "Bone march" does (a Skeleton joins the first
summon, service/data/daily_modifiers.json): the rules' own setup options, nothing invented.
The expert wins it about one game in seven, against about one in four on Hard.

A level is only a name for setup options: a game stores the options, not the name, so it
replays under any later release, and `level_of` gives the name back for display.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

SOLO_LEVELS: Final[Mapping[str, Mapping[str, Any]]] = {
    "easy": {"difficulty": "easy"},
    "normal": {"difficulty": "normal"},
    "hard": {"difficulty": "hard"},
    "nightmare": {"difficulty": "hard", "opening_monster": "skeleton"},  # Hard + Bone march
}


def level_options(level: str) -> dict[str, Any]:
    """The engine setup options of `level` (a fresh dict: callers add to it); KeyError for a
    name that is no level (callers check `level in SOLO_LEVELS` and answer first)."""
    return dict(SOLO_LEVELS[level])


def level_of(options: Mapping[str, Any]) -> str | None:
    """The highest level whose options a game was set up with (None: no solo option rule).
    A daily day of Hard with "Bone march" reads as the top level too: it is the same game."""
    if options.get("difficulty") is None:
        return None
    fits = [name for name, opts in SOLO_LEVELS.items()
            if all(options.get(k) == v for k, v in opts.items())]
    return fits[-1] if fits else None
