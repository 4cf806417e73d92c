"""Seeded random streams kept inside the game state (R15).

Each purpose has its own stream (monster deck, unit deck, summon chips, medals, table, one
per player's dice) so that the order in which simultaneous actions arrive never changes
anyone's rolls. A stream's state is plain JSON, so a game replays bit-for-bit. Two
generators, recorded in the setup (`setup.rng`, absent in games stored before it existed):

- `splitmix64` (games dealt from a chosen seed — tests, the simulator, the console — and
  every game stored before the keyed one existed): a stream is one 64-bit integer derived
  from the game's seed. Fast, but its outputs reveal its state, so a seed can be searched
  from a dozen observed rolls — fine only where the seed is public anyway.
- `hmac-ctr` (the daily challenge, whose game must not be learnable early, and every game the
  bot deals without a chosen seed, service/lobby.py: a 31-bit seed was searched from a
  table's first two rounds): a stream is
  `{"key": 64 hex digits, "n": counter}` and its n-th output is HMAC-SHA256(key, name ‖ n).
  The key is a whole 256-bit digest, never a slice, and an HMAC output says nothing usable
  about its key, so no number of observed rolls narrows a search below 2^256.
"""

from __future__ import annotations

import hashlib
import hmac
import zlib
from typing import Any

from .types import KeyedStream, Stream

MASK = (1 << 64) - 1
SPLITMIX = "splitmix64"
KEYED = "hmac-ctr"
GENERATORS = (SPLITMIX, KEYED)
KEY_BYTES = 32  # a keyed game's key: a whole SHA-256 digest (>= 128 bits, the floor)


def _mix(x: int) -> tuple[int, int]:
    x = (x + 0x9E3779B97F4A7C15) & MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return x, z ^ (z >> 31)


def derive(seed: int, name: str) -> int:
    """The starting state of splitmix64 stream `name` for a game seed: independent per name."""
    _, z = _mix((seed & MASK) ^ (zlib.crc32(name.encode()) << 32))
    return z


def start(seed: int, key: bytes | None, name: str) -> Stream:
    """The starting state of stream `name`: keyed when the game has a key, else splitmix64
    from the seed (a keyed game's seed plays no part in its draws)."""
    if key is None:
        return derive(seed, name)
    return {"key": key.hex(), "n": 0}


def key_of(setup: Any) -> bytes | None:
    """The key a setup's games draw with (None: splitmix64). A setup is untrusted JSON (a
    file, a puzzle), so a wrong generator or key is a ValueError naming what is wrong."""
    kind = setup.get("rng", SPLITMIX)
    if kind == SPLITMIX:
        return None
    if kind != KEYED:
        raise ValueError(f"setup.rng must be one of {', '.join(GENERATORS)}")
    return parse_key(setup.get("key"))


def parse_key(raw: Any) -> bytes:
    """A keyed game's key from its hex form: exactly KEY_BYTES bytes, so a key can never be
    cut short to something a search could cover."""
    try:
        key = bytes.fromhex(raw) if isinstance(raw, str) else b""
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise ValueError(f"a {KEYED} key is {2 * KEY_BYTES} hex digits ({8 * KEY_BYTES} bits)")
    return key


def check_stream(name: str, s: Any) -> None:
    """ValueError for a stream state of neither generator (a hand-written state)."""
    if isinstance(s, int) and not isinstance(s, bool):
        return
    if isinstance(s, dict) and set(s) == {"key", "n"} and isinstance(s["n"], int) \
            and not isinstance(s["n"], bool) and s["n"] >= 0:
        parse_key(s["key"])
        return
    raise ValueError(f"rng.{name[:20]} is neither a {SPLITMIX} integer nor a {KEYED} "
                     '{"key": hex, "n": counter}')


def _keyed_block(s: KeyedStream, name: str) -> int:
    """The stream's next output: HMAC-SHA256(key, name ‖ 0x00 ‖ counter), 256 bits."""
    msg = name.encode() + b"\x00" + s["n"].to_bytes(8, "big")
    return int.from_bytes(hmac.digest(bytes.fromhex(s["key"]), msg, hashlib.sha256), "big")


def randbelow(rng: dict[str, Stream], stream: str, n: int) -> int:
    """A number in [0, n) from `stream`, advancing it. n is tiny (at most a deck's size):
    splitmix64's 64 bits or a keyed block's 256 bits taken modulo n leave a bias below
    n / 2^64, far under anything a game could show."""
    s = rng[stream]
    if isinstance(s, int):
        x, z = _mix(s)
        rng[stream] = x
        return z % n
    out = _keyed_block(s, stream)
    # a new dict, never mutated in place: a shallow copy of the streams (Game.apply's
    # "did this answer draw?" check, a caller's snapshot) must keep the old state
    rng[stream] = {"key": s["key"], "n": s["n"] + 1}
    return out % n


def shuffle(rng: dict[str, Stream], stream: str, items: list[Any]) -> None:
    """Fisher–Yates in place, driven by `stream`."""
    for i in range(len(items) - 1, 0, -1):
        j = randbelow(rng, stream, i + 1)
        items[i], items[j] = items[j], items[i]


def roll2d6(rng: dict[str, Stream], stream: str) -> list[int]:
    return [randbelow(rng, stream, 6) + 1, randbelow(rng, stream, 6) + 1]
