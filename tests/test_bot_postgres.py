"""The bot itself on PostgreSQL (RR_DB=postgresql://…, chosen at startup), driven through
discord.py's own code paths with only the HTTP edge recorded: a two-player game played
partly by one bot process, then by a new one on the same database after the first is gone,
to the end — the log replaying to the state (R15) — and the daily challenge's tables there."""

from __future__ import annotations

import asyncio
import random

from bot_driver import Clock, Table, make_bot
from discord_harness import Harness

from engine import Game
from store.pg import PgStore


def test_a_game_survives_a_new_bot_process_on_postgresql(pg_url):
    clock = Clock()
    kept: dict = {}

    async def first_life():
        async with Harness(lambda: make_bot(pg_url, clock, seed=11)) as h:
            assert isinstance(h.bot.store, PgStore)  # RR_DB's URL chose the backend
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2, hours=12)
            rng = random.Random(5)
            for _ in range(20):
                await table.step(rng)
            row, _ = await table.game()
            kept.update(server=h.server, game_id=row.id, version=row.version,
                        log=await table.bot.store.log(row.id))
            assert row.version > 0

    async def second_life():
        async with Harness(lambda: make_bot(pg_url, clock, seed=99),
                           server=kept["server"]) as h:
            table = Table(h)
            table.game_id = kept["game_id"]
            row, g = await table.game()
            assert row.version == kept["version"]
            assert await table.bot.store.log(row.id) == kept["log"]
            await table.play(random.Random(6))
            row, g = await table.game()
            assert g.over and row.status == "over"
            log = await table.bot.store.log(row.id)
            assert log[:len(kept["log"])] == kept["log"]
            assert Game.replay(row.setup, log).to_json() == row.state
            assert await table.bot.daily.store.playing() == []  # daily tables are there
    asyncio.run(first_life())
    asyncio.run(second_life())
