"""AI players: they answer a seat's pending decision exactly as a person would.

An AI sees only `engine.view(state, seat)` — never deck order, face-down chips, other
players' medals or the RNG — and returns one action in the notation of docs/notation.md;
the engine judges it like any other answer. Nothing in `engine/` imports this package.

The one entry point every interface uses: `make_player(level, seed).choose(view, seat)`.
"""

from .base import Player
from .levels import LEVELS, make_player

__all__ = ["LEVELS", "Player", "make_player"]
