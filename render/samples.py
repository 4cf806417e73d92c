"""Hand-written views for the gallery, the benchmark and the tests.

They follow docs/state.md as `engine.view(state, seat)` returns it (decks as sizes, other
players' medals as counts, derived `threat_public`), so the renderer can be built and
checked before the engine is finished.
"""

from __future__ import annotations

import copy
from typing import Any

NAMES = ["Alice", "たろう", "Kenji 🐉", "Marguerite-Antoinette"]


def unit(uid: str, card: str, owner: int, dmg: int = 0, acted: bool = False) -> dict[str, Any]:
    return {"id": uid, "card": card, "owner": owner, "dmg": dmg, "acted": acted}


def monster(mid: str, card: str, dmg: int = 0) -> dict[str, Any]:
    return {"id": mid, "card": card, "dmg": dmg}


def empty_player(name: str) -> dict[str, Any]:
    return {
        "name": name, "gold": 2, "honor": 1, "defeated": [], "medal_count": 0, "castle": [],
        "hand": [], "levelups": 0, "eliminated": False, "board": [None] * 18,
        "queues": {"A": [], "B": [], "C": []}, "autosave": False, "threat_public": 0,
    }


def put(p: dict[str, Any], square: str, piece: dict[str, Any]) -> None:
    col, lane = int(square[0]), "ABC".index(square[1])
    p["board"][(col - 1) * 3 + lane] = piece


def base_view(n: int) -> dict[str, Any]:
    return {
        "version": 1, "round": 1, "phase": "main",
        "row": ["raid", "advance", "reward", "rest", "recruit"],
        "chosen": [], "executed": [], "current": None, "leader": None,
        "turn_order": list(range(n)), "turn": 0, "start_player": 0,
        "players": [empty_player(NAMES[i]) for i in range(n)],
        "monster_deck_size": 12, "unit_deck_size": 18 - 0, "medal_pool_size": 8 if n > 1 else 0,
        "discard": [], "mercenaries": [{"id": "u20", "card": "knight"},
                                       {"id": "u21", "card": "archer"},
                                       {"id": "u22", "card": "pyromancer"}],
        "chips": {"down": 4, "up": ["B", "A"]}, "decisions": {}, "removed": [], "log": [],
        "result": None,
    }


def busy_player(seat: int, name: str) -> dict[str, Any]:
    """A late-game board: most card kinds, damage, acted units, a levelled unit."""
    p = empty_player(name)
    p.update(gold=7, honor=2, defeated=[{"id": "m1", "card": "goblin"}] * 3, medal_count=1,
             threat_public=17)
    put(p, "1A", unit("u1", "cleric", seat))
    put(p, "1C", unit("u2", "bard", seat, acted=True))
    put(p, "2B", unit("u3", "knight", seat, dmg=2))
    put(p, "2C", unit("u4", "sorcerer_star", seat, dmg=1, acted=True))
    put(p, "3A", unit("u5", "swordmaster", seat, dmg=3, acted=True))
    put(p, "4B", unit("u6", "thief_star", seat))
    put(p, "4C", unit("u7", "pyromancer", seat))
    put(p, "4A", monster("m2", "golem", dmg=1))
    put(p, "5B", monster("m3", "dullahan"))
    put(p, "6A", monster("m4", "dragon", dmg=3))
    put(p, "6B", monster("m5", "wraith", dmg=1))
    put(p, "6C", monster("m6", "skeleton"))
    p["queues"] = {"A": [{"id": "m7", "card": "lich"}], "B": [],
                   "C": [{"id": "m8", "card": "goblin"}, {"id": "m9", "card": "golem"}]}
    p["castle"] = [{"id": "m10", "card": "goblin"}]
    return p


def early_player(seat: int, name: str) -> dict[str, Any]:
    p = empty_player(name)
    p["threat_public"] = 3
    put(p, "2B", unit("u1", "warrior_star", seat))
    put(p, "1C", unit("u2", "thief_star", seat, acted=True))
    put(p, "6A", monster("m1", "goblin"))
    put(p, "6C", monster("m2", "skeleton"))
    return p


def queues_player(seat: int, name: str) -> dict[str, Any]:
    """Blocked lanes (R10.2): long waiting queues, one overflowing, and a castle invader."""
    p = early_player(seat, name)
    put(p, "5A", unit("u3", "knight", seat, dmg=1))
    put(p, "5B", unit("u4", "lancer", seat))
    put(p, "6B", monster("m3", "wraith", dmg=2))
    keys = ["goblin", "golem", "skeleton", "dullahan", "dragon"]
    p["queues"] = {"A": [{"id": f"m{10 + i}", "card": k} for i, k in enumerate(keys)],
                   "B": [{"id": "m20", "card": "lich"}, {"id": "m21", "card": "goblin"}],
                   "C": []}
    p["castle"] = [{"id": "m30", "card": "golem"}]
    p["threat_public"] = 33
    return p


def table_view(n: int, late: bool = False) -> dict[str, Any]:
    """A table of n players: early game, or a late game with every kind of element."""
    v = base_view(n)
    v["players"] = [(busy_player if late and i % 2 == 0 else early_player)(i, NAMES[i])
                    for i in range(n)]
    if late:
        v.update(round=9, phase="main", chosen=["reward", "raid"], executed=["reward", "raid"],
                 row=["reward", "raid", "advance", "rest", "recruit"], current="advance",
                 leader=min(2, n - 1), start_player=min(1, n - 1), monster_deck_size=0,
                 unit_deck_size=7, medal_pool_size=6 if n > 1 else 0)
        v["mercenaries"] = [{"id": "u30", "card": "lancer"}, None,
                            {"id": "u31", "card": "swordmaster"}]
        if n >= 4:
            v["players"][3]["eliminated"] = True
    return v


def one_board_view(p: dict[str, Any]) -> dict[str, Any]:
    v = base_view(1)
    v["players"] = [copy.deepcopy(p)]
    return v


SAMPLE_EVENTS: list[dict[str, Any]] = [
    # Main phase: the Thief★ walks up and shoots the Wraith; the Pyromancer burns a Goblin.
    {"type": "moved", "player": 0, "unit": "u6", "path": ["3C", "3B", "4B"]},
    {"type": "rolled", "player": 0, "from": "4B", "target": "6B", "dice": [2, 3], "total": 5,
     "result": "miss"},
    {"type": "damaged", "player": 0, "square": "6B", "amount": 1},
    {"type": "defeated", "player": 0, "square": "5C", "card": "goblin"},
    # Enemy phase: the Golem steps in and hits the Swordmaster, a Warrior★ faints, a Goblin
    # invades; then a Skeleton is summoned and a Golem has to wait in lane C.
    {"type": "monster_moved", "player": 0, "card": "golem", "from": "5A", "to": "4A"},
    {"type": "monster_attacked", "player": 0, "from": "4A", "targets": ["3A"]},
    {"type": "damaged", "player": 0, "square": "3A", "amount": 2},
    {"type": "fainted", "player": 0, "square": "2A", "card": "warrior_star"},
    {"type": "invaded", "player": 0, "card": "goblin"},
    {"type": "summoned", "player": 0, "square": "6C", "card": "skeleton"},
    {"type": "queued", "player": 0, "lane": "C", "card": "golem"},
]

# One Raid phase on the busy board (R8.2, R12.2): all four roll results, an area attack, a
# level-up, a unit the Bard's command made faint, a heal and damage. In the gallery, so the
# fixed palette learns every roll result's colour (tests/test_render_colour_vision.py).
RAID_EVENTS: list[dict[str, Any]] = [
    {"type": "rolled", "player": 0, "from": "4B", "target": "5B", "total": 9, "result": "hit"},
    {"type": "rolled", "player": 0, "from": "4C", "target": "6C", "total": 12,
     "result": "critical"},
    {"type": "rolled", "player": 0, "from": "2B", "target": "6B", "total": 4, "result": "miss"},
    {"type": "rolled", "player": 0, "from": "2C", "target": "4A", "total": 2, "result": "fumble"},
    {"type": "area", "player": 0, "from": "4B", "squares": ["6A"]},
    {"type": "levelup", "player": 0, "square": "1A"},
    {"type": "fainted", "player": 0, "square": "3A", "card": "swordmaster"},
    {"type": "healed", "player": 0, "square": "1C", "amount": 1},
    {"type": "damaged", "player": 0, "square": "5B", "amount": 2},
]
