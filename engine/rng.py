"""Seeded random streams kept inside the game state (R15).

A stream is one 64-bit integer (splitmix64), so it serialises to JSON as a plain number and
a game replays bit-for-bit. Each purpose has its own stream (monster deck, unit deck, summon
chips, medals, table, one per player's dice) so that the order in which simultaneous
actions arrive never changes anyone's rolls.
"""

from __future__ import annotations

import zlib
from typing import Any

MASK = (1 << 64) - 1


def _mix(x: int) -> tuple[int, int]:
    x = (x + 0x9E3779B97F4A7C15) & MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return x, z ^ (z >> 31)


def derive(seed: int, name: str) -> int:
    """The starting state of stream `name` for a game seed: independent per name."""
    _, z = _mix((seed & MASK) ^ (zlib.crc32(name.encode()) << 32))
    return z


def randbelow(rng: dict[str, int], stream: str, n: int) -> int:
    """A number in [0, n) from `stream`, advancing it. n is tiny, so modulo bias is nil."""
    x, z = _mix(rng[stream])
    rng[stream] = x
    return z % n


def shuffle(rng: dict[str, int], stream: str, items: list[Any]) -> None:
    """Fisher–Yates in place, driven by `stream`."""
    for i in range(len(items) - 1, 0, -1):
        j = randbelow(rng, stream, i + 1)
        items[i], items[j] = items[j], items[i]


def roll2d6(rng: dict[str, int], stream: str) -> list[int]:
    return [randbelow(rng, stream, 6) + 1, randbelow(rng, stream, 6) + 1]
