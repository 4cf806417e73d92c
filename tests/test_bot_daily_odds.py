"""Issue 19, "a par you can read", through Discord interactions with a frozen clock: the
day job has the par AIs play the day many times, and the day's card, the server news and
the result post say how often they won ("🤖 the expert bot wins this day 3 times in 10;
greedy 1 in 10"), in the reader's language; a player who comes before the day job is
answered with the par game alone, never made to wait for the many games. The fast random
AI stands in for greedy and expert (their cost is docs/daily.md's measurement)."""

from __future__ import annotations

import asyncio
import datetime as dt
import random

import discord
import pytest
from bot_driver import Clock, Table, make_bot
from harness import Harness

import service.daily_par as daily_par
from cogs.daily_job import day_once
from service.daily_score import par_odds
from service.daily_slots import slot

NOON = dt.datetime(2026, 11, 23, 12, tzinfo=dt.UTC).timestamp()
TODAY = "2026-11-23"
PLAYS = 4


@pytest.fixture(autouse=True)
def fast_par(monkeypatch):
    monkeypatch.setattr(daily_par, "PAR_LEVELS", ("random",))
    monkeypatch.setattr(daily_par, "PAR_PLAYS", PLAYS)


def odds_of(text: str) -> str:
    return next((line for line in text.splitlines() if line.startswith("🤖")), "")


def test_the_card_the_news_and_the_result_say_how_often_the_par_wins(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            news = h.text_channel("daily-news")
            mod = h.user("mod", permissions=discord.Permissions(manage_guild=True))
            await h.slash(mod, "rr daily settings", options={"channel": news})
            await day_once(h.bot)
            par = await h.bot.daily.store.par(TODAY)
            ((level, wins, plays),) = par_odds(par)
            assert (level, plays) == ("random", PLAYS)
            times = "time" if wins == 1 else "times"
            line = f"🤖 the random bot wins this day {wins} {times} in {PLAYS}"
            (posted,) = [m.text for m in h.messages(news) if not m.ephemeral]
            assert odds_of(posted) == line, posted
            ann = h.user("ann")
            card = await h.slash(ann, "rr daily play")
            assert odds_of(card.text) == line, card.text
            resigned = await h.slash(ann, "rr daily resign", confirm=True)
            assert odds_of(resigned.text) == line, resigned.text
            bob = h.user("bob")  # a game played to its end: the result post
            await h.slash(bob, "rr daily play")
            dm = h.dm_channel(bob)
            table = Table(h, dm)
            row = await h.bot.store.open_game(slot(bob.id, True))
            assert row is not None
            table.game_id = row.id
            await table.play(random.Random(2))
            result = next(m.text for m in reversed(h.messages(dm)) if "```" in m.text)
            assert odds_of(result) == line, result
            jun = h.user("jun", locale="ja")
            ja = await h.slash(jun, "rr daily play")
            assert odds_of(ja.text) == f"🤖 気まぐれボットはこの日{PLAYS}回中{wins}回勝利", ja.text
    asyncio.run(scenario())


def test_the_first_player_of_the_day_gets_the_par_game_without_waiting_for_the_odds(tmp_path):
    """Before the day job: the answer is sent, then edited with the par game's result once
    that one game per AI is played — the many games are the day job's, not the player's."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            ann = h.user("ann")
            res = await h.slash(ann, "rr daily play")
            assert res.deferred
            par = await h.bot.daily.store.par(TODAY)
            assert par is not None and "random" in par and par_odds(par) == []
            assert "Par: the bot " in res.text and odds_of(res.text) == "", res.text
            assert "Goal: defeat every monster by the end of the final round's Main phase" in res.text
            assert "A higher score is better: a win beats any loss" in res.text
            await day_once(h.bot)  # the day job adds the odds; the par game stays
            after = await h.bot.daily.store.par(TODAY)
            assert after["random"]["log"] == par["random"]["log"]
            assert [n for _, _, n in par_odds(after)] == [PLAYS]
    asyncio.run(scenario())


def test_odds_that_fail_hold_back_neither_the_news_nor_the_day(tmp_path, monkeypatch):
    """The odds are extra: when they cannot be measured (a store error, an AI crash) the
    day job still posts the news with the par game, and tries the odds at its next pass."""
    async def broken(self, day):
        raise RuntimeError("odds")

    monkeypatch.setattr(daily_par.DailyPar, "odds", broken)

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            news = h.text_channel("daily-news")
            mod = h.user("mod", permissions=discord.Permissions(manage_guild=True))
            await h.slash(mod, "rr daily settings", options={"channel": news})
            told = await day_once(h.bot)
            assert told["announced"] == 1, told
            (posted,) = [m.text for m in h.messages(news) if not m.ephemeral]
            assert "Par: the bot " in posted and odds_of(posted) == "", posted
    asyncio.run(scenario())
