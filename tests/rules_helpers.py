"""Helpers for the rules tests (tests/test_rules_*.py): puzzle states, dice control, checks.

A *puzzle* is a hand-written state (docs/state.md) loaded with `Game.from_json`: only the keys
a test cares about are given, the engine fills in the rest. These helpers add what almost
every rules test needs on top of that: full level-up piles, a monster deck that is not empty
(so no game ends by accident, R13.1/R14.3), a command card in progress with a decision open.

Dice are controlled through each player's own dice stream (R15): `dice_seed((3, 4))` is a
stream state whose next roll2d6 is [3, 4]; put it in a puzzle as `"rng": {"dice0": N}`.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest

from engine import Game, default_cards, rng
from engine.errors import ActionError
from engine.flow import invasion, run, summon_phase

Piece = dict[str, Any]
Event = dict[str, Any]

JOBS = ("warrior", "cleric", "sorcerer", "thief")


def unit(card: str, dmg: int = 0, acted: bool = False, uid: str | None = None) -> Piece:
    """A unit piece for a puzzle board (its owner is the board's player)."""
    p: Piece = {"kind": "unit", "card": card, "dmg": dmg, "acted": acted}
    if uid is not None:
        p["id"] = uid
    return p


def hp(card: str) -> int:
    """A card's HP in the default card set: tests whose point is not the value itself read it,
    so balance changes to engine/data/cards.json (docs/balance.md) leave them meaningful."""
    cs = default_cards()
    return (cs.monsters[card] if card in cs.monsters else cs.units[card]).hp


def cost(card: str) -> int:
    """A unit card's recruiting cost in the default card set (see `hp`)."""
    return default_cards().units[card].cost


def monster(card: str, dmg: int = 0, mid: str | None = None) -> Piece:
    p: Piece = {"card": card, "dmg": dmg}
    if mid is not None:
        p["id"] = mid
    return p


def card(key: str, cid: str) -> dict[str, str]:
    """A card instance (hand, deck, queue, castle …)."""
    return {"id": cid, "card": key}


def full_levelup_piles() -> dict[str, list[dict[str, str]]]:
    return {job: [card(job, f"l{job}{k}") for k in range(4)] for job in JOBS}


@cache
def dice_seed(*rolls: tuple[int, int]) -> int:
    """A dice-stream state whose next roll2d6 calls give exactly `rolls`, in order."""
    for n in range(5_000_000):
        r = {"d": n}
        if all(tuple(rng.roll2d6(r, "d")) == tuple(want) for want in rolls):
            return n
    raise ValueError(f"no dice stream state gives {rolls}")  # pragma: no cover


def decision(kind: str, **extra: Any) -> dict[str, Any]:
    """A decision to put in `puzzle(decisions={seat: ...})`; ids are assigned there."""
    return {"kind": kind, **extra}


def actions(card: str = "advance", left: int = 2) -> dict[str, Any]:
    return decision("actions", card=card, left=left, acted_now=[])


def main_card(cardname: str, leader: int | None, players: int) -> dict[str, Any]:
    """Top-level keys for `cardname` being resolved in the Main phase (R6), chosen by `leader`
    (None: AUTO). The next player in turn order has not chosen yet, so when the card ends the
    flow stops at that player's pick."""
    row = ["advance", "raid", "rest", "reward", "recruit"]
    row.remove(cardname)
    row.insert(0, cardname)
    auto = leader is None
    return {
        "round": 1, "phase": "auto" if auto else "main", "row": row,
        "chosen": [] if auto else [cardname], "current": cardname, "leader": leader,
        "turn_order": list(range(players)), "turn": players if auto else 0,
        "auto_left": [],
    }


def puzzle(boards: list[dict[str, Piece]], *, decisions: dict[int, dict[str, Any]] | None = None,
           player: dict[int, dict[str, Any]] | None = None, dice: dict[int, int] | None = None,
           **top: Any) -> Game:
    """A puzzle game: one board (square name → piece) per player.

    `player[seat]` overrides that player's keys (gold, honor, hand, …); `dice[seat]` sets the
    dice stream; `top` overrides top-level keys. Defaults: full level-up piles and a monster
    deck of two Goblins (so that no victory check fires unless the test empties it)."""
    n = len(boards)
    players = []
    for seat, b in enumerate(boards):
        p: dict[str, Any] = {"board": copy.deepcopy(b)}
        p.update(copy.deepcopy((player or {}).get(seat, {})))
        players.append(p)
    state: dict[str, Any] = {
        "setup": {"players": [f"P{k}" for k in range(n)], "seed": 7},
        "round": 1, "phase": "main",
        "levelup_piles": full_levelup_piles(),
        "monster_deck": [card("goblin", "md1"), card("goblin", "md2")],
        "players": players,
    }
    state.update(copy.deepcopy(top))
    if dice:
        state["rng"] = {f"dice{s}": v for s, v in dice.items()}
    decs = {}
    next_id = 1
    for seat, d in (decisions or {}).items():
        decs[str(seat)] = {"id": next_id, "opened": next_id, **copy.deepcopy(d)}
        next_id += 1
    state["decisions"] = decs
    state["next_id"] = next_id
    # Through JSON, like a saved game: a piece dict reused on two boards must not be shared.
    return Game.from_json(json.dumps(state))


# ---- driving the flow ---------------------------------------------------------------------------

def settle(g: Game) -> list[Event]:
    """Run the automatic flow of a puzzle until a decision is pending or the game is over
    (what `Game.apply` does after every answer)."""
    ev: list[Event] = []
    run(g.cards, g.state, ev)
    return ev


def invade(g: Game) -> list[Event]:
    """Resolve the ⑤ Invasion phase card on every board once (R9)."""
    ev: list[Event] = []
    invasion(g.cards, g.state, ev)
    return ev


def summon(g: Game) -> list[Event]:
    """Resolve the ⑥ Summon phase card once (R10)."""
    ev: list[Event] = []
    summon_phase(g.cards, g.state, ev)
    return ev


# ---- reading the state ----------------------------------------------------------------------------

def pieces(g: Game, seat: int = 0) -> dict[str, Piece]:
    """The non-empty squares of a board, by square name."""
    from engine.board import NAMES

    return {NAMES[i]: p for i, p in enumerate(g.state["players"][seat]["board"]) if p}


def at(g: Game, square: str, seat: int = 0) -> Piece | None:
    return pieces(g, seat).get(square.upper())


def layout(g: Game, seat: int = 0) -> dict[str, str]:
    """Square → card key, for compact board assertions."""
    return {sq: p["card"] for sq, p in pieces(g, seat).items()}


def hand(g: Game, seat: int = 0) -> list[str]:
    return [c["card"] for c in g.state["players"][seat]["hand"]]


def of_type(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e.get("type") == kind]


def expect_error(g: Game, seat: int, text: str, error: type[ActionError], match: str,
                 decision_id: int | None = None) -> str:
    """The action must raise `error` with a message matching `match`, changing nothing."""
    before = g.to_json()
    with pytest.raises(error, match=match) as info:
        g.apply(seat, text, decision_id=decision_id)
    assert g.to_json() == before, f"{text!r} was rejected but changed the state"
    return info.value.message
