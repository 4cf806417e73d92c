"""One broken game never hurts another (R15: a game is its setup + action log).

Three games run in three channels; the first one's rows are damaged on disk — unreadable
`meta` or `setup` JSON, a lost middle row of its action log, a lost last row — and the bot
is restarted on that file (or, for the time-limit pass, damaged under a running bot). The
damaged game must be quarantined: told once in its channel with what can be done, refused
clearly (never "Something went wrong") to every play command and button, never rewound,
still abandonable, and then the channel takes a new game; the other two keep playing and
keep timing out. A quarantine survives restarts and lifts once the rows are repaired.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from bot_driver import Clock, Table, make_bot
from harness import FakeChannel, Harness

from service.daily_slots import slot
from store import StoreBusy

HOUR = 3600
INTERNAL = "Something went wrong"
PAIRS = (("ann", "bob"), ("cat", "dan"), ("eve", "fay"))


def public(h: Harness, channel: FakeChannel) -> list:
    return [m for m in h.messages(channel) if not m.ephemeral and m.dm_user_id is None]


async def three_games(h: Harness) -> list[Table]:
    """Three 2-player games (1 h time limit), a few answers into each."""
    tables = []
    for k, (host, guest) in enumerate(PAIRS):
        table = Table(h, h.text_channel(f"table-{k}"))
        await table.open(h.user(host), [h.user(guest)], players=2, hours=1)
        rng = random.Random(k)
        for _ in range(4):
            await table.step(rng)
        tables.append(table)
    return tables


async def three_games_run(db: Path, clock: Clock, kept: dict[str, Any]) -> None:
    """A first run of the bot: `three_games`, their server, ids and channels in `kept`
    for the run after it (`tables_again`)."""
    async with Harness(lambda: make_bot(db, clock, seed=5)) as h:
        tables = await three_games(h)
        kept.update(server=h.server, ids=[t.game_id for t in tables],
                    channels=[t.channel for t in tables])


def tables_again(h: Harness, kept: dict[str, Any]) -> list[Table]:
    """`three_games_run`'s games, as a later run of the bot sees them."""
    tables = []
    for gid, ch in zip(kept["ids"], kept["channels"], strict=True):
        t = Table(h, ch)
        t.game_id = gid
        tables.append(t)
    return tables


def named(h: Harness, name: str):
    """A user created in an earlier life of the bot (same fake Discord)."""
    return next(u for u in h.server.users.values() if u.name == name)


def rows(db: Path, game_id: int) -> list[tuple]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT seq, seat, user_id, text, at FROM actions WHERE game_id=? "
                           "ORDER BY seq", (game_id,)).fetchall()


def damage(db: Path, game_id: int, kind: str) -> str:
    """Damage one game's rows as a disk or a hand edit would; returns what the channel
    must be told."""
    log = rows(db, game_id)
    with sqlite3.connect(db) as con:
        if kind == "meta":
            con.execute("UPDATE games SET meta='{\"lobby_message\": 1' WHERE id=?", (game_id,))
            return "its saved meta could not be read"
        if kind == "seats":  # the right shape, one seat short: the game has two players
            con.execute("UPDATE games SET seats=json_remove(seats, '$[1]') WHERE id=?",
                        (game_id,))
            return "its saved seats could not be read"
        if kind == "setup":
            con.execute("UPDATE games SET setup='[\"oops\"' WHERE id=?", (game_id,))
            return "its saved setup could not be read"
        if kind == "middle row":
            middle = len(log) // 2
            con.execute("DELETE FROM actions WHERE game_id=? AND seq=?", (game_id, middle))
            return f"action {middle} of its action log is missing"
        con.execute("DELETE FROM actions WHERE game_id=? AND seq=?", (game_id, len(log) - 1))
        return f"its action log has {len(log) - 1} actions but its saved state records {len(log)}"


async def refused_clearly(h: Harness, table: Table, host, guest) -> None:
    """Every way in answers with the quarantine, ephemerally, and changes nothing."""
    for user, command, options in ((host, "rr status", {}), (guest, "rr done", {}),
                                   (host, "rr board", {}), (guest, "rr log", {}),
                                   (host, "rr new", {}), (host, "rr settings", {"hours": 3}),
                                   (guest, "rr roll", {"choice": "keep"})):
        res = await table.slash(user, command, **options)
        assert res.ephemeral and "is damaged and set aside" in res.text, (command, res.text)
        assert "/rr abandon" in res.text and INTERNAL not in res.text
    # a button posted before the damage (a ping of the game) says the same
    for m in reversed(public(h, table.channel)):
        ids = [c.custom_id for c in m.buttons if c.custom_id and c.custom_id.startswith("rr:")
               and not c.custom_id.startswith("rr:lobby")]
        if ids:
            mention = m.content.split(">")[0] + ">"
            clicker = host if mention == host.mention else guest
            res = await h.click(clicker, ids[0], message=m)
            assert "is damaged and set aside" in res.text, res.text
            break
    else:
        raise AssertionError("no game button was posted in the damaged channel")


async def times_out(h: Harness, clock: Clock, tables: list[Table]) -> None:
    """Past the time limit, the healthy games get their default answers, told."""
    before = {t.channel.id: len(public(h, t.channel)) for t in tables}
    clock.now += 2 * HOUR
    made = await tables[0].bot.tick_once()
    assert made >= len(tables)
    for t in tables:
        said = [m.text for m in public(h, t.channel)[before[t.channel.id]:]]
        assert any("ran out of time" in s for s in said), said


# "seats" (the reliability audit): a seats list of the right shape but one seat short of
# the game's players was read as whole, and every post, log and ping of its missing seat
# raised IndexError (no time-out was ever told); it is now set aside like the others
@pytest.mark.parametrize("kind", ["meta", "setup", "seats", "middle row", "last row"])
def test_a_damaged_game_is_quarantined_and_the_others_play_on(tmp_path, kind):
    db, clock, kept = tmp_path / "g.db", Clock(), {}

    async def second_life(told: str, log_before: list):
        async with Harness(lambda: make_bot(db, clock, seed=6), server=kept["server"]) as h:
            tables = tables_again(h, kept)
            bad, good = tables[0], tables[1:]
            assert await bad.bot._verifier == 2  # the two healthy games verified
            notice = public(h, bad.channel)[-1]
            assert "is damaged and has been set aside" in notice.text and told in notice.text
            assert "/rr abandon" in notice.text and "restore the database" in notice.text
            host, guest = (named(h, n) for n in PAIRS[0])
            await refused_clearly(h, bad, host, guest)
            quiet = len(public(h, bad.channel))
            await times_out(h, clock, good)
            assert len(public(h, bad.channel)) == quiet  # never rewound, never timed out
            assert rows(db, bad.game_id) == log_before
            await good[0].step(random.Random(1))  # and they keep playing

    async def third_life():
        async with Harness(lambda: make_bot(db, clock, seed=7), server=kept["server"]) as h:
            bad = Table(h, kept["channels"][0])
            before = len(public(h, bad.channel))
            assert await bad.bot._verifier == 2
            assert len(public(h, bad.channel)) == before  # told once, not at every restart
            host, guest = (named(h, n) for n in PAIRS[0])
            res = await bad.slash(host, "rr status")
            assert "is damaged and set aside" in res.text  # the quarantine survived
            res = await bad.slash(guest, "rr abandon")
            assert "Only the host" in res.text
            res = await bad.slash(host, "rr abandon", confirm=True)
            assert res.ephemeral and "abandoned" in res.text, res.text
            assert "abandoned by Ann" in public(h, bad.channel)[-1].text
            res = await bad.slash(host, "rr new", players=2)
            assert res.ephemeral and "Players (1/2)" in res.text, res.text

    asyncio.run(three_games_run(db, clock, kept))
    told = damage(db, kept["ids"][0], kind)
    log_before = rows(db, kept["ids"][0])
    asyncio.run(second_life(told, log_before))
    asyncio.run(third_life())


def test_damage_found_by_the_time_limit_pass_and_a_failing_game_job_skip_only_that_game(
        tmp_path, monkeypatch):
    """The time-limit pass goes one game at a time: a game damaged under the running bot is
    quarantined when its timer comes due (and told), a game whose job hits a bug is logged
    and skipped, a game whose announcement fails keeps its committed answer — and every
    other game still times out. The ticker itself is a discord.ext.tasks loop that ran its
    first pass after startup verification and is stopped on close."""
    db, clock = tmp_path / "g.db", Clock()

    async def scenario():
        async with Harness(lambda: make_bot(db, clock, seed=5)) as h:
            bot = h.bot
            assert bot.ticker.is_running() and bot.tick_passes == 1
            tables = await three_games(h)
            damaged, buggy, fine = tables
            with sqlite3.connect(db) as con:
                con.execute("UPDATE games SET meta='{' WHERE id=?", (damaged.game_id,))
            real = bot.service.limits.tick_game

            async def tick_game(game_id, timers, now):
                if game_id == buggy.game_id:
                    raise RuntimeError("a bug in one game's job")
                return await real(game_id, timers, now)

            monkeypatch.setattr(bot.service.limits, "tick_game", tick_game)
            log_before = rows(db, damaged.game_id)
            await times_out(h, clock, [fine])
            notice = public(h, damaged.channel)[-1]
            assert "is damaged and has been set aside" in notice.text
            assert "its saved meta could not be read" in notice.text
            assert rows(db, damaged.game_id) == log_before
            assert not any("ran out of time" in m.text for m in public(h, buggy.channel))
            # the bug is gone; the announcer now fails for `fine` only: `buggy` still times
            # out, and `fine`'s answer is committed even though nobody could be told
            monkeypatch.setattr(bot.service.limits, "tick_game", real)
            publish = bot.announcer.publish

            async def failing(ann, **kw):
                if ann.game_id == fine.game_id:
                    raise RuntimeError("a bug while announcing")
                await publish(ann, **kw)

            monkeypatch.setattr(bot.announcer, "publish", failing)
            fine_log = rows(db, fine.game_id)
            await times_out(h, clock, [buggy])
            assert len(rows(db, fine.game_id)) > len(fine_log)
            # told in the reader's language
            res = await damaged.slash(h.user("jun", locale="ja"), "rr status")
            assert "保存データが壊れているため保留中" in res.text and "`/rr 中止`" in res.text
            # the damaged game's channel is still usable: abandon, then a new game
            host = named(h, PAIRS[0][0])
            res = await damaged.slash(host, "rr abandon", confirm=True)
            assert res.ephemeral and "abandoned" in res.text, res.text
            res = await damaged.slash(host, "rr new", players=2)
            assert "Players (1/2)" in res.text, res.text
            # a pass that fails as a whole is logged, and the loop keeps running
            monkeypatch.setattr(bot.service.limits, "due", None)
            await bot._tick_pass()
            assert bot.ticker.is_running() and bot.tick_passes == 2
        assert not bot.ticker.is_running()

    asyncio.run(scenario())


def test_a_busy_store_in_the_time_limit_pass_is_a_warning_and_the_next_pass_does_it(
        tmp_path, monkeypatch, caplog):
    """Issue 17 ("two processes"): a store that is busy or cut off during a game's time
    limits is expected — another process holds the write lock, the database restarts — so
    it is one WARNING line (no ERROR, no traceback) and the next pass times the game out."""
    db, clock = tmp_path / "g.db", Clock()

    async def scenario():
        async with Harness(lambda: make_bot(db, clock, seed=6)) as h:
            bot = h.bot
            tables = await three_games(h)
            real = bot.store.commit_actions
            busy = {"left": 1}

            async def commit_actions(*args, **kw):  # the time-out's own write meets it
                if busy["left"]:
                    busy["left"] -= 1
                    raise StoreBusy("database is locked")
                return await real(*args, **kw)

            monkeypatch.setattr(bot.store, "commit_actions", commit_actions)
            caplog.clear()
            clock.now += 2 * HOUR
            with caplog.at_level(logging.WARNING):
                await bot.tick_once()  # the first game's job meets a busy store
                await h.settle()
                told = [any("ran out of time" in m.text for m in public(h, t.channel))
                        for t in tables]
                assert told == [False, True, True]
                await bot.tick_once()  # the next pass does it
                await h.settle()
            assert any("ran out of time" in m.text for m in public(h, tables[0].channel))
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
            warned = [r for r in caplog.records if "wait for the next pass" in r.getMessage()]
            assert len(warned) == 1 and warned[0].exc_info is None

    asyncio.run(scenario())


def test_a_damaged_daily_game_is_told_in_its_players_dms(tmp_path):
    """The crash audit: a damaged daily game was set aside at startup, but the notice went
    to its slot (a negative key, no channel: Discord refused it) and the player, asking in
    their DMs, read of a channel, its host and `/rr abandon`. Now they are told in their
    DMs, in words about their daily game."""
    db, kept = tmp_path / "d.db", {}
    clock = Clock(dt.datetime(2026, 11, 23, 12, tzinfo=dt.UTC).timestamp())

    async def first_life():
        async with Harness(lambda: make_bot(db, clock, seed=5)) as h:
            ann = h.user("ann")
            res = await h.slash(ann, "rr daily play", channel=h.dm_channel(ann))
            assert "has started" in res.text, res.text
            row = await h.bot.store.open_game(slot(ann.id, True))
            kept.update(server=h.server, ann=ann, game=row.id)

    async def second_life():
        async with Harness(lambda: make_bot(db, clock, seed=6), server=kept["server"]) as h:
            ann = kept["ann"]
            await h.bot._verifier
            told = [m.text for m in h.dms(ann) if "set aside" in m.text]
            assert told and "Your daily challenge game" in told[-1], told
            res = await h.slash(ann, "rr status", channel=h.dm_channel(ann))
            assert res.ephemeral and "Your daily challenge game" in res.text, res.text
            assert "/rr abandon" not in res.text and "host" not in res.text

    asyncio.run(first_life())
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET setup='[\"oops\"' WHERE id=?", (kept["game"],))
    asyncio.run(second_life())


def test_a_game_of_an_unknown_status_is_named_at_startup(tmp_path, caplog):
    """The crash audit: a game row whose status a hand edit made 'weird' is read by no query
    (its channel says there is no game), and nothing said so. Every start now names it to
    the operator, with what to do; the bot starts and the channel can still be used."""
    db, clock, kept = tmp_path / "g.db", Clock(), {}

    async def first_life():
        async with Harness(lambda: make_bot(db, clock, seed=5)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2)
            kept.update(server=h.server, game=table.game_id, ann=ann)

    async def second_life():
        async with Harness(lambda: make_bot(db, clock, seed=6), server=kept["server"]) as h:
            await h.bot._verifier
            res = await h.slash(kept["ann"], "rr status")
            assert res.ephemeral and "There is no game here" in res.text, res.text

    asyncio.run(first_life())
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET status='weird' WHERE id=?", (kept["game"],))
    with caplog.at_level(logging.WARNING, logger="rr"):
        asyncio.run(second_life())
    named = [r.getMessage() for r in caplog.records if "unknown status" in r.getMessage()]
    assert named and f"game {kept['game']}" in named[0] and "'weird'" in named[0], named


def test_a_busy_or_unreachable_store_is_a_refusal_in_words_for_every_command(
        tmp_path, monkeypatch, caplog):
    """Fault injection (the database-fault audit): `/rr new` and the lobby's Join met a
    busy database with "Something went wrong" and an ERROR traceback, where a move got the
    busy refusal. Every command now says that nothing was changed and to try again, in the
    reader's words, ephemeral; the operator reads one WARNING line; nothing is stored."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3)) as h:
            bot = h.bot
            ann, ken = h.user("ann"), h.user("ken", locale="ja")
            table = Table(h)
            real = bot.store.create_lobby

            async def busy(*args, **kw):
                raise StoreBusy("database is locked")

            async def gone(*args, **kw):
                raise ConnectionRefusedError(111, "Connection refused")

            monkeypatch.setattr(bot.store, "faults", (*bot.store.faults, ConnectionRefusedError))
            for fault, user, words in ((busy, ann, "database is busy"),
                                       (gone, ken, "データベースに今つながりません")):
                monkeypatch.setattr(bot.store, "create_lobby", fault)
                caplog.clear()
                with caplog.at_level(logging.WARNING):
                    res = await table.slash(user, "rr new", players=2,
                                            expect_error=(StoreBusy, ConnectionRefusedError))
                assert res.ephemeral and words in res.text and "went wrong" not in res.text
                assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
                assert any("store failed" in r.getMessage() for r in caplog.records)
                assert await bot.store.latest_game(table.channel.id) is None
            monkeypatch.setattr(bot.store, "create_lobby", real)
            res = await table.slash(ann, "rr new", players=2)
            assert not res.text.startswith("⛔"), res.text  # once it clears, it works
    asyncio.run(scenario())


def test_a_wrong_typed_meta_entry_keeps_to_its_own_game(tmp_path):
    """The fault-injection audit: one game's meta holding `"timeouts": {"x": "y"}` (valid
    JSON, a wrong type) made its time-out announcement raise while it was worded, and the
    outbox sweep stopped there, for every game after it. Now that game reads no time-outs
    and is told like the others; a language the bot does not speak pings in English."""
    db, clock = tmp_path / "g.db", Clock()

    async def scenario():
        async with Harness(lambda: make_bot(db, clock, seed=5)) as h:
            tables = await three_games(h)
            with sqlite3.connect(db) as con:
                con.execute("UPDATE games SET meta=json_set(meta, '$.timeouts', "
                            "json('{\"x\": \"y\", \"1\": [2]}')) WHERE id=?",
                            (tables[0].game_id,))
                con.execute("UPDATE games SET settings=json_set(settings, '$.lang', 'zz') "
                            "WHERE id=?", (tables[1].game_id,))
            await times_out(h, clock, tables)
            assert not await h.bot.store.notices(clock() + 10 * HOUR)  # nothing left behind
            for t in tables[:2]:  # the next player of each is asked to move
                assert any("<@" in m.content for m in public(h, t.channel)[-3:])
    asyncio.run(scenario())


def test_a_damaged_database_page_is_said_in_words_and_the_operator_told(
        tmp_path, monkeypatch, caplog):
    """The fault-injection audit: a damaged page ("database disk image is malformed") got
    "Something went wrong… please try again", which never succeeds, and a bare traceback.
    It is now said to be damaged, with nothing changed, and the operator is told to restore
    the database."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3)) as h:
            bot = h.bot
            ann, ken = h.user("ann"), h.user("ken", locale="ja")
            table = Table(h)

            async def malformed(*args, **kw):
                raise sqlite3.DatabaseError("database disk image is malformed")

            monkeypatch.setattr(bot.store, "latest_game", malformed)
            for user, words in ((ann, "database is damaged"), (ken, "データベースの一部が壊れている")):
                caplog.clear()
                with caplog.at_level(logging.WARNING):
                    res = await table.slash(user, "rr status", expect_error=sqlite3.DatabaseError)
                assert res.ephemeral and words in res.text and "went wrong" not in res.text
                assert any("restore it from a backup" in r.getMessage()
                           for r in caplog.records if r.levelno == logging.ERROR)
    asyncio.run(scenario())


@pytest.mark.parametrize("players", ["json_remove(settings, '$.players')",
                                     "json_set(settings, '$.players', json('true'))",
                                     "json_set(settings, '$.players', 99)"])
def test_a_lobby_whose_seat_count_cannot_be_read_is_refused_in_words_and_abandoned(
        tmp_path, players):
    """The reliability audit: a lobby row whose settings lost `players` (or hold `true`, or
    99) was read as whole, and every Join raised KeyError ("Something went wrong", at every
    press, for good). Its lobby actions now answer with the quarantine's words; the host
    abandons it and opens a new one, and the other channel's lobby is untouched."""
    db = tmp_path / "g.db"

    async def scenario():
        async with Harness(lambda: make_bot(db)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            other = h.text_channel("other")
            assert "Players (1/2)" in (await h.slash(ann, "rr new", players=2)).text
            assert "Players (1/2)" in (await h.slash(ann, "rr new", channel=other,
                                                     players=2)).text
            with sqlite3.connect(db) as con:
                con.execute(f"UPDATE games SET settings={players} WHERE id=1")
            for user, command, options in ((bob, "rr lobby join", {}), (ann, "rr start", {}),
                                           (ann, "rr bot add", {"level": "random"})):
                res = await h.slash(user, command, **options)
                assert res.ephemeral and "is damaged and set aside" in res.text, \
                    (command, res.text)
                assert INTERNAL not in res.text
            lobby = next(m for m in h.messages() if not m.ephemeral and m.buttons)
            res = await h.click(bob, message=lobby, label="Join")
            assert "is damaged and set aside" in res.text and INTERNAL not in res.text
            assert "joined" in (await h.slash(bob, "rr lobby join", channel=other)).text
            await h.slash(ann, "rr abandon", confirm=True)
            assert "Players (1/2)" in (await h.slash(ann, "rr new", players=2)).text
    asyncio.run(scenario())


@pytest.mark.parametrize("entry", ["'$.hints', json('{\"0\": \"x\", \"1\": 2}')",
                                   "'$.hints', json('[1]')",
                                   "'$.hinted', json('[1]')",
                                   "'$.timeouts', json('{\"0\": 1e400, \"1\": 1e400}')"])
def test_a_damaged_hint_or_time_out_count_keeps_to_its_own_game(tmp_path, entry):
    """The reliability audit: the meta's hint counts were read with a bare int() (and
    `.items()`): `{"0": "x"}` or a list failed `/rr status`, `/rr log` and the game's end
    post of that game, and a hint given over it; a time-out count of 1e400 (infinity once
    read) failed the R15 default answer of that game at every pass, for good. A damaged
    entry now counts as none, as a wrong-typed time-out count already did."""
    db, clock = tmp_path / "g.db", Clock()

    async def scenario():
        async with Harness(lambda: make_bot(db, clock, seed=5)) as h:
            tables = await three_games(h)
            with sqlite3.connect(db) as con:
                con.execute(f"UPDATE games SET meta=json_set(meta, {entry}) WHERE id=?",
                            (tables[0].game_id,))
            ann = named(h, "ann")
            for command in ("rr status", "rr log", "rr bot hint"):
                res = await tables[0].slash(ann, command)
                assert res.text and INTERNAL not in res.text, (command, res.text)
            await times_out(h, clock, tables)
    asyncio.run(scenario())


def test_an_outbox_the_store_cannot_read_now_is_one_warning_not_a_traceback(tmp_path, caplog,
                                                                           monkeypatch):
    """The database restarting or busy while a pass reads the outbox: every tick logged an
    ERROR with a traceback, where every other pass says one line and waits (the PostgreSQL
    faults audit). Nothing is lost: the notices are read at the next pass."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=1)) as h:
            async def busy(*args, **kwargs):
                raise StoreBusy("database is locked")
            monkeypatch.setattr(h.bot.store, "notices", busy)
            caplog.clear()
            with caplog.at_level(logging.WARNING):
                assert await h.bot.deliver_notices() == 0
            assert "wait for the next pass" in caplog.text
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    asyncio.run(scenario())


@pytest.mark.parametrize("channel", ["'x'", "1e300"])
def test_a_game_whose_channel_id_is_damaged_is_set_aside_in_words_and_the_others_go_on(
        tmp_path, caplog, channel):
    """The fault-injection audit, one bad row: a game whose channel id SQLite keeps as text
    (or a REAL past any id) in its INTEGER column was read as whole and played on by the
    time-limit pass: each time-out committed, then its announcement raised ValueError
    (`int()` of the id) or posted to no snowflake — a traceback per pass, and a player's
    time-outs nobody could read. It is now set aside as damaged at startup, like a
    damaged server id, in one line for the operator (no channel to tell it in), and every
    other game still times out."""
    db, clock, kept = tmp_path / "g.db", Clock(), {}

    async def second_life():
        async with Harness(lambda: make_bot(db, clock, seed=6), server=kept["server"]) as h:
            tables = tables_again(h, kept)
            assert await tables[0].bot._verifier == 2
            await tables[0].bot._notifier
            log_before = rows(db, kept["ids"][0])
            await times_out(h, clock, tables[1:])
            assert rows(db, kept["ids"][0]) == log_before  # never timed out unseen
            assert await tables[0].bot.store.quarantined(kept["ids"][0]) is not None

    asyncio.run(three_games_run(db, clock, kept))
    with sqlite3.connect(db) as con:
        con.execute(f"UPDATE games SET channel_id={channel} WHERE id=?", (kept["ids"][0],))
    caplog.clear()
    asyncio.run(second_life())
    assert not [r.getMessage() for r in caplog.records if r.exc_info]


@pytest.mark.parametrize("reason", ['{"kind": "unreadable", "what": 5}',
                                    '{"kind": "unreadable", "what": null}',
                                    '{"kind": "unreadable", "what": "meta"}'])
def test_a_set_aside_game_whose_stored_reason_is_damaged_is_still_refused_in_words(tmp_path,
                                                                                   reason):
    """The second fault-injection pass, `quarantine.reason`: a reason whose list of what
    could not be read is not a list (a hand edit, an older shape) made the words of the
    refusal raise TypeError (joining a number), so every command in that channel, and a new
    game there, answered "Something went wrong". The reason reads as one whose what is
    unknown (logged once per read); the channel is still told it is set aside and how to
    free it, and the other game plays on."""
    db, clock, kept = tmp_path / "g.db", Clock(), {}

    async def second_life():
        async with Harness(lambda: make_bot(db, clock, seed=6), server=kept["server"]) as h:
            bad, good = tables_again(h, kept)[:2]
            assert await bad.bot._verifier == 2
            with sqlite3.connect(db) as con:
                con.execute("UPDATE quarantine SET reason=? WHERE game_id=?",
                            (reason, kept["ids"][0]))
            host, guest = (named(h, n) for n in PAIRS[0])
            for user, command, options in ((host, "rr status", {}), (guest, "rr log", {}),
                                           (host, "rr new", {"players": 2})):
                res = await bad.slash(user, command, **options)
                assert res.ephemeral and "is damaged and set aside" in res.text, res.text
                assert "/rr abandon" in res.text and INTERNAL not in res.text
                assert "m, e, t, a" not in res.text
            res = await bad.slash(host, "rr abandon", confirm=True)
            assert res.ephemeral and "abandoned" in res.text, res.text
            await good.step(random.Random(1))

    asyncio.run(three_games_run(db, clock, kept))
    damage(db, kept["ids"][0], "middle row")
    asyncio.run(second_life())


def test_a_reminder_in_a_game_whose_language_is_damaged_pings_in_english(tmp_path):
    """R15's reminder before a time limit runs out, in a game whose stored language is one
    the bot does not speak (a hand edit): its question is worded in the languages the bot
    speaks, and reading it in the stored one raised at every try, so the player was never
    reminded and the notice was dropped. It pings in English, as the move's ping does."""
    db, clock = tmp_path / "g.db", Clock()

    async def scenario():
        async with Harness(lambda: make_bot(db, clock, seed=5)) as h:
            tables = await three_games(h)
            with sqlite3.connect(db) as con:
                con.execute("UPDATE games SET settings=json_set(settings, '$.lang', 'zz') "
                            "WHERE id=?", (tables[0].game_id,))
            before = len(public(h, tables[0].channel))
            clock.now += 0.8 * HOUR  # past the reminder (75 % of the hour), not the limit
            await tables[0].bot.tick_once()
            await h.settle()
            said = [m.content for m in public(h, tables[0].channel)[before:]]
            assert any("⏰ <@" in s and "reminder" in s for s in said), said
            assert not await h.bot.store.notices(clock() + 10 * HOUR)  # nothing left behind
    asyncio.run(scenario())
