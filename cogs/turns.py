"""A channel's turn: its announcements posted one after the other, in the order announced.

However long each one's images take, a channel's posts come in the order their moves were
committed; at most TELLING channels post at once, so a burst of moves does not flood the
event loop ahead of the acknowledgements and answers still to give. A task already in the
channel's turn goes on in it (a game set aside as its post loaded it, say).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from .held import Held
from .outbox import Stage

TELLING = 8  # channels whose announcements are posted at once (bench/bot.py, 500 games)


@dataclass(slots=True)
class Turn:
    """A channel's announcements in line: the lock (FIFO) and how many hold or wait for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0
    owner: asyncio.Task[Any] | None = None  # the task whose turn it is (`Announcer.turn`)


class Turns(Held):
    """Each channel's turn to post (`turn`)."""

    def __init__(self, bot: Stage, *, processes: bool = False) -> None:
        super().__init__(bot, processes=processes)
        # channel → its announcements' turn: posted one announcement after the other, in
        # the order they were announced, however long each one's images take
        self._order: dict[int, Turn] = {}
        # at most TELLING channels' announcements at once: a burst of moves does not flood
        # the event loop with posts ahead of the acknowledgements and answers still to give
        self._telling = asyncio.Semaphore(TELLING)

    def elsewhere(self, channel_id: int) -> bool:
        """Another task has the channel's turn, or waits for it: one asking holds the
        service's lock there, say, and must not wait for the turn under it
        (cogs/bot.py `_tell_set_aside`)."""
        turn = self._order.get(channel_id)
        return turn is not None and turn.owner is not asyncio.current_task()

    @contextlib.asynccontextmanager
    async def turn(self, channel_id: int) -> AsyncIterator[None]:
        """The channel's turn to post (its announcements one after the other, in order)."""
        turn = self._order.setdefault(channel_id, Turn())
        turn.users += 1
        try:
            if turn.owner is not None and turn.owner is asyncio.current_task():
                yield  # (told inside this task's own turn: a game set aside as its post
                return  # loaded it, say — in its place; waiting would wait for itself)
            async with turn.lock, self._telling:
                turn.owner = asyncio.current_task()
                try:
                    yield
                finally:
                    turn.owner = None
        finally:
            turn.users -= 1
            if not turn.users:
                del self._order[channel_id]  # nobody waits: forget the channel
