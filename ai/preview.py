"""A fast preview of the coming Invasion (R9) on one board, for the evaluation's hot loop.

The same scan as engine/flow.py (1A, 1B, … 6C; each monster attacks the units in its range
or moves, at most once; a bonus move after a faint; monsters jump monsters and stop short
of units; past column 1 is the castle) on a plain list, without events or state, with the
monster ranges precomputed (ai/model.py `facts`). tests/test_ai_players.py checks that it
agrees with the engine on many positions; a board with the Level Up standing order on goes through the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import CardSet, board

from .model import MonsterFacts, facts


@dataclass(slots=True)
class Outcome:
    """What the Invasion left: the board, the monsters that entered the castle, the units
    that fainted (back to the hand, R9.1) and whether the player is out (R9.2)."""

    board: list[Any]
    invaded: list[dict[str, Any]] = field(default_factory=list)
    fainted: list[dict[str, Any]] = field(default_factory=list)
    eliminated: bool = False


def invade_board(cs: CardSet, b: list[Any], castle: int, solo: bool) -> Outcome:
    """R9 on a copy of board `b`; `castle` = blue monsters already in the castle."""
    f = facts(cs)
    monsters, units = f.monsters, f.units
    b = list(b)
    out = Outcome(b)
    done: set[str] = set()
    for i in range(board.SIZE):
        m = b[i]
        if m is None or "owner" in m or m["id"] in done:
            continue
        done.add(m["id"])
        mc = monsters[m["card"]]
        in_range = [j for j in mc.ranges[i] if b[j] is not None and "owner" in b[j]]
        if not in_range:
            if _move(mc, b, i, out, castle, solo):
                return out
            continue
        fainted = False
        for j in (in_range if mc.area else in_range[:1]):  # R9.1
            u = dict(b[j])
            u["dmg"] += mc.atk
            if u["dmg"] >= units[u["card"]].hp:
                b[j] = None
                out.fainted.append(u)
                fainted = True
            else:
                b[j] = u
        if fainted and b[i] is m and _move(mc, b, i, out, castle, solo):
            return out
    return out


def _move(mc: MonsterFacts, b: list[Any], i: int, out: Outcome, castle: int, solo: bool
          ) -> bool:
    """R9.2 for monster `mc` on square `i`; True when the scan must stop (the game is lost or
    the player eliminated)."""
    m = b[i]
    c, ln = i // 3 + 1, i % 3
    target = c - mc.mov
    while target >= 1 and _monster(b[(target - 1) * 3 + ln]):
        target -= 1
    dest = None
    for k in range(c - 1, max(target, 1) - 1, -1):
        x = b[(k - 1) * 3 + ln]
        if x is not None and "owner" in x:
            for near in range(k + 1, c):
                if b[(near - 1) * 3 + ln] is None:
                    dest = (near - 1) * 3 + ln
                    break
            if dest is None:
                return False
            break
    else:
        if target < 1:
            b[i] = None
            out.invaded.append(m)
            if solo or mc.red or castle + len(out.invaded) > 1:
                out.eliminated = True
                return True
            return False
        dest = (target - 1) * 3 + ln
    b[i], b[dest] = None, m
    return False


def _monster(x: dict[str, Any] | None) -> bool:
    return x is not None and "owner" not in x
