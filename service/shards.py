"""Which bot process hosts which game, when several processes share one database.

Discord splits a bot's servers into shards by `(guild_id >> 22) % shard_count` and sends a
server's events (so its interactions) only to the connection of that shard. A process runs
some of the shards (`RR_SHARD_IDS`), and it is the owner of every channel game in their
servers: only it applies their answers, their time limits and reminders, and delivers their
announcements, so each of those happens in exactly one process without any coordination
per move. Anything that is not per-server (the daily day job) runs under a lease instead
(`cogs/shardjobs.py`).

Games outside a server — the daily challenge, played in the player's DMs, stored with no
guild — have no shard. Their player's interactions reach whichever process Discord chose
(DMs come to shard 0; `/rr daily play` typed in a server comes to that server's shard), so
any process may apply an answer to them (the store's version guard lets exactly one of two
racing answers through); their time limits, reminders and announcements run in the process
that has shard 0, the one that receives DMs. This is a hosting rule shared by every
interface, so it lives in the service; it knows nothing of Discord.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from store import GameRow

from .errors import ServiceError
from .refusals import say

log = logging.getLogger("rr.shards")

MAX_SHARDS = 4096  # far beyond what one bot needs; catches a typo like 40000


def shard_of(guild_id: int, shard_count: int) -> int:
    """Discord's formula: the shard that receives a server's events."""
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True, slots=True)
class Shards:
    """This process's share of the shards. `count=None`: the only process (it owns every
    game; discord.py asks Discord how many shards to run, all of them here)."""

    count: int | None = None
    ids: tuple[int, ...] = ()

    @property
    def alone(self) -> bool:
        return self.count is None

    @property
    def dm_host(self) -> bool:
        """This process has shard 0: it receives DMs and runs the no-server games' timers."""
        return self.alone or 0 in self.ids

    def owner(self, guild_id: int | None) -> int | None:
        """The shard hosting a game of `guild_id` (None: a game outside any server)."""
        if guild_id is None or self.count is None:
            return None
        return shard_of(guild_id, self.count)

    def may_apply(self, row: GameRow) -> bool:
        """An answer to this game may be applied here (see the module's docstring)."""
        shard = self.owner(row.guild_id)
        return shard is None or shard in self.ids

    def runs_jobs(self, row: GameRow) -> bool:
        """This game's time limits, reminders and announcements are this process's job."""
        shard = self.owner(row.guild_id)
        return self.dm_host if shard is None else shard in self.ids

    def check(self, guild_id: int | None) -> None:
        """Refuse (nothing changed) an answer to a game another process hosts. It happens
        only when the shard settings of the processes disagree (during a resharding, or a
        misconfiguration): the player is told to try again, the operator is logged."""
        shard = self.owner(guild_id)
        if shard is not None and shard not in self.ids:
            log.warning("refused an answer for server %s: its shard %d is not among this "
                        "process's %s (shard settings disagree?)", guild_id, shard, self.ids)
            raise NotOwner(shard, self.count or 1)


class NotOwner(ServiceError):
    def __init__(self, shard: int, count: int) -> None:
        params = {"shard": shard, "count": count}
        super().__init__(say("en", "svc.not_owner", params), code="not_owner",
                         key="svc.not_owner", params=params)
        self.shard = shard


def parse_shards(count: str | None, ids: str | None) -> Shards:
    """`RR_SHARD_COUNT` and `RR_SHARD_IDS` (comma-separated, ranges `0-3` allowed) checked
    together; ValueError with the reason when they do not make sense (the bot then stops
    at once: a process hosting the wrong servers must never start)."""
    if not count:
        if ids:
            raise ValueError("RR_SHARD_IDS needs RR_SHARD_COUNT (the total over all processes)")
        return Shards()
    try:
        n = int(count)
    except ValueError:
        raise ValueError(f"RR_SHARD_COUNT must be a whole number, not {count!r}") from None
    if not 1 <= n <= MAX_SHARDS:
        raise ValueError(f"RR_SHARD_COUNT must be between 1 and {MAX_SHARDS}, not {n}")
    if not ids:
        return Shards(n, tuple(range(n)))
    chosen: set[int] = set()
    for part in ids.replace(" ", "").split(","):
        lo, sep, hi = part.partition("-")
        try:
            first, last = int(lo), int(hi) if sep else int(lo)
        except ValueError:
            raise ValueError(f"RR_SHARD_IDS: {part!r} is not a shard id or a range "
                             f"like 0-3") from None
        if not 0 <= first <= last < n:
            raise ValueError(f"RR_SHARD_IDS: {part!r} is outside 0..{n - 1} "
                             f"(RR_SHARD_COUNT={n})")
        chosen.update(range(first, last + 1))
    return Shards(n, tuple(sorted(chosen)))
