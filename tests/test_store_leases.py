"""Leases: a named job (time limits, the daily day job) held by one process at a time across
every process sharing the database, renewed by its holder, taken over once it expires —
on both backends. SQLite measures them on a clock given to the store (frozen here);
PostgreSQL on the server's clock, so the expiry test there waits a real fraction of a second."""

from __future__ import annotations

import asyncio

from cogs.leases import JobLease


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def _pass(db, clock: Clock, seconds: float) -> None:
    if db.pg:
        await asyncio.sleep(seconds)
    else:
        clock.now += seconds


def test_one_holder_at_a_time_renewed_released_and_taken_over(db):
    async def main():
        clock = Clock()
        options = {} if db.pg else {"clock": clock}
        a, b = await db.open(**options), await db.open(**options)  # two processes
        assert await a.lease_holder("timers") is None
        assert await a.try_lease("timers", "proc-a", 0.6)
        assert not await b.try_lease("timers", "proc-b", 0.6)  # held: refused
        assert await b.lease_holder("timers") == "proc-a"
        assert await a.try_lease("timers", "proc-a", 0.6)  # ours: renewed
        assert await b.try_lease("daily", "proc-b", 0.6)  # another name is another lease
        await b.release_lease("timers", "proc-b")  # not b's: left alone
        assert await a.lease_holder("timers") == "proc-a"
        await a.release_lease("timers", "proc-a")  # a clean shutdown hands it over at once
        assert await b.lease_holder("timers") is None
        assert await b.try_lease("timers", "proc-b", 0.3)
        # proc-b dies without releasing: nobody else gets it until it expires, then a does
        assert not await a.try_lease("timers", "proc-a", 0.6)
        await _pass(db, clock, 0.4)
        assert await a.lease_holder("timers") is None
        assert await a.try_lease("timers", "proc-a", 0.6)
        assert not await b.try_lease("timers", "proc-b", 0.6)  # back too late: refused
        await a.close()
        await b.close()
    asyncio.run(main())


def test_many_processes_asking_at_once_give_exactly_one_holder(db):
    async def main():
        clock = Clock()
        options = {} if db.pg else {"clock": clock}
        stores = [await db.open(**options) for _ in range(4)]
        for round_ in range(5):
            got = await asyncio.gather(*(s.try_lease(f"job{round_}", f"p{k}", 30.0)
                                         for k, s in enumerate(stores) for _ in range(3)))
            winners = {f"p{k // 3}" for k, ok in enumerate(got) if ok}
            assert len(winners) == 1
            assert await stores[0].lease_holder(f"job{round_}") == winners.pop()
        for s in stores:
            await s.close()
    asyncio.run(main())


def test_a_lease_row_that_cannot_be_read_counts_as_expired(db):
    """Issue 17: a damaged expiry (text in SQLite, which sorts after every number;
    'infinity' in PostgreSQL's typed column) held the lease for ever — the day job then
    ran nowhere, in no process. It now counts as expired: the next process takes it."""
    async def main():
        clock = Clock()
        options = {} if db.pg else {"clock": clock}
        a, b = await db.open(**options), await db.open(**options)
        assert await a.try_lease("daily", "dead-process", 60)
        await db.sql(f"UPDATE leases SET expires='{'infinity' if db.pg else 'garbage'}'"
                     " WHERE name='daily'")
        assert await b.lease_holder("daily") is None
        assert await b.try_lease("daily", "proc-b", 60)
        assert await a.lease_holder("daily") == "proc-b"
        assert not await a.try_lease("daily", "proc-a", 60)  # and b's own lease holds
        for s in (a, b):
            await s.close()
    asyncio.run(main())


def test_a_lease_expiring_implausibly_far_ahead_counts_as_expired(db):
    """The reliability audit: an expiry years ahead (written by a process whose clock had
    jumped ahead, or a hand edit) held the day job's lease for a dead holder until then:
    the day job ran in no process. One more than LEASE_MAX_S ahead is damage, like
    'infinity': the lease is free; a holder's own renewals stay within the bound."""
    from store import LEASE_MAX_S

    async def main():
        clock = Clock()
        options = {} if db.pg else {"clock": clock}
        a, b = await db.open(**options), await db.open(**options)
        assert await a.try_lease("daily", "dead-process", 60)
        if db.pg:
            await db.sql("UPDATE leases SET expires=now() + interval '10 years'"
                         " WHERE name='daily'")
        else:
            await db.sql("UPDATE leases SET expires=? WHERE name='daily'",
                         clock.now + 10 * 365 * 86400)
        assert await b.lease_holder("daily") is None
        assert await b.try_lease("daily", "proc-b", 60)
        assert await a.lease_holder("daily") == "proc-b"
        assert not await a.try_lease("daily", "proc-a", 60)  # b's own lease holds
        assert await b.try_lease("daily", "proc-b", 10 * LEASE_MAX_S)  # held at most the bound
        assert await a.lease_holder("daily") == "proc-b"
        assert not await a.try_lease("daily", "proc-a", 60)
        for s in (a, b):
            await s.close()
    asyncio.run(main())


def test_a_wall_clock_jump_ahead_makes_the_holder_stop_believing_before_another_takes_it(db):
    """Two processes on one machine's SQLite database (leases on its wall clock), the day
    job's lease held by A. NTP steps the clock an hour ahead: the row reads as expired and
    B's next renewal takes it, while A, which measured its belief on the monotonic clock
    only, went on believing for up to 3/4 of the time to live — two holders of the job.
    Now a holder believes in its lease only while the wall clock too says it is within that
    share (a jump back shortens nothing: the monotonic bound still holds)."""
    if db.pg:  # the server's clock: a jump there is not seen by the processes
        return
    async def main():
        clock = Clock()
        a_store, b_store = await db.open(clock=clock), await db.open(clock=clock)
        a = JobLease(a_store, "day", 60.0, wall=clock)
        b = JobLease(b_store, "day", 60.0, wall=clock)
        assert await a.renew() and a.held and not await b.renew()
        clock.now -= 3600.0  # stepped back: A keeps it, B still cannot take it
        assert a.held and not await b.renew()
        assert await a.renew() and a.held
        clock.now += 2 * 3600.0  # stepped an hour ahead of where it was
        assert await b.renew() and b.held  # the store says A's lease expired
        assert not a.held, "two processes believe they hold the day job"
        assert not await a.renew() and not a.held
        await a_store.close()
        await b_store.close()
    asyncio.run(main())
