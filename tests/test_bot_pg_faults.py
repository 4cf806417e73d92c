"""The bot on PostgreSQL when the database misbehaves the way a server does (the
database-fault audit on PostgreSQL): a statement cut by the server's `statement_timeout`
while the bot's write waits for a lock another program holds. The player is told in words
that nothing changed, nothing is stored, and the next answer works without a restart."""

from __future__ import annotations

import asyncio
import logging
import random

import asyncpg
from bot_driver import Clock, Table, accepted, make_bot
from harness import Harness

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
