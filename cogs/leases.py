"""A job that must run in exactly one of the bot's processes: the daily day job (par,
closing yesterday, the servers' announcements, streak reminders) is not per server, so no
shard owns it. The processes share a lease row in the database instead: its holder renews
it every third of its time to live (a `discord.ext.tasks` loop, `RookBot.lease_loop`);
when the holder dies, the lease expires and the next renewal of another process takes it
over — never zero holders for longer than one time to live.

Never two: the holder stops believing it holds the lease a safety margin *before* the
database would let anyone else take it (measured from when it asked, on its own monotonic
clock, and on the wall clock as well: SQLite's leases are measured on it, and a step ahead
makes every row read as expired at once), so a stalled holder does not run the job while a
new one does. A stall beyond that
(the process frozen between its check and the job's writes) is covered by the job itself:
each of its effects is a once-a-day flag or claim in the store (`take_day_flag`,
`reminders_due`, `close_day`), so even two runs for one day tell nothing twice.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from collections.abc import Callable

from store import LEASE_MAX_S, GameStore

log = logging.getLogger("rr.lease")

SAFETY = 0.75  # believe in a lease for this share of its time to live


class JobLease:
    def __init__(self, store: GameStore, name: str, ttl_s: float,
                 wall: Callable[[], float] = time.time) -> None:
        # the store holds a lease no longer than LEASE_MAX_S: believed no longer either
        self.store, self.name, self.ttl_s = store, name, min(ttl_s, LEASE_MAX_S)
        # unique per process run: a restarted process is a new holder (it waits for the
        # dead one's lease to expire rather than trusting a job it might be half-way in)
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self._valid_until = 0.0
        # the same belief on the wall clock the store measures SQLite leases on: a clock
        # stepped ahead makes the row read as expired to everyone at once, so the holder
        # stops believing then too (till its next renewal), never alongside a new holder
        self.wall, self._wall_until = wall, 0.0
        self.taken = 0  # times this process took it over from nobody (diagnostics, tests)

    @property
    def held(self) -> bool:
        return time.monotonic() < self._valid_until and self.wall() < self._wall_until

    async def renew(self) -> bool:
        """Take or renew the lease; False (and not held) when another process has it or
        the database cannot be reached."""
        asked, asked_wall = time.monotonic(), self.wall()
        had = self.held
        try:
            ok = await self.store.try_lease(self.name, self.holder, self.ttl_s)
        except Exception:
            log.warning("lease %s: could not renew; not running its job until it can",
                        self.name, exc_info=True)
            ok = False
        self._valid_until = asked + self.ttl_s * SAFETY if ok else 0.0
        self._wall_until = asked_wall + self.ttl_s * SAFETY if ok else 0.0
        if ok and not had:
            self.taken += 1
            log.info("lease %s: taken by %s", self.name, self.holder)
        elif had and not ok:
            log.warning("lease %s: lost (another process took it over)", self.name)
        return ok

    async def release(self) -> None:
        """At a clean shutdown: hand the job over at once instead of after the TTL."""
        if not self.held:
            return
        self._valid_until = self._wall_until = 0.0
        try:
            await self.store.release_lease(self.name, self.holder)
        except Exception:
            log.warning("lease %s: could not release; it expires by itself", self.name,
                        exc_info=True)
