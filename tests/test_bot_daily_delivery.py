"""Issue 18, "delivery that never loses a player": the daily challenge through Discord
interactions only, with a frozen clock.

- Closed DMs (Discord answers 403/50007 to a message): the attempt stays unclaimed and the
  player is told how to allow DMs — not "your challenge has started in your DMs".
- Server news and streak reminders go through the daily outbox: marked sent only after
  Discord took them, retried after a 503 and after a restart, never twice.
- Reminders in the player's language only, at the hour they chose.
- A past day's practice while today's ranked attempt is open: its buttons and typed
  commands reach the practice game.
- The texts: the refusals name the right commands, a past day's card does not "end",
  a finished day counts down to the next challenge.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import sqlite3
from typing import Any

import discord
import pytest
from bot_driver import Clock, Table, accepted, make_bot
from harness import Harness

import cogs.delivery
from cogs.daily_job import day_once
from service.daily import day_end
from service.daily_slots import slot

NOON = dt.datetime(2026, 11, 23, 12, tzinfo=dt.UTC).timestamp()
MIDNIGHT = dt.datetime(2026, 11, 23, tzinfo=dt.UTC).timestamp()
TODAY, YESTERDAY = "2026-11-23", "2026-11-22"
DAY_S = 24 * 3600
WON = {"won": True, "rounds": 9, "fainted": 0, "marks": 1}
PAR = {"greedy": {"score": WON, "trace": []}}
EVER = float("inf")


def run(coro_fn: Any) -> None:
    asyncio.run(coro_fn())


async def with_par(h: Harness, *days: str) -> None:
    """The days' par as the day job stores it (the AIs' games are bench/daily.py's)."""
    for day in days:
        await h.bot.daily.store.set_par(day, PAR)


def posts(h: Harness, channel: Any) -> list[str]:
    return [m.text for m in h.messages(channel) if not m.ephemeral]


def reminders(h: Harness, dm: Any) -> list[str]:
    """The streak reminders in a DM (either language)."""
    return [m.text for m in h.messages(dm)
            if "streak breaks tonight" in m.text or "連続記録が途切れます" in m.text]


def test_closed_dms_leave_the_attempt_unclaimed_and_say_how_to_allow_them(tmp_path):
    """Point 1: Discord refuses the first DM (403, code 50007, as it answers for a user
    whose DMs are closed). Before: "Your challenge has started" and the day's attempt
    claimed while every post bounced (and a reminder set up to bounce)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            await with_par(h, TODAY, YESTERDAY)
            ann = h.user("ann", dms_open=False)
            res = await h.slash(ann, "rr daily play")
            assert res.ephemeral and "has started" not in res.text, res.text
            assert "Allow DMs" in res.text and "Privacy Settings" in res.text, res.text
            refused = h.http.last("POST", "/channels/{channel_id}/messages")
            assert refused.status == 403 and refused.response["code"] == 50007
            store = h.bot.daily.store
            assert await store.attempt(ann.id, TODAY, True) is None  # the day is still hers
            assert await h.bot.store.open_game(slot(ann.id, True)) is None
            assert await h.bot.store.notices() == []
            practice = await h.slash(ann, "rr daily practice")
            assert "Allow DMs" in practice.text and "has started" not in practice.text
            assert await h.bot.store.open_game(slot(ann.id, False)) is None
            ja = h.user("jun", dms_open=False, locale="ja")
            said = (await h.slash(ja, "rr daily play")).text
            # Japanese puts no space between two sentences (story.sentences)
            assert "DMを許可" in said and "。DMを許可" in said and "。 " not in said, said
            # a streak reminder is not set up to bounce either
            remind = await h.slash(ann, "rr daily settings", reminder=True)
            assert "no reminder was set" in remind.text and "Allow DMs" in remind.text
            assert await store.reminder(ann.id) is None
            ann.dms_open = True  # she allows DMs and asks again: the attempt starts
            ok = await h.slash(ann, "rr daily play")
            assert "has started" in ok.text, ok.text
            att = await store.attempt(ann.id, TODAY, True)
            assert att is not None and att.status == "playing"
            assert any(m.files for m in h.messages(h.dm_channel(ann)))
    run(scenario)


def test_news_is_retried_after_a_503_and_after_a_restart_and_told_once(tmp_path,
                                                                        monkeypatch):
    """Point 2: a server's news Discord did not take (503) stays in the outbox and is told
    at a later pass — also by the next process — exactly once. Before: the day's flag was
    taken first and a failed announcement was never retried."""
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))

    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            await with_par(h, TODAY)
            news = h.text_channel("daily-news")
            mod = h.user("mod", permissions=discord.Permissions(manage_guild=True))
            await h.slash(mod, "rr daily settings", options={"channel": news})
            h.http.fail("POST", f"/channels/{news.id}/messages", status=503, times=None)
            first = await day_once(h.bot)
            assert first["announced"] == 0 and posts(h, news) == []
            store = h.bot.daily.store
            assert [(n.kind, n.attempts) for n in await store.daily_notices(EVER)] == \
                [("news", 1)]
            clock.now += 10  # before its retry time: left alone
            await day_once(h.bot)
            assert [n.attempts for n in await store.daily_notices(EVER)] == [1]
            clock.now += 25  # its retry: Discord still down
            await day_once(h.bot)
            assert [n.attempts for n in await store.daily_notices(EVER)] == [2]
            assert posts(h, news) == []
            server = h.server
        clock.now += 150  # a new process, Discord back
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock), server=server) as h:
            told = await day_once(h.bot)
            assert told["announced"] == 1, told
            assert len(posts(h, news)) == 1 and "Daily challenge #23" in posts(h, news)[0]
            assert await h.bot.daily.store.daily_notices(EVER) == []
            clock.now += 3600
            assert (await day_once(h.bot))["announced"] == 0
            assert len(posts(h, news)) == 1  # never twice
    run(scenario)


def test_reminder_in_the_players_language_at_their_hour_kept_until_discord_takes_it(
        tmp_path, monkeypatch):
    """Point 3 (and 2 for reminders): the reminder comes at the hour the player chose
    (`/rr daily settings reminder_hour:`), in their language only, with the command hint;
    a 503 keeps it for a retry. Before: both languages at 20:00 UTC for everyone (05:00 in
    Japan), no command in the Japanese text, and marked sent before it was sent (lost)."""
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))

    async def scenario():
        clock = Clock(NOON - DAY_S)  # yesterday: both finish their ranked attempt
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann, bob = h.user("ann", locale="ja"), h.user("bob")
            store = h.bot.daily.store
            for user in (ann, bob):
                await store.claim(user.id, YESTERDAY, True, user.name, h.guild_id)
                await store.finish(user.id, YESTERDAY, True, "finished", WON, "share")
            on = await h.slash(ann, "rr daily settings", reminder_hour=6)
            assert "6:00 UTC" in on.text and ":t>" in on.text, on.text
            assert "20:00 UTC" in (await h.slash(bob, "rr daily settings", reminder=True)).text
            await with_par(h, TODAY)
            dm_ann, dm_bob = h.dm_channel(ann), h.dm_channel(bob)
            state = {"down": False}
            h.http.fail("POST", f"/channels/{dm_ann.id}/messages", status=503, times=None,
                        when=lambda request: state["down"])
            clock.now = MIDNIGHT + 5 * 3600  # 05:00 UTC: nobody's hour yet
            assert (await day_once(h.bot))["reminded"] == 0
            clock.now = MIDNIGHT + 6 * 3600 + 60  # ann's hour; Discord fails her DM
            state["down"] = True
            assert (await day_once(h.bot))["reminded"] == 0
            assert not reminders(h, dm_ann)
            state["down"] = False
            clock.now += 31
            assert (await day_once(h.bot))["reminded"] == 1
            told = reminders(h, dm_ann)
            assert len(told) == 1 and "連続記録が途切れます" in told[0], told
            assert "`/rr デイリー プレイ`" in told[0] and "streak" not in told[0]
            assert not reminders(h, dm_bob)
            clock.now = MIDNIGHT + 20 * 3600 + 30  # bob's hour (the default, 20:00 UTC)
            assert (await day_once(h.bot))["reminded"] == 1
            told = reminders(h, dm_bob)
            assert len(told) == 1 and "streak breaks tonight" in told[0], told
            assert "連続記録" not in told[0]
            assert (await day_once(h.bot))["reminded"] == 0
            assert len(reminders(h, dm_ann)) == 1
    run(scenario)


def test_a_reminder_discord_failed_is_sent_later_not_lost(tmp_path, monkeypatch):
    """Point 2 for reminders, with the default hour: Discord fails the DM (503) at the
    first pass; the reminder is sent at its retry, once. Before: it was marked sent before
    it was sent, so the failed one was never sent."""
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))

    async def scenario():
        clock = Clock(NOON - DAY_S)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            bob = h.user("bob")
            store = h.bot.daily.store
            await store.claim(bob.id, YESTERDAY, True, "bob", h.guild_id)
            await store.finish(bob.id, YESTERDAY, True, "finished", WON, "share")
            await h.slash(bob, "rr daily settings", reminder=True)
            await with_par(h, TODAY)
            dm = h.dm_channel(bob)
            down = h.http.fail("POST", f"/channels/{dm.id}/messages", status=503, times=None)
            clock.now = MIDNIGHT + 21 * 3600
            assert (await day_once(h.bot))["reminded"] == 0 and not reminders(h, dm)
            down.times = down.hits  # Discord is back
            clock.now += 31
            assert (await day_once(h.bot))["reminded"] == 1
            clock.now += 3600
            assert (await day_once(h.bot))["reminded"] == 0
            assert len(reminders(h, dm)) == 1
    run(scenario)


def test_the_day_ended_note_is_queued_with_the_attempts_end_and_retried(tmp_path,
                                                                       monkeypatch):
    """Point 2 for the DM that says a ranked day ended unfinished at 00:00 UTC: queued in
    the transaction that ends the attempt, sent at its retry after a 503, once. Before: a
    failed one was never sent (the day's close runs once)."""
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))

    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            await with_par(h, TODAY, "2026-11-24")
            ann = h.user("ann")
            assert "has started" in (await h.slash(ann, "rr daily play")).text
            dm = h.dm_channel(ann)
            down = h.http.fail("POST", f"/channels/{dm.id}/messages", status=503, times=None)
            clock.now = MIDNIGHT + DAY_S + 600  # 00:10 UTC the next day
            assert (await day_once(h.bot))["closed"] == 1
            ended = [m.text for m in h.messages(dm) if "ended at 00:00 UTC" in m.text]
            assert ended == []
            down.times = down.hits  # Discord is back
            clock.now += 31
            await day_once(h.bot)
            clock.now += 3600
            await day_once(h.bot)
            ended = [m.text for m in h.messages(dm) if "ended at 00:00 UTC" in m.text]
            assert len(ended) == 1 and "#23" in ended[0], ended
    run(scenario)


async def _until_button(table: Table, user: Any, game_id: int, rng: random.Random) -> None:
    """Play `game_id` (typed commands and buttons, as a player would) until its question
    has a button, then click it: it must be accepted."""
    for _ in range(80):
        _row, g = await table.game()
        dec = g.decision(0)
        assert dec is not None
        found = table.find_button(user, game_id, 0, dec["id"])
        if found is not None:
            res = await table.click(user, found)
            assert accepted(res), res.text
            return
        await table.step(rng)
    raise AssertionError("no button in 80 steps")


def test_practice_of_a_past_day_while_the_ranked_attempt_is_open(tmp_path):
    """Point 4: with today's ranked game open, yesterday's practice plays through its own
    buttons and the DM's typed commands; `/rr daily play` takes the commands back to the
    ranked game. Before: its buttons said the game was no longer running, and commands in
    the DM went to the ranked game."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            await with_par(h, TODAY, YESTERDAY)
            ann = h.user("ann")
            dm = h.dm_channel(ann)
            assert "has started" in (await h.slash(ann, "rr daily play", channel=dm)).text
            ranked = await h.bot.store.open_game(slot(ann.id, True))
            started = await h.slash(ann, "rr daily practice", channel=dm)
            assert "practice" in started.text, started.text
            practice = await h.bot.store.open_game(slot(ann.id, False))
            assert ranked is not None and practice is not None
            table = Table(h, dm)
            table.game_id = practice.id
            rng = random.Random(3)
            for _ in range(3):
                await table.step(rng)
            await _until_button(table, ann, practice.id, rng)
            after = await h.bot.store.get(ranked.id)
            assert after is not None and after.version == ranked.version  # untouched
            moved = await h.bot.store.get(practice.id)
            assert moved is not None and moved.version > practice.version
            assert "now go to this practice game" in started.text, started.text
            back = await h.slash(ann, "rr daily play", channel=dm)
            assert "goes on" in back.text and "now go to this ranked game" in back.text
            table.game_id = ranked.id
            await table.step(rng)
            now_ranked = await h.bot.store.get(ranked.id)
            assert now_ranked is not None and now_ranked.version > ranked.version
            still = await h.bot.store.get(practice.id)
            assert still is not None and still.version == moved.version
    run(scenario)


def test_texts_name_the_right_commands_and_count_down_to_the_next_challenge(tmp_path):
    """Point 3's texts and point 5: the early-practice refusal names `/rr daily play`; a
    past day's card does not say "the day ends"; after the ranked attempt, the result and
    the refusal to play again count down to the next challenge (`<t:…:R>`), and "try
    practice" says it is yesterday's game (and how to replay today's)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            await with_par(h, TODAY, YESTERDAY)
            ann = h.user("ann")
            await h.slash(ann, "rr daily play")
            early = await h.slash(ann, "rr daily practice", date=TODAY)
            assert "`/rr daily play`" in early.text, early.text
            nxt = f"<t:{int(day_end(dt.date(2026, 11, 23)))}:R>"
            resigned = await h.slash(ann, "rr daily resign", confirm=True)
            assert nxt in resigned.text and "next challenge" in resigned.text, resigned.text
            again = await h.slash(ann, "rr daily play")
            assert "yesterday's challenge" in again.text and f"date:{TODAY}" in again.text
            assert nxt in again.text, again.text
            past = await h.slash(ann, "rr daily practice", date=YESTERDAY)
            assert "Daily challenge #22" in past.text and "A past day" in past.text
            assert "The day ends" not in past.text, past.text
            today = await h.slash(ann, "rr daily practice", date=TODAY)
            assert "Daily challenge #23" in today.text and "The day ends" in today.text
    run(scenario)


def test_the_days_close_never_touches_a_game_that_is_not_the_attempts(tmp_path):
    """The fault-injection audit: a damaged `daily_attempts.game_id` naming a channel's game
    in play made 00:00 UTC abandon that game (and drop its timers), with nothing said in
    its channel. The day's close now ends only the attempt's own daily game."""
    async def scenario():
        clock = Clock(NOON)
        db = tmp_path / "d.db"
        async with Harness(lambda: make_bot(db, clock)) as h:
            await with_par(h, TODAY, "2026-11-24")
            ann, bob, cat = h.user("ann"), h.user("bob"), h.user("cat")
            table = Table(h)
            channel_game = await table.open(ann, [bob], players=2)
            assert "has started" in (await h.slash(cat, "rr daily play")).text
            with sqlite3.connect(db) as con:
                con.execute("UPDATE daily_attempts SET game_id=? WHERE user_id=?",
                            (channel_game.id, cat.id))
            clock.now = MIDNIGHT + DAY_S + 600  # 00:10 UTC the next day
            assert (await day_once(h.bot))["closed"] == 1  # cat's attempt ends unfinished
            row = await h.bot.store.get(channel_game.id)
            assert row is not None and row.status == "active"
            assert await h.bot.store.timers(channel_game.id)
            res = await h.slash(ann, "rr status")
            assert "Round" in res.text, res.text
    run(scenario)


def test_an_attempt_with_a_damaged_day_is_left_out_of_history_and_stats(tmp_path):
    """The fault-injection audit: one `daily_attempts.day` of '2026-13-45' failed the
    player's `/rr daily history` and `/rr daily stats` for good. That row is left out; the
    rest reads."""
    async def scenario():
        clock = Clock(NOON)
        db = tmp_path / "d.db"
        async with Harness(lambda: make_bot(db, clock)) as h:
            await with_par(h, TODAY, "2026-11-24")
            ann = h.user("ann")
            await h.slash(ann, "rr daily play")
            clock.now = MIDNIGHT + DAY_S + 600
            await day_once(h.bot)  # day 23 ends unfinished
            clock.now += 3600
            await h.slash(ann, "rr daily play")  # day 24
            with sqlite3.connect(db) as con:
                con.execute("UPDATE daily_attempts SET day='2026-13-45' WHERE day=?", (TODAY,))
            for command in ("rr daily history", "rr daily stats"):
                res = await h.slash(ann, command)
                assert "went wrong" not in res.text and res.text, (command, res.text)
    run(scenario)


async def _two_streaks(h: Any) -> dict[int, Any]:
    """Bob and Cat, each with yesterday's ranked game won and the streak reminder on, and
    today's challenge ready: their DM channels, by user id."""
    bob, cat = h.user("bob"), h.user("cat")
    store = h.bot.daily.store
    for user in (bob, cat):
        await store.claim(user.id, YESTERDAY, True, user.name, h.guild_id)
        await store.finish(user.id, YESTERDAY, True, "finished", WON, "share")
        await h.slash(user, "rr daily settings", reminder=True)
    await with_par(h, TODAY)
    return {u.id: h.dm_channel(u) for u in (bob, cat)}


@pytest.mark.parametrize(("damage", "counted"), [(-7, -6), ("many", 1)])
def test_a_daily_row_with_a_damaged_try_count_does_not_stop_the_others(tmp_path, monkeypatch,
                                                                       damage, counted):
    """The reliability audit: a daily outbox row whose `attempts` read back negative (-7: a
    hand edit, a bad restore) raised IndexError in the back-off the first time Discord
    failed it, and the pass stopped there: every reminder after it went untold, at every
    pass. The back-off now reads such a count as none yet. So does the fault-injection
    audit's count that SQLite kept as text in its INTEGER column ('many': TypeError), as the
    game outbox already read one."""
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))

    async def scenario():
        clock = Clock(NOON - DAY_S)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            store = h.bot.daily.store
            dms = await _two_streaks(h)
            downs = {u: h.http.fail("POST", f"/channels/{dm.id}/messages", status=503,
                                    times=None) for u, dm in dms.items()}
            clock.now = MIDNIGHT + 21 * 3600
            assert (await day_once(h.bot))["reminded"] == 0
            first = (await store.daily_notices(EVER))[0].target  # told first in a pass
            with sqlite3.connect(tmp_path / "d.db") as con:
                con.execute("UPDATE daily_outbox SET attempts=?", (damage,))
            later = next(u for u in dms if u != first)
            downs[later].times = downs[later].hits  # Discord takes the later one again
            clock.now += 31
            assert (await day_once(h.bot))["reminded"] == 1
            assert len(reminders(h, dms[later])) == 1 and not reminders(h, dms[first])
            left = await store.daily_notices(EVER)
            assert [n.target for n in left] == [first]
            assert left[0].attempts == counted  # counted on, due again after the first back-off
            assert (await day_once(h.bot))["reminded"] == 0  # not before its back-off
            downs[first].times = downs[first].hits
            clock.now += 31
            assert (await day_once(h.bot))["reminded"] == 1
            assert len(reminders(h, dms[first])) == 1
    run(scenario)


def test_a_daily_row_of_an_unknown_kind_is_left_and_does_not_stop_the_others(tmp_path):
    """The fault-injection audit: a daily outbox row whose kind this release does not know
    (a newer release's, or a damaged one) was worded as a streak reminder and sent to the
    player, and then raised KeyError counting it, which stopped the pass: every row after it
    waited for its hold to lapse. Now it is left for a newer release with the back-off, and
    dropped (logged) once none told it; the others are told in the same pass."""
    async def scenario():
        clock = Clock(NOON - DAY_S)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            store = h.bot.daily.store
            dms = await _two_streaks(h)
            clock.now = MIDNIGHT + 21 * 3600
            await store.queue_reminders(TODAY, 21, clock.now)
            first = (await store.daily_notices(EVER))[0].target  # told first in a pass
            with sqlite3.connect(tmp_path / "d.db") as con:
                con.execute("UPDATE daily_outbox SET kind='streak_saver' WHERE target=?",
                            (first,))
            later = next(u for u in dms if u != first)
            assert (await day_once(h.bot))["reminded"] == 1
            assert len(reminders(h, dms[later])) == 1 and not reminders(h, dms[first])
            left = await store.daily_notices(EVER)
            assert [(n.target, n.kind, n.attempts) for n in left] == [
                (first, "streak_saver", 1)]
            for _ in range(20):  # past every back-off: dropped once no process told it
                clock.now += 2 * 3600
                await day_once(h.bot)
            assert not await store.daily_notices(EVER) and not reminders(h, dms[first])
    run(scenario)
