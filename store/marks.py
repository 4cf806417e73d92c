"""Outbox "delivered" marks written together: one store job for every mark that came in
while the previous job was under way (a group commit).

Every move's announcement ends with its notice leaving the outbox. Written one by one,
that was a second write job per move beside its commit — on SQLite a second turn of the
one writer thread, which every other game's commit queues behind, and a second hand-off
between the event loop and a thread (issue 22, `bench/bot.py --profile`). Gathered, a burst
of moves costs a few mark jobs instead of one per move, and the promise is the same: a
caller's `add` returns once its own mark is committed, or raises what that job raised (the
notice then stays in the outbox and is told again, never lost).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable


class Marks:
    """Gathers ids and writes them with `write(ids)`: one job at a time; the ids that
    arrive meanwhile wait for the next one (at most one job's time)."""

    def __init__(self, write: Callable[[list[int]], Awaitable[None]]) -> None:
        self._write = write
        self._ids: list[int] = []
        self._batch: asyncio.Future[None] | None = None  # what the waiting ids' callers await
        self._task: asyncio.Task[None] | None = None
        self.jobs = 0  # store jobs written (bench/bot.py counts them per interaction)

    async def add(self, item: int) -> None:
        """Mark `item`; returns when the job that carried it committed (its error if not)."""
        if self._batch is None:
            self._batch = asyncio.get_running_loop().create_future()
            # a batch nobody waits for any more (its callers were cancelled) must not log
            # "exception never retrieved": its callers were told nothing either way
            self._batch.add_done_callback(_retrieved)
        batch = self._batch
        self._ids.append(item)
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())
        await asyncio.shield(batch)  # a cancelled caller leaves the job to the others

    async def _run(self) -> None:
        try:
            while self._ids:
                ids, batch = self._ids, self._batch
                self._ids, self._batch = [], None
                assert batch is not None
                self.jobs += 1
                try:
                    await self._write(ids)
                except asyncio.CancelledError:
                    batch.cancel()
                    raise
                except Exception as e:  # the callers hear it; the next batch still runs
                    batch.set_exception(e)
                else:
                    batch.set_result(None)
        finally:
            self._task = None
            if self._ids and self._batch is not None:  # cancelled with marks still waiting
                self._ids = []
                self._batch.cancel()
                self._batch = None

    async def drain(self) -> None:
        """Wait until the marks handed in so far are written (before the store closes)."""
        while self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._task)


def _retrieved(batch: asyncio.Future[None]) -> None:
    if not batch.cancelled():
        batch.exception()
