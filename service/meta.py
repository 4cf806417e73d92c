"""Changes to a game's `meta`: the hosting facts kept beside the game's state — time-outs per
seat, removal votes, seats an AI plays since their person ran out of time, message ids.

Why changes and not new values: two processes may host one game at once (a rolling deploy,
a shard setting that disagrees), and a meta written whole from a copy read earlier loses
whatever the other wrote in between. Each function here returns a `MetaChange` that the
store runs on the meta as stored, inside its write transaction (store/db.py, "Two
writers"), so a vote cast in one process and a time-out counted in the other both land.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

from store import GameMeta, MetaChange

log = logging.getLogger("rr.service")


def meta_flag(meta: GameMeta, key: Literal["ai_stood_in", "ratings_off"]) -> bool:
    """A flag of the meta, set only by the exact value written (True). Meta is stored JSON:
    anything else ("no", 2, a list) is damage, which truthiness read as set. It reads as
    the default, unset, and is logged: for `ratings_off` that is a rated game, as every
    game is unless clearly switched off; for `ai_stood_in` the seats' AI levels and
    `zombie` still say whether an AI plays now, and an unrated game nobody switched off
    is the surprise players would notice (its ratings, never given, cannot be mended)."""
    value = meta.get(key)
    if value is None or type(value) is bool:
        return bool(value)
    log.warning("game meta: %s could not be read (%r); read as not set", key, value)
    return False


def zombies(meta: GameMeta) -> dict[str, str]:
    """The seats an AI plays since their person ran out of time (seat → level), as written:
    a JSON object. Anything else is damage that truthiness read as an AI seat (unrating the
    game) and that failed `/rr back` and every look at a seat's AI: it reads as none, logged
    (`ai_stood_in`, written with it, still keeps such a game unrated)."""
    value = meta.get("zombie")
    if value is None or isinstance(value, dict):
        return value or {}
    log.warning("game meta: zombie could not be read (%r); read as no AI seat", value)
    return {}


def current_names(meta: GameMeta) -> dict[str, str]:
    """The names people's seats go by now (seat → name), where one has changed since they
    joined (`renamed`); a seat not in it still reads as its join name. Stored JSON: an entry
    that is not a seat's text is damage and reads as no new name (the join name stays)."""
    value = meta.get("names")
    if value is None:
        return {}
    if not isinstance(value, dict):
        log.warning("game meta: names could not be read (%r); read as the join names", value)
        return {}
    return {k: v for k, v in value.items() if isinstance(v, str) and v}


def renamed(seat: int, name: str) -> MetaChange:
    """`seat`'s person goes by `name` from now on (their server display name changed mid-
    game). Only the game's hosting facts change: its setup and state keep the names it was
    dealt with, so it replays as stored (R15). Already so: nothing written."""
    def change(meta: GameMeta) -> bool:
        names = current_names(meta)
        if names.get(str(seat)) == name:
            return False
        meta["names"] = {**names, str(seat): name}
        return True
    return change


def all_of(*changes: MetaChange | None) -> MetaChange | None:
    """The changes given, as one: each runs on the meta in turn; nothing is written when
    none of them changed anything (each returned False)."""
    given = [c for c in changes if c is not None]
    if len(given) < 2:
        return given[0] if given else None

    def change(meta: GameMeta) -> bool:
        results = [c(meta) for c in given]
        return any(r is not False for r in results)
    return change


def count_timeout(seat: int) -> MetaChange:
    """One more time-out of `seat` (R15's default answer was given for them); two make the
    removal vote possible (`/rr remove`)."""
    def change(meta: GameMeta) -> None:
        n = timeouts(meta, seat)
        meta["timeouts"] = {**{str(k): v for k, v in timeout_counts(meta).items()},
                            str(seat): n + 1}
    return change


def timeout_counts(meta: GameMeta) -> dict[int, int]:
    """Time-outs by seat. Meta is stored JSON: an entry that is not a seat and a count (a
    damaged row, the fault-injection audit: `{"x": "y"}` stopped the outbox for every game)
    counts as none, so one game's bad row stays its own."""
    raw = meta.get("timeouts")
    counts: dict[int, int] = {}
    for k, v in (raw.items() if isinstance(raw, dict) else ()):
        try:
            counts[int(k)] = int(v)
        except (TypeError, ValueError, OverflowError):  # (1e400 reads back as infinity)
            continue
    return counts


def timeouts(meta: GameMeta, seat: int) -> int:
    return timeout_counts(meta).get(seat, 0)


def vote_to_remove(target: int, voter: int) -> MetaChange:
    """`voter`'s vote to remove `target`, added to the votes already cast (a second vote
    by the same person counts once)."""
    def change(meta: GameMeta) -> None:
        meta["kick"] = {**_mapping(meta, "kick"),
                        str(target): sorted({*votes_to_remove(meta, target), voter})}
    return change


def came_back(seat: int) -> MetaChange:
    """The person answered a question of their own: the time-outs counted against them and
    the votes to remove them are cleared. A removal is for a player who is gone; one who
    plays again is not, and old votes (with a second voter days later) removed a player
    right after their own answer (the group audit). Nothing to clear: nothing written."""
    def change(meta: GameMeta) -> bool:
        counts, kick = _mapping(meta, "timeouts"), _mapping(meta, "kick")
        held = {k: v for k, v in counts.items() if k != str(seat)}
        votes = {k: v for k, v in kick.items() if k != str(seat)}
        if held == meta.get("timeouts", {}) and votes == meta.get("kick", {}):
            return False
        meta["timeouts"], meta["kick"] = held, votes
        return True
    return change


def _mapping(meta: GameMeta, key: str) -> dict[str, Any]:
    """A meta entry that should be an object; a damaged one reads as empty."""
    value = meta.get(key)
    return value if isinstance(value, dict) else {}


def votes_to_remove(meta: GameMeta, target: int) -> list[int]:
    votes = _mapping(meta, "kick").get(str(target))
    return [v for v in votes if isinstance(v, int)] if isinstance(votes, list) else []


@dataclass(slots=True)
class SeatToAi:
    """Zombie mode: at a person's time-out the AI of `level` takes their seat, and the
    time-out counts. When another process handed the seat over first, nothing changes and
    `made` stays False: the seat is handed over — and the time-out counted and told — once."""

    seat: int
    level: str
    made: bool = False

    def __call__(self, meta: GameMeta) -> bool:
        if str(self.seat) in zombies(meta):
            return False
        count_timeout(self.seat)(meta)
        meta["zombie"] = {**zombies(meta), str(self.seat): self.level}
        meta["ai_stood_in"] = True  # kept after `/rr back`: the game is unrated (issue 24)
        self.made = True
        return True


def seat_back(seat: int) -> MetaChange:
    """`/rr back`: the person plays their own seat again."""
    def change(meta: GameMeta) -> bool:
        zombie = zombies(meta)
        if str(seat) not in zombie:
            return False
        meta["zombie"] = {k: v for k, v in zombie.items() if k != str(seat)}
        return True
    return change


def lobby_message(message_id: int) -> MetaChange:
    """The lobby's message, so a typed `/rr lobby join` can update it (cogs/lobby.py)."""
    def change(meta: GameMeta) -> None:
        meta["lobby_message"] = message_id
    return change
