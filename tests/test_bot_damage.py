"""Issue 17 through Discord (only the HTTP edge faked), on both store backends (`db`): one
damaged row stays its own row's problem — the leaderboard, the stats and the day's
announcements leave an unreadable daily score out instead of failing for everyone, a
server's announcement that could not be built is tried again at the next pass, and a
pending announcement beside an unreadable outbox row still goes out."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import random
import re

import discord
import pytest
from bot_driver import Clock, Table, finished_solo, make_bot
from conftest import Db
from harness import FakeUser, Harness

import cogs.delivery
import cogs.outbox
from cogs.daily_job import day_once
from service.daily_slots import slot
from store import GameRow

NOON = dt.datetime(2026, 11, 23, 12, tzinfo=dt.UTC).timestamp()
DAY = 24 * 3600
PAR = {"greedy": {"score": {"won": True, "rounds": 9, "fainted": 0, "marks": 1}, "trace": []}}
WON_IN = {7: {"won": True, "rounds": 7, "fainted": 0, "marks": 2},
          8: {"won": True, "rounds": 8, "fainted": 1, "marks": 0}}


def public(h: Harness, channel) -> list[str]:
    return [m.text for m in h.messages(channel) if not m.ephemeral]


def names(user) -> tuple[str, str]:
    """How a board may name a player: a mention or the name they played under."""
    return f"<@{user.id}>", user.name


def first(text: str, user) -> bool:
    """`user` holds the board's first place in `text`."""
    gold = [line for line in text.splitlines() if line.lstrip("*").startswith("🥇")]
    return len(gold) == 1 and any(n in gold[0] for n in names(user))


def absent(text: str, user) -> bool:
    return not any(n in line for line in text.splitlines() for n in names(user)
                   if line.lstrip("*")[:1] in "🥇🥈🥉123456789")


async def yesterday_of(h: Harness, clock: Clock, players: dict[str, int]) -> dict[str, object]:
    """Yesterday's ranked results of `players` (name → rounds won in), and a news channel."""
    users = {name: h.user(name) for name in players}
    host = h.bot.daily
    y = host.days.today().isoformat()
    for name, rounds in players.items():
        await host.store.claim(users[name].id, y, True, name, h.guild_id)
        await host.store.finish(users[name].id, y, True, "finished", WON_IN[rounds], None)
    news = h.text_channel("daily-news")
    mod = h.user("mod", permissions=discord.Permissions(manage_guild=True))
    await h.slash(mod, "rr daily settings", options={"channel": news})
    clock.now += DAY
    await host.store.set_par(host.days.today().isoformat(), PAR)
    return {"news": news, **users}


def test_an_unreadable_daily_score_is_left_out_and_the_day_is_still_announced(db):
    """Issue 17: one `daily_attempts.score` that is not JSON failed the server's day
    announcement after the "announced" flag was set (never retried), and `/rr daily
    leaderboard` answered "Something went wrong" to everyone who would see that row; the
    player's own `/rr daily stats` failed too. Now the row is left out (and logged)."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            got = await yesterday_of(h, clock, {"ann": 7, "bob": 8})
            ann, bob, news = got["ann"], got["bob"], got["news"]
            await db.sql("UPDATE daily_attempts SET score='{\"won\": tr' WHERE user_id=?",
                         bob.id)
            assert (await day_once(h.bot))["announced"] == 1
            (post,) = public(h, news)
            assert "Daily challenge #24" in post and first(post, ann) and absent(post, bob)
            board = await h.slash(bob, "rr daily leaderboard", date="2026-11-23")
            assert first(board.text, ann) and absent(board.text, bob), board.text
            assert "went wrong" not in board.text
            stats = await h.slash(bob, "rr daily stats")
            assert "went wrong" not in stats.text and stats.text, stats.text
            assert (await day_once(h.bot))["announced"] == 0  # told once
            assert len(public(h, news)) == 1
    asyncio.run(scenario())


def test_an_unreadable_finish_time_ranks_last_among_equals_and_the_day_is_announced(db):
    """The reliability audit: one `daily_attempts.finished_at` that is not a time (text in
    SQLite's REAL column; NaN in PostgreSQL's) beside an equal score failed the sort of
    the whole day's board (TypeError): no news for any server, and `/rr daily
    leaderboard` answered "Something went wrong" to everyone. Now that time reads as the
    end of time: the row is listed, last among its equals, and logged."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            got = await yesterday_of(h, clock, {"ann": 7, "bob": 7})
            ann, bob, news = got["ann"], got["bob"], got["news"]
            bad = "'NaN'" if db.pg else "'x'"
            await db.sql(f"UPDATE daily_attempts SET finished_at={bad} WHERE user_id=?", bob.id)
            assert (await day_once(h.bot))["announced"] == 1
            (post,) = public(h, news)
            assert "Daily challenge #24" in post and first(post, ann), post
            board = await h.slash(bob, "rr daily leaderboard", date="2026-11-23")
            assert "went wrong" not in board.text
            assert first(board.text, ann) and not absent(board.text, bob), board.text
    asyncio.run(scenario())


def test_an_announcement_that_could_not_be_built_is_tried_again(db):
    """Issue 17: the day's "announced" flag was taken before the announcements were built,
    so one that failed (here: the store unreachable while reading the podium) was never
    tried again. A server's announcement is now a daily outbox row, removed only once it
    was written and sent; a pass of the day job after its retry time tells it, once."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            got = await yesterday_of(h, clock, {"ann": 7})
            host = h.bot.daily
            real = host.board.leaderboard
            calls = {"n": 0}

            async def flaky(day, guild_id, *more):
                calls["n"] += 1
                if calls["n"] == 1:
                    raise ConnectionError("the database cannot be reached")
                return await real(day, guild_id, *more)

            host.board.leaderboard = flaky  # type: ignore[method-assign]
            assert (await day_once(h.bot))["announced"] == 0
            assert public(h, got["news"]) == []
            clock.now += 60  # past the first retry's wait (cogs/outbox.py NOTICE_RETRY_S)
            assert (await day_once(h.bot))["announced"] == 1
            (post,) = public(h, got["news"])
            assert first(post, got["ann"])
            assert (await day_once(h.bot))["announced"] == 0
            assert len(public(h, got["news"])) == 1
    asyncio.run(scenario())


def test_an_unreadable_par_is_computed_again_and_the_day_job_runs(db):
    """Issue 17: a `daily_days.par` that is not JSON made every pass of the day job raise
    at its first step, so no day was closed, announced or reminded again. It is now read
    as unknown (and logged), played again by the AI and stored over the damaged text."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            got = await yesterday_of(h, clock, {"ann": 7})
            today = h.bot.daily.days.today().isoformat()
            await db.sql("UPDATE daily_days SET par='{\"greedy\": {\"sco' WHERE day=?", today)
            assert (await day_once(h.bot))["announced"] == 1
            (post,) = public(h, got["news"])
            assert first(post, got["ann"])
            par = await h.bot.daily.store.par(today)
            assert par is not None and set(par) == {"random"}  # played again, readable
    asyncio.run(scenario())


def test_a_damaged_daily_server_or_reminder_row_is_that_rows_problem(db):
    """Issue 17 (daily tables): a server's news channel, or a player's reminder channel,
    stored as something that is no channel id (on SQLite the day job raised and reminded
    nobody after it). That row is skipped with a WARNING (nothing Discord would refuse is
    sent), the other server is still announced and the other player still reminded."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            got = await yesterday_of(h, clock, {"ann": 7, "bob": 8})
            ann, bob = got["ann"], got["bob"]
            for user in (ann, bob):
                await h.slash(user, "rr daily settings", reminder=True)
            bad = "'garbage'" if not db.pg else "-1"
            await db.sql(f"UPDATE daily_reminders SET channel_id={bad} WHERE user_id=?", ann.id)
            await db.sql(f"INSERT INTO daily_guilds VALUES (?, {bad}, 'en')", h.guild_id + 1)
            clock.now += 9 * 3600  # 21:00 UTC: within the reminder window
            sent = await day_once(h.bot)
            assert sent["announced"] == 1 and sent["reminded"] == 1, sent
            assert [m for m in h.messages(h.dm_channel(bob)) if "streak" in m.text]
    asyncio.run(scenario())


@pytest.mark.parametrize("day", ["x", "2026-13-45", ""])
def test_a_daily_outbox_row_whose_day_is_no_date_is_dropped_in_one_line(db, caplog, day):
    """The second fault-injection pass, `daily_outbox.day`: a row whose day is no date
    (a hand edit) raised while its words were written, logged a traceback at every pass and
    was tried twelve times over half a day before it was dropped. It names no challenge any
    player could be told about: it is dropped at its first pass in one warning line, and the
    rows beside it (the server's news, a player's reminder) go out as before."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            got = await yesterday_of(h, clock, {"ann": 7, "bob": 8})
            ann, bob = got["ann"], got["bob"]
            await h.slash(bob, "rr daily settings", reminder=True)
            await db.sql("INSERT INTO daily_outbox (kind, day, target, channel_id, lang,"
                         " not_before, created_at) VALUES ('time_up', ?, ?, ?, 'en', 0, 0)",
                         day, ann.id, h.dm_channel(ann).id)
            clock.now += 9 * 3600  # 21:00 UTC: within the reminder window
            with caplog.at_level("WARNING"):
                sent = await day_once(h.bot)
            assert sent["announced"] == 1 and sent["reminded"] == 1, sent
            assert [m for m in h.messages(h.dm_channel(bob)) if "streak" in m.text]
            assert await db.sql("SELECT kind FROM daily_outbox") == []  # dropped, not retried
            assert not [r for r in caplog.records if r.exc_info or r.levelno >= 40]
            assert f"its day {day!r} is no date" in caplog.text
            assert not [m for m in h.messages(h.dm_channel(ann)) if "ended" in m.text]
    asyncio.run(scenario())


def test_a_pending_announcement_beside_an_unreadable_outbox_row_still_goes_out(db, monkeypatch):
    """Issue 17: one outbox row whose body was not JSON made every sweep of the outbox
    fail, so no game's pending announcement ever went out again. Two games' moves wait in
    the outbox (Discord refused them); one row is damaged; when Discord is back, the other
    game's move is told, and the damaged row is set aside, not retried for ever."""
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))
    monkeypatch.setattr(cogs.outbox, "NOTICE_RETRY_S", (0.0,))

    async def scenario():
        async with Harness(lambda: make_bot(db.url, Clock(), seed=6)) as h:
            tables = [Table(h), Table(h, h.text_channel("second"))]
            await tables[0].open(h.user("ann"), [h.user("bob")], players=2)
            await tables[1].open(h.user("cat"), [h.user("dan")], players=2)
            down = {"on": True}
            h.http.fail("POST", "/channels/{channel_id}/messages", status=503, times=None,
                        when=lambda request: down["on"])
            told = [len(h.messages(t.channel)) for t in tables]
            rng = random.Random(3)
            for t in tables:
                await t.step(rng)
            pending = {n.game_id: n for n in await h.bot.store.notices()}
            assert set(pending) == {t.game_id for t in tables}
            await db.sql("UPDATE outbox SET body='not json' WHERE id=?",
                         pending[tables[0].game_id].id)
            down["on"] = False
            await h.bot.tick_once()
            await h.settle()
            assert [m for m in h.messages(tables[1].channel)[told[1]:] if not m.ephemeral]
            assert await h.bot.store.notices() == []
            assert await db.sql("SELECT game_id FROM set_aside") == [(tables[0].game_id,)]
    asyncio.run(scenario())


def test_status_after_a_restart_with_a_wrong_timer_shows_a_real_deadline(db):
    """Issue 17: a timer row for a seat and decision the game does not have made `/rr status` show
    the waiting player's deadline as <t:0> (1970) after a restart, and nobody timed out.
    Startup verification now rebuilds the timers from the game: a real deadline within the
    channel's limit, and the player runs out of time when it passes (R15)."""
    clock, kept = Clock(), {}

    async def first_life():
        async with Harness(lambda: make_bot(db.url, clock, seed=5)) as h:
            table = Table(h)
            await table.open(h.user("ann"), [h.user("bob")], players=2)
            kept.update(server=h.server, game_id=table.game_id)

    async def second_life():
        await db.sql("UPDATE timers SET seat=seat+7, decision_id=decision_id+999")
        async with Harness(lambda: make_bot(db.url, clock, seed=6), server=kept["server"]) as h:
            assert await h.bot._verifier == 1
            status = await h.slash(h.user("ann"), "rr status")
            assert "<t:0:" not in status.text, status.text
            stamps = [int(x) for x in re.findall(r"<t:(\d+):f>", status.text)]
            assert stamps and all(clock.now < ts <= clock.now + DAY for ts in stamps), stamps
            before = len(public(h, h.channel))
            clock.now += 2 * DAY
            assert await h.bot.tick_once() >= 1
            assert any("ran out of time" in m for m in public(h, h.channel)[before:])

    asyncio.run(first_life())
    asyncio.run(second_life())


def test_a_damaged_share_line_is_left_out_of_stats(db):
    """Issue 17 (daily tables): a stored share line whose parameters cannot be read made
    `/rr daily stats` answer "Something went wrong"; now the stats answer, without it."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            ann = h.user("ann")
            day = h.bot.daily.days.today().isoformat()
            await h.bot.daily.store.claim(ann.id, day, True, "ann", h.guild_id)
            await h.bot.daily.store.finish(ann.id, day, True, "finished", WON_IN[7], '{"no": 1}')
            stats = await h.slash(ann, "rr daily stats")
            assert "went wrong" not in stats.text and "1" in stats.text, stats.text
    asyncio.run(scenario())


async def _ranked_daily(h: Harness, user: FakeUser) -> GameRow:
    """`user`'s ranked daily game of today, begun (the day's par known, so none is played)."""
    await h.bot.daily.store.set_par(h.bot.daily.days.today().isoformat(), PAR)
    await h.slash(user, "rr daily play")
    row = await h.bot.store.open_game(slot(user.id, True))
    assert row is not None
    return row


async def _played_out(h: Harness, user: FakeUser, row: GameRow) -> str:
    """`user`'s daily game `row` played to its end in their DM: the result posts' words."""
    table = Table(h, h.dm_channel(user))
    table.game_id = row.id
    await table.play(random.Random(2))
    return "\n".join(m.text for m in h.messages(h.dm_channel(user)) if "```" in m.text)


async def _no_day_daily(h: Harness, db: Db, user: FakeUser) -> GameRow:
    """`user`'s ranked daily game of today, begun, whose record's day is no date."""
    row = await _ranked_daily(h, user)
    settings = {**row.settings, "daily": {**row.settings["daily"], "day": "garbage"}}
    await db.sql("UPDATE games SET settings=? WHERE id=?", json.dumps(settings), row.id)
    h.bot.service.tables.forget(row.id)
    return row


def test_a_daily_game_whose_day_is_damaged_still_plays_and_the_others_too(db):
    """The robustness audit: a ranked daily game whose stored record names a day that is
    no date made the overdue check raise, so every command in that player's DMs (a move,
    `/rr daily play`, resign) failed with an error, for good. The game now plays on and
    resumes; the day's close (which goes by the attempt's own day) still ends it. Its
    review, whose day cannot be known closed, is refused in words (it raised ValueError)."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            ann = h.user("ann")
            row = await _no_day_daily(h, db, ann)
            again = await h.slash(ann, "rr daily play")
            assert "goes on" in again.text, again.text
            status = await h.slash(ann, "rr status", channel=h.dm_channel(ann))
            assert "no daily game" not in status.text.lower(), status.text
            clock.now += DAY  # the day's close ends it by the attempt's day
            await day_once(h.bot)
            att = await h.bot.daily.store.attempt(ann.id, "2026-11-23", True)
            assert att is not None and att.status == "unfinished"
            assert (await h.bot.store.get(row.id)).status != "active"
            review = await h.slash(ann, "rr-learn review", game=row.id,
                                   channel=h.dm_channel(ann))
            assert review.ephemeral and "damaged" in review.text, review.text
    asyncio.run(scenario())


def test_a_daily_game_whose_day_is_damaged_is_still_scored_when_won_or_lost(db):
    """The fault-injection audit: a daily game whose record's day is no date and that its
    player finished was never scored: scoring raised ValueError at every pass (logged as
    a damaged record), no result was posted, and the day's close ended the played game
    "unfinished". It is scored under its attempt's own day, and the result is posted."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            ann = h.user("ann")
            row = await _no_day_daily(h, db, ann)
            told = await _played_out(h, ann, row)
            assert "Rook & Raiders #23" in told, told
            att = await h.bot.daily.store.attempt(ann.id, "2026-11-23", True)
            assert att is not None and att.status == "finished" and att.score is not None
    asyncio.run(scenario())


@pytest.mark.parametrize("damage", ["x", None])  # None: the key is gone
@pytest.mark.parametrize("end", ["resign", "play"])
def test_a_daily_game_whose_challenge_number_is_damaged_can_be_resigned_and_scored(db, damage,
                                                                                   end):
    """The robustness audit: a daily game whose record lost its challenge number (or holds
    one that is no count) made resigning raise — the player saw an error and could not
    give the day up — and a finished one could not be scored: no result was posted and
    it ended the day "unfinished". Both now use the day's own number (#23 here)."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            ann = h.user("ann")
            row = await _ranked_daily(h, ann)
            record = dict(row.settings["daily"])
            if damage is None:
                del record["number"]
            else:
                record["number"] = damage
            settings = {**row.settings, "daily": record}
            await db.sql("UPDATE games SET settings=? WHERE id=?", json.dumps(settings), row.id)
            if end == "resign":
                told = (await h.slash(ann, "rr daily resign", confirm=True)).text
            else:
                told = await _played_out(h, ann, row)
            assert "Rook & Raiders #23" in told, told
            att = await h.bot.daily.store.attempt(ann.id, "2026-11-23", True)
            assert att is not None and att.status == "finished" and att.score is not None
    asyncio.run(scenario())


def test_a_ranked_daily_attempt_whose_status_is_damaged_plays_on_until_the_day_ends_it(db):
    """The fault-injection audit: today's ranked attempt whose stored status is none of
    playing / finished / unfinished told its player "done today" while the game itself
    stayed open, and the day's close (which ends the attempts still playing) never ended
    it. An attempt is over only once it says so: the player's game goes on, and the
    day's close ends it unfinished, its game with it."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            ann = h.user("ann")
            row = await _ranked_daily(h, ann)
            await db.sql("UPDATE daily_attempts SET status='x' WHERE user_id=?", ann.id)
            again = await h.slash(ann, "rr daily play")
            assert "goes on" in again.text, again.text
            clock.now += DAY
            await day_once(h.bot)
            att = await h.bot.daily.store.attempt(ann.id, "2026-11-23", True)
            assert att is not None and att.status == "unfinished"
            assert (await h.bot.store.get(row.id)).status != "active"
    asyncio.run(scenario())


@pytest.mark.parametrize("over", [True, False])  # False: claimed, its game never made
def test_a_ranked_attempt_whose_ranked_flag_is_damaged_still_takes_the_days_one_try(db, over):
    """The fault-injection audit: a ranked attempt whose stored `ranked` is neither 0 nor 1
    (text in SQLite, which its unique key tells apart from 1; any other number in
    PostgreSQL) no longer counted as the day's ranked attempt, so `/rr daily play` gave its
    player a second ranked try of the same day. The claim now refuses it, and a player whose
    day is over is told so."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            ann = h.user("ann")
            day = h.bot.daily.days.today().isoformat()
            if over:
                await _ranked_daily(h, ann)
                await h.slash(ann, "rr daily resign", confirm=True)
            else:
                await h.bot.daily.store.set_par(day, PAR)
                await h.bot.daily.store.claim(ann.id, day, True, "ann", h.guild_id)
            await db.sql("UPDATE daily_attempts SET ranked=? WHERE user_id=?",
                         2 if db.pg else "x", ann.id)
            again = await h.slash(ann, "rr daily play")
            assert ("played today's ranked challenge already" if over else "already") \
                in again.text, again.text
            assert await h.bot.store.open_game(slot(ann.id, True)) is None
            assert (await h.bot.daily.store.claim(ann.id, day, True, "ann", None)) is None
    asyncio.run(scenario())


def test_a_solo_lobby_whose_level_is_damaged_is_refused_in_words_and_abandoned(db):
    """The fault-injection audit: a solo lobby whose stored level is text no release offers
    could never start: Start raised KeyError ("Something went wrong", at every press). It
    is now refused with the quarantine's words; the host abandons it and opens a new one."""
    async def scenario():
        async with Harness(lambda: make_bot(db.url)) as h:
            ann = h.user("ann")
            await h.slash(ann, "rr new", players=1, difficulty="hard")
            row = await h.bot.store.open_game(h.channel.id)
            settings = {**row.settings, "difficulty": "harder"}
            await db.sql("UPDATE games SET settings=? WHERE id=?", json.dumps(settings), row.id)
            res = await h.slash(ann, "rr start")
            assert res.ephemeral and "is damaged and set aside" in res.text, res.text
            await h.slash(ann, "rr abandon", confirm=True)
            await h.slash(ann, "rr new", players=1, difficulty="hard")
            assert "game has started" in (await h.slash(ann, "rr start")).text
    asyncio.run(scenario())


@pytest.mark.parametrize("end", ["close", "finish", "finish-record"])
def test_a_ranked_attempt_whose_ranked_flag_is_damaged_is_still_ended_and_scored(db, end):
    """The fault-injection audit: a ranked attempt still playing whose stored `ranked`
    became neither 0 nor 1 resumed (it counts as the day's ranked attempt), but every write
    that closes an attempt looked for `ranked=1`: finishing the game scored nothing (no
    result, retried at every pass), and the day's close left the attempt and its game open
    for good. Both now close the ranked attempt whose flag is damaged. So is one whose
    game's record lost its flag (`finish-record`: scoring raised KeyError, every pass)."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            ann = h.user("ann")
            row = await _ranked_daily(h, ann)
            if end == "finish-record":
                record = dict(row.settings["daily"])
                del record["ranked"]
                await db.sql("UPDATE games SET settings=? WHERE id=?",
                             json.dumps({**row.settings, "daily": record}), row.id)
                h.bot.service.tables.forget(row.id)
            else:
                await db.sql("UPDATE daily_attempts SET ranked=? WHERE user_id=?",
                             2 if db.pg else "x", ann.id)
            if end == "close":
                clock.now += DAY
                await day_once(h.bot)
                want = "unfinished"
            else:
                told = await _played_out(h, ann, row)
                assert "Rook & Raiders #23" in told, told
                want = "finished"
            att = await h.bot.daily.store.attempt(ann.id, "2026-11-23", True)
            assert att is not None and att.status == want, att
            assert (await h.bot.store.get(row.id)).status != "active"
            assert await h.bot.daily.store.playing() == []
    asyncio.run(scenario())


def test_a_finished_game_whose_seats_are_damaged_is_refused_its_review_as_damaged(db):
    """The fault-injection audit: a finished game whose seat list could not be read was
    checked for people's seats before it was verified, so its review said nobody played it
    ('no player to review'), where every other command says the record is damaged. The
    review now refuses a damaged record as damaged first."""
    async def scenario():
        async with Harness(lambda: make_bot(db.url, Clock(NOON)), settle_timeout=600) as h:
            ann = h.user("ann")
            _table, row, _g = await finished_solo(h, ann)
            await db.sql("UPDATE games SET seats=? WHERE id=?", json.dumps(["x"]), row.id)
            h.bot.service.tables.forget(row.id)
            review = await h.slash(ann, "rr-learn review", game=row.id)
            assert review.ephemeral and "damaged" in review.text, review.text
    asyncio.run(scenario())
