"""Today's par without the day job (issue 10, "Par"): a bot started mid-day computes it at
startup, and a player quicker than any job is answered at once with "the bot is still
playing it", which becomes the real par in that same answer once the AIs are done. The AIs
play in worker threads, never before an acknowledgement. The par levels are swapped for
the fast random AI here (the real ones' cost is bench/daily.py --par's)."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest
from bot_driver import Clock, make_bot
from harness import Harness

import bot as entry
import service.daily_par as daily_par
from cogs.bot import RookBot
from service.daily_score import Score

NOON = dt.datetime(2026, 11, 23, 12, tzinfo=dt.UTC).timestamp()


@pytest.fixture(autouse=True)
def fast_par(monkeypatch):
    monkeypatch.setattr(daily_par, "PAR_LEVELS", ("random",))


def par_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(("Par:", "パー:")))


def test_a_player_before_the_par_sees_it_computed_then_shown(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            ann = h.user("ann")
            day = h.bot.daily.days.today().isoformat()
            assert await h.bot.daily.store.par(day) is None
            res = await h.slash(ann, "rr daily play")
            assert res.deferred, "acknowledged at once, before any par work"
            msg = res.message
            assert msg is not None and msg.history, "the answer was edited once the par was known"
            before = [v.get("content") or "" for v in msg.history]
            assert any("the bot is still playing it" in v for v in before), before
            par = await h.bot.daily.store.par(day)
            assert par is not None and "random" in par
            rounds = par["random"]["score"]["rounds"]
            shown = par_line(res.text)
            assert "still playing" not in shown, shown
            points = f"{Score.from_json(par['random']['score']).points:,}"
            assert shown.endswith((f"won in {rounds} rounds ({points} points)",
                                   f"lost in round {rounds} ({points} points)")), shown
            # the edit came after the first answer: the answer never waited for the AIs
            kinds = [(r.method, r.route) for r in res.requests]
            edit = next(i for i, k in enumerate(kinds) if k[0] == "PATCH" and "@original" in k[1])
            post = next(i for i, k in enumerate(kinds) if k[0] in ("POST", "PATCH")
                        and "webhooks" in k[1])
            assert post < edit
    asyncio.run(scenario())


def test_a_bot_started_mid_day_computes_todays_par_at_once(tmp_path):
    def live_bot() -> RookBot:
        config = entry.load_config({"RR_DB": str(tmp_path / "d.db"), "RR_TICK_SECONDS": "3600"})
        assert config.daily_par_at_start  # as in production
        return RookBot(config, clock=Clock(NOON), seed_source=lambda: 7)

    async def scenario():
        async with Harness(live_bot) as h:
            await h.settle()
            day = h.bot.daily.days.today().isoformat()
            par = await h.bot.daily.store.par(day)
            assert par is not None, "computed at startup, not at the next 00:00 UTC"
            ann = h.user("ann", locale="ja")
            res = await h.slash(ann, "rr daily play")
            assert not any("挑戦中" in (v.get("content") or "") for v in res.message.history)
            assert f"{par['random']['score']['rounds']}ラウンド" in par_line(res.text), res.text
    asyncio.run(scenario())
