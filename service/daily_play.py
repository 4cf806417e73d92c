"""Hosting the daily challenge on top of the game service (no Discord here).

A daily attempt is an ordinary solo game of the game service, kept under a *slot* of its
own instead of a channel: one slot per user for the ranked attempt and one for practice, so
it survives restarts, resumes from any device or server, and is played with the very same
commands, buttons, undo and refusals as a channel game. Where its posts go
(`settings["daily"]["post_channel"]`, the player's DMs) is the interface's business.

`DailyHost` only opens the daily store, checks the deployment's secret, builds the rooms
once and hands them out; each room is a module with one public surface:

    days      service/daily_calendar.py  today by the host's clock, each day's challenge
    par       service/daily_par.py       the AIs' par of a day and its odds
    board     service/daily_board.py     the day's leaderboard, a standing, a player's stats
    results   service/daily_results.py   a finished attempt scored once, the day's close,
                                         older scores recomputed
    attempts  service/daily_attempts.py  the ranked attempt (play, resign, its overdue end)
                                         and practice
    slots     service/daily_slots.py     which of a user's daily games a DM command means

Rooms depend one way — days ← par ← board ← results ← attempts; slots on the game service.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from store import DailyStore, DamagedSecret, daily_store, ratings_store

from . import daily
from .daily_attempts import DailyAttempts
from .daily_board import DailyBoard
from .daily_calendar import Calendar
from .daily_par import DailyPar
from .daily_results import DailyResults
from .daily_secret import SecretError, check_fingerprint, check_secret, fingerprint
from .daily_slots import DailySlots
from .games import GameService

T = TypeVar("T")


class DailyHost:
    """The rooms of the daily challenge over one game service and its daily store (see the
    module's docstring); `rescoring`: `results.rescore_old`, started by `open`."""

    def __init__(self, games: GameService, store: DailyStore, secret: bytes,
                 clock: Callable[[], float] | None = None) -> None:
        self.games = games
        self.store = store
        self.days = Calendar(secret, clock or games.clock)
        self.par = DailyPar(store, self.days)
        self.board = DailyBoard(store, self.days, ratings_store(games.store).hidden_users)
        self.results = DailyResults(games, store, self.days, self.par, self.board)
        self.attempts = DailyAttempts(games, store, self.days, self.par, self.board)
        self.slots = DailySlots(games, store)
        self.rescoring: asyncio.Future[int] | None = None
        self._watchers: set[asyncio.Future[Any]] = set()

    @classmethod
    async def open(cls, games: GameService, clock: Callable[[], float] | None = None,
                   secret: str | None = None) -> DailyHost:
        """The secret comes from RR_DAILY_SECRET, else is generated once and stored. A weak
        secret, or one that is not the secret the database was started with, raises
        SecretError: the bot must not start (it would give away or change the days)."""
        ds = await daily_store(games.store).open()
        raw = secret if secret is not None else os.environ.get("RR_DAILY_SECRET")
        try:
            key = check_secret(raw) if raw else await ds.secret(secrets.token_bytes(32))
        except DamagedSecret as e:
            raise SecretError(str(e)) from None
        check_fingerprint(key, await ds.fingerprint(fingerprint(key)))
        host = cls(games, ds, key, clock)
        # The first day this release deals (keyed generator, weekly rhythm): today on a new
        # database or before anyone played today, else tomorrow — a day is one game for all.
        host.days.keyed_from = daily.keyed_from_date(
            await ds.keyed_from(host.days.today().isoformat()))
        host.rescoring = host.watch(host.results.rescore_old())  # beside the start
        return host

    def watch(self, coro: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
        """Run `coro` (an interface's follow-up, e.g. showing the par once known) beside
        the request that started it; cancelled at `close`."""
        task = asyncio.ensure_future(coro)
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)
        return task

    def close(self) -> None:
        """Stop the background work (a worker thread already playing finishes on its own)."""
        self.par.close()
        for f in self._watchers:
            if not f.done():
                f.cancel()
