"""`kill -9` of real processes at random moments loses and doubles nothing (brief runs of
bench/kill_loop.py; run it at length by hand, README "Crashes"):

- console processes on an SQLite file, and on PostgreSQL, where each new process joins the
  shared database as a restarted bot would;
- console games with AI seats (issue 17): the kill also lands while the AIs' answers are
  being committed; every acknowledged line of the person is in the log once, no AI
  question is answered twice, the stored state is its replayed log (R15), and a restarted
  console resumes the AI seats (the game never waits on an AI);
- bot processes playing the daily challenge (issue 17), killed while starting, during
  `/rr daily play` (claim + game creation) and `/rr daily resign`: after each restart at
  most one ranked game per user and day, the attempt agrees with its game (playing ↔ its
  game active with the day's settings; finished ↔ scored, its game over or resigned), and
  nothing the player was told is lost or doubled.
"""

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


def test_kill_9_with_ai_seats_loses_nothing_and_the_ais_resume(tmp_path):
    tally = kill_loop.run(kills=4, seed=13, workdir=str(tmp_path), ai=["greedy", "random"],
                          max_seconds=25)
    assert tally.kills >= 2 and tally.applied > 0 and tally.ai_answers > 0
    assert (tally.lost, tally.doubled, tally.inconsistent) == (0, 0, 0)
    assert (tally.ai_doubled, tally.stuck) == (0, 0)  # no AI answer twice, none stuck


def test_kill_9_during_daily_starts_and_resigns_keeps_every_day_consistent(tmp_path, db):
    tally = kill_loop.run_daily(kills=4, seed=14, workdir=str(tmp_path), db=db.url,
                                max_seconds=15, step_kills=False)
    # (under load the few starts may all be killed: one that landed is enough to go on)
    assert sum(tally.kills.values()) >= 2 and tally.applied.get("play (a new attempt)", 0) > 0
    assert tally.problems == {"lost": {}, "doubled": {}, "inconsistent": {}}
