"""The daily challenge's tables, on both backends and with two processes sharing one
database: one ranked attempt a day per user whichever process claims it, practice that
replaces the day's old practice, the "everyone" leaderboard as one table and each server's
as its members, day flags and reminders taken once."""

from __future__ import annotations

import asyncio

from conftest import Db

from store import daily_store

EVER = float("inf")


async def _two(db):
    """Two bot processes: each its own store on the same database. The writes race for the
    lock on purpose; what is checked is that each is taken once, not how soon a busy lock
    is refused (tests/test_sqlite_processes.py), so a loaded machine's slow holder waits."""
    a, b = await db.open(busy_s=5.0), await db.open(busy_s=5.0)
    return a, b, await daily_store(a).open(), await daily_store(b).open()


def test_one_ranked_attempt_a_day_whichever_process_claims(db):
    async def main():
        a, b, da, dbb = await _two(db)
        got = await asyncio.gather(*(d.claim(7, "2026-11-23", True, "Ann", g)
                                     for d, g in ((da, 1), (dbb, 2), (da, 3), (dbb, 4))))
        assert sum(x is not None for x in got) == 1
        assert await dbb.claim(7, "2026-11-23", True, "Ann", 5) is None  # later: still none
        # practice replaces the day's old practice
        first = await da.claim(7, "2026-11-23", False, "Ann", 1)
        await da.set_game(7, "2026-11-23", False, 99)
        await da.finish(7, "2026-11-23", False, "finished", {"points": 3}, "share")
        again = await dbb.claim(7, "2026-11-23", False, "Ann B", 1)
        assert first is not None and again is not None
        assert (again.name, again.status, again.game_id, again.score) == \
            ("Ann B", "playing", None, None)
        for s in (a, b):
            await s.close()
    asyncio.run(main())


def test_everyone_leaderboard_is_one_table_and_servers_see_their_members(db):
    async def main():
        a, b, da, dbb = await _two(db)
        day = "2026-11-23"
        for d, user, guild, points in ((da, 1, 100, 5), (dbb, 2, 200, 7), (da, 3, None, 1)):
            assert await d.claim(user, day, True, f"u{user}", guild)
            assert await d.finish(user, day, True, "finished", {"points": points}, f"s{user}")
        assert not await dbb.finish(1, day, True, "finished", {"points": 9}, "again")  # once
        await dbb.seen_in(100, 2)  # user 2 also plays in server 100
        everyone = {x.user_id: x.score for x in await da.results(day)}
        assert everyone == {1: {"points": 5}, 2: {"points": 7}, 3: {"points": 1}}
        assert {x.user_id for x in await dbb.results(day, 100)} == {1, 2}
        assert {x.user_id for x in await da.results(day, 200)} == {2}
        assert [x.day for x in await dbb.history(1)] == [day]
        for s in (a, b):
            await s.close()
    asyncio.run(main())


def test_day_flags_par_settings_secret_and_reminders_once_across_processes(db):
    async def main():
        a, b, da, dbb = await _two(db)
        flags = await asyncio.gather(da.take_day_flag("2026-11-24", "announced"),
                                     dbb.take_day_flag("2026-11-24", "announced"))
        assert sorted(flags) == [False, True]
        assert await da.take_day_flag("2026-11-24", "closed")
        assert await da.secret(b"\x01" * 4) == await dbb.secret(b"\x02" * 4) == b"\x01" * 4
        await da.set_par("2026-11-24", {"easy": {"points": 2}})
        assert await dbb.par("2026-11-24") == {"easy": {"points": 2}}
        await da.set_guild_channel(100, 555, "ja")
        await dbb.set_guild_channel(100, 556, "en")
        await da.set_guild_channel(200, None, "en")
        # one server's channel, as the other process set it last; none set or unset: None
        assert await da.guild_channel(100) == 556
        assert await dbb.guild_channel(200) is None and await da.guild_channel(300) is None
        # user 1 finished yesterday (streak alive), user 2 did not, user 3 opted out again
        for user in (1, 2, 3):
            await da.set_reminder(user, 900 + user)
        await da.set_reminder(3, None)
        for user in (1, 3):
            await da.claim(user, "2026-11-23", True, "u", None)
            await da.finish(user, "2026-11-23", True, "finished", {"points": 1}, "s")
        due = await asyncio.gather(da.reminders_due("2026-11-24"),
                                   dbb.reminders_due("2026-11-24"))
        assert sorted(due[0] + due[1]) == [(1, 901)]  # once, across both processes
        assert await da.reminders_due("2026-11-24") == []
        for s in (a, b):
            await s.close()
    asyncio.run(main())


def test_daily_outbox_queues_once_holds_once_and_keeps_a_row_until_it_is_sent(db):
    """Issue 18: a day's news and a streak reminder are queued in the transaction that
    takes their one-time flag (never lost, never queued twice, whichever process runs the
    day job), a row is taken by one delivery at a time, and it stays — counted, with its
    retry time — until Discord took it. Reminders come at each player's hour, and keep the
    language they were set in."""
    async def main():
        a, b, da, dbb = await _two(db)
        day, now = "2026-11-24", 1000.0
        await da.set_guild_channel(100, 555, "ja")
        await da.set_guild_channel(200, 556, "en")
        queued = await asyncio.gather(da.queue_news(day, now), dbb.queue_news(day, now))
        assert sorted(queued) == [0, 2]  # once, across both processes
        rows = await dbb.daily_notices(now)
        assert [(n.kind, n.target, n.channel_id, n.lang) for n in rows] == \
            [("news", 100, 555, "ja"), ("news", 200, 556, "en")]
        first, second = rows[0].id, rows[1].id
        taken = await asyncio.gather(da.take_notices(now), dbb.take_notices(now))
        assert sorted(n.id for got in taken for n in got) == [first, second]  # each once
        assert await da.take_notices(now + 599) == []  # held by that delivery
        await da.notice_retry(first, now + 30)  # Discord could not take it: later
        await dbb.notice_sent(second)  # Discord took this one
        assert await da.take_notices(now + 29) == []
        again = await dbb.take_notices(now + 30)
        assert [(n.id, n.attempts) for n in again] == [(first, 1)]
        await dbb.notice_sent(first)
        assert await da.daily_notices(EVER) == []
        # reminders: user 1 at 06:00 UTC in Japanese, user 2 at the default hour (20:00)
        for user in (1, 2):
            await da.claim(user, "2026-11-23", True, "u", None)
            await da.finish(user, "2026-11-23", True, "finished", {"points": 1}, "s")
        await da.set_reminder(1, 901, "ja", 6)
        await da.set_reminder(2, 902)
        await da.set_reminder(1, 911)  # a new DM keeps the stored hour and language
        assert await dbb.reminder(1) == (911, "ja", 6)
        assert await dbb.reminder(2) == (902, None, 20)
        assert await da.queue_reminders(day, 5, now) == 0
        due = await asyncio.gather(da.queue_reminders(day, 6, now),
                                   dbb.queue_reminders(day, 6, now))
        assert sorted(due) == [0, 1]
        assert await da.queue_reminders(day, 21, now) == 1  # user 2's hour has come too
        assert await dbb.queue_reminders(day, 23, now) == 0  # each once a day
        rem = [(n.target, n.channel_id, n.lang) for n in await da.daily_notices(now)
               if n.kind == "reminder"]
        assert rem == [(1, 911, "ja"), (2, 902, None)]
        for s in (a, b):
            await s.close()
    asyncio.run(main())


def test_the_first_par_stored_is_the_day_s_whichever_process_computed_it(db):
    """Two processes computing one day's par at once (the multi-process audit): the last
    writer used to win, and players were compared with different pars on one day. Now the
    first stored stays and both get it back; a damaged stored par is written over."""
    async def main():
        a, b, da, dbb = await _two(db)
        first = {"greedy": {"score": {"won": True, "rounds": 9}}}
        second = {"greedy": {"score": {"won": False, "rounds": 12}}}
        assert await da.keep_par("2026-11-25", first) == first
        assert await dbb.keep_par("2026-11-25", second) == first
        assert await da.par("2026-11-25") == first
        await db.sql("UPDATE daily_days SET par='{\"greedy' WHERE day='2026-11-26'")
        await da.take_day_flag("2026-11-26", "announced")  # a day row with no par yet
        assert await dbb.keep_par("2026-11-26", second) == second
        await db.sql("UPDATE daily_days SET par='{\"greedy' WHERE day='2026-11-26'")
        assert await da.keep_par("2026-11-26", first) == first  # damaged: written over
        for s in (a, b):
            await s.close()
    asyncio.run(main())


def test_a_daily_notice_whose_time_is_damaged_is_taken_not_stuck(db):
    """The robustness audit: a daily outbox row whose `not_before` is no time (text on
    SQLite, NaN on PostgreSQL, a year ahead) was never taken, so that server's news or
    that player's reminder silently never came. It is now taken like a due row (and held
    with a real time), and the others with it."""
    async def main():
        a, b, da, dbb = await _two(db)
        day, now = "2026-11-24", 1000.0
        for guild in (100, 200, 300):
            await da.set_guild_channel(guild, 500 + guild, "en")
        assert await da.queue_news(day, now) == 3
        await db.sql("UPDATE daily_outbox SET not_before=? WHERE target=100",
                     float("nan") if db.pg else "soon")
        await db.sql("UPDATE daily_outbox SET not_before=? WHERE target=200", now + 3e7)
        assert sorted(n.target for n in await dbb.daily_notices(now)) == [100, 200, 300]
        assert sorted(n.target for n in await da.take_notices(now)) == [100, 200, 300]
        assert await dbb.take_notices(now + 599) == []  # each now held with a real time
        assert len(await dbb.take_notices(now + 600)) == 3
        for s in (a, b):
            await s.close()
    asyncio.run(main())


def test_a_damaged_day_flag_counts_as_not_done_and_the_step_runs(db, caplog):
    """The robustness audit: a `daily_days` flag stored as neither 0 nor 1 (text on SQLite,
    another number on either backend) read as done and could never be taken, so that
    day's close (unfinished attempts never ended), news or recaps were silently skipped
    forever. It now counts as not done, with a WARNING: the step runs once, and the flag
    is then set for good."""
    async def main():
        a, b, da, dbb = await _two(db)
        day, now = "2026-11-24", 1000.0
        await da.set_guild_channel(100, 555, "en")
        await db.sql("INSERT INTO daily_days (day, announced, closed, recapped)"
                     " VALUES (?, ?, ?, ?)", day, *([7] * 3 if db.pg else ["yes", "done", 2]))
        with caplog.at_level("WARNING", logger="rr.store"):
            assert not await da.day_flag(day, "closed")  # the close runs
            assert await dbb.queue_news(day, now) == 1  # the news is queued
            await da.queue_recaps(day, now)
        for flag in ("closed", "announced", "recapped"):
            assert f"the {flag} flag of {day} could not be read" in caplog.text
        assert await da.take_day_flag(day, "closed")
        assert await dbb.day_flag(day, "closed") and not await dbb.take_day_flag(day, "closed")
        assert await dbb.queue_news(day, now) == 0  # once
        assert await db.sql("SELECT announced, closed, recapped FROM daily_days") == \
            [(1, 1, 1)]
        for s in (a, b):
            await s.close()
    asyncio.run(main())


def test_a_damaged_reminder_hour_reads_as_the_default_and_the_reminder_comes(db, caplog):
    """The robustness audit: a streak reminder whose stored hour is no hour (text on
    SQLite, 99 on either backend) was never due, so that player silently lost their
    reminder, and `/rr daily settings` showed it as hour "99" (or failed on the text). It
    now reads as the default hour (20 UTC), logged, and the reminder comes at that hour;
    the other players' reminders as before."""
    async def main():
        a, b, da, dbb = await _two(db)
        day, now = "2026-11-24", 1000.0
        for user in (1, 2, 3):
            await da.claim(user, "2026-11-23", True, "u", None)
            await da.finish(user, "2026-11-23", True, "finished", {"points": 1}, "s")
            await da.set_reminder(user, 900 + user, "en", 6)
        await db.sql("UPDATE daily_reminders SET hour=? WHERE user_id=1", 99)
        if not db.pg:
            await db.sql("UPDATE daily_reminders SET hour='six' WHERE user_id=2")
        with caplog.at_level("WARNING", logger="rr.store"):
            assert await dbb.reminder(1) == (901, "en", 20)
        assert "the hour of user 1 could not be read (99)" in caplog.text
        assert await da.queue_reminders(day, 6, now) == (1 if db.pg else 0) + 1  # user 3
        assert await da.queue_reminders(day, 20, now) == (1 if db.pg else 2)
        rem = sorted(n.target for n in await da.daily_notices(now) if n.kind == "reminder")
        assert rem == [1, 2, 3]
        for s in (a, b):
            await s.close()
    asyncio.run(main())


def test_a_damaged_news_channel_reads_as_none_and_the_settings_still_show(tmp_path, caplog):
    """The fault-injection audit: a server's daily news channel that SQLite kept as text
    in its INTEGER column failed `/rr daily settings` for that server with a traceback
    (int() of the text), so its managers could not see what was set. It reads as no news
    channel, logged (the news to it was already left out: cogs/daily_job.py), and setting one
    again replaces it; other servers' channels read as before."""
    async def main():
        db = Db("sqlite", str(tmp_path / "s.db"))
        a, b, da, _ = await _two(db)
        await da.set_guild_channel(100, 555, "en")
        await da.set_guild_channel(200, 556, "en")
        await db.sql("UPDATE daily_guilds SET channel_id='#general' WHERE guild_id=100")
        with caplog.at_level("WARNING", logger="rr.store"):
            assert await da.guild_channel(100) is None
        assert "news channel of server 100 could not be read" in caplog.text
        assert await da.guild_channel(200) == 556
        await da.set_guild_channel(100, 557, "en")
        assert await da.guild_channel(100) == 557
        for s in (a, b):
            await s.close()
    asyncio.run(main())
