"""What an AI may compute from a view: scratch copies, dice odds, the coming Invasion.

Everything here works on a *view* (engine.view), never on a full state: the hidden parts an
engine function might touch (the medal pool when a boss falls, the RNG) are replaced by
harmless stand-ins, and dice are never rolled — a dice attack is weighed over the 36
outcomes of 2d6 (R8.2).
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from engine import CardSet, Game, board, cards_for

View = Any
"""A view (engine.View) or a scratch state made from one (`scratch`). The AI runs the
engine's own rule functions (combat, flow) on its scratch copies, which take an
engine.types.State: a scratch is that shape with stand-ins for the secrets, built from JSON,
so it is left unchecked here and the engine's types check the rules it runs."""

MEDAL_GUESS = -2  # the mean face-down medal is −2.1 (R14.1); a scratch boss kill draws this


def cards_of(view: View) -> CardSet:
    """The card set a view plays with: its custom set (`setup.cards`) or the released version
    its setup names, as the engine judges it (engine.cards_for)."""
    return cards_for(view.get("setup", {}))


def game_of(view: View) -> Game:
    """An engine `Game` over the view, for legal actions (they need no secret)."""
    return Game(view, cards_of(view))


def copy_player(p: dict[str, Any]) -> dict[str, Any]:
    """A copy deep enough for everything a unit action or an Invasion changes."""
    q = dict(p)
    q["board"] = [dict(x) if x is not None else None for x in p["board"]]
    q["hand"] = list(p["hand"])
    q["castle"] = list(p["castle"])
    q["defeated"] = list(p["defeated"])
    if "medals" in q:
        q["medals"] = list(q["medals"])
    return q


def scratch(view: View, seat: int) -> View:
    """A private copy of the view where `seat`'s board and the shared piles may change.

    Hidden parts become stand-ins: a medal pool of `MEDAL_GUESS` values of the right size
    and a dummy RNG, so a boss defeated in a lookahead never needs the real secret.
    """
    st = dict(view)
    st["players"] = list(view["players"])
    st["players"][seat] = copy_player(view["players"][seat])
    st["levelup_piles"] = {k: list(v) for k, v in view["levelup_piles"].items()}
    st["discard"] = list(view["discard"])
    st["removed"] = list(view["removed"])
    st["mercenaries"] = list(view["mercenaries"])
    st["decisions"] = {}
    st["result"] = None
    size = view.get("medal_pool_size", len(view.get("medal_pool", [])))
    st["medal_pool"] = [MEDAL_GUESS] * size
    st["rng"] = {"medals": 1}
    return st


@lru_cache(maxsize=256)
def dice_odds(mod: int, defense: int) -> tuple[float, float, float, float]:
    """P(0), P(1), P(2), P(3) damage of a dice attack (R8.2): double one 0, double six 3,
    else 2 when 2d6 + mod ≥ DEF, 1 otherwise."""
    counts = [0, 0, 0, 0]
    for a in range(1, 7):
        for b in range(1, 7):
            if a == b == 1:
                counts[0] += 1
            elif a == b == 6:
                counts[3] += 1
            else:
                counts[2 if a + b + mod >= defense else 1] += 1
    return tuple(c / 36 for c in counts)  # type: ignore[return-value]


def damage_odds(cs: CardSet, mod: int, monster: dict[str, Any]) -> list[tuple[int, float]]:
    """(damage dealt, probability), with damage capped at the monster's HP left."""
    mc = cs.monsters[monster["card"]]
    left = mc.hp - monster["dmg"]
    merged: dict[int, float] = {}
    for d, p in enumerate(dice_odds(mod, mc.defense)):
        if p:
            k = min(d, left)
            merged[k] = merged.get(k, 0.0) + p
    return sorted(merged.items())


_TABLES: dict[tuple[int, str], tuple[CardSet, tuple[tuple[int, ...], ...]]] = {}


def skill_table(cs: CardSet, key: str) -> tuple[tuple[int, ...], ...]:
    """For unit card `key`: the squares its skill reaches from each square (R8.2; gap
    squares are not in the range, the pattern is never rotated)."""
    hit = _TABLES.get((id(cs), key))
    if hit is not None and hit[0] is cs:  # the set itself is kept, so its id is never reused
        return hit[1]
    skill = cs.units[key].skill
    rows = []
    for i in range(board.SIZE):
        if skill.range_any:
            rows.append(tuple(range(board.SIZE)))
        else:
            out = (board.unit_offset(i, off) for off in skill.range)
            rows.append(tuple(j for j in out if j is not None))
    t = tuple(rows)
    _TABLES[(id(cs), key)] = (cs, t)
    return t


@cache
def near(i: int, mov: int) -> tuple[int, ...]:
    """Squares within `mov` orthogonal steps of `i` (itself first), magic circles excluded."""
    c, ln = board.col(i), board.lane(i)
    out = [i]
    for j in range(board.SIZE):
        d = abs(board.col(j) - c) + abs(board.lane(j) - ln)
        if 0 < d <= mov and not board.is_magic_circle(j):
            out.append(j)
    return tuple(out)


def skill_masks(cs: CardSet, key: str) -> tuple[int, ...]:
    """`skill_table` as bit masks (bit j = square j), for fast overlap with monster sets."""
    hit = _MASKS.get((id(cs), key))
    if hit is not None and hit[0] is cs:
        return hit[1]
    t = tuple(sum(1 << j for j in row) for row in skill_table(cs, key))
    _MASKS[(id(cs), key)] = (cs, t)
    return t


_MASKS: dict[tuple[int, str], tuple[CardSet, tuple[int, ...]]] = {}
