"""The solo levels a player picks from: the rulebook's three (R13.2) and one above them.

R13.2 has Easy, Normal and Hard: 0, 3 or 6 cards off the unit deck, each step one round less
to clear the board. One more step of that kind (9 cards) left the project's strongest player
nothing to win (0 of 60, docs/balance.md), so the top level keeps Hard's deadline and takes
two of the daily's harsh modifiers (service/data/daily_modifiers.json): "Bone march" (a
Skeleton joins the first summon) and "Empty coffers" (no starting gold) — the rules' own
setup options, nothing invented. Each alone takes a few points off Hard; together the
expert wins about one game in seven (Hard: one in four) and greedy one in sixteen (Hard:
one in ten); docs/balance.md, pass 5. It is the daily's Sunday.

A level is only a name for setup options: a game stores the options, not the name, so it
replays under any later release, and `level_of` gives the name back for display.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .daily import catalogue, modifiers_of, setup_options


def _with_modifiers(difficulty: str, *ids: str) -> dict[str, Any]:
    """A difficulty with catalogue modifiers on top, read from the catalogue itself so the
    level and the daily's days that share its modifiers cannot drift apart."""
    known = {m.id: m for m in modifiers_of(catalogue())}
    return setup_options(difficulty, [known[i] for i in ids])


SOLO_LEVELS: Final[Mapping[str, Mapping[str, Any]]] = {
    "easy": {"difficulty": "easy"},
    "normal": {"difficulty": "normal"},
    "hard": {"difficulty": "hard"},
    "nightmare": _with_modifiers("hard", "skeleton", "poor"),  # Bone march + Empty coffers
}


def level_options(level: str) -> dict[str, Any]:
    """The engine setup options of `level` (a fresh dict: callers add to it); KeyError for a
    name that is no level (callers check `level in SOLO_LEVELS` and answer first)."""
    return dict(SOLO_LEVELS[level])


def level_of(options: Mapping[str, Any]) -> str | None:
    """The highest level whose options a game was set up with (None: no solo option rule).
    A daily Sunday (Hard, "Bone march", "Empty coffers") reads as the top level: it is the
    same game."""
    if options.get("difficulty") is None:
        return None
    fits = [name for name, opts in SOLO_LEVELS.items()
            if all(options.get(k) == v for k, v in opts.items())]
    return fits[-1] if fits else None
