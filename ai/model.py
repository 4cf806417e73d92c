"""What an AI may compute from a view: scratch copies, dice odds, the coming Invasion.

Everything here works on a *view* (engine.view), never on a full state: the hidden parts an
engine function might touch (the medal pool when a boss falls, the RNG) are replaced by
harmless stand-ins, and dice are never rolled — a dice attack is weighed over the 36
outcomes of 2d6 (R8.2).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from engine import CardSet, Game, board, cards_for
from engine.cards import Skill

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
    q["board"] = [x and dict(x) for x in p["board"]]  # a square holds None or a piece
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
    players = list(view["players"])
    players[seat] = copy_player(players[seat])
    size = view.get("medal_pool_size", len(view.get("medal_pool", [])))
    return {**view, "players": players,
            "levelup_piles": {k: list(v) for k, v in view["levelup_piles"].items()},
            "discard": list(view["discard"]), "removed": list(view["removed"]),
            "mercenaries": list(view["mercenaries"]), "decisions": {}, "result": None,
            "medal_pool": [MEDAL_GUESS] * size, "rng": {"medals": 1}}


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


@dataclass(frozen=True, slots=True)
class UnitFacts:
    """What the evaluation's hot loop reads of a unit card, looked up once per card set."""

    kind: str  # the skill's kind (R8.2)
    skill: Skill
    skill_key: str  # equal for skills that value a hit alike (kind, modifier, N)
    hp: int
    mov: int
    cost: int
    masks: tuple[int, ...]  # `skill_masks`
    reach: tuple[tuple[int, ...], ...]  # `near(i, mov)` for every square i


@dataclass(frozen=True, slots=True)
class MonsterFacts:
    """What the Invasion preview and the evaluation read of a monster card."""

    hp: int
    defense: int
    threat: int
    mov: int
    atk: int
    area: bool
    red: bool
    ranges: tuple[tuple[int, ...], ...]  # the squares of its range from each square, in priority order


class Recent:
    """A bounded memo of recently seen positions: two generations of at most `size` entries
    each; a hit in the older one is carried into the newer, and when the newer is full the
    older is dropped whole. Nearly least-recently-used at the price of two dict look-ups:
    the expert's rollouts for different candidates and samples keep reaching the same boards
    (four evaluations in five repeat one already made), so the memo is what makes it fast."""

    __slots__ = ("new", "old", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self.new: dict[Any, Any] = {}
        self.old: dict[Any, Any] = {}

    def get(self, key: Any) -> Any:
        v = self.new.get(key)
        if v is None:
            v = self.old.get(key)
            if v is not None:
                self.put(key, v)
        return v

    def clear(self) -> None:
        """Forget everything: the expert's search starts from an empty memo, so what it
        finds remembered is what the same decision worked out itself (ai/expert.py)."""
        self.new, self.old = {}, {}

    def put(self, key: Any, value: Any) -> None:
        if len(self.new) >= self.size:
            self.old = self.new
            self.new = {}
        self.new[key] = value


@dataclass(frozen=True, slots=True)
class Facts:
    """Per-card tables of one card set: the evaluation runs ~100k times a game, and a dict
    lookup here replaces several attribute reads and cache look-ups per piece."""

    cs: CardSet  # kept so that its id is never reused while the tables are cached
    units: dict[str, UnitFacts]
    monsters: dict[str, MonsterFacts]
    seen: Recent  # the evaluation's per-board results under this card set (ai/evaluate.py)


_FACTS: dict[int, Facts] = {}
BOARDS_KEPT = 4096  # per generation: a few MB, a game's worth of recent boards


def board_key(b: list[Any]) -> tuple[Any, ...]:
    """Everything about board `b` the evaluation reads (a piece's id is only told apart, and
    every piece has its own), as a hashable key: a unit is (card, damage, acted), a monster
    (card, damage)."""
    return tuple([None if x is None else (x["card"], x["dmg"], x["acted"]) if "owner" in x
                  else (x["card"], x["dmg"]) for x in b])


def facts(cs: CardSet) -> Facts:
    """The tables of card set `cs` (built on first use, kept for the process)."""
    f = _FACTS.get(id(cs))
    if f is not None and f.cs is cs:
        return f
    units = {k: UnitFacts(u.skill.kind, u.skill, f"{u.skill.kind}:{u.skill.mod}:{u.skill.n}",
                          u.hp, u.mov, u.cost, skill_masks(cs, k),
                          tuple(near(i, u.mov) for i in range(board.SIZE)))
             for k, u in cs.units.items()}
    monsters = {k: MonsterFacts(m.hp, m.defense, m.threat, m.mov, m.atk, m.area, m.red,
                                tuple(tuple(j for j in (board.monster_offset(i, o)
                                                        for o in m.range) if j is not None)
                                      for i in range(board.SIZE)))
                for k, m in cs.monsters.items()}
    f = Facts(cs, units, monsters, Recent(BOARDS_KEPT))
    if len(_FACTS) >= 32:  # custom card sets (engine.cards keeps 8): never grow unbounded
        _FACTS.clear()
    _FACTS[id(cs)] = f
    return f
