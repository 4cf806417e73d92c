"""Defensive reading of an engine view (docs/state.md).

The renderer only ever sees `engine.view(state, seat)` output, so it cannot draw a secret
it was never given. It still guards against the view: any key may be missing or malformed
(a puzzle written by hand, a newer engine), and a picture with a default is better than a
bot command that fails. Nothing here reads `medals` values or the viewer's private
`threat`: the images are posted publicly (R14.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.cards import CardSet, cards_for, default_cards

LANES = "ABC"
COLUMNS = range(1, 7)
Piece = dict[str, Any]


def cards(view: Mapping[str, Any] | None = None) -> CardSet:
    """The card set of a game: the custom one in `setup.cards` if the game was set up with
    printed values typed in, else the released version its setup names. Stats must match
    the engine's, so this is the engine's own choice (engine.cards_for)."""
    setup = as_dict(as_dict(view).get("setup")) if view else {}
    try:
        return cards_for(setup)
    except (AttributeError, KeyError, TypeError, ValueError):
        return default_cards()  # a broken custom set draws with the default rather than fail


def as_int(value: object, default: int = 0) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return default


def as_list(value: object) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def parse_square(name: object) -> tuple[int, int] | None:
    """`"3B"` → (column 3, lane 1); None for anything that is not a square (R2)."""
    s = str(name).strip().upper()
    if len(s) != 2 or s[0] not in "123456" or s[1] not in LANES:
        return None
    return int(s[0]), LANES.index(s[1])


def square_name(col: int, lane: int) -> str:
    return f"{col}{LANES[lane]}"


def card_key(card: object) -> str:
    """The card key of a card instance (`{"id", "card"}`) or of a bare key string."""
    if isinstance(card, dict):
        return str(card.get("card", "?"))
    return str(card) if card is not None else "?"


def players(view: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [as_dict(p) for p in as_list(view.get("players"))]


def player(view: Mapping[str, Any], seat: int) -> dict[str, Any]:
    ps = players(view)
    return ps[seat] if 0 <= seat < len(ps) else {}


def name(p: dict[str, Any], seat: int) -> str:
    n = p.get("name")
    return str(n) if n not in (None, "") else f"Player {seat + 1}"


def board(p: dict[str, Any]) -> list[Piece | None]:
    """The 18 squares, padded or cut to length; non-dict entries count as empty."""
    raw = as_list(p.get("board"))[:18]
    out: list[Piece | None] = [x if isinstance(x, dict) and x.get("card") else None for x in raw]
    return out + [None] * (18 - len(out))


def is_monster(piece: Piece, cs: CardSet) -> bool:
    """The card set decides; a card it does not know is a monster if it has no owner."""
    key = card_key(piece)
    if key in cs.monsters:
        return True
    if key in cs.units:
        return False
    return "owner" not in piece


def queues(p: dict[str, Any]) -> dict[str, list[str]]:
    q = as_dict(p.get("queues"))
    return {lane: [card_key(c) for c in as_list(q.get(lane))] for lane in LANES}


def castle(p: dict[str, Any]) -> list[str]:
    return [card_key(c) for c in as_list(p.get("castle"))]


def honor_marks(p: dict[str, Any]) -> int:
    """Honor tokens plus defeated monster cards: each is one mark (R12)."""
    return as_int(p.get("honor")) + len(as_list(p.get("defeated")))


def medal_count(p: dict[str, Any]) -> int:
    """How many medal tokens a player holds: public, unlike their values (R14.1)."""
    if "medal_count" in p:
        return as_int(p.get("medal_count"))
    return len(as_list(p.get("medals")))


def threat_public(p: dict[str, Any], cs: CardSet) -> int:
    """The engine's `threat_public`; if absent, the same sum from public cards (R14.2)."""
    if p.get("threat_public") is not None:
        return as_int(p.get("threat_public"))
    ms = cs.monsters
    keys = [card_key(x) for x in board(p) if x is not None and is_monster(x, cs)]
    keys += [k for v in queues(p).values() for k in v] + castle(p)
    return sum(ms[k].threat for k in keys if k in ms)
