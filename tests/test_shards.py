"""Sharding inside one process (the multi-process behaviour: tests/test_shard_processes.py):
which process hosts which game, the settings that choose it, a refusal a Japanese player can
read, the day job gated by its lease, and a game read while another process commits."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import discord
import pytest
from bot_driver import Clock, Table, make_bot
from harness import Harness

import bot as entry
from cogs.daily_job import day_once
from cogs.leases import SAFETY, JobLease
from service import GameService, Quarantined
from service.refusals import words
from service.shards import NotOwner, Shards, parse_shards, shard_of
from store import GameRow, Store

ROOT = Path(__file__).resolve().parents[1]


def row(guild_id: int | None) -> GameRow:
    return GameRow(id=1, guild_id=guild_id, channel_id=2, status="active", host_id=3,
                   seats=[], settings={}, setup=None, state=None, version=1, meta={})


def test_discords_formula_puts_a_server_on_one_shard_and_only_its_process_hosts_it():
    guild = (1234567 << 22) | 99  # the low 22 bits (worker, increment) play no part
    assert shard_of(guild, 4) == 1234567 % 4 == 3
    mine, other = Shards(4, (2, 3)), Shards(4, (0, 1))
    assert mine.may_apply(row(guild)) and mine.runs_jobs(row(guild))
    assert not other.may_apply(row(guild)) and not other.runs_jobs(row(guild))
    with pytest.raises(NotOwner) as e:
        other.check(guild)
    assert e.value.code == "not_owner" and "shard 3 of 4" in e.value.message
    mine.check(guild)  # no refusal
    # a daily game (no server): any process answers it; shard 0's process times it
    assert mine.may_apply(row(None)) and other.may_apply(row(None))
    assert other.runs_jobs(row(None)) and not mine.runs_jobs(row(None))
    alone = Shards()  # one process without shard settings hosts everything
    assert alone.may_apply(row(guild)) and alone.runs_jobs(row(guild))
    assert alone.runs_jobs(row(None))


@pytest.mark.process
def test_shard_settings_are_checked_and_a_bad_one_stops_the_bot_with_one_line():
    assert parse_shards(None, None) == Shards()
    assert parse_shards("4", None) == Shards(4, (0, 1, 2, 3))
    assert parse_shards("8", "0,1, 5-6") == Shards(8, (0, 1, 5, 6))
    for count, ids, why in [("4", "4", "outside 0..3"), ("x", None, "whole number"),
                            (None, "0", "needs RR_SHARD_COUNT"), ("0", None, "between 1"),
                            ("4", "1-a", "not a shard id")]:
        with pytest.raises(ValueError, match=why):
            parse_shards(count, ids)
    config = entry.load_config({"RR_SHARD_COUNT": "4", "RR_SHARD_IDS": "2-3",
                                "RR_LEASE_SECONDS": "30"})
    assert (config.shard_count, config.shard_ids, config.lease_seconds) == (4, (2, 3), 30.0)
    done = subprocess.run([sys.executable, str(ROOT / "bot.py")], capture_output=True,
                          text=True, timeout=60, cwd=ROOT,
                          env={"PATH": "/usr/bin:/bin", "DISCORD_TOKEN": "x",
                               "RR_SHARD_COUNT": "2", "RR_SHARD_IDS": "2"})
    assert done.returncode == 2
    assert done.stderr.strip() == "bot.py: RR_SHARD_IDS: '2' is outside 0..1 (RR_SHARD_COUNT=2)"


def test_the_refusal_reads_in_japanese():
    ja = words(NotOwner(2, 4), "ja")
    assert "シャード2/4" in ja and "何も変更されていません" in ja


def test_a_process_refuses_a_server_it_does_not_host_and_changes_nothing(tmp_path):
    """A misrouted answer (shard settings that disagree between processes) is refused
    privately; the game, its lobby and the channel stay as they were."""
    db = tmp_path / "g.db"

    def bot_on(own: bool, guild: int) -> object:
        b = make_bot(db, Clock())
        home = shard_of(guild, 2)
        b.hosting = Shards(2, (home,) if own else (1 - home,))
        return b

    async def main() -> None:
        kept: dict[str, object] = {}
        async with Harness(lambda: make_bot(db, Clock())) as h:  # the host, alone
            ann = h.user("ann")
            kept.update(server=h.server, ann=ann)
            table = Table(h)
            game = await table.open(ann)
            for _ in range(3):
                await table.step(random.Random(1))
            before = await h.bot.store.get(game.id)  # type: ignore[attr-defined]
        server = kept["server"]
        async with Harness(lambda: bot_on(False, server.guild_id),  # type: ignore[attr-defined]
                           server=server) as h:
            ann = kept["ann"]
            res = await h.slash(ann, "rr done")  # type: ignore[arg-type]
            assert res.ephemeral and "hosted by another process of the bot" in res.text
            res = await h.slash(ann, "rr undo")  # type: ignore[arg-type]
            assert res.ephemeral and "hosted by another process" in res.text
            res = await h.slash(ann, "rr abandon")  # type: ignore[arg-type]
            assert res.ephemeral and "hosted by another process" in res.text
            status = await h.slash(ann, "rr status")  # type: ignore[arg-type]
            assert "hosted by another" not in status.text  # looking is not answering
            assert await h.bot.tick_once() == 0  # type: ignore[attr-defined]
            after = await h.bot.store.get(before.id)  # type: ignore[attr-defined]
            assert after is not None and after.version == before.version
            assert after.state == before.state and after.status == "active"
        async with Harness(lambda: bot_on(True, server.guild_id),  # type: ignore[attr-defined]
                           server=server) as h:
            res = await h.slash(kept["ann"], "rr done")  # type: ignore[arg-type]
            assert "hosted by another" not in res.text  # its host answers it
    asyncio.run(main())


def test_the_day_job_runs_only_in_the_process_holding_its_lease(tmp_path):
    async def main() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            bot = h.bot
            mod = h.user("mod", permissions=discord.Permissions(manage_guild=True))
            news = h.text_channel("news")
            await h.slash(mod, "rr daily settings", options={"channel": news})
            await bot.day_lease.release()  # as if another process had come first
            assert await bot.store.try_lease(bot.day_lease.name, "another-process", 60)
            await bot.daily.store.set_par(bot.daily.days.today().isoformat(), {})
            assert not await bot.day_lease.renew()
            for _ in range(3):  # its first pass only counts; the others find no lease
                await bot._day_pass()
            await h.settle()
            assert not [m for m in h.messages(news) if "Daily challenge" in m.text]
            await bot.store.release_lease(bot.day_lease.name, "another-process")
            assert await bot.day_lease.renew() and bot.day_lease.held
            await bot._day_pass()
            await h.settle()
            assert len([m for m in h.messages(news) if "Daily challenge" in m.text]) == 1
            # even a second run for the same day (a stalled holder) tells nothing again
            assert await day_once(bot) == {"announced": 0, "reminded": 0, "closed": 0}
    asyncio.run(main())


def test_a_lease_is_believed_for_less_than_the_database_keeps_it(db):
    async def main() -> None:
        store = await db.open()
        try:
            ttl = 0.8  # seconds: the test waits about this long (the database keeps it 0.2 s longer)
            a, b = JobLease(store, "job", ttl), JobLease(store, "job", ttl)
            assert a.holder != b.holder
            assert await a.renew() and a.held and not await b.renew()
            t0 = time.monotonic()
            while a.held:
                await asyncio.sleep(0.02)
            believed = time.monotonic() - t0
            assert believed <= ttl * SAFETY + 0.05
            assert not await b.renew()  # the database still has it: nobody else runs
            await asyncio.sleep(ttl * (1 - SAFETY) + 0.1)
            assert await b.renew() and b.held and b.taken == 1
            assert not await a.renew() and not a.held  # the old holder knows it lost it
            await b.release()
            assert await store.lease_holder("job") is None
        finally:
            await store.close()
    asyncio.run(main())


def test_a_game_read_while_another_process_commits_is_read_again_not_quarantined(tmp_path):
    """Sharded processes share the database: between this process's read of a game's row
    and of its log, another may commit a move. That is a stale row, not damage."""
    async def main() -> None:
        from store import Store

        a_store, b_store = await Store(str(tmp_path / "g.db")).open(), \
            await Store(str(tmp_path / "g.db")).open()
        a, b = GameService(a_store, seed_source=lambda: 3), GameService(b_store)
        try:
            await a.lobby.new_lobby(None, 5, 1, "Ann", players=1)
            await a.lobby.start(5, 1)
            stale = await b_store.latest_game(5)
            assert stale is not None
            _, g = await a.tables.current(5)
            seat = g.waiting_for()[0]
            await a.play.act(5, 1, str(g.legal_actions(seat)[0]))  # a's move lands
            game = await b.tables.load(stale)  # b read the row before it, the log after
            fresh = await b_store.get(stale.id)
            assert fresh is not None and game.to_json() == fresh.state
            assert await b_store.quarantined(stale.id) is None
            # real damage is still found: the last action row lost for good
            con = sqlite3.connect(tmp_path / "g.db")
            with con:
                con.execute("DELETE FROM actions WHERE game_id=? AND seq=(SELECT MAX(seq) "
                            "FROM actions WHERE game_id=?)", (stale.id, stale.id))
            con.close()
            b.tables.forget(stale.id)
            with pytest.raises(Quarantined):
                await b.tables.load(fresh)
        finally:
            await a_store.close()
            await b_store.close()
    asyncio.run(main())


@pytest.mark.parametrize("command", ["abandon", "time limit", "zombie", "hints"])
def test_every_host_command_is_refused_by_a_process_not_hosting_the_server(tmp_path, command):
    """The host's commands pass one gate (`Tables.hosted`: the open game, hosted here, the
    caller its host or a manager): a process whose shards do not include the server
    refuses each of them and changes nothing — the hints switch included, which was once
    written by any process."""
    async def main() -> None:
        guild = 5 << 22  # shard 1 of 2
        owner_store, other_store = await Store(str(tmp_path / "g.db")).open(), \
            await Store(str(tmp_path / "g.db")).open()
        owner, other = GameService(owner_store), GameService(other_store)
        owner.tables.shards = Shards(2, (shard_of(guild, 2),))
        other.tables.shards = Shards(2, (1 - shard_of(guild, 2),))
        try:
            row = await owner.lobby.new_lobby(guild, 9, 1, "Ann", players=2)
            calls = {
                "abandon": lambda: other.lobby.abandon(9, 1, can_manage=True),
                "time limit": lambda: other.limits.set_time_limit(9, 1, 3600, can_manage=True),
                "zombie": lambda: other.ai.set_zombie(9, 1, "random", can_manage=True),
                "hints": lambda: other.hints.set_hints(9, 1, False, can_manage=True),
            }
            with pytest.raises(NotOwner):
                await calls[command]()
            after = await owner_store.get(row.id)
            assert after is not None and after.status == "lobby"
            assert after.settings == row.settings and after.version == row.version
        finally:
            await owner_store.close()
            await other_store.close()
    asyncio.run(main())


def test_a_game_whose_server_id_cannot_be_read_is_set_aside_and_the_others_verified(tmp_path):
    """The reliability audit: under shard settings, a game whose stored guild_id was not a
    number (text SQLite kept in its INTEGER column) made the shard formula raise TypeError
    outside every per-game guard: the startup check stopped at it (no game after it was
    verified, nothing unsettled was settled) and each outbox sweep stopped too. The store
    now reads such an id as damage: the game is set aside (by the process that hosts
    games outside any server), and every other game is verified and plays on."""
    from test_bot_faults import public, three_games

    db = tmp_path / "g.db"

    def sharded() -> object:
        b = make_bot(db, Clock())
        b.hosting = Shards(2, (0, 1))
        return b

    async def main() -> None:
        kept: dict[str, object] = {}
        async with Harness(lambda: make_bot(db, Clock())) as h:
            tables = await three_games(h)
            kept.update(server=h.server, channels=[t.channel for t in tables],
                        ids=[t.game_id for t in tables])
        with sqlite3.connect(db) as con:
            con.execute("UPDATE games SET guild_id='x' WHERE id=?", (kept["ids"][0],))
        async with Harness(sharded, server=kept["server"]) as h:  # type: ignore[arg-type]
            bad = Table(h, kept["channels"][0])  # type: ignore[index]
            assert await bad.bot._verifier == 2  # type: ignore[attr-defined]
            assert "is damaged and has been set aside" in public(h, bad.channel)[-1].text
            assert await h.bot.deliver_notices() >= 0  # type: ignore[attr-defined]
    asyncio.run(main())
