"""The outbox's telling: one notice claimed, told, and recorded delivered or kept for later.

Every move committed what must be told about it (service/notices.py); `tell` claims its
notice for this process (several may share the database: a rolling restart, a shard given
twice), tells it, and takes it out of the outbox — or, when Discord could not take a
message, keeps it for a retry from that message, with the back-off of every outbox
(`notice_retry_s`), and drops it after NOTICE_ATTEMPTS. `Outbox` is the announcer's lowest
layer (cogs/announce.py); `Stage` is the part of the bot it posts through.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol

import discord

from service import GameService
from store import CLAIM_S, GameStore

from .delivery import attempt

log = logging.getLogger("rr.announce")
NOTICE_RETRY_S = (30.0, 120.0, 600.0, 3600.0)  # an outbox notice Discord did not take: later
NOTICE_ATTEMPTS = 12  # then it is dropped (logged): a notice that can never be told


def notice_retry_s(attempts: int) -> float:
    """How long a notice waits after `attempts` failed tries: the back-off of every
    outbox (games' and the daily's), written once. A count below zero (a damaged row) is
    none yet: it indexed from the end, or past it, and the IndexError stopped the pass
    for every row after it (the reliability audit)."""
    return NOTICE_RETRY_S[min(max(attempts, 0), len(NOTICE_RETRY_S) - 1)]


class AiSeats(Protocol):
    def kick(self, channel_id: int, /) -> None:
        """An AI-played seat may have been asked something: let it answer (cogs/seats.py)."""


class Stage(Protocol):
    """The part of the bot (cogs/bot.py `RookBot`) the announcer posts through; declared
    here because the bot builds the announcer (importing it would be a loop)."""

    @property
    def service(self) -> GameService: ...
    @property
    def store(self) -> GameStore: ...
    @property
    def ai(self) -> AiSeats: ...
    @property
    def seating(self) -> dict[int, tuple[int, list[int]]]: ...

    def get_partial_messageable(self, id: int, /) -> discord.PartialMessageable: ...
    def get_guild(self, id: int, /) -> discord.Guild | None: ...
    async def create_dm(self, user: discord.abc.Snowflake, /) -> discord.DMChannel: ...


class Outbox:
    """The announcer's notices: claimed by this process, told, recorded (`tell`)."""

    def __init__(self, bot: Stage, *, processes: bool = False) -> None:
        self.bot = bot
        # notices whose messages all went out but whose delivery the store did not record
        # (busy, full, cut off): the next pass records it instead of posting them again
        self.unrecorded: set[int] = set()
        # One process tells a notice (several may share the database: a rolling restart,
        # a shard given twice): this one's claims are in the row under `holder`, renewed
        # every third of `claim_s` while it tells; `_holding` are the ones it tells now.
        # Unique per run, like the day job's lease (cogs/leases.py): a restarted process
        # is a new holder, which waits for its dead predecessor's claims to expire.
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.claim_s = CLAIM_S
        # notice → when its claim was last written (monotonic); one task renews them all
        # (a task per notice told cost every announcement its creation and cancelling)
        self._holding: dict[int, float] = {}
        self._renewing: asyncio.Task[None] | None = None

    async def posting(self, channel: int, *, refused: bool, took: bool) -> None:
        """What Discord did with the bot's posts in a game's channel, told to the time
        limits (cogs/held.py, which overrides this)."""

    def close(self) -> None:
        if self._renewing is not None:  # (a claim left held: it expires on its own)
            self._renewing.cancel()

    async def tell(self, notice: int | None, send: Callable[[], Awaitable[None]], *,
                   parts_done: int = 0, attempts: int = 0, channel: int | None = None) -> bool:
        """Deliver one outbox notice through `send`, then take it out of the outbox — or,
        when Discord could not take a message, keep it for a retry from that message.
        Never raises: a failure here is this notice's alone. True when all went out.
        `channel`: the game's channel the notice posts in — a post refused there for want
        of permissions holds its game's time limits, one taken there resumes them."""
        parts_done, attempts = _count(parts_done), _count(attempts)  # (damaged: none yet)
        if notice is None:
            return await self._tell(notice, send, parts_done, attempts, channel)
        if not await self.claim(notice, unsure=True):
            return False  # another process tells it (or this one does, elsewhere)
        async with self.claimed(notice):
            return await self._tell(notice, send, parts_done, attempts, channel)

    async def claim(self, notice: int, *, unsure: bool = False) -> bool:
        """Take the notice for this process (the store's conditional UPDATE: never two);
        False when another process's claim holds, when it is told already, or when this
        process tells it right now. A store that cannot answer gives `unsure`: a live
        announcement goes out anyway (its move is committed; at worst a second process
        told it too, as after a crash mid-post), a pass leaves it for the next one."""
        return notice not in self._holding and await self._take(notice, unsure)

    @contextlib.asynccontextmanager
    async def claimed(self, notice: int) -> AsyncIterator[None]:
        """A claimed notice held by this process (`_holding`) with its claim renewed, while
        the block tells it (or, for an AI burst's answer, holds it until its post)."""
        self._holding[notice] = time.monotonic()
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.create_task(self._renew(), name="rr-claims")
        try:
            yield
        finally:
            self._holding.pop(notice, None)

    async def _take(self, notice: int, unsure: bool) -> bool:
        """The claim written (taken or renewed) until `claim_s` from now."""
        now = time.time()
        try:
            return await self.bot.store.claim_notice(notice, self.holder, now + self.claim_s,
                                                     now)
        except self.bot.store.faults as e:
            log.warning("notice %s: could not be claimed (store: %s)", notice, e)
            return unsure

    async def _renew(self) -> None:
        """The claims of the notices this process tells (`_holding`) kept, each renewed a
        third of `claim_s` after it was last written; ends once none is held. A renewal
        refused means this process stalled past its claim and another took the notice:
        logged, and that one is no longer renewed (at most one duplicate post, as after a
        crash mid-post)."""
        while self._holding:
            every = self.claim_s / 3
            # (a whole third: renewed 1/3–2/3 of a claim after its last write, well inside
            # it; the task outlives the last notice by one such sleep, never a short one)
            await asyncio.sleep(every)
            for notice, written in list(self._holding.items()):
                if time.monotonic() - written < every or notice not in self._holding:
                    continue
                try:
                    kept = await self._take(notice, True)
                except Exception:  # (a task of its own: nobody would hear it raise)
                    log.warning("notice %s: its claim could not be renewed", notice,
                                exc_info=True)
                    continue
                if notice not in self._holding:
                    continue
                if kept:
                    self._holding[notice] = time.monotonic()
                else:
                    self._holding[notice] = math.inf  # (not renewed again)
                    log.warning("notice %s: another process took it over (this one "
                                "stalled past its claim)", notice)

    async def _tell(self, notice: int | None, send: Callable[[], Awaitable[None]],
                    parts_done: int, attempts: int, channel: int | None) -> bool:
        """`tell` of a claimed notice (or of none: nothing in the outbox)."""
        progress = await attempt(notice, send, parts_done)
        if channel is not None:
            await self.posting(channel, refused=progress.refused, took=progress.took > 0)
        if progress.stopped is None and parts_done > progress.count:
            # more messages recorded as sent than the notice has: a damaged row, which
            # would count as told with nothing sent (the reliability audit). Told again
            # from the start: the worst case is a repeat, never a notice lost untold
            log.warning("notice %s: its stored progress (%s messages sent) is past its %d "
                        "messages; told from the start", notice, parts_done, progress.count)
            progress = await attempt(notice, send, 0)
        return await self.settle(notice, progress.stopped, attempts)

    async def settle(self, notice: int | None, stopped: int | None, attempts: int) -> bool:
        """A notice's try recorded: out of the outbox when nothing `stopped`, else kept for
        a retry from message `stopped` (dropped after NOTICE_ATTEMPTS). True when told."""
        if notice is None:
            return stopped is None
        try:
            if stopped is None:
                self.unrecorded.add(notice)
                await self.bot.store.delivered(notice)
                self.unrecorded.discard(notice)
                return True
            if attempts + 1 >= NOTICE_ATTEMPTS:
                log.error("notice %s: not delivered after %d attempts; dropped", notice,
                          attempts + 1)
                await self.bot.store.delivered(notice)
                return False
            delay = notice_retry_s(attempts)
            await self.bot.store.retry_later(notice, stopped, time.time() + delay)
        except self.bot.store.faults as e:  # busy or cut off: the notice stays pending and
            # comes back (a notice told twice is the worst case, never a lost one)
            log.warning("notice %s: its delivery is recorded later (store: %s)", notice, e)
        except Exception:
            log.exception("notice %s: could not record its delivery", notice)
        return False


def _count(value: object) -> int:
    """A stored count (messages sent, tries) as a count: text or a negative number from a
    damaged outbox row reads as none yet."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
