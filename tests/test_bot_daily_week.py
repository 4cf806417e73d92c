"""A week of the daily challenge as one player on a phone plays it (the daily-week audit):
what each message says on the day after a resign, an unfinished day, a practice, read in
the player's DMs, through interactions only with a frozen clock."""

from __future__ import annotations

import asyncio
import datetime as dt
import random

from bot_driver import Clock, Table, make_bot
from harness import FakeUser, Harness

from cogs.daily_job import day_once
from service.daily_slots import slot


def at(day: int, hour: int = 0, minute: int = 0) -> float:
    """A moment of December 2026 (UTC): Monday 30 November is challenge #30."""
    return dt.datetime(2026, 12, day, hour, minute, tzinfo=dt.UTC).timestamp()


async def ranked_table(h: Harness, user: FakeUser) -> Table:
    """Today's ranked attempt of `user` started in their DM, as a `Table` to play it."""
    dm = h.dm_channel(user)
    await h.slash(user, "rr daily play", channel=dm)
    row = await h.bot.store.open_game(slot(user.id, True))
    assert row is not None
    table = Table(h, dm)
    table.game_id = row.id
    return table


def streak_dms(h: Harness, user: FakeUser) -> list[str]:
    return [m.text for m in h.messages(h.dm_channel(user))
            if "streak breaks tonight" in m.text or "連続記録が途切れます" in m.text]


def test_no_streak_reminder_the_day_after_a_resign(tmp_path):
    """Ann played Tuesday out, resigned Wednesday: `/rr daily stats` says both streaks are 0,
    yet on Thursday evening her DM said "⏰ Your daily streak breaks tonight" (a resign
    is a finished attempt, which the reminder took for a streak kept). No streak, no
    reminder; Bob, who played Wednesday out, is reminded."""
    async def scenario():
        clock = Clock(at(1, 8))
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            for user in (ann, bob):
                await h.slash(user, "rr daily settings", reminder=True)
                await (await ranked_table(h, user)).play(random.Random(3))
            clock.now = at(2, 8)
            await day_once(h.bot)
            await ranked_table(h, ann)
            gave_up = await h.slash(ann, "rr daily resign", confirm=True)
            assert "gave up" in gave_up.text
            await (await ranked_table(h, bob)).play(random.Random(4))
            clock.now = at(3, 21)
            await day_once(h.bot)
            stats = await h.slash(ann, "rr daily stats")
            assert "days played in a row 0" in stats.text, stats.text
            assert not streak_dms(h, ann), streak_dms(h, ann)
            assert len(streak_dms(h, bob)) == 1
    asyncio.run(scenario())


def test_the_recap_dm_s_rr_recap_shows_yesterday_after_today_is_begun(tmp_path):
    """At 00:05 the DM said "🎬 Daily challenge #30 has closed … `/rr-recap` shows it
    again"; Ann started #31 on the train, then typed `/rr-recap` to watch #30 again and
    was told "⛔ Daily #31 is still open" with no recap: any attempt today turned the
    default to today's. Now the default is yesterday's game, captioned with its challenge,
    and the reply says when today's opens; with no game yesterday, today's refusal stays."""
    async def scenario():
        clock = Clock(at(1, 8) - 24 * 3600)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann, yui = h.user("ann"), h.user("yui", locale="ja")
            for user in (ann, yui):
                await (await ranked_table(h, user)).play(random.Random(3))
            clock.now = at(1, 0, 5)
            await day_once(h.bot)
            assert any("`/rr-recap` shows it again" in m.text
                       for m in h.messages(h.dm_channel(ann)))
            for user in (ann, yui):
                await ranked_table(h, user)
            res = await h.slash(ann, "rr-recap", channel=h.dm_channel(ann))
            assert res.files and "Daily challenge #30 (2026-11-30)" in res.text, res.text
            assert "Today's #31" in res.text and "<t:" in res.text, res.text
            ja = await h.slash(yui, "rr-recap", channel=h.dm_channel(yui))
            assert ja.files and "デイリーチャレンジ #30（2026-11-30）" in ja.text, ja.text
            bob = h.user("bob")  # no game yesterday: today's is refused, told when
            await ranked_table(h, bob)
            none = await h.slash(bob, "rr-recap", channel=h.dm_channel(bob))
            assert not none.files and "Daily #31 is still open" in none.text, none.text
    asyncio.run(scenario())
