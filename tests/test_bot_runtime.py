"""How `bot.py` runs the bot's process (issue 22): the garbage collector's settings that keep
the event loop from stalling. Tests otherwise leave the collector alone (frozen objects are
never freed); tests/conftest.py puts it back after each test."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

from bot_driver import Clock, make_bot
from harness import Harness

from cogs.bot import GC_THRESHOLDS, RookBot


def test_the_production_bot_freezes_its_startup_and_collects_less_often(tmp_path: Path) -> None:
    """`bot.py` starts RookBot with `freeze_gc`: after startup what was loaded is frozen out
    of the collector's passes, and later passes come at GC_THRESHOLDS instead of Python's
    (700, 10, 10), whose full passes over every open game's objects stopped the loop for
    ~360 ms each at 500 busy games (README "Bot"). Without the flag nothing changes."""
    before = gc.get_threshold()  # Python's own: tests/conftest.py restores it after each test

    def production() -> RookBot:
        bot = make_bot(tmp_path / "p.db", Clock())
        bot.freeze_gc = True
        return bot

    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "t.db", Clock())):
            assert gc.get_threshold() == before and gc.get_freeze_count() == 0
        async with Harness(production):
            assert gc.get_threshold() == GC_THRESHOLDS
            assert gc.get_freeze_count() > 0

    asyncio.run(scenario())
