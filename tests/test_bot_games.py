"""Whole games played only through Discord interactions (slash commands, autocomplete,
buttons), with the HTTP edge recorded: a solo game and a 2-player game to the end, two
games in two channels at once."""

from __future__ import annotations

import asyncio
import random

from bot_driver import Clock, Table, make_bot
from discord_harness import Harness


def run(coro_fn, *args):
    return asyncio.run(coro_fn(*args))


def test_full_solo_game_through_interactions(tmp_path):
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=3)) as h:
            ann = h.user("ann")
            table = Table(h)
            await table.open(ann, players=1, difficulty="normal")
            await table.play(random.Random(1))
            row, g = await table.game()
            assert g.over and row.status == "over"
            last = [m for m in h.messages() if not m.ephemeral][-1]
            assert "Game over" in last.text
            assert any(f.filename.endswith(".png") for m in h.messages() for f in m.files)
    run(scenario)
