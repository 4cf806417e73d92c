"""Fill the hidden parts of a view with a plausible sample, for search players.

A determinized state is a full engine state consistent with everything the seat knows: the
monster deck holds exactly the monsters nobody has seen yet, level 1 on top, then 2, then 3
(R3), each level shuffled; the unit deck holds the unit cards seen nowhere (R3, R13.2
discards are public); the face-down chips are the six minus those face up (R10.3); other
players' medals and the medal pool share the medal values the seat does not hold (R14.1);
the RNG streams are fresh. Nothing here reads a secret: only the view and the card set.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from engine import CardSet

from .model import View

STREAMS = ("monsters", "units", "chips", "medals", "table")


def _universe(cs: CardSet) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
    """Every monster id → (card, level) and unit id → card, numbered as engine.state's
    new_game numbers them (ids are public on every drawn card)."""
    monsters: dict[str, tuple[str, int]] = {}
    serial = 0
    for level in (1, 2, 3):
        for key, m in cs.monsters.items():
            if m.level == level:
                for _ in range(m.copies):
                    serial += 1
                    monsters[f"m{serial}"] = (key, level)
    units: dict[str, str] = {}
    serial = 0
    for key, u in cs.units.items():
        for _ in range(u.copies):
            serial += 1
            if not u.levelled:
                units[f"u{serial}"] = key
    return monsters, units


def _seen_ids(x: Any, out: set[str]) -> None:
    """Every card id anywhere in a view (boards, hands, piles, queues, castles, …)."""
    stack = [x]
    while stack:
        y = stack.pop()
        if isinstance(y, dict):
            ident = y.get("id")
            if isinstance(ident, str) and "card" in y:
                out.add(ident)
            stack.extend(v for v in y.values() if isinstance(v, (dict, list)))
        elif isinstance(y, list):
            stack.extend(v for v in y if isinstance(v, (dict, list)))


def _monster_deck(monsters: dict[str, tuple[str, int]], seen: set[str], size: int,
                  rng: random.Random) -> list[dict[str, str]]:
    """The `size` monsters nobody has seen, as the deck holds them (R3): level 1 on top,
    then 2, then 3, each level shuffled; the deck's bottom is what is left of it."""
    by_level: dict[int, list[dict[str, str]]] = {}
    for i, (card, lvl) in monsters.items():
        if i not in seen:
            by_level.setdefault(lvl, []).append({"id": i, "card": card})
    deck: list[dict[str, str]] = []
    for lvl in sorted(by_level):
        pile = by_level[lvl]
        rng.shuffle(pile)
        deck += pile
    return deck[len(deck) - size:] if size <= len(deck) else deck


def _deal_medals(cs: CardSet, view: View, st: dict[str, Any], seat: int,
                 rng: random.Random) -> None:
    """The face-down medals (R14.1): the others' and the pool's drawn from the medals that
    are not `seat`'s own (the only ones it has seen); none in a solo game."""
    medals = list(cs.medals) if len(view["players"]) > 1 else []
    for v in view["players"][seat].get("medals", []):
        if v in medals:
            medals.remove(v)
    rng.shuffle(medals)
    for n, p in enumerate(st["players"]):
        if n != seat:
            k = p.get("medal_count", 0)
            p["medals"], medals = medals[:k], medals[k:]
    st["medal_pool"] = medals[: view["medal_pool_size"]]


def determinize(cs: CardSet, view: View, seat: int, rng: random.Random) -> dict[str, Any]:
    """A full state that `seat` cannot tell apart from the real one, sampled with `rng`."""
    st = copy.deepcopy({k: v for k, v in view.items() if k != "log"})
    st["log"] = []
    seen: set[str] = set()
    _seen_ids({k: v for k, v in view.items() if k != "log"}, seen)
    monsters, units = _universe(cs)
    st["monster_deck"] = _monster_deck(monsters, seen, view["monster_deck_size"], rng)

    pool = [{"id": i, "card": c} for i, c in units.items() if i not in seen]
    rng.shuffle(pool)
    st["unit_deck"] = pool[: view["unit_deck_size"]]

    up = list(view["chips"]["up"])
    down = ["A", "A", "B", "B", "C", "C"]
    for c in up:
        if c in down:
            down.remove(c)
    st["chips"] = {"down": down[: view["chips"]["down"]], "up": up}

    _deal_medals(cs, view, st, seat, rng)

    st["rng"] = {k: rng.getrandbits(64) for k in STREAMS}
    for n in range(len(view["players"])):
        st["rng"][f"dice{n}"] = rng.getrandbits(64)
    st["claims"], st["undo"] = [], {}
    for k in ("monster_deck_size", "unit_deck_size", "medal_pool_size", "viewer"):
        st.pop(k, None)
    for p in st["players"]:
        for k in ("medal_count", "threat_public", "honor_marks", "threat"):
            p.pop(k, None)
    return st
