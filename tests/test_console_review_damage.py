"""The console's review, in memory (the process's own `Console`): a game's log damaged
after the console verified the game is reviewed from the log as verified, as the bot's is."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from test_console_play import Table

import service.review
import service.review_looks
from store import Store


def test_a_finished_game_whose_log_was_damaged_since_it_was_verified_is_reviewed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fault-injection audit: the console reviewed a finished game from the log as
    stored, not as verified; a log row damaged since the game was verified did not replay,
    and `review` said it could not be computed at every ask. It now replays the log as
    verified (as cogs/review.py does; a restart reports the damage)."""
    monkeypatch.setattr(service.review_looks, "SAMPLES", 1)  # the interface, not the estimate
    monkeypatch.setattr(service.review_looks, "RECHECK", 1)
    monkeypatch.setattr(service.review_looks, "DECIDED_FACTOR", 1)
    monkeypatch.setattr(service.review_looks, "LATE", 0)
    path = tmp_path / "c.db"

    async def run() -> str:
        store = await Store(str(path)).open()
        try:
            t = Table(store, ["--names", "Ann", "--seed", "3"])
            t.con.auto_board = False
            t.con.review_processes = False
            t.con.out_dir = tmp_path
            await t.start()
            for line in ("Ann: place thief 2B", "resign", "resign"):
                await t.type(line)
            with sqlite3.connect(path) as con:
                con.execute("UPDATE actions SET text='pick nonsense' WHERE seq=1")
            return await t.type("review")
        finally:
            await store.close()

    out = asyncio.run(run())
    assert "could not be computed" not in out, out
    assert "Game 1: the expert's review" in out and "Ann: accuracy" in out, out
