"""Rook & Raiders rules engine: pure, synchronous, deterministic (RULES.md R1–R15).

The whole API: `Game` (new / from_json / replay; apply / legal_actions / view / undo),
`parse` for the action notation (docs/notation.md), the typed errors, and `visible` to
filter events per player. State format: docs/state.md.
"""

from .cards import CardSet, default_cards
from .errors import (
    ActionError,
    GameOver,
    IllegalAction,
    NotationError,
    NotYourDecision,
    StaleDecision,
)
from .game import Game
from .notation import Action, SkillUse, parse
from .types import Decision, Event, State, View
from .view import visible


def view(state: State, seat: int | None) -> View:
    """What `seat` (None: a spectator) may see of a state: no deck order, no face-down chips
    or medals, no other player's medal values, no RNG (R3)."""
    return Game(state).view(seat)

__all__ = [
    "Action", "ActionError", "CardSet", "Game", "GameOver", "IllegalAction", "NotYourDecision",
    "NotationError", "SkillUse", "StaleDecision", "default_cards", "parse", "view", "visible",
    "Decision", "Event", "State", "View",
]
