"""The bot on PostgreSQL when the database misbehaves the way a server does (the
database-fault audit on PostgreSQL): a statement cut by the server's `statement_timeout`
while the bot's write waits for a lock another program holds. The player is told in words
that nothing changed, nothing is stored, and the next answer works without a restart."""

from __future__ import annotations

import asyncio
import logging
import random
import time

import asyncpg
from bot_driver import Clock, Table, accepted, make_bot
from harness import Harness

from store.contract import StoreBusy

REFUSED = "nothing was changed"


def test_a_statement_timeout_while_a_move_waits_for_a_lock_is_a_refusal_in_words(
        pg_url, caplog):
    """An operator sets a `statement_timeout` shorter than the bot's `lock_timeout`, and
    another program holds the game's row: the move's UPDATE is cancelled by the server
    (QueryCanceledError). Before, that error was none of the store's faults: the player got
    "Something went wrong" and the log an ERROR traceback, for a move that was simply not
    stored. Now it is refused as busy, in words, nothing is stored, and once the lock is
    gone the same answer lands (once)."""
    url = f"{pg_url}&statement_timeout=250"  # asyncpg: a query parameter is a server setting

    async def scenario():
        async with Harness(lambda: make_bot(url, Clock(), seed=3)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2, hours=12)
            row, g = await table.game()
            log_before = await table.bot.store.log(row.id)
            holder = await asyncpg.connect(pg_url)
            await holder.execute("BEGIN")
            await holder.execute("SELECT 1 FROM games WHERE id=$1 FOR UPDATE", row.id)
            seat = g.waiting_for()[0]
            rng = random.Random(1)
            caplog.clear()
            with caplog.at_level(logging.WARNING):
                res, _text = await table._answer(rng, row, seat, table.user(row, seat),
                                                 g.decision(seat)["kind"],
                                                 g.decision(seat)["id"])
            assert res.ephemeral and REFUSED in res.text and "went wrong" not in res.text, \
                res.text
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
            after, _ = await table.game()
            assert after.version == row.version
            assert await table.bot.store.log(row.id) == log_before
            await holder.execute("ROLLBACK")
            await holder.close()
            step = await table.step(random.Random(1))  # the next answer works at once
            assert step is not None and accepted(step.result)
            after, _ = await table.game()
            assert after.version > row.version
    asyncio.run(scenario())


def test_a_server_out_of_connections_is_one_of_the_stores_faults(pg_url):
    """The server refuses a new connection (class 53, "too many connections for role"; a
    full disk and a server out of memory are the same class): the pool's second connection,
    opened for a second write while the first holds the only one. Before, the error was none
    of the store's faults, so the player read "Something went wrong" and the time-limit
    pass logged a traceback; now it is a fault (answered "cannot be reached just now,
    nothing was changed"), and the next write, once a connection is free, works."""
    from service.tables import fault_refusal
    from store.pg import PgStore

    schema = pg_url.rsplit("search_path=", 1)[1]
    role = f"bot_{schema}"

    async def main():
        admin = await asyncpg.connect(pg_url)
        await admin.execute(f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 1")
        await admin.execute(f"GRANT ALL ON SCHEMA {schema} TO {role}")
        url = pg_url.replace("//rr@", f"//{role}@")
        store = await PgStore(url, pool_size=4).open()
        try:
            row = await store.create_lobby(1, 2000, 1, "Ann", {"players": 1})

            async def slow(con):
                await con.execute("SELECT pg_sleep(0.5)")
            got = await asyncio.gather(store.run_write(slow),
                                       store.set_settings(row.id, {"players": 1, "x": 1}),
                                       return_exceptions=True)
            assert got[0] is None
            assert isinstance(got[1], asyncpg.TooManyConnectionsError)
            assert isinstance(got[1], store.faults)
            assert fault_refusal(got[1]).key == "svc.unreachable"
            await store.set_settings(row.id, {"players": 1, "x": 2})
            assert (await store.get(row.id)).settings["x"] == 2
        finally:
            await store.close()
            await admin.execute(f"DROP OWNED BY {role} CASCADE")
            await admin.execute(f"DROP ROLE {role}")
            await admin.close()
    asyncio.run(main())


def test_a_full_pool_answers_busy_within_seconds_and_the_move_works_once_freed(pg_url):
    """Every connection of the bot's pool is held (a burst of commands, slow statements, a
    long write): the move waits for one at most `acquire_s`. Before, it waited without end
    (the pool's acquire had no limit): the player's deferred command hung, "thinking",
    until a connection came free. Now it is answered within a few seconds that the database is busy
    and nothing was changed, the game is as it was, and once the connections are free the
    same answer lands."""
    async def scenario():
        async with Harness(lambda: make_bot(pg_url, Clock(), seed=3)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2, hours=12)
            row, g = await table.game()
            log_before = await table.bot.store.log(row.id)
            seat = g.waiting_for()[0]
            assert g.decision(seat)["kind"] == "place"
            user = table.user(row, seat)  # the move chosen before the pool is full (the
            card = (await table.choices(user, "rr place", "card"))[0]  # menus read it too)
            square = (await table.choices(user, "rr place", "square", card=card))[0]
            store = table.bot.store
            free = asyncio.Event()
            held = 0

            async def hold(con) -> None:
                nonlocal held
                held += 1
                store.in_flight -= 1  # another program's work, not the bot's: the harness
                try:  # must not wait for it to call the bot settled
                    await asyncio.wait_for(free.wait(), 10)  # bounded, released below
                finally:
                    store.in_flight += 1
            holders = [asyncio.create_task(store.run_read(hold))
                       for _ in range(store.pool_size)]
            for _ in range(200):  # every connection taken (bounded: 2 s)
                if held == store.pool_size:
                    break
                await asyncio.sleep(0.01)
            assert held == store.pool_size
            started = time.monotonic()
            try:
                res = await asyncio.wait_for(table.slash(
                    user, "rr place", card=card, square=square, expect_error=StoreBusy), 6)
            finally:
                free.set()
                await asyncio.gather(*holders)
            assert time.monotonic() - started < 5
            assert res.ephemeral and "busy" in res.text and REFUSED in res.text, res.text
            after, _ = await table.game()
            assert after.version == row.version
            assert await store.log(row.id) == log_before
            again = await table.slash(user, "rr place", card=card, square=square)
            assert accepted(again), again.text  # connections free: the same move lands
            after, _ = await table.game()
            assert after.version > row.version
    asyncio.run(scenario())
