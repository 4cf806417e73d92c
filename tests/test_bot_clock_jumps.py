"""The clock audit, through the bot's gateway-level harness: the wall clock of the process
that applied a time-out was wrong (an NTP step, a container started with a wrong clock), and
the "typed before the time-out" rule (service/play.py, `Play._late`) compares the time-out's
stored time (the process's clock) with the interaction's (Discord's clock)."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from bot_driver import Clock, make_bot
from harness import Harness
from test_bot_outbox import half_told
from test_bot_timers_audit import HOUR, hour_game

import cogs.delivery
from cogs import actions
from cogs.daily_job import day_once
from service import daily
from service.daily_score import Score
from service.daily_slots import slot

REAL_TIME = time.time


async def _timed_out_then_typed(tmp_path, monkeypatch, ahead_at_time_out: float,
                                ahead_after: float) -> str:
    """Bob's actions time out while the process clock is `ahead_at_time_out` s ahead of
    Discord's; then, with it `ahead_after` s ahead, he types `/rr done` (after the time-out:
    the new question is his to answer). The answer's text."""
    clock = Clock()
    async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=2)) as h:
        table, ann, bob = await hour_game(h, "ann", "bob")
        for _ in range(2):  # both picks time out: both are asked their actions
            clock.now += 1.1 * HOUR
            await table.bot.tick_once()
            await h.settle()
        monkeypatch.setattr(time, "time", lambda: REAL_TIME() + ahead_at_time_out)
        clock.now += 1.1 * HOUR
        await table.bot.tick_once()  # Bob's actions time out: he is asked new ones
        await h.settle()
        monkeypatch.setattr(time, "time", lambda: REAL_TIME() + ahead_after)
        row, g = await table.game()
        assert g.decision(1) is not None and any(e == [1, "timeout"] for e in g.log), g.log
        res = await table.slash(bob, "rr done")
        return res.text


@pytest.mark.parametrize("ahead_at_time_out, ahead_after", [
    (HOUR, 0.0),  # an hour ahead when it timed him out, then stepped back by NTP
    (HOUR, HOUR),  # a container whose clock runs an hour ahead all along
])
def test_a_command_typed_after_a_time_out_a_wrong_clock_recorded_is_applied(
        tmp_path, monkeypatch, ahead_at_time_out, ahead_after):
    """The time-out's time is the process's clock, the command's Discord's. A clock an hour
    ahead made every command of Bob's typed within the hour after his time-out "too late,
    your time ran out just before" (the fresh question could only be answered with its
    buttons, whatever he typed). Now the two times are compared only when the clocks
    agree (an answer being applied was typed moments ago), and his `done` is applied."""
    text = asyncio.run(_timed_out_then_typed(tmp_path, monkeypatch, ahead_at_time_out,
                                             ahead_after))
    assert text.startswith("✅"), text


BEHIND = dt.datetime(2026, 11, 22, 23, 59, 55, tzinfo=dt.UTC).timestamp()  # #22, 5 s left
CLOSED = dt.datetime(2026, 11, 23, 0, 1, tzinfo=dt.UTC).timestamp()  # #23, a minute in


@contextlib.asynccontextmanager
async def behind_the_close(tmp_path: Path) -> AsyncIterator[tuple[Harness, Any, Any]]:
    """The day job closed #22 at 00:01 UTC (a process whose clock is right, or this one
    before NTP stepped it back); then this process's clock is 5 s behind that close. With
    Dan, who has not played, and his DM."""
    clock = Clock(CLOSED)
    async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
        await day_once(h.bot)
        clock.now = BEHIND
        dan = h.user("dan")
        yield h, dan, h.dm_channel(dan)


def test_a_clock_behind_the_days_close_starts_the_next_days_challenge(tmp_path):
    """The day job (in a process whose clock is right, or in this one before NTP stepped it
    back) closed #22 at 00:00 UTC; then this process, its clock 5 s behind, is asked
    `/rr daily play` by a player who has not played #22. It claimed a ranked attempt of #22,
    a day already closed and announced, which no closing ever ended. Now the stored
    closing wins over the clock: the player gets #23."""
    async def scenario():
        async with behind_the_close(tmp_path) as (h, dan, _dm):
            assert await h.bot.daily.store.day_flag("2026-11-22", "closed")
            res = await h.slash(dan, "rr daily play", channel=h.dm_channel(dan))
            assert "#23" in res.text and "started" in res.text, res.text
            assert await h.bot.daily.store.attempt(dan.id, "2026-11-22", True) is None
            row = await h.bot.store.open_game(slot(dan.id, True))
            assert row is not None and row.settings["daily"]["day"] == "2026-11-23"
            # and it is the one in play: given up, not "nothing to resign"
            res = await h.slash(dan, "rr daily resign", confirm=True,
                                channel=h.dm_channel(dan))
            assert "gave up" in res.text and "#23" in res.text, res.text
    asyncio.run(scenario())


def test_a_notice_in_back_off_is_told_soon_after_the_clock_steps_back_hours(tmp_path,
                                                                           monkeypatch):
    """Discord refused part of an announcement, so its outbox row waits 30 s (the first
    back-off, on the wall clock); then NTP steps the clock back 5 hours. The row's time was
    5 h 30 s ahead, within the day the outbox allowed as a real wait: the rest of the
    announcement came 5 hours late. No back-off is longer than an hour, so a wait of more
    than two counts as a clock that went back, and the next pass tells it."""
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            bot, _mark, discord_back = await half_told(h)
            discord_back()
            monkeypatch.setattr(time, "time", lambda: REAL_TIME() - 5 * HOUR)
            await bot.tick_once()
            assert await bot.store.notices() == []
    asyncio.run(scenario())


def test_a_server_clock_far_from_discords_is_logged_for_the_operator(tmp_path, monkeypatch,
                                                                    caplog):
    """Every deadline, the daily's day and the lease go by the server's wall clock, and
    players see deadlines on Discord's: a server clock an hour ahead (a container started
    with a wrong clock) was silent. Interactions carry Discord's time: an hour's difference
    is logged as a WARNING, once however many interactions show it; a right clock, never."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            monkeypatch.setattr(actions, "_clock_warned", [], raising=False)
            ann = h.user("ann")
            await h.slash(ann, "rr status")
            assert not [r for r in caplog.records if "clock is" in r.getMessage()]
            monkeypatch.setattr(time, "time", lambda: REAL_TIME() + HOUR)
            for _ in range(2):
                await h.slash(ann, "rr status")
            told = [r for r in caplog.records if "clock is" in r.getMessage()]
            assert len(told) == 1 and told[0].levelname == "WARNING", told
            assert "+3600 s off Discord's" in told[0].getMessage(), told[0].getMessage()
    asyncio.run(scenario())


def test_with_the_clock_behind_the_days_close_every_daily_command_reads_the_open_day(
        tmp_path):
    """The same clock audit, for the daily commands beside play and resign: with #22 closed
    by the day job and this process 5 s behind, `/rr daily play` gives #23 — but the
    leaderboard, stats, practice and review still read #22 by the clock: the player who
    had just resigned #23 found no row of theirs on "today's" board, no share line and a
    streak one day short in their stats, "that day is still to come" for a practice of the
    day they had played, and the resign's countdown to a next challenge already begun.
    Every command now reads the day the store says is open (`Calendar.open_day`)."""
    async def scenario():
        async with behind_the_close(tmp_path) as (h, dan, dm):
            ds = h.bot.daily.store
            won = Score("won", 9, 12, 3, 14, 2).to_json()
            for day in ("2026-11-21", "2026-11-22"):  # two days won before (R13.1)
                await ds.claim(dan.id, day, True, "dan", None)
                await ds.end_attempt(dan.id, day, True, "finished", won, None)
            await h.slash(dan, "rr daily play", channel=dm)
            res = await h.slash(dan, "rr daily resign", confirm=True, channel=dm)
            assert "#23" in res.text, res.text
            nxt = int(daily.day_end(dt.date(2026, 11, 23)))
            assert f"<t:{nxt}:R>" in res.text, res.text  # #24 opens then, not a time past
            board = await h.slash(dan, "rr daily leaderboard", channel=dm)
            assert "#23" in board.text and "Dan" in board.text, board.text
            stats = await h.slash(dan, "rr daily stats", channel=dm)
            # the resign ends the streak (docs/daily.md) and its share line is today's
            assert "win streak 0 (best 2)" in stats.text and "#23" in stats.text, stats.text
            prac = await h.slash(dan, "rr daily practice", channel=dm)  # yesterday: #22
            assert "#22" in prac.text and "#21" not in prac.text, prac.text
            prac = await h.slash(dan, "rr daily practice", date="2026-11-23", channel=dm)
            assert "#23" in prac.text and "started" in prac.text, prac.text
            review = await h.slash(dan, "rr daily review", channel=dm)  # #22, closed
            assert "#22" in review.text, review.text
    asyncio.run(scenario())


def test_with_the_clock_behind_the_days_close_a_closed_days_card_says_it_is_past(tmp_path):
    """The same clock audit, for the day's card: with #22 closed by the day job and this
    process 5 s behind, `/rr daily practice` (yesterday: #22, as `play` gives #23) showed
    #22's card as "The day ends at 00:00 UTC: in 5 seconds" — the clock's today — for a day
    closed and announced, and a practice game of it. The card reads the open day
    (`Calendar.still_open`): #22 is a past day, replayed as practice; #23's still ends."""
    async def scenario():
        async with behind_the_close(tmp_path) as (h, dan, dm):
            prac = await h.slash(dan, "rr daily practice", date="2026-11-22", channel=dm)
            assert "#22" in prac.text and "The day ends" not in prac.text, prac.text
            assert "A past day (2026-11-22, closed)" in prac.text, prac.text
            play = await h.slash(dan, "rr daily play", channel=dm)
            end = int(daily.day_end(dt.date(2026, 11, 23)))
            assert "#23" in play.text and f"The day ends at 00:00 UTC: <t:{end}:R>" in \
                play.text, play.text
    asyncio.run(scenario())


def test_with_the_clock_behind_the_days_close_the_other_daily_paths_read_the_open_day(
        tmp_path):
    """The rest of the daily paths, with #22 closed by another process and this one 5 s
    behind (`/rr daily play` gives #23): a ranked #22 game the close left in play (its
    sweep gave up on a game moving at every read) still took moves here, in a day closed
    and announced — and `/rr daily play` opened #23 over it, the #22 attempt left playing
    for good; a #22 game finished at noon was refused an in-server review as "still open";
    the reminder's hour was shown on the closed day. Each now reads the open day
    (`Calendar.open_day`): the #22 game's time is up, its review is given, the hour is
    #23's."""
    async def scenario():
        clock = Clock(dt.datetime(2026, 11, 22, 12, tzinfo=dt.UTC).timestamp())
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            dan, eve = h.user("dan"), h.user("eve")
            dan_dm, eve_dm = h.dm_channel(dan), h.dm_channel(eve)
            ds = h.bot.daily.store
            await h.slash(dan, "rr daily play", channel=dan_dm)  # left in play
            await h.slash(eve, "rr daily play", channel=eve_dm)
            res = await h.slash(eve, "rr daily resign", confirm=True, channel=eve_dm)
            assert "#22" in res.text, res.text
            eve_game = (await ds.attempt(eve.id, "2026-11-22", True)).game_id
            on = await h.slash(eve, "rr daily settings", reminder=True, reminder_hour=18,
                               channel=eve_dm)
            assert "18:00 UTC" in on.text, on.text
            await ds.take_day_flag("2026-11-22", "closed")  # another process closed #22
            clock.now = BEHIND
            late = await h.slash(dan, "rr status", channel=dan_dm)
            assert "#22 ended at 00:00 UTC" in late.text, late.text
            att = await ds.attempt(dan.id, "2026-11-22", True)
            assert att is not None and att.status != "playing", att
            review = await h.slash(eve, "rr-learn review", game=eve_game)  # in the server
            assert "still open" not in review.text, review.text
            shown = await h.slash(eve, "rr daily settings", channel=eve_dm)
            ts = int(daily.day_end(dt.date(2026, 11, 22)) + 18 * HOUR)  # #23 at 18:00 UTC
            assert f"<t:{ts}:t>" in shown.text, shown.text
    asyncio.run(scenario())
