"""`kill -9` of real console processes at random moments loses and doubles nothing (a
brief run of bench/kill_loop.py; run it at length by hand) — on an SQLite file, and on
PostgreSQL, where each new process joins the shared database as a restarted bot would."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parents[1] / "bench"))  # never ahead of bot.py

import kill_loop  # noqa: E402

pytestmark = pytest.mark.slow  # real processes: `bash rr test -m 'not slow'` skips them


def test_kill_9_at_random_moments_loses_and_doubles_nothing(tmp_path):
    tally = kill_loop.run(kills=4, seed=11, workdir=str(tmp_path))
    # at least 4: a kill while a new process starts may come on top of the last one asked for
    assert tally.kills >= 4 and tally.actions > 0 and tally.applied > 0
    assert (tally.lost, tally.doubled, tally.inconsistent) == (0, 0, 0)


def test_kill_9_on_postgresql_loses_and_doubles_nothing(tmp_path, pg_url):
    tally = kill_loop.run(kills=4, seed=12, workdir=str(tmp_path), db=pg_url)
    # at least 4: a kill while a process starts may come on top of the last one asked for
    assert tally.kills >= 4 and tally.actions > 0 and tally.applied > 0
    assert (tally.lost, tally.doubled, tally.inconsistent) == (0, 0, 0)
