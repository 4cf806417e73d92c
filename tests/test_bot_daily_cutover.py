"""The week the daily's weekly rhythm begins (Monday 2026-11-30, `RHYTHM_FROM`) and the
week after, when rules 4 reaches it (2026-12-07, `RULES_FROM`), played through Discord
interactions with the clock moved day by day: each day's card names that day's number,
the difficulty its weekday's band deals (docs/daily.md, "The week's rhythm"; R13.2) and
its modifiers, and says how often the par wins it; the stored game is dealt under the
day's rules; and a streak runs on across the rhythm's first Monday (streaks count UTC
days, not bands). The fast random AI stands in for greedy and expert."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest
from bot_driver import Clock, make_bot
from harness import Harness

import service.daily_par as daily_par
from cogs.daily_job import day_once
from service import daily
from service.daily_schedule import HARSH, RHYTHM_FROM
from service.daily_score import Score
from service.daily_slots import slot

PLAYS = 3
FIRST = dt.date(2026, 11, 29)  # the Sunday before the rhythm


@pytest.fixture(autouse=True)
def fast_par(monkeypatch):
    monkeypatch.setattr(daily_par, "PAR_LEVELS", ("random",))
    monkeypatch.setattr(daily_par, "PAR_PLAYS", PLAYS)


def noon(day: dt.date) -> float:
    return daily.day_start(day) + 12 * 3600


def test_each_day_of_the_cutover_weeks_deals_and_shows_its_level_rules_and_odds(tmp_path):
    async def scenario():
        clock = Clock(noon(FIRST))
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann = h.user("ann")
            won = Score("won", 9, 12, 3, 14, 2).to_json()
            for i in range(9):  # 2026-11-29 (Sunday) … 2026-12-07 (the next Monday)
                day = FIRST + dt.timedelta(days=i)
                clock.now = noon(day)
                await day_once(h.bot)
                ch = h.bot.daily.days.challenge(day)
                if day >= RHYTHM_FROM:  # the weekday's band
                    want = {0: "easy", 1: "easy", 2: "normal", 3: "normal"}.get(
                        day.weekday(), "hard")
                    assert ch.difficulty == want, (day, ch.difficulty)
                    if day.weekday() == 6:  # Sunday: both harsh ones, Nightmare
                        assert {m.id for m in ch.modifiers} == HARSH
                assert ch.rules == (4 if day >= dt.date(2026, 12, 7) else 3), day
                p = h.user(f"p{i}")
                card = await h.slash(p, "rr daily play", channel=h.dm_channel(p))
                head = f"**Daily challenge #{daily.number_of(day)}** ({day.isoformat()})"
                assert head in card.text, card.text
                assert f"difficulty {ch.difficulty}" in card.text, card.text
                for m in ch.modifiers:
                    assert m.en.split(":")[0] in card.text, (m.en, card.text)
                assert "wins this day" in card.text and f"in {PLAYS}" in card.text, card.text
                row = await h.bot.store.open_game(slot(p.id, True))
                assert row is not None and row.setup is not None
                assert row.setup.get("rules") == ch.rules, (day, row.setup.get("rules"))
                # ann wins every day (stored as a finished attempt): her streak runs on
                await h.bot.daily.store.claim(ann.id, day.isoformat(), True, "ann", None)
                await h.bot.daily.store.end_attempt(ann.id, day.isoformat(), True,
                                                    "finished", won, None)
                stats = await h.slash(ann, "rr daily stats", channel=h.dm_channel(ann))
                assert f"win streak {i + 1} (best {i + 1})" in stats.text, (day, stats.text)
    asyncio.run(scenario())
