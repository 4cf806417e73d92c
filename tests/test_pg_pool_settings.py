"""The PostgreSQL pool is the operator's to size (RR_PG_POOL_SIZE, RR_PG_ACQUIRE_SECONDS).

Before, each process's pool held 10 connections and a command waited 2 s for a free one,
both constants in store/pg.py: an operator whose server allows few connections per process
(many processes, a managed database's small `max_connections`), or who wants "busy" sooner
or later, had to edit the code. Now both are settings read with the others (bot.py), a bad
value stops the bot at start with one line saying which and why (no traceback), and on the
real server a pool of 1 waited 0.2 s answers a second concurrent command "the database is
busy; nothing was changed" well before the old 2 s."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest
from bot_driver import Clock, Table, accepted
from harness import Harness

import bot as entry
from cogs.bot import RookBot
from store.contract import ACQUIRE_S, POOL_SIZE, StoreBusy

REFUSED = "nothing was changed"


def test_the_pool_settings_are_read_from_the_environment():
    config = entry.load_config({"RR_PG_POOL_SIZE": "3", "RR_PG_ACQUIRE_SECONDS": "0.5"})
    assert (config.pg_pool_size, config.pg_acquire_s) == (3, 0.5)
    unset = entry.load_config({})  # unset (or empty): the defaults, as before
    assert (unset.pg_pool_size, unset.pg_acquire_s) == (POOL_SIZE, ACQUIRE_S) == (10, 2.0)
    blank = entry.load_config({"RR_PG_POOL_SIZE": "", "RR_PG_ACQUIRE_SECONDS": " "})
    assert (blank.pg_pool_size, blank.pg_acquire_s) == (10, 2.0)


@pytest.mark.parametrize(("name", "value"), [
    ("RR_PG_POOL_SIZE", "0"), ("RR_PG_POOL_SIZE", "-2"), ("RR_PG_POOL_SIZE", "ten"),
    ("RR_PG_POOL_SIZE", "2.5"), ("RR_PG_POOL_SIZE", "100000"),
    ("RR_PG_ACQUIRE_SECONDS", "0"), ("RR_PG_ACQUIRE_SECONDS", "-1"),
    ("RR_PG_ACQUIRE_SECONDS", "soon"), ("RR_PG_ACQUIRE_SECONDS", "nan"),
    ("RR_PG_ACQUIRE_SECONDS", "inf"), ("RR_PG_ACQUIRE_SECONDS", "3600"),
])
def test_a_bad_pool_setting_stops_the_bot_at_start_in_one_line(monkeypatch, capsys, name,
                                                                value):
    """Not quietly replaced by the default (as a bad RR_TICK_SECONDS is): the operator sized
    the pool for their server and must learn the setting was not taken before the bot runs
    with another. One line on stderr naming the setting, its bounds and the value; exit 2."""
    monkeypatch.setenv("DISCORD_TOKEN", "x")
    monkeypatch.delenv("RR_DAILY_SECRET", raising=False)
    monkeypatch.setenv(name, value)
    assert entry.main([]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"bot.py: {name} must be") and repr(value) in err, err
    assert "\n" not in err and "Traceback" not in err
    assert entry.main(["--check"]) == 2  # the check says the same, before any database
    assert capsys.readouterr().err.strip().startswith(f"bot.py --check: {name} must be")


def test_a_pool_of_one_waited_briefly_answers_a_second_command_busy_promptly(pg_url):
    """RR_PG_POOL_SIZE=1, RR_PG_ACQUIRE_SECONDS=0.2: while the one connection is taken by
    another job, a player's move is answered busy, nothing changed, within a second (with
    the old constants it would have found one of 9 free connections and landed; had it
    waited, it would have been 2 s). Once the connection is free the same move lands."""
    config = dataclasses.replace(
        entry.load_config({"RR_DB": pg_url, "RR_PG_POOL_SIZE": "1",
                           "RR_PG_ACQUIRE_SECONDS": "0.2"}),
        token=None, tick_seconds=3600.0, daily_par_at_start=False,
        daily_par_levels=("random",))

    async def scenario():
        async with Harness(lambda: RookBot(config, clock=Clock(), seed_source=lambda: 3)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2, hours=12)
            row, g = await table.game()
            store = table.bot.store
            assert (store.pool_size, store.acquire_s) == (1, 0.2)
            log_before = await store.log(row.id)
            seat = g.waiting_for()[0]
            user = table.user(row, seat)
            card = (await table.choices(user, "rr place", "card"))[0]
            square = (await table.choices(user, "rr place", "square", card=card))[0]
            taken, free = asyncio.Event(), asyncio.Event()

            async def hold(con) -> None:  # the first command, still at its database work
                taken.set()
                store.in_flight -= 1  # not the bot's own work: the harness must not wait
                try:
                    await asyncio.wait_for(free.wait(), 10)  # bounded, released below
                finally:
                    store.in_flight += 1
            holder = asyncio.create_task(store.run_read(hold))
            await asyncio.wait_for(taken.wait(), 5)
            started = time.monotonic()
            try:
                res = await asyncio.wait_for(table.slash(
                    user, "rr place", card=card, square=square, expect_error=StoreBusy), 6)
            finally:
                free.set()
                await holder
            assert time.monotonic() - started < 1.0  # 0.2 s waited, not the old 2 s
            assert res.ephemeral and "busy" in res.text and REFUSED in res.text, res.text
            after, _ = await table.game()
            assert after.version == row.version
            assert await store.log(row.id) == log_before
            again = await table.slash(user, "rr place", card=card, square=square)
            assert accepted(again), again.text
    asyncio.run(scenario())


def test_the_check_says_which_pool_it_would_use(pg_url):
    """`bot.py --check` on PostgreSQL says the pool the settings give, so an operator sees
    their RR_PG_POOL_SIZE / RR_PG_ACQUIRE_SECONDS were taken (SQLite has no pool: no word)."""
    config = dataclasses.replace(
        entry.load_config({"RR_DB": pg_url, "RR_PG_POOL_SIZE": "3",
                           "RR_PG_ACQUIRE_SECONDS": "0.5"}), token="x")
    said = asyncio.run(entry.check(config, None))
    assert said.startswith("ready") and "a pool of up to 3 connections waited for 0.5 s" in said
