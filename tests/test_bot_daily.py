"""The daily challenge through Discord interactions only (issue 10): started from a server
(the game goes to the player's DMs) and played there to the end with the ordinary play
commands and buttons; one ranked attempt a day; channel commands refused in a DM; nobody
acts on someone else's daily game; the day job announces and reminds once across a restart.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import re

import discord
from bot_driver import Clock, Table, make_bot
from harness import Harness

from cogs.daily_job import day_once
from service import daily
from service.daily import day_key
from service.daily_slots import slot

NOON = dt.datetime(2026, 11, 23, 12, tzinfo=dt.UTC).timestamp()
PAR = {"greedy": {"score": {"won": True, "rounds": 9, "fainted": 0, "marks": 1}, "trace": []}}


def run(coro_fn, *args):
    return asyncio.run(coro_fn(*args))


async def with_par(h: Harness, day: dt.date) -> None:
    """The day's par as the day job stores it (the AIs' games are bench/daily.py's)."""
    await h.bot.daily.store.set_par(day.isoformat(), PAR)


def test_daily_from_a_server_is_played_in_dms_to_the_end_and_once(tmp_path):
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            await with_par(h, h.bot.daily.days.today())
            res = await h.slash(ann, "rr daily play")
            assert res.ephemeral and "Daily challenge #23" in res.text, res.text
            assert "the bot won in 9 rounds" in res.text and "<t:" in res.text
            assert "DMs" in res.text
            dm = h.dm_channel(ann)
            assert any(m.files for m in h.messages(dm)), "the table goes to the DM"
            assert not [m for m in h.messages(h.channel) if not m.ephemeral]
            # practice of today before the ranked attempt is over: refused, nothing started
            early = await h.slash(ann, "rr daily practice", date="2026-11-23")
            assert early.ephemeral and "only after your ranked attempt" in early.text
            # someone else cannot act on ann's game: not by a command, not by her buttons
            other = await h.slash(bob, "rr done", channel=h.dm_channel(bob))
            assert "no game here" in other.text.lower() or "ありません" in other.text
            key = slot(ann.id, True)
            row = await h.bot.store.open_game(key)
            assert row is not None
            table = Table(h, dm)
            table.game_id = row.id
            button = next(((m, c.custom_id) for m in h.messages(dm) for c in m.buttons
                           if c.custom_id), None)
            if button is not None:
                with_bob = await h.click(bob, button[1], message=button[0])
                assert with_bob.ephemeral and "✅" not in with_bob.text
            # resuming re-posts the table and the question
            before = len(h.messages(dm))
            again = await h.slash(ann, "rr daily play")
            assert "goes on" in again.text and len(h.messages(dm)) > before
            await table.play(random.Random(2))
            row, g = await table.game()
            assert g.over
            result = [m.text for m in h.messages(dm) if "```" in m.text]
            assert result and "Rook & Raiders #23" in result[-1], result
            att = await h.bot.daily.store.attempt(ann.id, "2026-11-23", True)
            assert att is not None and att.status == "finished" and att.score is not None
            # a second ranked attempt: refused, from another channel, and after a restart
            second = await h.slash(ann, "rr daily play", channel=h.text_channel("other"))
            assert "played today's ranked challenge already" in second.text
            board = await h.slash(ann, "rr daily leaderboard")
            assert "🥇 Ann" in board.text and "<@" not in board.text, board.text
            stats = await h.slash(ann, "rr daily stats")
            assert stats.files and "1 played" in stats.text
            assert stats.files[0].description and "in a row 1" in stats.files[0].description
            assert "Rook & Raiders #23" in stats.text  # today's line again, to copy
            ann.locale = "ja"  # the share line is told in the reader's language
            ja = await h.slash(ann, "rr daily stats")
            assert "ルーク&レイダース #23" in ja.text and "Rook & Raiders" not in ja.text, ja.text
            ann.locale = "en-US"
            server, ann_id = h.server, ann.id
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock), server=server) as h:
            ann = server.users[ann_id]  # the same player, after a restart
            again = await h.slash(ann, "rr daily play", channel=h.dm_channel(ann))
            assert "played today's ranked challenge already" in again.text
            practice = await h.slash(ann, "rr daily practice", date="2026-11-23",
                                     channel=h.dm_channel(ann))
            assert "practice" in practice.text and "Daily challenge #23" in practice.text
    run(scenario)


def test_channel_commands_refused_in_a_dm_and_daily_plays_there(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            ann = h.user("ann", locale="ja")
            dm = h.dm_channel(ann)
            for cmd in ("rr new", "rr start", "rr lobby join"):
                res = await h.slash(ann, cmd, channel=dm)
                assert res.ephemeral and "サーバー" in res.text, res.text
            assert await h.bot.store.open_game(dm.id) is None
            res = await h.slash(ann, "rr daily play", channel=dm)
            assert "デイリーチャレンジ #23" in res.text and "00:00 UTC" in res.text
            # the card says what to do and how it is scored (the Discord new-player audit:
            # only the result said it; the Japanese card called the par 目標, "goal")
            assert "勝利条件: 最終ラウンドまでにすべてのモンスターを倒し" in res.text
            assert "パー: " in res.text and "目標" not in res.text
            row = await h.bot.store.open_game(slot(ann.id, True))
            assert row is not None and row.settings["daily"]["post_channel"] == dm.id
            status = await h.slash(ann, "rr status", channel=dm)
            assert status.ephemeral and "ラウンド" in status.text or "Round" in status.text
    run(scenario)


def test_day_job_announces_once_and_reminds_once_across_a_restart(tmp_path):
    async def scenario():
        clock = Clock(NOON - 24 * 3600)  # yesterday: ann finishes a ranked attempt
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann = h.user("ann")
            host = h.bot.daily
            y = host.days.today()
            await host.store.claim(ann.id, y.isoformat(), True, "ann", h.guild_id)
            await host.store.finish(ann.id, y.isoformat(), True, "finished",
                                    PAR["greedy"]["score"], "share")
            before = await h.slash(ann, "rr daily settings")  # no option: what is set now
            assert "No daily news is posted in this server" in before.text
            assert "No streak reminders" in before.text and "To change them" in before.text
            on = await h.slash(ann, "rr daily settings", reminder=True)
            assert "DM you" in on.text
            now = await h.slash(ann, "rr daily settings")
            assert "DM you" in now.text and "No streak reminders" not in now.text
            news = h.text_channel("daily-news")
            refused = await h.slash(ann, "rr daily settings", options={"channel": news})
            assert "Manage Server" in refused.text
            mod = h.user("mod", permissions=discord.Permissions(manage_guild=True))
            ok = await h.slash(mod, "rr daily settings", options={"channel": news})
            assert f"<#{news.id}>" in ok.text, ok.text
            assert f"posted in <#{news.id}>" in (await h.slash(ann, "rr daily settings")).text
            clock.now = NOON + 9 * 3600  # today, 21:00 UTC: within the reminder window
            await with_par(h, host.days.today())
            first = await day_once(h.bot)
            assert first == {"announced": 1, "reminded": 1, "closed": 0}
            posts = [m.text for m in h.messages(news) if not m.ephemeral]
            assert len(posts) == 1 and "Daily challenge #23" in posts[0]
            assert "🥇 ann" in posts[0] and "<@" not in posts[0]  # yesterday's podium
            # yesterday's whole key, published (issue 18), and how to replay that day
            key = day_key(h.bot.daily.days.secret, dt.date(2026, 11, 22)).hex()
            assert f"key, now published: `{key}`" in posts[0], posts[0]
            assert "the bot won in 9 rounds" in posts[0]
            reminders = [m.text for m in h.messages(h.dm_channel(ann))
                         if "streak breaks tonight" in m.text]
            assert len(reminders) == 1
            assert await day_once(h.bot) == {"announced": 0, "reminded": 0, "closed": 0}
            server = h.server
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock), server=server) as h:
            assert await day_once(h.bot) == {"announced": 0, "reminded": 0, "closed": 0}
            assert len([m for m in h.messages(news) if not m.ephemeral]) == 1
    run(scenario)


def test_a_player_who_hid_their_profile_is_left_off_the_daily_boards(tmp_path):
    """`/rr-stats privacy hidden:True` tells the player they are left off leaderboards, and
    the daily's are leaderboards too (the permissions audit: Ann was listed by name with her
    points). Others' boards and a server's podium leave her out; her own shows her row."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            ann, bob = h.user("ann"), h.user("bob")
            hid = await h.slash(ann, "rr-stats privacy", hidden=True)
            assert "left off leaderboards" in hid.text
            for user, seed in ((ann, 3), (bob, 4)):
                await h.slash(user, "rr daily play")
                table = Table(h, h.dm_channel(user))
                table.game_id = (await h.bot.store.open_game(slot(user.id, True))).id
                await table.play(random.Random(seed))
            seen_by_bob = await h.slash(bob, "rr daily leaderboard", channel=h.dm_channel(bob))
            assert "Ann" not in seen_by_bob.text and "🥇 Bob" in seen_by_bob.text, seen_by_bob.text
            seen_by_ann = await h.slash(ann, "rr daily leaderboard", channel=h.dm_channel(ann))
            assert "Ann" in seen_by_ann.text and "Bob" in seen_by_ann.text, seen_by_ann.text
            await h.slash(ann, "rr-stats privacy", hidden=False)  # shown again: listed again
            again = await h.slash(bob, "rr daily leaderboard", channel=h.dm_channel(bob))
            assert "Ann" in again.text
    asyncio.run(scenario())


def test_every_daily_prompt_gives_the_days_end_as_its_deadline(tmp_path):
    """The English new-player audit: the card said the day ends at 00:00 UTC (12 hours
    on), and every prompt of the attempt said "(time limit <t:…:R>)" seven days on — the
    seat's time limit, though the attempt closes with its day."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            ann = h.user("ann")
            dm = h.dm_channel(ann)
            await h.slash(ann, "rr daily play", channel=dm)
            end = int(daily.day_end(dt.date(2026, 11, 23)))
            stamps = {int(x) for m in h.visible_to(ann)
                      for x in re.findall(r"<t:(\d+):R>", m.text)}
            assert end in stamps and max(stamps) == end, (end, stamps)
            # /rr status says the same deadline as the prompts (it said the 7-day limit)
            status = await h.slash(ann, "rr status", channel=dm)
            assert f"<t:{end}:R>" in status.text, status.text
    run(scenario)


def test_a_practice_of_a_closed_day_keeps_its_seats_time_limit(tmp_path):
    """The Discord audit: practising yesterday's challenge, every prompt said "(time limit
    <t:…:R>)" at yesterday's 00:00 UTC end — "12 hours ago" — though a practice started
    after its day closed is left alone; it keeps the seat's limit, in the prompts and in
    /rr status alike."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann = h.user("ann")
            dm = h.dm_channel(ann)
            await h.slash(ann, "rr daily practice", date="2026-11-22", channel=dm)
            stamps = {int(x) for m in h.visible_to(ann)
                      for x in re.findall(r"<t:(\d+):R>", m.text)}
            assert stamps and min(stamps) > clock.now, (clock.now, stamps)
            status = await h.slash(ann, "rr status", channel=dm)
            shown = [int(x) for x in re.findall(r"<t:(\d+):R>", status.text)]
            assert shown and min(shown) > clock.now, status.text
    run(scenario)
