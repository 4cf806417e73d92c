"""Rook & Raiders rules engine: pure, synchronous, deterministic (RULES.md R1–R15).

The whole API: `Game` (new / from_json / start / replay; apply / legal_actions / prompt / view /
undo; each decision kind declared once in `engine/decisions.py`),
`parse` for the action notation (docs/notation.md), the typed errors, and `visible` to
filter events per player; `cards_for` (the card set a setup plays with) and
`find_cards_version` (the released set a game stored without one was played with, issue 17).
State format: docs/state.md.
"""

from .cards import CardSet, UnknownCardsVersion, cards_for, closest, default_cards
from .errors import (
    ActionError,
    GameFinished,
    IllegalAction,
    NotationError,
    NotYourDecision,
    StaleDecision,
)
from .flow import UnknownRulesVersion
from .game import Game, find_cards_version
from .notation import Action, SkillUse, parse
from .state import DIFFICULTY_DISCARDS
from .types import Decision, Event, State, View
from .view import visible


def view(state: State, seat: int | None) -> View:
    """What `seat` (None: a spectator) may see of a state: no deck order, no face-down chips
    or medals, no other player's medal values, no RNG (R3)."""
    return Game(state).view(seat)

__all__ = [
    "DIFFICULTY_DISCARDS", "Action", "ActionError", "CardSet", "Game", "GameFinished", "IllegalAction",
    "NotYourDecision",
    "NotationError", "SkillUse", "StaleDecision", "UnknownCardsVersion", "UnknownRulesVersion", "cards_for", "closest",
    "default_cards", "find_cards_version", "parse", "view", "visible",
    "Decision", "Event", "State", "View",
]
