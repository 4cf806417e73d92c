"""Issue 17 through the bot's harness: a game with AI seats posts its start message (Discord
takes it: only people are named as mentionable), and an AI's turn never waits for a
reminder — a store fault while its answer is committed is retried until it lands, and the
time-limit pass picks up any AI seat still waiting."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import pytest
from bot_driver import Clock, Table, make_bot
from harness import FakeUser, Harness

from store import Store


def public(h: Harness) -> list:
    return [m for m in h.messages() if not m.ephemeral and m.dm_user_id is None]


def start_posts(h: Harness) -> list:
    return [r for r in h.http.find("POST", "/channels/{channel_id}/messages")
            if "The game begins" in str((r.json or {}).get("content"))]


async def two_people_two_bots(h: Harness) -> tuple[Table, FakeUser, FakeUser]:
    """Ann's 4-seat game in #general with Bob and two random AI seats, started (the table
    knows its game: `table.game()` reads it)."""
    ann, bob = h.user("ann"), h.user("bob")
    table = Table(h)
    await h.slash(ann, "rr new", players=4)
    await h.click(bob, message=table.lobby_message(), label="Join")
    await h.slash(ann, "rr bot add", level="random", count=2)
    await h.click(ann, message=table.lobby_message(), label="Start")
    row, _ = await table.bot.service.tables.current(h.channel.id)
    table.game_id = row.id
    return table, ann, bob


def test_a_game_with_ai_seats_posts_its_start_message(tmp_path):
    """Issue 17 point 1: "🎲 The game begins! Seats: …" named the AI seats' negative ids in
    allowed_mentions.users, Discord answered 400 (50035) and the post was lost."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            table, ann, bob = await two_people_two_bots(h)
            sent = start_posts(h)
            assert [r.status for r in sent] == [200], [r.response for r in sent]
            body = sent[0].json
            assert body["allowed_mentions"]["users"] == [ann.id, bob.id]  # people only
            start = next(m for m in public(h) if "The game begins" in m.content)
            assert f"1. <@{ann.id}>, 2. <@{bob.id}>, 3. 🤖 Bot 1 (random), " \
                   "4. 🤖 Bot 2 (random)" in start.content
            assert "<@-" not in start.content
    asyncio.run(scenario())


class Locked(sqlite3.Connection):
    """The bot's SQLite file as another program holding its write lock makes it: the next
    `fail` writes meet "database is locked" at BEGIN."""

    fail: ClassVar[int] = 0
    met: ClassVar[int] = 0

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        if sql == "BEGIN IMMEDIATE" and Locked.fail > 0:
            Locked.fail -= 1
            Locked.met += 1
            raise sqlite3.OperationalError("database is locked")
        return super().execute(sql, *args)


def test_an_ais_answer_meeting_a_locked_database_is_posted_once_it_lands(tmp_path, monkeypatch,
                                                                         caplog):
    """Issue 17 point 2, through the bot: the game starts, then the AI's answer meets
    "database is locked" at BEGIN three times; it is retried (no reminder, no time passing
    on the game's clock), posted once, and Ann is asked — the AI logs no ERROR."""
    monkeypatch.setattr("cogs.bot.make_store", lambda db, **_pool: Store(db, factory=Locked))
    caplog.set_level(logging.INFO)

    async def scenario():
        Locked.fail = Locked.met = 0
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=30) as h:
            waits: list[float] = []

            async def fast(seconds: float) -> None:
                waits.append(seconds)
                await asyncio.sleep(0)
            h.bot.service.ai.sleep = fast
            store = h.bot.store
            real_commit = store.commit_actions
            ai_commits: list[str] = []

            async def lock_the_ais_first_three(game_id: int, version: int, entries: list,
                                               *a: Any, **kw: Any) -> Any:
                ai = all(user is None for _s, user, _t in entries) and entries[0][0] == 1
                if ai and len(ai_commits) < 3:
                    # Every write queued before this one (the start notice's delivery record,
                    # say) goes first, so the lock is met by this commit's BEGIN and not by
                    # theirs: the writer thread takes its jobs in order (a flake on a busy
                    # machine before).
                    await store.run_write(lambda con: None, bookkeeping=True)
                    Locked.fail += 1  # this commit's BEGIN meets another program's lock
                try:
                    done = await real_commit(game_id, version, entries, *a, **kw)
                except Exception as e:
                    ai_commits.append(type(e).__name__) if ai else None
                    raise
                ai_commits.append("landed") if ai else None
                return done
            store.commit_actions = lock_the_ais_first_three  # type: ignore[method-assign]
            ann = h.user("ann")
            table = Table(h)
            await h.slash(ann, "rr new", bots=1)
            res = await h.click(ann, message=table.lobby_message(), label="Start")
            assert "started" in res.text
            await h.settle()
            assert ai_commits[:4] == ["StoreBusy"] * 3 + ["landed"] and Locked.met == 3
            assert len(waits) == 3
            row, g = await table.bot.service.tables.current(h.channel.id)
            assert g.waiting_for() == [0]  # the AI placed; Ann is asked
            placed = [m for m in public(h) if "🤖 Bot 1 (random) placed" in m.content]
            assert len(placed) == 1
            assert any(f"<@{ann.id}>" in m.content for m in public(h)[-2:])  # her ping
            retries = [r for r in caplog.records if "retried in" in r.message]
            assert len(retries) == 3 and all(r.levelno == logging.WARNING and not r.exc_info
                                             for r in retries)
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    asyncio.run(scenario())


@contextlib.asynccontextmanager
async def ai_run_lost(h: Harness, monkeypatch: pytest.MonkeyPatch
                      ) -> AsyncIterator[tuple[Table, FakeUser]]:
    """Ann's game with one AI seat, started with the AI's runs switched off while inside
    (its trigger never runs: an AI answer lost in any way), so the AI's placement waits,
    never asked for. Yields the table and Ann."""
    ann = h.user("ann")
    table = Table(h)
    await h.slash(ann, "rr new", bots=1)
    with monkeypatch.context() as m:
        m.setattr("cogs.seats.AiRunner.kick", lambda self, channel_id: None)
        await h.click(ann, message=table.lobby_message(), label="Start")
        row, g = await table.bot.service.tables.current(h.channel.id)
        table.game_id = row.id
        assert 1 in g.waiting_for()  # the AI's placement, not asked for
        yield table, ann


def test_the_time_limit_pass_resumes_an_ai_seat_left_waiting(tmp_path, monkeypatch):
    """An AI's answer lost in any way (here: its trigger never ran) is given at the next
    time-limit pass, with no time passing — before, it waited for the seat's reminder at
    75 % of the time limit (18 hours by default)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            async with ai_run_lost(h, monkeypatch) as (table, _ann):
                pass
            await table.bot.tick_once()
            await h.settle()
            row, g = await table.game()
            assert g.waiting_for() == [0]
            assert any("🤖 Bot 1 (random) placed" in m.content for m in public(h))
            # no reminder went to anyone for it
            assert not any("Reminder" in m.content or "reminder" in m.content
                           for m in public(h))
    asyncio.run(scenario())


def test_an_answer_in_a_simultaneous_step_says_who_the_table_still_waits_for(tmp_path):
    """Initial placement (R4) asks every seat at once. Before, Ann's reply to her placement
    was only "✅ `place …`": nothing said the game now waited for Bob (and not for the AIs,
    which had placed already), so she could not tell whether it was stuck on her. Now it
    names the people still deciding (never an AI seat, nor the reader)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            table, ann, bob = await two_people_two_bots(h)
            await h.settle()
            row, g = await table.bot.service.tables.current(h.channel.id)
            assert g.waiting_for() == [0, 1]
            res = await table.slash(ann, "rr place", card="thief", square="2B")
            assert res.text.startswith("✅"), res.text
            assert res.text.splitlines()[-1] == "Waiting for Bob.", res.text
            assert "Bot" not in res.text
            res = await table.slash(bob, "rr place", card="thief", square="2B")
            assert res.text.startswith("✅") and "Waiting for Bob" not in res.text, res.text
            assert "Bot" not in res.text  # an AI asked next answers on its own: not named
    asyncio.run(scenario())
