"""Outbox rows that cannot be told, and a delivery the store could not record (the
database-fault audit; cogs/announce.py, service/notices.py).

- A notice of a kind this release does not know (a newer release's, in a rolling upgrade)
  was told as a move: the posts of its log range went out again. Now it is left for a
  process that knows it, with the usual back-off, and set aside when none took it.
- A notice of a known kind without a usable range or seat failed deep in a replay, with two
  tracebacks a try for nine hours, and was then deleted. Now it is set aside at once (kept
  for the operator, one WARNING) and nothing is posted.
- Posts that went out but whose delivery the store failed to record (busy, full) were posted
  again ten minutes later, below newer moves. Now the next pass records them, sending nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random

from bot_driver import Clock, Table, make_bot
from harness import Harness

import cogs.announce as announce
from store import StoreBusy


def public(h: Harness) -> list[str]:
    return [m.content for m in h.messages() if not m.ephemeral and m.dm_user_id is None]


async def outbox(bot, body: dict, game_id: int, attempts: int = 0) -> int:
    def add(con) -> int:
        return con.execute(
            "INSERT INTO outbox (game_id, version, log_end, body, not_before, created_at,"
            " parts_done, attempts) VALUES (?,?,?,?,?,?,?,?)",
            (game_id, 1, 2, json.dumps(body), 0.0, 0.0, 0, attempts)).lastrowid
    return await bot.store.run_write(add)


async def rows(bot, table: str) -> list[dict]:
    def read(con) -> list[dict]:
        return [dict(r) for r in con.execute(f"SELECT * FROM {table}")]
    return await bot.store.run_read(read)


async def two_players(h: Harness) -> Table:
    table = Table(h)
    await table.open(h.user("ann"), [h.user("bob")], players=2)
    await h.settle()
    return table


def test_a_notice_nobody_can_tell_is_never_told_as_a_move(tmp_path, caplog):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=5)) as h:
            table = await two_players(h)
            bot = table.bot
            before = public(h)
            foreign = await outbox(bot, {"kind": "bogus", "from": 0, "to": 2}, table.game_id)
            broken = [await outbox(bot, body, table.game_id) for body in (
                {"kind": "move", "from": 0}, {"kind": "move", "from": 0, "to": "x"},
                {"kind": "remind", "decision": 3, "deadline": 1.0},
                {"kind": "move", "from": 2, "to": 1})]
            caplog.clear()
            with caplog.at_level(logging.WARNING):
                await bot.deliver_notices()
                await h.settle()
            assert public(h) == before  # nothing told again, nothing told as a move
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
            aside = {json.loads(r["data"])["id"]: r["reason"] for r in await rows(bot, "set_aside")}
            assert set(aside) == set(broken), aside
            assert all("notice without a usable" in why for why in aside.values())
            left = {r["id"]: r for r in await rows(bot, "outbox")}
            assert set(left) == {foreign}  # left for a release that knows the kind
            assert left[foreign]["attempts"] == 1 and left[foreign]["not_before"] > 0
            assert any("unknown to this release" in r.getMessage() for r in caplog.records)

            def due(con) -> None:  # its back-off over, after the last attempt
                con.execute("UPDATE outbox SET not_before=0, attempts=? WHERE id=?",
                            (announce.NOTICE_ATTEMPTS - 1, foreign))
            await bot.store.run_write(due)
            await bot.deliver_notices()
            await h.settle()
            assert public(h) == before and await rows(bot, "outbox") == []
            kept = [r for r in await rows(bot, "set_aside") if json.loads(r["data"])["id"] == foreign]
            assert len(kept) == 1 and "no process told" in kept[0]["reason"]
    asyncio.run(scenario())


def test_posts_whose_delivery_was_not_recorded_are_not_posted_again(tmp_path, monkeypatch):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=5)) as h:
            table = await two_players(h)
            bot = table.bot
            real = bot.store.delivered
            failing = {"left": 1}

            async def delivered(notice_id):
                if failing["left"]:
                    failing["left"] -= 1
                    raise StoreBusy("database is locked")
                return await real(notice_id)

            monkeypatch.setattr(bot.store, "delivered", delivered)
            await table.step(random.Random(2))  # a move: its posts go out, the record fails
            await h.settle()
            assert not failing["left"]
            told = public(h)
            assert len(await rows(bot, "outbox")) == 1

            def lease_over(con) -> None:
                con.execute("UPDATE outbox SET not_before=0")
            await bot.store.run_write(lease_over)
            await bot.deliver_notices()
            await h.settle()
            assert public(h) == told  # recorded, not posted again
            assert await rows(bot, "outbox") == []
    asyncio.run(scenario())
