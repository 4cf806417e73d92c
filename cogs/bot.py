"""RookBot: the discord.py client that hosts games — store, service, cogs, buttons, ticker.

Everything that must survive a restart lives in SQLite (games, action logs, timers, the
outbox of announcements not yet delivered) or in the custom ids of the buttons already
posted (DynamicItems that name the game, the seat and the decision id), so a new process
picks every game up where the last one stopped: at startup it delivers what the last one
committed but had not announced yet. The ticker applies time limits and retries
announcements Discord did not take; it is one bounded task, stopped by `close()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Callable
from typing import Any

import discord
from discord.ext import commands

from service import GameService
from store import Store

from .announce import Announcer
from .i18n import RookTranslator
from .views import DYNAMIC_ITEMS

log = logging.getLogger("rr.bot")
# aiosqlite logs every job it runs at DEBUG (with its arguments): those can be game states
# (deck orders, everyone's medals). Never let them into a log, whatever RR_LOG_LEVEL says.
logging.getLogger("aiosqlite").setLevel(logging.INFO)

TICK_BUDGET_S = 60.0  # one tick never runs longer than this (a stuck store cannot wedge it)
APPLIED_KEEP_S = 7 * 24 * 3600  # interaction keys kept (Discord redelivers within minutes)


class RookBot(commands.Bot):
    """The bot. Tests build it with `db_path`/`store`/`service`/`clock` injected and no token;
    `bot.py` runs it with `freeze_gc` (tests leave it off: frozen objects are never freed)."""

    def __init__(self, config: Any, *, store: Store | None = None,
                 service: GameService | None = None, clock: Callable[[], float] | None = None,
                 seed_source: Callable[[], int] | None = None,
                 cards_data: dict[str, Any] | None = None, sync_commands: bool = True,
                 start_ticker: bool = True, freeze_gc: bool = False) -> None:
        intents = discord.Intents.default()
        super().__init__(command_prefix=commands.when_mentioned, intents=intents,
                         help_command=None,
                         allowed_mentions=discord.AllowedMentions(everyone=False, roles=False,
                                                                  users=True))
        self.config = config
        self.clock = clock or time.time
        self._seed_source = seed_source
        self._cards_data = cards_data
        self.store: Store = store  # type: ignore[assignment]
        self.service: GameService = service  # type: ignore[assignment]
        self._own_store = store is None and service is None
        self.sync_commands = sync_commands
        self.start_ticker = start_ticker
        self.freeze_gc = freeze_gc
        self.announcer = Announcer(self)
        # channel → (game id, user id per seat): lets autocomplete skip the database
        self.seating: dict[int, tuple[int, list[int]]] = {}
        self._ticker: asyncio.Task[None] | None = None
        self._verifier: asyncio.Task[int] | None = None
        self._notifier: asyncio.Task[int] | None = None
        self._started = time.time()

    @property
    def tick_seconds(self) -> float:
        return float(getattr(self.config, "tick_seconds", 30.0))

    async def setup_hook(self) -> None:
        if self.service is None:
            if self.store is None:
                self.store = await Store(getattr(self.config, "db_path", "rookraiders.db")).open()
            self.service = GameService(self.store, clock=self.clock, seed_source=self._seed_source,
                                       cards_data=self._cards_data)
        else:
            self.store = self.service.store
        self.service.notify = True  # moves queue their announcements in the outbox
        await self.tree.set_translator(RookTranslator())
        import bot as entry  # the COGS tuple lives next to the entry point

        for ext in entry.COGS:
            await self.load_extension(ext)
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if self.sync_commands:
            try:
                await self.tree.sync()
            except discord.HTTPException as e:  # commands from the last sync still work
                log.warning("command sync failed: %s", e)
        if self.freeze_gc:
            # What is loaded by now (modules, the command tree, card data, fonts) lives as
            # long as the process: keep it out of the collector's full passes, which would
            # otherwise stop the event loop for tens of milliseconds (bench/bot.py: a full
            # collection during a burst delayed every acknowledgement in it by ~70 ms).
            gc.collect()
            gc.freeze()
        if self.start_ticker:
            self._ticker = asyncio.create_task(self._tick_forever(), name="rr-ticker")
        self._verifier = asyncio.create_task(self.verify_games(), name="rr-verify")
        self._started = time.time()
        self._notifier = asyncio.create_task(self.deliver_notices(startup=True),
                                             name="rr-outbox")

    async def verify_games(self) -> int:
        """Load every active game once at startup: setup + log is replayed and compared with
        the stored state (the service logs any difference and trusts the log), and the games
        are warm in memory before the first click. Yields between games."""
        count = 0
        for row in await self.store.active_games():
            async with self.service.lock(row.channel_id):
                fresh = await self.store.get(row.id)
                if fresh is not None and fresh.status == "active":
                    await self.service.load(fresh)
                    count += 1
            await asyncio.sleep(0)
        log.info("%d active game(s) loaded and verified", count)
        return count

    async def deliver_notices(self, *, startup: bool = False) -> int:
        """Announcements still in the outbox. At startup: everything the last process
        committed (it can no longer tell it), at once; later, on every tick: the notices
        whose live delivery failed or was never finished (past their lease or back-off).
        Each is told on its own (see `Announcer.redeliver`)."""
        try:
            pending = await self.store.notices(
                None if startup else time.time(),
                created_before=self._started if startup else None)
        except Exception:
            log.exception("outbox: could not read pending notices")
            return 0
        for notice in pending:
            await self.announcer.redeliver(notice)
        if startup:
            log.info("%d pending announcement(s) delivered at startup", len(pending))
        return len(pending)

    async def on_ready(self) -> None:
        log.info("logged in as %s (%s); %d guild(s)", self.user, getattr(self.user, "id", "?"),
                 len(self.guilds))

    async def _tick_forever(self) -> None:
        """Apply time limits every `tick_seconds`; a failing tick is logged, never fatal."""
        while not self.is_closed():
            await asyncio.sleep(self.tick_seconds)
            try:
                await asyncio.wait_for(self.tick_once(), timeout=TICK_BUDGET_S)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("tick failed; retrying at the next tick")

    async def tick_once(self) -> int:
        """One pass over due timers: default answers and reminders, each announced."""
        outcomes, reminders = await self.service.tick()
        for out in outcomes:
            ann = self.announcer.capture(out)
            await self.announcer.tell(out.notice, lambda a=ann: self.announcer.publish(a))
        for rem in reminders:
            await self.announcer.tell(rem.notice, lambda r=rem: self.announcer.remind(r))
        await self.deliver_notices()
        try:
            await self.store.forget_applied(time.time() - APPLIED_KEEP_S)
        except Exception:
            log.warning("could not forget old interaction keys", exc_info=True)
        return len(outcomes) + len(reminders)

    async def close(self) -> None:
        for task in (self._verifier, self._notifier):
            if task is not None and not task.done():
                task.cancel()
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._ticker
            self._ticker = None
        await super().close()
        self.announcer.close()
        if self._own_store and self.store is not None:
            await self.store.close()
