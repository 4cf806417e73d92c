"""The AI player contract and the `random` level.

`choose` takes the seat's view (engine.view) and returns canonical action text for that
seat's pending decision. The levels are named in ai/levels.py, which imports every player
(the stronger ones import this module for the contract).
"""

from __future__ import annotations

import random
from typing import Protocol

from engine import Game

from .model import View


class Player(Protocol):
    """Anything that answers a pending decision from a view."""

    level: str

    def choose(self, view: View, seat: int) -> str:
        """Canonical action text answering `seat`'s pending decision in `view`."""
        ...


def legal_texts(view: View, seat: int) -> list[str]:
    """The listed legal answers, computed on the view alone (legal actions need no secret)."""
    return [str(a) for a in Game(view).legal_actions(seat)]


class RandomPlayer:
    """Any listed legal action, uniformly: the baseline every other level must beat."""

    level = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: View, seat: int) -> str:
        options = legal_texts(view, seat)
        if not options:
            raise ValueError(f"seat {seat} has no pending decision in this view")
        return self.rng.choice(options)
