"""The AI levels by the names interfaces offer ("random", "greedy", "expert").

A module of its own, above every player, so the contract (ai/base.py) imports none of the
players that implement it.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Player, RandomPlayer
from .expert import ExpertPlayer
from .greedy import GreedyPlayer

LEVELS: dict[str, Callable[[int], Player]] = {
    "random": RandomPlayer, "greedy": GreedyPlayer, "expert": ExpertPlayer}


def make_player(level: str, seed: int = 0) -> Player:
    """A player of `level` (a key of LEVELS); `seed` makes its own choices reproducible."""
    try:
        return LEVELS[level](seed)
    except KeyError:
        raise ValueError(f"unknown AI level {level!r}: choose from {', '.join(LEVELS)}") from None
