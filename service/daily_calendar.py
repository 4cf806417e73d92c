"""The days of the daily challenge as one deployment deals them: today by the host's clock,
and each day's challenge drawn from the deployment's secret (service/daily.py). Every room
of the daily host reads the days here, so all of them agree on what "today" is."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from store import DailyStore

from . import daily
from .daily import Challenge


class Calendar:
    """`keyed_from`: the first day this release deals with the keyed generator (read from
    the database by `DailyHost.open`; None before that)."""

    def __init__(self, secret: bytes, clock: Callable[[], float],
                 keyed_from: dt.date | None = None) -> None:
        self.secret = secret
        self.clock = clock
        self.keyed_from = keyed_from

    def today(self) -> dt.date:
        return daily.day_of(self.clock())

    def challenge(self, day: dt.date | None = None) -> Challenge:
        return daily.challenge_for(self.secret, day or self.today(), self.keyed_from)

    def seconds_left(self) -> float:
        return daily.day_end(self.today()) - self.clock()

    async def open_day(self, store: DailyStore) -> dt.date:
        """The day a ranked attempt is claimed for: today, or the next day once the store
        says today closed. A clock behind the one that closed it (stepped back by NTP, or
        another process's running ahead) claimed attempts of a day closed and announced,
        which no closing ever ended (the clock audit)."""
        today = self.today()
        closed = await store.day_flag(today.isoformat(), "closed")
        return today + dt.timedelta(days=1) if closed else today

    async def still_open(self, store: DailyStore, day: dt.date) -> bool:
        """`day` is the open day or later (`open_day`), the store read only for today's: a
        day before today is over by any clock."""
        return day >= self.today() and day >= await self.open_day(store)
